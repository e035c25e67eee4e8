// The quantized training matrix of tree_method hist/approx in a team's arena (xgboost 1.7's
// GHistIndexMatrix and ColumnMatrix, src/data/gradient_index.cc, src/common/column_matrix.h): the
// cut points sketched feature by feature (./cuts.ts), a column-major feature-local bin per cell
// that partitioning reads, and the row-major copy the histogram kernels read. Features are claimed
// one at a time by whichever thread is free (a shared counter); the row-major copy is written by
// row chunks, so no two threads write the same cache line.

import { assembleCuts, CUT_BLOCK, ColumnCutter, type Cuts } from './cuts.js';
import { gatherScratchBytes } from './hist-build-kernel.js';
import { D, rowChunk, Task, type TeamThread } from './hist-tasks.js';
import type { Team } from './hist-team.js';
import type { SplitParams } from './split.js';

/** The main thread's handle on the matrix in the arena. */
export interface HistMatrix {
  numRows: number;
  numCols: number;
  cuts: Cuts;
  /** no missing value at all (DMatrix::IsDense) */
  dense: boolean;
  /** byte offsets: the descriptor (hist-tasks.ts D), the rows */
  desc: number;
  rows: number;
  /** bytes of one histogram: 16 per bin of every feature at its most bins, whatever this round's cuts */
  histBytes: number;
}

const KEY_BITS = 16;

// ---- tasks (any thread) ----

/** Task.Sketch: the cut values of blocks of features claimed one by one. */
export function cutColumns(th: TeamThread, buf: ArrayBufferLike, d: Float64Array): void {
  const n = d[D.numRows];
  const nc = d[D.numCols];
  const maxBins = d[D.maxBins];
  const values = new Float32Array(buf, d[D.sketchValues], nc * maxBins);
  const counts = new Int32Array(buf, d[D.sketchCounts], nc);
  const mins = new Float32Array(buf, d[D.sketchMins], nc);
  const sizes = new Float64Array(buf, d[D.colSizes], nc);
  let cutter = th.scratch.get('cutter') as ColumnCutter | undefined;
  if (cutter === undefined) {
    cutter = new ColumnCutter();
    th.scratch.set('cutter', cutter);
  }
  const data = th.data as Float32Array;
  const blocks = Math.ceil(nc / CUT_BLOCK);
  for (;;) {
    const blk = Atomics.add(th.ctrl, th.next, 1);
    if (blk >= blocks) return;
    const c0 = blk * CUT_BLOCK;
    const c1 = Math.min(c0 + CUT_BLOCK, nc);
    cutter.gather(data, n, nc, c0, c1, th.weights);
    for (let c = c0; c < c1; c++) {
      counts[c] = cutter.column(
        c - c0,
        maxBins,
        th.weights !== undefined,
        values.subarray(c * maxBins, (c + 1) * maxBins),
      );
      mins[c] = cutter.minValue;
      sizes[c] = cutter.colSize;
    }
  }
}

function colsView(buf: ArrayBufferLike, d: Float64Array): Uint8Array | Uint16Array | Uint32Array {
  const cells = d[D.numRows] * d[D.numCols];
  const w = d[D.colsWidth];
  return w === 1
    ? new Uint8Array(buf, d[D.cols], cells)
    : w === 2
      ? new Uint16Array(buf, d[D.cols], cells)
      : new Uint32Array(buf, d[D.cols], cells);
}

/** features binned together: one pass over the row-major values reads each cache line once for them */
const QUANTIZE_BLOCK = 4;

/**
 * Task.QuantizeCols: the bin of every row (HistogramCuts::SearchBin: the first cut above the value,
 * the last bin for values beyond it) of each claimed block of features, column-major and
 * feature-local. A table over the top 16 bits of the value's order-preserving key gives the first
 * bin the value can fall in; a short forward scan over the cuts finishes the search.
 */
export function quantizeColumns(th: TeamThread, buf: ArrayBufferLike, d: Float64Array): void {
  const n = d[D.numRows];
  const nc = d[D.numCols];
  const ptr = new Int32Array(buf, d[D.ptr], nc + 1);
  const cv = new Float32Array(buf, d[D.cutValues], ptr[nc]);
  const cols = colsView(buf, d);
  const colMissing = d[D.colMissing];
  const data = th.data as Float32Array;
  const keys = new Uint32Array(data.buffer, data.byteOffset, data.length);
  let tables = th.scratch.get('tables') as Int32Array | undefined;
  if (tables === undefined) {
    tables = new Int32Array(QUANTIZE_BLOCK << KEY_BITS);
    th.scratch.set('tables', tables);
  }
  const blocks = Math.ceil(nc / QUANTIZE_BLOCK);
  for (;;) {
    const blk = Atomics.add(th.ctrl, th.next, 1);
    if (blk >= blocks) return;
    const c0 = blk * QUANTIZE_BLOCK;
    const c1 = Math.min(c0 + QUANTIZE_BLOCK, nc);
    for (let c = c0; c < c1; c++) searchTable(cv, ptr[c], ptr[c + 1], tables.subarray((c - c0) << KEY_BITS));
    binColumns(data, keys, n, nc, c0, c1, ptr, cv, tables, cols, colMissing);
  }
}

const key = new Uint32Array(1);
const least = new Float32Array(key.buffer);

/** table[p]: the first cut in [lo, hi) above the smallest value whose key starts with p */
function searchTable(cv: Float32Array, lo: number, hi: number, table: Int32Array): void {
  let b = lo;
  for (let p = 0; p < 1 << KEY_BITS; p++) {
    const k = (p << (32 - KEY_BITS)) >>> 0;
    key[0] = k & 0x80000000 ? k & 0x7fffffff : ~k;
    while (b < hi && cv[b] <= least[0]) b++;
    table[p] = b;
  }
}

/** Features c0..c1-1's local bin of every row into cols[c × n ..], row by row. */
function binColumns(
  data: Float32Array,
  keys: Uint32Array,
  n: number,
  nc: number,
  c0: number,
  c1: number,
  ptr: Int32Array,
  cv: Float32Array,
  tables: Int32Array,
  cols: Uint8Array | Uint16Array | Uint32Array,
  colMissing: number,
): void {
  for (let r = 0; r < n; r++) {
    for (let c = c0, at = r * nc + c0; c < c1; c++, at++) {
      const v = data[at];
      const out = c * n + r;
      if (Number.isNaN(v)) {
        cols[out] = colMissing;
        continue;
      }
      const lo = ptr[c];
      const hi = ptr[c + 1];
      const u = keys[at];
      const ok = u & 0x80000000 ? ~u >>> 0 : (u | 0x80000000) >>> 0;
      let k = tables[((c - c0) << KEY_BITS) + (ok >>> (32 - KEY_BITS))];
      while (k < hi && cv[k] <= v) k++;
      if (k === hi) k = hi - 1;
      cols[out] = k - lo;
    }
  }
}

/** Task.Transpose: this thread's chunk of rows of the row-major bins, from the column-major ones. */
export function transposeBins(th: TeamThread, buf: ArrayBufferLike, d: Float64Array): void {
  const n = d[D.numRows];
  const nc = d[D.numCols];
  const width = d[D.width];
  const cols = colsView(buf, d);
  const ptr = new Int32Array(buf, d[D.ptr], nc + 1);
  const bins =
    width === 1
      ? new Uint8Array(buf, d[D.bins], n * nc)
      : width === 2
        ? new Uint16Array(buf, d[D.bins], n * nc)
        : new Uint32Array(buf, d[D.bins], n * nc);
  const colMissing = d[D.colMissing];
  const missing = width === 2 ? 0xffff : 0xffffffff;
  const [r0, r1] = rowChunk(0, n, th.index, th.size);
  const BLOCK = 2048;
  for (let s = r0; s < r1; s += BLOCK) {
    const e = Math.min(s + BLOCK, r1);
    for (let c = 0; c < nc; c++) {
      const base = c * n;
      if (width === 1) {
        for (let r = s, at = s * nc + c; r < e; r++, at += nc) bins[at] = cols[base + r];
      } else {
        const o = ptr[c];
        for (let r = s, at = s * nc + c; r < e; r++, at += nc) {
          const v = cols[base + r];
          bins[at] = v === colMissing ? missing : o + v;
        }
      }
    }
  }
}

// ---- main thread ----

function identity(a: Int32Array): void {
  for (let i = 0; i < a.length; i++) a[i] = i;
}

/** The sketch's cuts (hist's own, weighted by the instance weights), features shared among the threads. */
export async function sketchCuts(
  team: Team,
  numRows: number,
  numCols: number,
  maxBins: number,
): Promise<{ cuts: Cuts; dense: boolean }> {
  const desc = team.desc;
  const d = new Float64Array(team.buffer(), desc, D.SIZE);
  d[D.maxBins] = maxBins;
  d[D.sketchValues] = team.alloc(numCols * maxBins * 4);
  d[D.sketchCounts] = team.alloc(numCols * 4);
  d[D.sketchMins] = team.alloc(numCols * 4);
  d[D.colSizes] = team.alloc(numCols * 8);
  const P = team.task(2);
  P[0] = Task.Sketch;
  P[1] = desc;
  await team.run();
  const buf = team.buffer();
  const cuts = assembleCuts(
    numCols,
    maxBins,
    new Float32Array(buf, d[D.sketchValues], numCols * maxBins),
    new Int32Array(buf, d[D.sketchCounts], numCols),
    new Float32Array(buf, d[D.sketchMins], numCols),
  );
  const sizes = new Float64Array(buf, d[D.colSizes], numCols);
  return { cuts, dense: sizes.every((s) => s === numRows) };
}

/**
 * Bins the team's matrix with these cuts into the arena (the regions of `prev` reused when they
 * fit: approx re-bins every round), with the split parameters the split search reads.
 */
export async function binMatrix(
  team: Team,
  numRows: number,
  numCols: number,
  cuts: Cuts,
  dense: boolean,
  maxBins: number,
  p: SplitParams,
  prev?: HistMatrix,
): Promise<HistMatrix> {
  const ptr = cuts.ptr;
  const total = ptr[numCols];
  let maxLocal = 0;
  for (let c = 0; c < numCols; c++) maxLocal = Math.max(maxLocal, ptr[c + 1] - ptr[c]);
  // local bins 0..maxLocal-1, plus a marker when some cell is missing
  const colMax = dense ? maxLocal - 1 : maxLocal;
  const colsWidth = colMax <= 0xff ? 1 : colMax <= 0xffff ? 2 : 4;
  // a byte per cell, feature-local, when dense with ≤ 256 bins a feature: more rows in cache
  const width = dense && maxLocal <= 0x100 ? 1 : total >= 0xffff ? 4 : 2;
  const cells = numRows * numCols;
  const desc = team.desc;
  const d = new Float64Array(team.buffer(), desc, D.SIZE);
  if (prev === undefined) {
    d[D.maxBins] = maxBins;
    d[D.ptr] = team.alloc((numCols + 1) * 4);
    d[D.cutValues] = team.alloc(numCols * maxBins * 4);
    d[D.rows] = team.alloc(numRows * 4);
    d[D.tmpL] = team.size > 1 ? team.alloc(numRows * 4) : 0;
    d[D.tmpR] = team.alloc(numRows * 4);
    d[D.lambda] = p.lambda;
    d[D.alpha] = p.alpha;
    d[D.minChildWeight] = p.minChildWeight;
    d[D.maxDeltaStep] = p.maxDeltaStep;
  }
  // 16 spare bytes: a gathered build copies a row's bins 16 bytes at a time
  if (prev === undefined || d[D.width] !== width) d[D.bins] = team.alloc(cells * width + 16);
  // for the widest bins, so that a matrix binned anew (approx) with other widths fits
  if (!(d[D.gather] > 0)) d[D.gather] = team.alloc(team.size * gatherScratchBytes(numCols, 4));
  if (prev === undefined || d[D.colsWidth] !== colsWidth) d[D.cols] = team.alloc(cells * colsWidth);
  d[D.width] = width;
  d[D.sparse] = dense ? 0 : 1;
  d[D.colsWidth] = colsWidth;
  d[D.colMissing] = dense ? -1 : colsWidth === 1 ? 0xff : colsWidth === 2 ? 0xffff : 0xffffffff;
  d[D.dense] = dense ? 1 : 0;
  const buf = team.buffer();
  // the rows in order; after each tree Task.Leaves puts them back in order
  if (prev === undefined) identity(new Int32Array(buf, d[D.rows], numRows));
  new Int32Array(buf, d[D.ptr], numCols + 1).set(ptr);
  new Float32Array(buf, d[D.cutValues], total).set(cuts.values);
  const P = team.task(2);
  P[0] = Task.QuantizeCols;
  P[1] = desc;
  await team.run();
  P[0] = Task.Transpose;
  await team.run();
  return {
    numRows,
    numCols,
    cuts,
    dense,
    desc,
    rows: d[D.rows],
    histBytes: numCols * maxBins * 16,
  };
}
