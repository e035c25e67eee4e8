// The work of tree_method hist/approx that every thread of a team (./hist-team.ts) runs on its
// share: histograms and split search by features, row partitioning by row chunks, the quantile
// sketch and binning by columns (./hist-data.ts). A task is a block of doubles in the shared arena
// (its kind, the descriptor of the matrix, then its jobs); the main thread writes it and every
// thread, the main one included, does its part of it.
//
// Nothing here depends on the number of threads for its results: a bin's sum is always its rows in
// row order (a feature belongs to one thread), the best split of a node is the same maximum with
// the same tie rule (SplitEntry.update) however the features were grouped, and a partition is
// stable whichever chunks it was cut into.

import type { Kernels } from './hist-kernels.js';
import { cutColumns, quantizeColumns, transposeBins } from './hist-data.js';
import { gradientsTask, leavesTask } from './hist-rows.js';
import type { ObjectiveImpl } from './objectives.js';
import { enumerateFeature, type ScanContext } from './hist-scan.js';
import { SplitEntry, type SplitParams } from './split.js';

export const Task = {
  Exit: -1,
  Sketch: 1,
  QuantizeCols: 2,
  Transpose: 3,
  PartitionSeq: 4,
  Partition1: 5,
  Partition2: 6,
  Level: 7,
  Gradients: 8,
  Leaves: 9,
} as const;

/**
 * The descriptor of one training's matrix and arena regions (byte offsets), a Float64Array in the
 * arena that every task points to (P[1]).
 */
export const D = {
  numRows: 0,
  numCols: 1,
  /** row-major bins (BinFormat width/sparse) */
  bins: 2,
  width: 3,
  sparse: 4,
  /** Int32 numCols + 1: each feature's first global bin (HistogramCuts::Ptrs) */
  ptr: 5,
  /** column-major feature-local bins (ColumnMatrix) and their marker of a missing cell */
  cols: 6,
  colsWidth: 7,
  colMissing: 8,
  dense: 9,
  /** Int32 numRows: the rows, node by node; tmpL/tmpR: partition scratch of numRows each */
  rows: 10,
  tmpL: 11,
  tmpR: 12,
  /** this tree's gradients and hessians: Float32, row r's at byte r × stride */
  grad: 13,
  lambda: 14,
  alpha: 15,
  minChildWeight: 16,
  maxDeltaStep: 17,
  /** Float32 cut values (global) for binning */
  cutValues: 18,
  maxBins: 19,
  /** the sketch's output: Float32 numCols × maxBins cut values, Int32 counts, Float32 minimum values, Float64 column sizes */
  sketchValues: 20,
  sketchCounts: 21,
  sketchMins: 22,
  colSizes: 23,
  hess: 24,
  stride: 25,
  SIZE: 26,
} as const;

/** Where a task's jobs start in its block */
export const HEAD = 8;
/** doubles per scan result: loss (NaN: none), feature, bin, backward (0/1), grad sum, hess sum */
export const RESULT = 6;

/** A thread of a team: its index, the team's size, the arena and the kernels bound to it. */
export interface TeamThread {
  index: number;
  size: number;
  buffer(): ArrayBufferLike;
  kernels: Kernels;
  /** the work-stealing counter (Int32Array index `next`) of column tasks */
  ctrl: Int32Array;
  next: number;
  /** the raw training matrix and weights (shared), for the sketch and binning */
  data?: Float32Array;
  weights?: Float32Array;
  /** this thread's scratch of column tasks */
  scratch: Map<string, unknown>;
  /** the training's objective, for Task.Gradients */
  objective(): ObjectiveImpl;
}

/** Thread t's features of numCols: a contiguous range. */
export function featureRange(numCols: number, t: number, size: number): [number, number] {
  return [Math.floor((t * numCols) / size), Math.floor(((t + 1) * numCols) / size)];
}

/** Thread t's rows of [begin, end): a contiguous chunk. */
export function rowChunk(begin: number, end: number, t: number, size: number): [number, number] {
  const len = end - begin;
  return [begin + Math.floor((len * t) / size), begin + Math.floor((len * (t + 1)) / size)];
}

export function runTask(th: TeamThread, taskOffset: number, taskLength: number): void {
  const buf = th.buffer();
  const P = new Float64Array(buf, taskOffset, taskLength);
  if (P[0] === Task.Exit) return;
  const d = new Float64Array(buf, P[1], D.SIZE);
  switch (P[0]) {
    case Task.Level:
      level(th, buf, P, d);
      break;
    case Task.PartitionSeq:
    case Task.Partition1:
    case Task.Partition2:
      partition(th, buf, P, d);
      break;
    case Task.Sketch:
      cutColumns(th, buf, d);
      break;
    case Task.QuantizeCols:
      quantizeColumns(th, buf, d);
      break;
    case Task.Transpose:
      transposeBins(th, buf, d);
      break;
    case Task.Gradients:
      gradientsTask(th, buf, P, d);
      break;
    case Task.Leaves:
      leavesTask(th, buf, P, d);
      break;
  }
}

// Level: P[2] builds, P[3] subtractions, P[4] scans, P[5] results (byte offset), P[6] histogram
// bytes, P[7] the threads' scan scratch (64 bytes each); from HEAD builds (slot, begin, end), subtractions (parent slot, built slot), scans (slot,
// grad sum, hess sum, root gain, feature set index in P or -1 for all, its length).

/** writes a level task's header; returns where its jobs start */
export function levelHeader(
  P: Float64Array,
  desc: number,
  builds: number,
  subs: number,
  scans: number,
  results: number,
  histBytes: number,
  scanScratch: number,
): number {
  P[0] = Task.Level;
  P[1] = desc;
  P[2] = builds;
  P[3] = subs;
  P[4] = scans;
  P[5] = results;
  P[6] = histBytes;
  P[7] = scanScratch;
  return HEAD;
}

function level(th: TeamThread, buf: ArrayBufferLike, P: Float64Array, d: Float64Array): void {
  const nc = d[D.numCols];
  const ptr = new Int32Array(buf, d[D.ptr], nc + 1);
  // a thread beyond the features (more threads than features) only reports "no split"
  const [c0, c1] = featureRange(nc, th.index, th.size);
  const b0 = ptr[c0];
  const b1 = ptr[c1];
  const nb = P[2];
  const ns = P[3];
  const nscan = P[4];
  let at = HEAD;
  if (nb > 0) {
    const build = th.kernels.build({ width: d[D.width] as 1 | 2 | 4, sparse: d[D.sparse] === 1 });
    for (let j = 0; j < nb; j++, at += 3) {
      const slot = P[at];
      new Float64Array(buf, slot + b0 * 16, (b1 - b0) * 2).fill(0);
      build(d[D.bins], d[D.ptr], nc, c0, c1, d[D.rows], P[at + 1], P[at + 2], d[D.grad], d[D.hess], d[D.stride], slot);
    }
  }
  for (let j = 0; j < ns; j++, at += 2) th.kernels.sub(P[at] + b0 * 16, P[at + 1] + b0 * 16, (b1 - b0) * 16);
  if (nscan === 0) return;
  const p: SplitParams = {
    eta: 0,
    gamma: 0,
    lambda: d[D.lambda],
    alpha: d[D.alpha],
    minChildWeight: d[D.minChildWeight],
    maxDeltaStep: d[D.maxDeltaStep],
  };
  const results = new Float64Array(buf, P[5], nscan * th.size * RESULT);
  const histLen = P[6] / 8;
  const outAddr = P[7] + th.index * 64;
  const s: ScanContext = {
    hist: results,
    histAddr: 0,
    p,
    plain: p.alpha === 0 && p.maxDeltaStep === 0,
    forward: th.kernels.scan?.forward,
    backward: th.kernels.scan?.backward,
    outAddr,
    out: new Float64Array(buf, outAddr, 5),
  };
  const best = new SplitEntry();
  for (let j = 0; j < nscan; j++, at += 6) {
    s.histAddr = P[at];
    s.hist = new Float64Array(buf, P[at], histLen);
    const ng = P[at + 1];
    const nh = P[at + 2];
    const rootGain = P[at + 3];
    const fs = P[at + 4];
    const fsLen = P[at + 5];
    best.lossChg = 0;
    best.feature = 0;
    let found = false;
    if (fs < 0) {
      for (let fid = c0; fid < c1; fid++) found = enumerateFeature(s, ptr, fid, ng, nh, rootGain, best) || found;
    } else {
      for (let k = fs; k < fs + fsLen; k++) {
        const fid = P[k];
        if (fid >= c0 && fid < c1) found = enumerateFeature(s, ptr, fid, ng, nh, rootGain, best) || found;
      }
    }
    const r = (j * th.size + th.index) * RESULT;
    results[r] = found ? best.lossChg : Number.NaN;
    results[r + 1] = best.feature;
    results[r + 2] = best.bin;
    results[r + 3] = best.defaultLeft ? 1 : 0;
    results[r + 4] = best.lg;
    results[r + 5] = best.lh;
  }
}

// Partition: P[2] nodes, P[5] counts (Int32, nodes × threads: left rows of each chunk); from HEAD
// per node (begin, end, feature, bin within the feature, default left).

export function partitionHeader(P: Float64Array, kind: number, desc: number, nodes: number, counts: number): number {
  P[0] = kind;
  P[1] = desc;
  P[2] = nodes;
  P[5] = counts;
  return HEAD;
}

function partition(th: TeamThread, buf: ArrayBufferLike, P: Float64Array, d: Float64Array): void {
  const n = d[D.numRows];
  const T = th.size;
  const t = th.index;
  const nodes = P[2];
  const counts = new Int32Array(buf, P[5], nodes * T);
  const dense = d[D.dense] === 1;
  const split = th.kernels.partition(d[D.colsWidth] as 1 | 2 | 4, dense);
  const { cols, rows, tmpL, tmpR } = { cols: d[D.cols], rows: d[D.rows], tmpL: d[D.tmpL], tmpR: d[D.tmpR] };
  const miss = d[D.colMissing];
  const kind = P[0];
  for (let j = 0, at = HEAD; j < nodes; j++, at += 5) {
    const begin = P[at];
    const end = P[at + 1];
    const base = P[at + 2] * n;
    const bin = P[at + 3];
    const dl = P[at + 4];
    if (kind === Task.PartitionSeq) {
      // in place: the left rows move down over the rows already read, the right ones wait in tmpR
      const nl = split(cols, base, bin, miss, dl, rows, begin, end, rows, begin, tmpR, 0);
      th.kernels.copy(rows + (begin + nl) * 4, tmpR, (end - begin - nl) * 4);
      counts[j] = nl;
      continue;
    }
    const [s, e] = rowChunk(begin, end, t, T);
    if (kind === Task.Partition1) {
      counts[j * T + t] = split(cols, base, bin, miss, dl, rows, s, e, tmpL, s, tmpR, s);
      continue;
    }
    // Partition2: this chunk's left rows after the previous chunks' left rows, its right rows after
    // every left row and the previous chunks' right rows
    let left = begin;
    let right = begin;
    for (let u = 0; u < T; u++) right += counts[j * T + u];
    for (let u = 0; u < t; u++) {
      const [us, ue] = rowChunk(begin, end, u, T);
      left += counts[j * T + u];
      right += ue - us - counts[j * T + u];
    }
    const nl = counts[j * T + t];
    th.kernels.copy(rows + left * 4, tmpL + s * 4, nl * 4);
    th.kernels.copy(rows + right * 4, tmpR + s * 4, (e - s - nl) * 4);
  }
}
