// A streaming RFC 4180 CSV parser: fields separated by commas, records by CRLF or LF, fields with
// commas, quotes or line breaks enclosed in double quotes, a quote inside them doubled.
// https://www.rfc-editor.org/rfc/rfc4180 (the Neptune loader reads CSV this way:
// https://docs.aws.amazon.com/neptune/latest/userguide/bulk-load-tutorial-format-gremlin.html)

/**
 * One record: its fields and the 1-based line on which it starts. An unquoted empty field is null
 * (Neptune's "blank value"), a quoted empty one `""` is the empty string.
 */
export type CsvField = string | null;

export interface CsvSink {
  record(fields: CsvField[], line: number): void;
  /** A record that breaks the grammar; the parser resumes at the next line break. */
  error(message: string, line: number): void;
}

enum S {
  FieldStart,
  Unquoted,
  Quoted,
  QuoteInQuoted,
  /** After a grammar error: skip to the end of the line. */
  Skip,
}

const COMMA = 44;
const QUOTE = 34;
const LF = 10;
const CR = 13;

/**
 * Push parser: write() decoded text chunks, then end(). Records are delivered synchronously to the
 * sink, so a caller can batch them and apply back-pressure between chunks.
 */
export class CsvParser {
  #state = S.FieldStart;
  #fields: CsvField[] = [];
  /** Text of the current field collected from earlier chunks (fields may span chunks). */
  #partial = '';
  #line = 1;
  #recordLine = 1;
  #sawCr = false;
  /** In write(): the chunk's next double quote and carriage return (see #plainLines). */
  #quote = -1;
  #cr = -1;
  /** Fields of the last line #plainLines cut. */
  #width = 0;

  constructor(private readonly sink: CsvSink) {}

  /** The line the parser is on (1-based). */
  get line(): number {
    return this.#line;
  }

  write(chunk: string): void {
    const n = chunk.length;
    let i = 0;
    // Start of the current field's text within this chunk.
    let start = 0;
    this.#quote = -1;
    this.#cr = -1;
    while (i < n) {
      if (this.#state === S.FieldStart && this.#fields.length === 0 && !this.#sawCr && this.#partial === '') {
        // At a line's start: whole lines without quotes are cut with indexOf (a quarter of the
        // time of the character loop below, which takes any other line).
        i = this.#plainLines(chunk, i, n);
        start = i;
        if (i >= n) break;
      }
      const c = chunk.charCodeAt(i);
      if (this.#sawCr) {
        this.#sawCr = false;
        // CRLF: the CR already ended the record.
        if (c === LF && this.#state === S.FieldStart && this.#fields.length === 0) {
          i++;
          start = i;
          continue;
        }
      }
      switch (this.#state) {
        case S.FieldStart:
          if (c === QUOTE) {
            this.#state = S.Quoted;
            i++;
            start = i;
          } else if (c === COMMA) {
            this.#fields.push(null);
            i++;
            start = i;
          } else if (c === LF || c === CR) {
            this.#endLine(c);
            // A line with no characters at all is skipped, not a record of one blank field.
            if (this.#fields.length > 0) {
              this.#fields.push(null);
              this.#emit();
            }
            this.#recordLine = this.#line;
            i++;
            start = i;
          } else {
            this.#state = S.Unquoted;
            start = i;
            // Fast path: scan to the next delimiter.
            i = scanUnquoted(chunk, i + 1, n);
          }
          break;
        case S.Unquoted:
          if (c === COMMA) {
            this.#fields.push(this.#take(chunk, start, i));
            this.#state = S.FieldStart;
            i++;
            start = i;
          } else if (c === LF || c === CR) {
            this.#fields.push(this.#take(chunk, start, i));
            this.#endLine(c);
            this.#emit();
            this.#recordLine = this.#line;
            this.#state = S.FieldStart;
            i++;
            start = i;
          } else if (c === QUOTE) {
            // RFC 4180: a field that contains a quote must be quoted.
            this.#fail('unexpected double quote in an unquoted field');
            i++;
            start = i;
          } else {
            i = scanUnquoted(chunk, i + 1, n);
          }
          break;
        case S.Quoted: {
          const q = chunk.indexOf('"', i);
          const end = q === -1 ? n : q;
          // Count line breaks inside the quoted text so later records report the right line.
          for (let j = chunk.indexOf('\n', i); j !== -1 && j < end; j = chunk.indexOf('\n', j + 1)) this.#line++;
          if (q === -1) {
            i = n;
          } else {
            this.#partial += chunk.slice(start, q);
            this.#state = S.QuoteInQuoted;
            i = q + 1;
            start = i;
          }
          break;
        }
        case S.QuoteInQuoted:
          if (c === QUOTE) {
            // "" inside quotes is one quote character.
            this.#partial += '"';
            this.#state = S.Quoted;
            i++;
            start = i;
          } else if (c === COMMA) {
            this.#fields.push(this.#takePartial());
            this.#state = S.FieldStart;
            i++;
            start = i;
          } else if (c === LF || c === CR) {
            this.#fields.push(this.#takePartial());
            this.#endLine(c);
            this.#emit();
            this.#recordLine = this.#line;
            this.#state = S.FieldStart;
            i++;
            start = i;
          } else {
            this.#fail('characters after the closing double quote of a field');
            start = i;
          }
          break;
        case S.Skip:
          if (c === LF || c === CR) {
            this.#endLine(c);
            this.#recordLine = this.#line;
            this.#state = S.FieldStart;
          }
          i++;
          start = i;
          break;
      }
    }
    // Keep the unfinished field's text for the next chunk.
    if (this.#state === S.Unquoted || this.#state === S.Quoted) this.#partial += chunk.slice(start, n);
  }

  end(): void {
    switch (this.#state) {
      case S.Quoted:
        this.sink.error('unterminated quoted field (unbalanced double quotes)', this.#recordLine);
        break;
      case S.Unquoted:
        this.#fields.push(this.#takePartial());
        this.#emit();
        break;
      case S.QuoteInQuoted:
        this.#fields.push(this.#takePartial());
        this.#emit();
        break;
      case S.FieldStart:
        // "a,b," at EOF ends with one blank field.
        if (this.#fields.length > 0) {
          this.#fields.push(null);
          this.#emit();
        }
        break;
      case S.Skip:
        break;
    }
    this.#fields = [];
    this.#state = S.FieldStart;
  }

  /**
   * Emits the whole lines from `i` that hold no double quote and no carriage return but one just
   * before their line feed, as the character loop would: an empty field is null, a line without
   * characters is skipped. Returns where the first line it did not take starts.
   */
  #plainLines(chunk: string, i: number, n: number): number {
    for (;;) {
      const lf = chunk.indexOf('\n', i);
      if (lf < 0) return i;
      // The next quote and carriage return at or after i, kept for the chunk (n: none).
      if (this.#quote < i) this.#quote = indexOrEnd(chunk, '"', i, n);
      if (this.#quote < lf) return i;
      if (this.#cr < i) this.#cr = indexOrEnd(chunk, '\r', i, n);
      let end = lf;
      if (this.#cr < lf) {
        if (this.#cr !== lf - 1) return i;
        end = lf - 1;
      }
      if (end > i) {
        // Sized as the line before (an empty array's first push reserves 17 slots).
        const fields = new Array<CsvField>(this.#width);
        let k = 0;
        let s = i;
        for (;;) {
          const comma = chunk.indexOf(',', s);
          if (comma < 0 || comma > end) {
            fields[k++] = s === end ? null : chunk.slice(s, end);
            break;
          }
          fields[k++] = comma === s ? null : chunk.slice(s, comma);
          s = comma + 1;
        }
        if (k < fields.length) fields.length = k;
        this.#width = k;
        this.sink.record(fields, this.#line);
      }
      this.#line++;
      this.#recordLine = this.#line;
      i = lf + 1;
    }
  }

  #endLine(c: number): void {
    this.#line++;
    if (c === CR) this.#sawCr = true;
  }

  #take(chunk: string, start: number, end: number): string {
    const s = this.#partial ? this.#partial + chunk.slice(start, end) : chunk.slice(start, end);
    this.#partial = '';
    return s;
  }

  #takePartial(): string {
    const s = this.#partial;
    this.#partial = '';
    return s;
  }

  #emit(): void {
    const fields = this.#fields;
    this.#fields = [];
    this.sink.record(fields, this.#recordLine);
  }

  #fail(message: string): void {
    this.sink.error(message, this.#recordLine);
    this.#fields = [];
    this.#partial = '';
    this.#state = S.Skip;
  }
}

function indexOrEnd(s: string, c: string, i: number, n: number): number {
  const at = s.indexOf(c, i);
  return at < 0 ? n : at;
}

function scanUnquoted(s: string, i: number, n: number): number {
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === COMMA || c === LF || c === CR || c === QUOTE) return i;
    i++;
  }
  return i;
}

/** Parses a whole string (tests, small files). */
export function parseCsvText(text: string): {
  records: { fields: CsvField[]; line: number }[];
  errors: { message: string; line: number }[];
} {
  const records: { fields: CsvField[]; line: number }[] = [];
  const errors: { message: string; line: number }[] = [];
  const p = new CsvParser({
    record: (fields, line) => records.push({ fields, line }),
    error: (message, line) => errors.push({ message, line }),
  });
  p.write(text);
  p.end();
  return { records, errors };
}
