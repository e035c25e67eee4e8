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
import type { BlockError } from './blocks.js';
import type { SparseBuilder } from './matrix-builder.js';

const MAX_INDEX = 0x7fffffff; // xgboost's bst_feature_t is uint32; split indices keep 31 bits

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09;

/** What parsing a block of libsvm lines found (see parseLibsvmLines). */
export interface LibsvmOutcome {
  lines: number;
  error?: BlockError;
  /** whether the rows carry instance weights (the first row decides), undefined before any row */
  weighted: boolean | undefined;
  /** the line of the block's first row, when `weighted` was undefined on entry */
  firstRowLine?: number;
}

const WEIGHT_MISMATCH = (weighted: boolean): string =>
  weighted
    ? 'this row has no instance weight but earlier rows have one'
    : 'this row has an instance weight but earlier rows have none';

/** The error of a row whose weighting differs from the rows before it (blocks.ts checks blocks). */
export const weightMismatch = (weighted: boolean, line: number): BlockError => ({
  line,
  what: `${WEIGHT_MISMATCH(weighted)} ${EXPECTED}`,
});

const EXPECTED = "(expected '<label>[:<weight>] <index>:<value> ...')";

/**
 * Parses the libsvm lines of buf[start, end) (whole lines) into `out`. `weighted`: whether the
 * channel's rows so far carry weights (undefined: none seen, or not known on this thread). Returns
 * the number of lines or the first malformed line's error (its line counted from 1 in this block).
 */
export function parseLibsvmLines(
  out: SparseBuilder,
  buf: Uint8Array,
  start: number,
  end: number,
  weighted: boolean | undefined,
): LibsvmOutcome {
  const result: LibsvmOutcome = { lines: 0, weighted };
  const rowCols: number[] = [];
  let line = 0;
  let p = start;
  const text = (a: number, b: number): string =>
    JSON.stringify(new TextDecoder().decode(buf.subarray(a, Math.min(b, a + 40))));
  while (p < end) {
    line++;
    let e = buf.indexOf(0x0a, p);
    if (e < 0 || e > end) e = end;
    const next = e + 1;
    if (e > p && buf[e - 1] === 0x0d) e--;
    const failed = parseRow(p, e);
    if (failed !== undefined) {
      result.lines = line;
      result.error = { line, what: `${failed} ${EXPECTED}` };
      return result;
    }
    p = next;
  }
  result.lines = line;
  return result;

  /** one line; returns what is wrong with it */
  function parseRow(start: number, end: number): string | undefined {
    let q = start;
    const nextToken = (): [number, number] | undefined => {
      while (q < end && isBlank(buf[q])) q++;
      if (q >= end || buf[q] === 0x23) return undefined; // end of line or '#' comment
      const s = q;
      while (q < end && !isBlank(buf[q])) q++;
      return [s, q];
    };
    const first = nextToken();
    if (!first) return undefined; // blank or comment-only line
    const [ls, le] = first;
    let labelEnd = ls;
    while (labelEnd < le && buf[labelEnd] !== 0x3a) labelEnd++; // "label" or "label:weight"
    const label = parseDmlcFloat(buf, ls, labelEnd);
    if (label === undefined || !Number.isFinite(label)) return `the label ${text(ls, labelEnd)} is not a finite number`;
    let weight: number | undefined;
    if (labelEnd < le) {
      weight = parseDmlcFloat(buf, labelEnd + 1, le);
      if (weight === undefined || !Number.isFinite(weight) || weight < 0) {
        return `the instance weight ${text(labelEnd + 1, le)} is not a non-negative number`;
      }
    }
    if (result.weighted === undefined) {
      result.weighted = weight !== undefined;
      result.firstRowLine = line;
    } else if (result.weighted !== (weight !== undefined)) return WEIGHT_MISMATCH(result.weighted);

    const cols = rowCols;
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
      if (c === s || c >= e || buf[c] !== 0x3a) return `${text(s, e)} is not <index>:<value>`;
      if (index > MAX_INDEX) return `feature index in ${text(s, e)} is too large`;
      const v = parseDmlcFloat(buf, c + 1, e);
      if (v === undefined) return `the value in ${text(s, e)} is not a number`;
      if (v === Infinity || v === -Infinity)
        return `the value in ${text(s, e)} is infinite; xgboost refuses infinite values`;
      if (index <= last) sorted = false;
      last = index;
      cols.push(index);
      out.addEntry(index, v);
    }
    if (!sorted && new Set(cols).size !== cols.length) return 'a feature index appears twice in the row';
    out.endRow(label, weight);
    return undefined;
  }
}
