// libsvm rows as xgboost 1.7 reads them (dmlc LibSVMParser, default indexing_mode 0):
//   <label>[:<weight>] [qid:<n>] <index>:<value> ...   [# comment]
// Indices are 0-based column numbers as written (an index 1 file has an empty column 0, as in
// xgboost); the width is the largest index + 1; absent entries are missing. Tokens are separated
// by blanks; a '#' starting a token starts a comment; blank and comment-only lines are skipped.
// qid is accepted after the label and ignored (no ranking objective is trained).
//
// DEVIATION(xgboost): dmlc skips characters it cannot use, so "1 x:2" reads as feature 2 = 1 and a
// NaN value breaks its parser; we refuse a malformed token with the file and line, read "nan" as a
// missing value, and refuse duplicate indices in a row and rows without a weight in a weighted file.

import { parseDmlcFloat } from './dmlc-float.js';
import { TrainingInputError } from './errors.js';
import type { SparseBuilder } from './matrix-builder.js';

const MAX_INDEX = 0x7fffffff; // xgboost's bst_feature_t is uint32; split indices keep 31 bits

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09;

export class LibsvmRowParser {
  private weighted: boolean | undefined;
  private rowCols: number[] = [];

  constructor(private readonly out: SparseBuilder) {}

  parseLine(buf: Uint8Array, start: number, end: number, file: string, line: number): void {
    const fail = (what: string): never => {
      throw new TrainingInputError(
        `${file}, line ${line}: ${what} (expected '<label>[:<weight>] <index>:<value> ...')`,
        file,
        line,
      );
    };
    const text = (a: number, b: number): string =>
      JSON.stringify(new TextDecoder().decode(buf.subarray(a, Math.min(b, a + 40))));
    let p = start;
    const nextToken = (): [number, number] | undefined => {
      while (p < end && isBlank(buf[p])) p++;
      if (p >= end || buf[p] === 0x23) return undefined; // end of line or '#' comment
      const s = p;
      while (p < end && !isBlank(buf[p])) p++;
      return [s, p];
    };
    const first = nextToken();
    if (!first) return; // blank or comment-only line
    const [ls, le] = first;
    let labelEnd = ls;
    while (labelEnd < le && buf[labelEnd] !== 0x3a) labelEnd++; // "label" or "label:weight"
    const label = parseDmlcFloat(buf, ls, labelEnd);
    if (label === undefined || !Number.isFinite(label)) fail(`the label ${text(ls, labelEnd)} is not a finite number`);
    let weight: number | undefined;
    if (labelEnd < le) {
      weight = parseDmlcFloat(buf, labelEnd + 1, le);
      if (weight === undefined || !Number.isFinite(weight) || weight < 0) {
        fail(`the instance weight ${text(labelEnd + 1, le)} is not a non-negative number`);
      }
    }
    if (this.weighted === undefined) this.weighted = weight !== undefined;
    else if (this.weighted !== (weight !== undefined)) {
      fail(
        this.weighted
          ? 'this row has no instance weight but earlier rows have one'
          : 'this row has an instance weight but earlier rows have none',
      );
    }

    const cols = this.rowCols;
    cols.length = 0;
    let sorted = true;
    let last = -1;
    let tok = nextToken();
    if (
      tok &&
      tok[1] - tok[0] >= 4 &&
      buf[tok[0]] === 0x71 &&
      buf[tok[0] + 1] === 0x69 &&
      buf[tok[0] + 2] === 0x64 &&
      buf[tok[0] + 3] === 0x3a
    ) {
      tok = nextToken(); // qid:<n> directly after the label
    }
    for (; tok; tok = nextToken()) {
      const [s, e] = tok;
      let c = s;
      let index = 0;
      while (c < e && buf[c] >= 0x30 && buf[c] <= 0x39) {
        if (index <= MAX_INDEX) index = index * 10 + (buf[c] - 0x30);
        c++;
      }
      if (c === s || c >= e || buf[c] !== 0x3a) fail(`${text(s, e)} is not <index>:<value>`);
      if (index > MAX_INDEX) fail(`feature index in ${text(s, e)} is too large`);
      const v = parseDmlcFloat(buf, c + 1, e);
      if (v === undefined) fail(`the value in ${text(s, e)} is not a number`);
      if (v === Infinity || v === -Infinity)
        fail(`the value in ${text(s, e)} is infinite; xgboost refuses infinite values`);
      if (index <= last) sorted = false;
      last = index;
      cols.push(index);
      this.out.addEntry(index, v as number);
    }
    if (!sorted && new Set(cols).size !== cols.length) fail('a feature index appears twice in the row');
    this.out.endRow(label as number, weight);
  }
}
