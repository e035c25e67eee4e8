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
import type { DenseBuilder } from './matrix-builder.js';

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

/** Parses CSV lines of one channel into a DenseBuilder. */
export class CsvRowParser {
  private row = new Float32Array(64);
  private readonly collapse: boolean;
  constructor(
    private readonly out: DenseBuilder,
    private readonly delimiter: number,
    private readonly weights: boolean,
  ) {
    this.collapse = delimiter === 0x20 || delimiter === 0x09;
  }

  /** Parse buf[start, end) (no line terminator); `line` is 1-based within `file`. */
  parseLine(buf: Uint8Array, start: number, end: number, file: string, line: number): void {
    const fail = (what: string): never => {
      throw new TrainingInputError(`${file}, line ${line}: ${what}`, file, line);
    };
    let label = 0;
    let weight: number | undefined;
    let width = 0; // features up to the last non-empty cell
    let column = 0;
    let cellStart = start;
    const d = this.delimiter;
    for (let i = start; i <= end; i++) {
      if (i < end && buf[i] !== d) continue;
      const v = parseDmlcFloat(buf, cellStart, i);
      const empty = v === undefined && isBlank(buf, cellStart, i);
      if (empty && this.collapse) {
        cellStart = i + 1;
        continue;
      }
      if (v === undefined && !empty) {
        const cell = describeCell(buf, cellStart, i);
        if (column === 0 && line === 1) {
          fail(
            `the label ${cell} is not a number; a header row? The SageMaker XGBoost algorithm reads CSV without a header, label in the first column`,
          );
        }
        fail(`column ${column + 1} holds ${cell}, which is not a number (empty cells and "nan" are missing values)`);
      }
      if (v === Infinity || v === -Infinity) {
        fail(`column ${column + 1} is infinite; xgboost refuses infinite values (Input data contains \`inf\`)`);
      }
      if (column === 0) {
        if (empty || Number.isNaN(v)) fail('the label (first column) is missing');
        label = v as number;
      } else if (this.weights && column === 1) {
        if (empty || Number.isNaN(v)) fail('the instance weight (second column, csv_weights=1) is missing');
        if ((v as number) < 0) fail(`the instance weight ${v} is negative`);
        weight = v;
      } else {
        const f = column - (this.weights ? 2 : 1);
        if (f >= this.row.length) this.growRow(f + 1);
        this.row[f] = empty ? Number.NaN : (v as number);
        if (!empty) width = f + 1;
      }
      column++;
      cellStart = i + 1;
    }
    if (this.weights && column < 2) fail('csv_weights=1 needs the weight in the second column; the row has one column');
    this.out.addRow(this.row, width, label, weight);
  }

  private growRow(min: number): void {
    let n = this.row.length * 2;
    while (n < min) n *= 2;
    const next = new Float32Array(n);
    next.set(this.row);
    this.row = next;
  }
}

function isBlank(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] !== 0x20 && buf[i] !== 0x09) return false;
  return true;
}
