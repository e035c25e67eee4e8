// A channel's text cut into blocks of whole lines, each parsed on its own (on the reading thread or
// on another: ParseThreads) into rows of its own, then appended to the matrix in the channel's
// order (read-channel.ts). A block's result carries its line count, so the line of an error is
// known once the blocks before it are in; and the first error in the channel's order is the one
// reported, whichever thread finished first.

import { parseCsvLines } from './csv.js';
import { parseLibsvmLines } from './libsvm.js';
import { DenseWindow, type DenseWindowSpec, SparseBuilder, type SparseRowsBlock } from './matrix-builder.js';

/** A malformed line of a block: its line counted from 1 in the block, and what is wrong. */
export interface BlockError {
  line: number;
  what: string;
}

/** How a block's lines are read. */
export interface BlockSpec {
  readonly format: 'csv' | 'libsvm';
  /** CSV: the delimiter's character code; csv_weights=1 */
  readonly delimiter: number;
  readonly weights: boolean;
  /** the block starts its file (CSV: a bad first cell is named a header) */
  readonly fileStart: boolean;
  /** CSV: the window of the matrix the rows go to (as many rows as the block has lines) */
  readonly window?: DenseWindowSpec;
}

/** What parsing a block gave: its rows, or its first error. */
export interface BlockResult {
  lines: number;
  error?: BlockError;
  /** CSV: the rows written into the window; `wider`: a row did not fit its width */
  written?: number;
  wider?: boolean;
  /** libsvm: whether the block's rows carry weights, and the line of its first row, and the rows */
  weighted?: boolean;
  firstRowLine?: number;
  rows?: SparseRowsBlock;
}

/**
 * Parses buf[start, end) (whole lines) as a parsing thread does: CSV rows into the spec's window of
 * the matrix, libsvm rows into arrays of their own. `buf` must hold at least one byte after `end`
 * (the CSV reader looks one byte past a cell).
 */
export function parseBlock(spec: BlockSpec, buf: Uint8Array, start: number, end: number): BlockResult {
  if (spec.format === 'csv') {
    const out = new DenseWindow(spec.window as DenseWindowSpec);
    const r = parseCsvLines(out, buf, start, end, spec.delimiter, spec.weights, spec.fileStart);
    return { ...r, written: out.numRows };
  }
  const out = new SparseBuilder();
  const r = parseLibsvmLines(out, buf, start, end, undefined);
  return r.error ? r : { ...r, rows: out.block() };
}

/** The buffers of a result, to transfer rather than copy between threads. */
export function resultBuffers(r: BlockResult): ArrayBuffer[] {
  const rows = r.rows;
  if (rows === undefined) return [];
  const arrays = [rows.cols, rows.vals, rows.rowEnds, rows.labels, rows.weights];
  return arrays.flatMap((a) => (a === undefined ? [] : [a.buffer as ArrayBuffer]));
}

/**
 * Threads that parse blocks (hist-team.ts's idle histogram threads, parse-threads.ts). `parse`
 * takes the block's buffer (transferred: the caller must not touch it) and gives back the result
 * and the buffer, for the next block.
 */
export interface ParseThreads {
  readonly size: number;
  parse(
    spec: BlockSpec,
    buf: Uint8Array,
    start: number,
    end: number,
  ): Promise<{ result: BlockResult; buf: Uint8Array }>;
}
