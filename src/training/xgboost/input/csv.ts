// CSV rows as the SageMaker XGBoost container reads them: no header, label in the first column,
// the instance weight in the second when csv_weights=1, features after; the delimiter is what
// Python's csv.Sniffer finds on the first line of the first file (data_utils._get_csv_delimiter);
// xgboost then reads every file with it (dmlc CSVParser: an empty cell is missing, "nan" is
// missing, a row may be shorter than others, the width is the last non-empty cell of the widest row).
// With a tab or space delimiter a blank cell is not a missing value: dmlc's strtof skips blanks, so
// consecutive delimiters collapse into one and the next value moves left (as xgboost reads them).
//
// DEVIATION(xgboost): dmlc reads whatever prefix of a cell looks like a number and treats the rest
// as missing, so a header row or a stray text column trains silently as zeros and missing values.
// We refuse such a cell with the file and line instead, and refuse an empty label or weight (dmlc
// reads them as 0 and NaN). Infinite values are refused as xgboost refuses them.

import { parseDmlcFloat } from './dmlc-float.js';
import { TrainingInputError } from './errors.js';
import type { BlockError } from './blocks.js';
import { csvKernel } from './csv-kernel.js';
import type { DenseRows } from './matrix-builder.js';

const PREFERRED = [',', '\t', ';', ' ', ':'];

/**
 * csv.Sniffer()._guess_delimiter on a single line (what the container passes it): every ASCII
 * character of the line is equally consistent, so the answer is the only character, else the first
 * of the preferred delimiters present, else the most frequent (ties: the highest code).
 */
export function sniffDelimiter(firstLine: string): string | undefined {
  const counts = new Map<string, number>();
  for (const ch of firstLine.replace(/\n/g, '')) {
    if (ch.charCodeAt(0) < 127) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  if (counts.size === 0) return undefined;
  if (counts.size === 1) return [...counts.keys()][0];
  for (const d of PREFERRED) if (counts.has(d)) return d;
  let best = '';
  let bestCount = -1;
  for (const [ch, n] of counts) {
    if (n > bestCount || (n === bestCount && ch > best)) {
      best = ch;
      bestCount = n;
    }
  }
  return best;
}

/** The delimiter for a channel whose first file starts with `firstLine`; throws like the container. */
export function csvDelimiterFor(firstLine: string, file: string): number {
  const d = sniffDelimiter(firstLine);
  if (d === undefined) {
    throw new TrainingInputError(
      `Could not determine delimiter on line ${JSON.stringify(firstLine.slice(0, 50))} of file '${file}': Could not determine delimiter`,
      file,
      1,
    );
  }
  if (/[0-9.eE+-]/.test(d)) {
    // DEVIATION(xgboost): the sniffer returns a digit for a one-column line ("1"), and xgboost then
    // splits numbers on it; a CSV with only a label has no features to train on anyway.
    throw new TrainingInputError(
      `Could not determine the CSV delimiter of file '${file}': its first line ${JSON.stringify(firstLine.slice(0, 50))} has a single column; the SageMaker XGBoost algorithm expects the label then at least one feature, separated by ',' (or tab, ';', ' ', ':' or '|')`,
      file,
      1,
    );
  }
  return d.charCodeAt(0);
}

const describeCell = (buf: Uint8Array, start: number, end: number): string =>
  JSON.stringify(new TextDecoder().decode(buf.subarray(start, Math.min(end, start + 40))));

const fround = Math.fround;
/** exact doubles 10^0 .. 10^15 */
const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);

const failed = (line: number, what: string): { lines: number; error: BlockError } => ({
  lines: line,
  error: { line, what },
});

function isBlank(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] !== 0x20 && buf[i] !== 0x09) return false;
  return true;
}

/**
 * Parses the CSV lines of buf[start, end) (whole lines: `end` is a line's end) into `out`.
 * `fileStart`: the first line is the file's first (a header row is named as such). Returns the
 * number of lines, or the first malformed line's error (its line counted from 1 in this block), or
 * `wider` when a row is wider than `out` can be.
 *
 * Runs of whole lines of usual cells (sign, at most 15 integer and 15 fraction digits, no exponent),
 * as many as the matrix is wide, are read by the WebAssembly kernel (csv-kernel.ts); a line it
 * stops at is read here, its usual cells in the same pass that finds their end, with dmlc-core's
 * arithmetic (dmlc-float.ts), anything else through parseDmlcFloat and the checks below.
 */
export function parseCsvLines(
  out: DenseRows,
  buf: Uint8Array,
  start: number,
  end: number,
  delimiter: number,
  weights: boolean,
  fileStart: boolean,
): { lines: number; error?: BlockError; wider?: boolean } {
  const collapse = delimiter === 0x20 || delimiter === 0x09;
  const skip = weights ? 2 : 1;
  // the kernel reads rows without weights; it is worth its copy of the block from a few lines on
  const kernel = weights || delimiter === 0 || end - start < 4096 ? null : csvKernel();
  kernel?.load(buf, start, end);
  /** lines to read here before the kernel is tried again (after it read none) */
  let here = 0;
  let line = 0;
  let p = start;
  while (p < end) {
    if (kernel && here === 0 && out.width > 0) {
      const r = kernel.rows(p - start, end - start, out.width, delimiter);
      if (r.rows > 0) {
        out.appendRows(kernel.cells(r.rows, out.width), kernel.labels(r.rows, out.width), r.rows);
        line += r.rows;
        p = start + r.pos;
        continue;
      }
      here = 16;
    }
    if (here > 0) here--;
    line++;
    let e = buf.indexOf(0x0a, p);
    if (e < 0 || e > end) e = end;
    const next = e + 1;
    if (e > p && buf[e - 1] === 0x0d) e--;
    if (isBlank(buf, p, e)) {
      p = next;
      continue;
    }
    out.beginRow();
    let cells = out.cells;
    let width = out.width;
    let base = out.numRows * width;
    let label = 0;
    let weight: number | undefined;
    let filled = 0; // features written (present or missing) from the row's start
    let column = 0;
    let i = p;
    for (;;) {
      const cs = i;
      let v = 0;
      let fast = false;
      let empty = false;
      // the usual cell, read as its end is found
      if (i < e) {
        let c = buf[i];
        let neg = false;
        if (c === 0x2d) {
          neg = true;
          c = buf[++i];
        } else if (c === 0x2b) c = buf[++i];
        const is = i;
        let n = 0;
        while (i < e && c >= 0x30 && c <= 0x39) {
          n = n * 10 + (c - 0x30);
          c = buf[++i];
        }
        const intDigits = i - is;
        let fracDigits = 0;
        let m = 0;
        if (i < e && c === 0x2e) {
          c = buf[++i];
          const fs = i;
          while (i < e && c >= 0x30 && c <= 0x39) {
            m = m * 10 + (c - 0x30);
            c = buf[++i];
          }
          fracDigits = i - fs;
        }
        if ((i === e || c === delimiter) && intDigits <= 15 && fracDigits <= 15 && intDigits + fracDigits > 0) {
          v = fround(n);
          if (fracDigits > 0) v = fround(v + fround(m / POW10[fracDigits]));
          if (neg) v = -v;
          fast = true;
        }
      }
      if (!fast) {
        i = cs;
        while (i < e && buf[i] !== delimiter) i++;
        const parsed = parseDmlcFloat(buf, cs, i);
        empty = parsed === undefined && isBlank(buf, cs, i);
        if (empty && collapse) {
          if (i >= e) break;
          i++;
          continue;
        }
        if (parsed === undefined && !empty) {
          const cell = describeCell(buf, cs, i);
          if (column === 0 && line === 1 && fileStart) {
            return failed(
              line,
              `the label ${cell} is not a number; a header row? The SageMaker XGBoost algorithm reads CSV without a header, label in the first column`,
            );
          }
          return failed(
            line,
            `column ${column + 1} holds ${cell}, which is not a number (empty cells and "nan" are missing values)`,
          );
        }
        if (parsed === Infinity || parsed === -Infinity) {
          return failed(
            line,
            `column ${column + 1} is infinite; xgboost refuses infinite values (Input data contains \`inf\`)`,
          );
        }
        v = empty ? Number.NaN : (parsed as number);
      }
      if (column === 0) {
        if (empty || Number.isNaN(v)) return failed(line, 'the label (first column) is missing');
        label = v;
      } else if (column === 1 && weights) {
        if (empty || Number.isNaN(v))
          return failed(line, 'the instance weight (second column, csv_weights=1) is missing');
        if (v < 0) return failed(line, `the instance weight ${v} is negative`);
        weight = v;
      } else {
        const f = column - skip;
        if (f >= width && !empty) {
          // a wider row: the rows so far, this one included, re-laid out (a window cannot: the
          // block is read again where the matrix is)
          if (!out.widen(f + 1, true)) return { lines: line, wider: true };
          cells = out.cells;
          width = out.width;
          base = out.numRows * width;
        }
        if (f < width) {
          cells[base + f] = v;
          filled = f + 1;
        }
      }
      column++;
      if (i >= e) break;
      i++; // the delimiter
    }
    if (weights && column < 2)
      return failed(line, 'csv_weights=1 needs the weight in the second column; the row has one column');
    out.endRow(filled, label, weight);
    p = next;
  }
  return { lines: line };
}
