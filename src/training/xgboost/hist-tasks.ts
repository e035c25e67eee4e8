// The work of tree_method hist/approx that every thread of a team (./hist-team.ts) runs on its
// share: histograms and split search by nodes, feature ranges or row blocks, row partitioning by
// row chunks, the quantile sketch and binning by columns (./hist-data.ts). A task is a block of
// doubles in the shared arena (its kind, the descriptor of the matrix, then its jobs); the main
// thread writes it and every thread, the main one included, does its part of it.
//
// Nothing here depends on the number of threads for its results: a bin's sum is always its rows in
// row order (a node's feature belongs to one thread; large nodes: see BUILD_BLOCK), the best split
// of a node is the same maximum with the same tie rule (SplitEntry.update) however the features
// were grouped, and a partition is stable whichever chunks it was cut into.

import { GATHER_ROWS, gatherScratchBytes } from './hist-build-kernel.js';
import type { BinFormat, Kernels } from './hist-kernels.js';
import { cutColumns, quantizeColumns, transposeBins } from './hist-data.js';
import { gradientsTask, leavesTask } from './hist-rows.js';
import type { ObjectiveImpl } from './objectives.js';
import { enumerateFeature, type ScanContext } from './hist-scan.js';
import { calcGain, SplitEntry, type SplitParams } from './split.js';

export const Task = {
  Exit: -1,
  Sketch: 1,
  QuantizeCols: 2,
  Transpose: 3,
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
  /** the threads' scratch of gathered builds, gatherScratchBytes(numCols, 4) each (0: none) */
  gather: 26,
  SIZE: 27,
} as const;

/** Where a task's jobs start in its block */
export const HEAD = 16;
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
  /** waits until every thread of the team has called it as often (within one task) */
  barrier(): void;
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

// Level: one step of a tree, one task (the threads meet at barriers inside it): partition the rows
// of the nodes just split, build the smaller children's histograms (their siblings' by subtraction
// from the parents'), find each new node's best split.
// P[2] partitions, P[3] builds, P[4] scans, P[5] results (RESULT doubles per scan and feature
// range), P[6] histogram bytes, P[7] the threads' scan scratch (64 bytes each), P[8] partition
// counts (Int32 per partition and thread: left rows of each chunk), P[9] 1 for the root: its sums
// are the first feature's bins' once built, P[10] the partial histograms of large builds (one
// histogram each of numRows / BUILD_BLOCK). From HEAD: partitions (begin, end, feature, bin within
// the feature, default left); builds (slot, partition index or -1, 0 left / 1 right child, begin,
// end when no partition, parent slot to subtract from or -1, its first scan, its number of scans:
// the nodes whose histograms this build completes); scans (slot, grad sum, hess sum, root gain,
// feature set index in P or -1 for all, its length); then the feature sets.
//
// After the partition, the work is units claimed one at a time from a shared counter by whichever
// thread is free. A build of fewer than 2 × BUILD_BLOCK rows is one unit when the level has enough
// of them (WHOLE_BUILDS_PER_THREAD): it builds, subtracts and scans every feature, so only one
// thread reads the node's rows. Otherwise it is split by the team's size feature ranges r: a unit
// builds range r, subtracts it from the parent and scans range r of the build's nodes (every thread
// then reads every row of the node). A larger one is split by rows: a unit builds every feature of
// one block of its rows (each thread then gathers only its blocks' rows, where with ranges every
// thread gathers every row: at 1M rows the levels' gathers are bound by memory latency), and after
// a barrier its ranges are units that add the blocks' sums in block order, subtract and scan. A
// thread that a neighbour process or a slow wake-up holds back then takes fewer units instead of
// holding up the others at the end of the level. Each unit's result has its own place (scan,
// range), so which thread ran it changes nothing.

/** the doubles per partition, build and scan job */
export const LEVEL_JOB = { partition: 5, build: 8, scan: 6 } as const;

/** writes a level task's header; returns where its jobs start */
export function levelHeader(
  P: Float64Array,
  desc: number,
  jobs: { partitions: number; builds: number; scans: number },
  regions: { results: number; scanOut: number; counts: number; partials: number },
  histBytes: number,
  root: boolean,
): number {
  P[0] = Task.Level;
  P[1] = desc;
  P[2] = jobs.partitions;
  P[3] = jobs.builds;
  P[4] = jobs.scans;
  P[5] = regions.results;
  P[6] = histBytes;
  P[7] = regions.scanOut;
  P[8] = regions.counts;
  P[9] = root ? 1 : 0;
  P[10] = regions.partials;
  return HEAD;
}

/** the sums of a histogram's bins [b0, b1): [grad, hess] */
export function binSums(hist: Float64Array, b0: number, b1: number): [number, number] {
  let g = 0;
  let h = 0;
  for (let b = b0; b < b1; b++) {
    g += hist[2 * b];
    h += hist[2 * b + 1];
  }
  return [g, h];
}

/** The first row of partition j's right child, from the threads' counts. */
export function partitionMid(counts: Int32Array, j: number, size: number, begin: number): number {
  let mid = begin;
  for (let u = 0; u < size; u++) mid += counts[j * size + u];
  return mid;
}

/**
 * Rows of one block when a large node's histogram is built by row blocks (the builds of at least two
 * blocks). DEVIATION(xgboost): xgboost sums a bin's rows in row order on one thread and thread by
 * thread on several (its sums depend on nthread); a node of at least 2 × BUILD_BLOCK rows is summed
 * here block by block, each block in row order, the blocks' sums added in block order, whatever the
 * number of threads. The sums differ from xgboost's one-thread sums in the last bits of a double,
 * which can change a split only on an exact tie of gains. Smaller nodes are summed as xgboost does.
 */
export const BUILD_BLOCK = 32768;

/**
 * A level's builds under 2 × BUILD_BLOCK rows are units of their own, each built and scanned by one
 * thread, when there are at least this many per thread (largest first, the last ones small enough
 * to even out the threads' shares); fewer are split by feature ranges, which has every thread read
 * every row of the node. Which thread builds what changes no sum.
 */
const WHOLE_BUILDS_PER_THREAD = 2;

/** What the units of one level task share on one thread. */
interface LevelUnits {
  buf: ArrayBufferLike;
  P: Float64Array;
  d: Float64Array;
  ptr: Int32Array;
  counts: Int32Array;
  /** where the builds and the scans start in P */
  builds: number;
  scans: number;
  s: ScanContext;
  best: SplitEntry;
  results: Float64Array;
  histLen: number;
  /** per build: its rows [begin, end), its blocks (1: built by feature ranges), its first partial slot */
  begin: Int32Array;
  end: Int32Array;
  blocks: Int32Array;
  partial: Int32Array;
  /** the builds of more than one block, in order */
  large: number[];
  /** the matrix's bin format, and every row index (a node's rows are a range of it) */
  format: BinFormat;
  rows: Int32Array;
}

function level(th: TeamThread, buf: ArrayBufferLike, P: Float64Array, d: Float64Array): void {
  const nc = d[D.numCols];
  const T = th.size;
  const ptr = new Int32Array(buf, d[D.ptr], nc + 1);
  const np = P[2];
  const nb = P[3];
  const nscan = P[4];
  const counts = new Int32Array(buf, P[8], Math.max(np, 1) * T);
  if (np > 0) partition(th, P, d, HEAD, counts);
  const builds = HEAD + np * LEVEL_JOB.partition;
  const p: SplitParams = {
    eta: 0,
    gamma: 0,
    lambda: d[D.lambda],
    alpha: d[D.alpha],
    minChildWeight: d[D.minChildWeight],
    maxDeltaStep: d[D.maxDeltaStep],
  };
  const outAddr = P[7] + th.index * 64;
  const u: LevelUnits = {
    buf,
    P,
    d,
    ptr,
    counts,
    builds,
    scans: builds + nb * LEVEL_JOB.build,
    s: {
      hist: new Float64Array(0),
      histAddr: 0,
      p,
      plain: p.alpha === 0 && p.maxDeltaStep === 0,
      forward: th.kernels.scan?.forward,
      backward: th.kernels.scan?.backward,
      outAddr,
      out: new Float64Array(buf, outAddr, 5),
    },
    best: new SplitEntry(),
    results: new Float64Array(buf, P[5], nscan * T * RESULT),
    histLen: P[6] / 8,
    begin: new Int32Array(nb),
    end: new Int32Array(nb),
    blocks: new Int32Array(nb),
    partial: new Int32Array(nb),
    large: [],
    format: { width: d[D.width] as 1 | 2 | 4, sparse: d[D.sparse] === 1 },
    rows: new Int32Array(buf, d[D.rows], d[D.numRows]),
  };
  // the builds' rows and blocks: every thread works them out alike from the partition's counts
  let partials = 0;
  for (let j = 0; j < nb; j++) {
    buildRows(u, j, T);
    const rows = u.end[j] - u.begin[j];
    const m = rows >= 2 * BUILD_BLOCK ? Math.floor(rows / BUILD_BLOCK) : 1;
    u.blocks[j] = m;
    u.partial[j] = partials;
    if (m > 1) {
      u.large.push(j);
      partials += m - 1;
    }
  }
  if (P[9] === 1) {
    // the root: its sums are its first feature's bins (range 0), summed by every thread alike once
    // every range is complete; each thread completes and scans its own range
    if (u.blocks[0] > 1) {
      for (let k = claim(th, th.next); k < u.blocks[0]; k = claim(th, th.next)) buildBlock(th, u, 0, k);
      th.barrier();
      reduceRange(th, u, 0, th.index);
    } else buildUnit(th, u, 0, th.index);
    th.barrier();
    const hist = new Float64Array(buf, P[u.scans], u.histLen);
    const [g, h] = binSums(hist, ptr[0], ptr[1]);
    scanUnit(th, u, 0, th.index, g, h, calcGain(p, g, h));
    return;
  }
  // first every block of the large builds, then the others: whole, largest first, when there are
  // enough of them to share out (each node's rows are then read by one thread), else by feature
  // ranges; then, once all blocks are built, the ranges of the large builds: their blocks summed,
  // subtracted from the parent, scanned
  const small: number[] = [];
  for (let j = 0; j < nb; j++) if (u.blocks[j] === 1) small.push(j);
  const whole = T > 1 && small.length >= WHOLE_BUILDS_PER_THREAD * T;
  if (whole) small.sort((a, b) => u.end[b] - u.begin[b] - (u.end[a] - u.begin[a]) || a - b);
  const blockUnits = partials + u.large.length;
  const units = blockUnits + (whole ? small.length : small.length * T);
  for (let k = claim(th, th.next); k < units; k = claim(th, th.next)) {
    if (k < blockUnits) {
      let i = 0;
      let at = k;
      for (; at >= u.blocks[u.large[i]]; i++) at -= u.blocks[u.large[i]];
      buildBlock(th, u, u.large[i], at);
    } else if (whole) {
      const j = small[k - blockUnits];
      buildUnit(th, u, j, -1);
      scanBuild(th, u, j, -1);
    } else {
      const j = small[Math.floor((k - blockUnits) / T)];
      const r = (k - blockUnits) % T;
      buildUnit(th, u, j, r);
      scanBuild(th, u, j, r);
    }
  }
  if (u.large.length === 0) return;
  th.barrier();
  for (let k = claim(th, th.next + 1); k < u.large.length * T; k = claim(th, th.next + 1)) {
    // the (k / T)-th large build, range k % T
    const j = u.large[Math.floor(k / T)];
    const r = k % T;
    reduceRange(th, u, j, r);
    subtractRange(th, u, j, r);
    scanBuild(th, u, j, r);
  }
}

/** the next unit from the counter ctrl[at] */
function claim(th: TeamThread, at: number): number {
  return th.size === 1 ? th.ctrl[at]++ : Atomics.add(th.ctrl, at, 1);
}

/** Build j's rows, from its partition's counts or its record. */
function buildRows(u: LevelUnits, j: number, size: number): void {
  const P = u.P;
  const at = u.builds + j * LEVEL_JOB.build;
  const part = P[at + 1];
  let begin = P[at + 3];
  let end = P[at + 4];
  if (part >= 0) {
    const pa = HEAD + part * LEVEL_JOB.partition;
    const mid = partitionMid(u.counts, part, size, P[pa]);
    begin = P[at + 2] === 0 ? P[pa] : mid;
    end = P[at + 2] === 0 ? mid : P[pa + 1];
  }
  u.begin[j] = begin;
  u.end[j] = end;
}

/** The features [c0, c1) of a unit: feature range r of the team's size, or every feature for r = -1. */
function unitFeatures(numCols: number, r: number, size: number): [number, number] {
  return r < 0 ? [0, numCols] : featureRange(numCols, r, size);
}

/** Feature range r of build j (-1: the whole build): its bins cleared and built, then subtracted from the parent's. */
function buildUnit(th: TeamThread, u: LevelUnits, j: number, r: number): void {
  const [c0, c1] = unitFeatures(u.d[D.numCols], r, th.size);
  buildInto(th, u, u.P[u.builds + j * LEVEL_JOB.build], c0, c1, u.begin[j], u.end[j]);
  subtractRange(th, u, j, r);
}

/** Block b of a large build: every feature's bins of its rows, block 0 into the build's slot, the others into partial slots. */
function buildBlock(th: TeamThread, u: LevelUnits, j: number, b: number): void {
  const P = u.P;
  const target = b === 0 ? P[u.builds + j * LEVEL_JOB.build] : P[10] + (u.partial[j] + b - 1) * P[6];
  const begin = u.begin[j] + b * BUILD_BLOCK;
  const end = b === u.blocks[j] - 1 ? u.end[j] : begin + BUILD_BLOCK;
  buildInto(th, u, target, 0, u.d[D.numCols], begin, end);
}

/**
 * The histogram at `target`, features c0..c1 of rows[begin, end): cleared, then built. Rows
 * scattered over the matrix take the gathered kernel, and byte bins the matrix's own kernels
 * (Kernels.layout) for every feature at once; every kernel adds each bin's rows in row order.
 */
function buildInto(
  th: TeamThread,
  u: LevelUnits,
  target: number,
  c0: number,
  c1: number,
  begin: number,
  end: number,
): void {
  const { d, ptr } = u;
  const nc = d[D.numCols];
  new Float64Array(u.buf, target + ptr[c0] * 16, (ptr[c1] - ptr[c0]) * 2).fill(0);
  const { format, rows } = u;
  const own = format.width === 1 && c0 === 0 && c1 === nc ? th.kernels.layout?.(nc, ptr) : undefined;
  const gather = own?.gather ?? th.kernels.gather?.(format);
  if (gather !== undefined && d[D.gather] > 0 && end - begin >= GATHER_ROWS) {
    // rows scattered over the matrix (a node's rows are in ascending order: contiguous iff their span is their
    // count); only a choice of speed, as both kernels read the rows through the index
    if (rows[end - 1] - rows[begin] !== end - begin - 1) {
      const scratch = d[D.gather] + th.index * gatherScratchBytes(nc, 4);
      gather(
        d[D.bins],
        d[D.ptr],
        nc,
        c0,
        c1,
        d[D.rows],
        begin,
        end,
        d[D.grad],
        d[D.hess],
        d[D.stride],
        target,
        scratch,
      );
      return;
    }
  }
  const build = own?.build ?? th.kernels.build(format);
  build(d[D.bins], d[D.ptr], nc, c0, c1, d[D.rows], begin, end, d[D.grad], d[D.hess], d[D.stride], target);
}

/** Feature range r (-1: all) of build j's sibling: the parent's histogram minus build j's, in the parent's slot. */
function subtractRange(th: TeamThread, u: LevelUnits, j: number, r: number): void {
  const at = u.builds + j * LEVEL_JOB.build;
  const parent = u.P[at + 5];
  if (parent < 0) return;
  const [c0, c1] = unitFeatures(u.d[D.numCols], r, th.size);
  const b0 = u.ptr[c0] * 16;
  th.kernels.sub(parent + b0, u.P[at] + b0, u.ptr[c1] * 16 - b0);
}

/** Feature range r of a large build j: its blocks' sums added to block 0's, in block order. */
function reduceRange(th: TeamThread, u: LevelUnits, j: number, r: number): void {
  const { P, ptr } = u;
  const [c0, c1] = featureRange(u.d[D.numCols], r, th.size);
  const b0 = ptr[c0] * 2;
  const b1 = ptr[c1] * 2;
  const at = u.builds + j * LEVEL_JOB.build;
  const dst = new Float64Array(u.buf, P[at], u.histLen);
  for (let b = 1; b < u.blocks[j]; b++) {
    const src = new Float64Array(u.buf, P[10] + (u.partial[j] + b - 1) * P[6], u.histLen);
    for (let i = b0; i < b1; i++) dst[i] += src[i];
  }
}

/** Feature range r (-1: all) of build j's nodes (the scans it completes). */
function scanBuild(th: TeamThread, u: LevelUnits, j: number, r: number): void {
  const P = u.P;
  const at = u.builds + j * LEVEL_JOB.build;
  const first = P[at + 6];
  for (let i = first; i < first + P[at + 7]; i++) {
    const sa = u.scans + i * LEVEL_JOB.scan;
    scanUnit(th, u, i, r, P[sa + 1], P[sa + 2], P[sa + 3]);
  }
}

/**
 * Feature range r of scan i (node sums g, h, gain rootGain): its best split into the results, in
 * the range's place. r = -1: every feature, into range 0's place, the other ranges' places saying
 * none (the best of all features is the best of the ranges' bests, whichever way they are grouped).
 */
function scanUnit(th: TeamThread, u: LevelUnits, i: number, r: number, g: number, h: number, rootGain: number): void {
  const { P, ptr, s, best } = u;
  const [c0, c1] = unitFeatures(u.d[D.numCols], r, th.size);
  const at = u.scans + i * LEVEL_JOB.scan;
  s.histAddr = P[at];
  s.hist = new Float64Array(u.buf, P[at], u.histLen);
  const fs = P[at + 4];
  const fsLen = P[at + 5];
  best.lossChg = 0;
  best.feature = 0;
  let found = false;
  if (fs < 0) {
    for (let fid = c0; fid < c1; fid++) found = enumerateFeature(s, ptr, fid, g, h, rootGain, best) || found;
  } else {
    for (let k = fs; k < fs + fsLen; k++) {
      const fid = P[k];
      if (fid >= c0 && fid < c1) found = enumerateFeature(s, ptr, fid, g, h, rootGain, best) || found;
    }
  }
  const results = u.results;
  if (r < 0) for (let t = 1; t < th.size; t++) results[(i * th.size + t) * RESULT] = Number.NaN;
  const o = (i * th.size + Math.max(r, 0)) * RESULT;
  results[o] = found ? best.lossChg : Number.NaN;
  results[o + 1] = best.feature;
  results[o + 2] = best.bin;
  results[o + 3] = best.defaultLeft ? 1 : 0;
  results[o + 4] = best.lg;
  results[o + 5] = best.lh;
}

/**
 * The level's partitions: in place on one thread; else by row chunks into tmpL/tmpR, then (after a
 * barrier, every chunk's counts known) each chunk's rows to their places, then a barrier again.
 */
function partition(th: TeamThread, P: Float64Array, d: Float64Array, at0: number, counts: Int32Array): void {
  const n = d[D.numRows];
  const T = th.size;
  const t = th.index;
  const nodes = P[2];
  const dense = d[D.dense] === 1;
  const split = th.kernels.partition(d[D.colsWidth] as 1 | 2 | 4, dense);
  const { cols, rows, tmpL, tmpR } = { cols: d[D.cols], rows: d[D.rows], tmpL: d[D.tmpL], tmpR: d[D.tmpR] };
  const miss = d[D.colMissing];
  for (let j = 0, at = at0; j < nodes; j++, at += LEVEL_JOB.partition) {
    const begin = P[at];
    const end = P[at + 1];
    const base = P[at + 2] * n;
    const bin = P[at + 3];
    const dl = P[at + 4];
    if (T === 1) {
      // in place: the left rows move down over the rows already read, the right ones wait in tmpR
      const nl = split(cols, base, bin, miss, dl, rows, begin, end, rows, begin, tmpR, 0);
      th.kernels.copy(rows + (begin + nl) * 4, tmpR, (end - begin - nl) * 4);
      counts[j] = nl;
      continue;
    }
    const [s, e] = rowChunk(begin, end, t, T);
    counts[j * T + t] = split(cols, base, bin, miss, dl, rows, s, e, tmpL, s, tmpR, s);
  }
  if (T === 1) return;
  th.barrier();
  for (let j = 0, at = at0; j < nodes; j++, at += LEVEL_JOB.partition) {
    // this chunk's left rows after the previous chunks' left rows, its right rows after every left
    // row and the previous chunks' right rows
    const begin = P[at];
    const end = P[at + 1];
    const [s, e] = rowChunk(begin, end, t, T);
    let left = begin;
    let right = partitionMid(counts, j, T, begin);
    for (let u = 0; u < t; u++) {
      const [us, ue] = rowChunk(begin, end, u, T);
      left += counts[j * T + u];
      right += ue - us - counts[j * T + u];
    }
    const nl = counts[j * T + t];
    th.kernels.copy(rows + left * 4, tmpL + s * 4, nl * 4);
    th.kernels.copy(rows + right * 4, tmpR + s * 4, (e - s - nl) * 4);
  }
  th.barrier();
}
