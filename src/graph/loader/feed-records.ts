// One CSV record of a feed read by the file's plan (its header) into the vertex or the edge the
// loader writes, with its typed property values, or the error Neptune's loader reports for it.
// https://docs.aws.amazon.com/neptune/latest/userguide/bulk-load-tutorial-format-gremlin.html
import { randomUUID } from 'node:crypto';
import type { CsvField } from '../csv/csv-parser.js';
import { type Column, type FilePlan, splitArray } from '../csv/headers.js';
import type { EdgeRow, PropRow } from '../store/graph-store.js';
import { parseValue, type TypedValue, type ValueType } from '../store/values.js';
import type { LoadCounters, LoadErrorCode } from './feed-types.js';

export interface PendingProp extends PropRow {
  readonly line: number;
  readonly single: boolean;
}

export interface PendingVertex {
  readonly id: string;
  readonly line: number;
  readonly labels: readonly string[];
  readonly props: readonly PendingProp[];
}

export interface PendingEdge extends EdgeRow {
  readonly line: number;
  readonly props: readonly PendingProp[];
}

/** What is wrong with a record, and the counter it counts in. */
export interface RecordError {
  readonly errorCode: LoadErrorCode;
  readonly errorMessage: string;
  readonly counter: keyof LoadCounters;
}

const NO_PROPS: never[] = [];

/** A vertex's ~label field: `;`-separated labels, trimmed, without empty ones or repeats. */
function vertexLabels(label: string | null): string[] {
  if (!label) return [];
  if (!label.includes(';')) {
    const l = label.trim();
    return l === '' ? [] : [l];
  }
  return [
    ...new Set(
      label
        .split(';')
        .map((l) => l.trim())
        .filter((l) => l !== ''),
    ),
  ];
}

type PropertyColumn = Extract<Column, { kind: 'property' }>;

/** One value of a property column; its owner is set once the record's ~id is known. */
function pendingProp(
  c: PropertyColumn,
  type: ValueType,
  value: string,
  num: number | null,
  line: number,
): { -readonly [K in keyof PendingProp]: PendingProp[K] } {
  return { owner: '', name: c.name, type, value, num, line, single: c.cardinality === 'single' };
}

const parsingError = (errorMessage: string): RecordError => ({
  errorCode: 'PARSING_ERROR',
  errorMessage,
  counter: 'parsingErrors',
});

/** Reads the records of one file; keeps each column's last parsed value (exports repeat them). */
export class RecordReader {
  readonly #columns: readonly Column[];
  readonly #propColumns: number;
  readonly #lastText: (string | undefined)[] = [];
  readonly #lastValue: (TypedValue | undefined)[] = [];

  constructor(
    private readonly plan: FilePlan,
    private readonly allowEmptyStrings: boolean,
  ) {
    this.#columns = plan.columns;
    this.#propColumns = plan.columns.filter((c) => c.kind === 'property').length;
  }

  /** The record as the plan's element (a vertex, or an edge: `from` tells), or its error. */
  read(fields: CsvField[], line: number): PendingVertex | PendingEdge | RecordError {
    const cols = this.#columns;
    if (fields.length !== cols.length) {
      return parsingError(`Record has ${fields.length} fields but the header has ${cols.length}`);
    }
    let id: string | null = null;
    let label: string | null = null;
    let from: string | null = null;
    let to: string | null = null;
    // One object per value; its owner is set once the ~id is known (it may come after it).
    // (A file without property columns shares one empty list: nothing is ever added to it.)
    // (Sized for one value a column: an empty array's first push reserves 17 slots.)
    const props: { -readonly [K in keyof PendingProp]: PendingProp[K] }[] =
      this.#propColumns > 0 ? new Array(this.#propColumns) : NO_PROPS;
    let np = 0;
    for (let i = 0; i < cols.length; i++) {
      const c = cols[i]!;
      const f = fields[i]!;
      switch (c.kind) {
        case 'id':
          id = f;
          break;
        case 'label':
          label = f;
          break;
        case 'from':
          from = f;
          break;
        case 'to':
          to = f;
          break;
        case 'ignore':
          break;
        case 'property': {
          if (f === null) break;
          if (f === '' && !(this.allowEmptyStrings && c.type === 'string')) break;
          if (!c.array && c.type === 'string') {
            // A string is its own value (what parseValue gives, without an object per value).
            props[np++] = pendingProp(c, 'string', f, null, line);
            break;
          }
          const texts = c.array ? splitArray(f) : [f];
          for (const t of texts) {
            if (c.array && t === '' && !(this.allowEmptyStrings && c.type === 'string')) continue;
            const v = this.#value(c.type, i, t);
            if (!v) {
              return {
                errorCode: 'PARSING_ERROR',
                errorMessage: `Data type mismatch: '${t}' is not a valid ${c.type} value for property '${c.name}'`,
                counter: 'datatypeMismatchErrors',
              };
            }
            props[np++] = pendingProp(c, v.type, v.value, v.num, line);
          }
          break;
        }
      }
    }
    if (np < props.length) props.length = np;
    if (this.plan.element === 'vertex') {
      if (!id) return parsingError('Missing ~id value for vertex');
      for (const p of props) p.owner = id;
      return { id, line, labels: vertexLabels(label), props };
    }
    if (!id && this.plan.generatedIds) id = randomUUID();
    if (!id) return parsingError('Missing ~id value for edge');
    if (!from || !to) return parsingError(`Missing ${from ? '~to' : '~from'} value for edge '${id}'`);
    const edgeLabel = label?.trim() || 'edge';
    if (edgeLabel.includes(';') && this.plan.format === 'csv') {
      return parsingError(`An edge can only have one label, got '${edgeLabel}'`);
    }
    for (const p of props) p.owner = id;
    return { id, label: edgeLabel, from, to, line, props };
  }

  /** Column i's value of `text`; the column's last parse is reused when the text repeats. */
  #value(type: ValueType, i: number, text: string): TypedValue | undefined {
    if (this.#lastText[i] === text) return this.#lastValue[i];
    const v = parseValue(type, text);
    if (v) {
      this.#lastText[i] = text;
      this.#lastValue[i] = v;
    }
    return v;
  }
}
