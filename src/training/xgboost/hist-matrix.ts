// The quantized training matrix of tree_method hist/approx (xgboost 1.7's GHistIndexMatrix and
// ColumnMatrix, src/data/gradient_index.cc, src/common/column_matrix.h) and the histogram kernel
// (src/common/hist_util.cc RowsWiseBuildHistKernel): a row-major global bin per cell for building
// histograms, and a column-major feature-local copy that partitioning reads column by column.

import type { Cuts } from './cuts.js';

/** The quantized training matrix: a bin index per cell, row-major (global) and column-major (local). */
export interface BinMatrix {
  numRows: number;
  numCols: number;
  /**
   * row-major bin per cell: for a dense matrix whose features have at most 256 bins, the bin within
   * its feature as one byte (`offsets` gives each feature's first global bin: half the memory, so
   * more rows in cache); else the global bin, Uint16 when every index and the marker fit, else Uint32
   */
  bins: RowBins;
  /** set when `bins` holds feature-local bins: the global bin of feature c's bin b is offsets[c] + b */
  offsets: Int32Array | undefined;
  /** the marker of a missing cell in `bins` */
  missing: number;
  /** column-major bin within its feature per cell (ColumnMatrix), the smallest type that fits */
  cols: Uint8Array | Uint16Array | Uint32Array;
  /** the marker of a missing cell in `cols`; -1 (never matches) when the matrix is dense */
  colMissing: number;
  cuts: Cuts;
  /** no missing value at all (DMatrix::IsDense) */
  dense: boolean;
}

export type RowBins = Uint8Array | Uint16Array | Uint32Array;

/** Row-major bin storage of `bytes` per cell; `shared` puts it in a SharedArrayBuffer for worker threads. */
export function allocBins(cells: number, bytes: 1 | 2 | 4, shared: boolean): RowBins {
  const buf = shared ? new SharedArrayBuffer(cells * bytes) : new ArrayBuffer(cells * bytes);
  return bytes === 1 ? new Uint8Array(buf) : bytes === 2 ? new Uint16Array(buf) : new Uint32Array(buf);
}

function allocCols(cells: number, maxLocal: number): Uint8Array | Uint16Array | Uint32Array {
  if (maxLocal <= 0xff) return new Uint8Array(cells);
  if (maxLocal <= 0xffff) return new Uint16Array(cells);
  return new Uint32Array(cells);
}

const KEY_BITS = 16;
const keyScratch = new Uint32Array(1);
const valScratch = new Float32Array(keyScratch.buffer);

/**
 * Bins every cell (HistogramCuts::SearchBin: the first cut above the value, the last bin for values
 * beyond it). Per feature, a table over the top 16 bits of the value's order-preserving key gives the
 * first bin the value can fall in; a short forward scan over the cuts finishes the search. `prev`
 * lends its buffers when the cuts change between rounds (approx).
 */
export function quantize(
  data: Float32Array,
  numRows: number,
  numCols: number,
  cuts: Cuts,
  prev?: BinMatrix,
  shared = false,
): BinMatrix {
  const ptr = cuts.ptr;
  const cv = cuts.values;
  const total = ptr[numCols];
  let dense = true;
  for (let i = 0; i < data.length; i++) {
    if (Number.isNaN(data[i])) {
      dense = false;
      break;
    }
  }
  let maxLocal = 0;
  for (let c = 0; c < numCols; c++) maxLocal = Math.max(maxLocal, ptr[c + 1] - ptr[c]);
  // local bins 0..maxLocal-1, plus a marker when some cell is missing
  const colMax = dense ? maxLocal - 1 : maxLocal;
  const local = dense && maxLocal <= 0x100;
  const bytes = local ? 1 : total >= 0xffff ? 4 : 2;
  let bins = prev?.bins;
  const cells = numRows * numCols;
  if (bins === undefined || bins.length !== cells || bins.BYTES_PER_ELEMENT !== bytes)
    bins = allocBins(cells, bytes, shared);
  let cols = prev?.cols;
  if (cols === undefined || cols.length !== cells || allocCols(0, colMax).constructor !== cols.constructor)
    cols = allocCols(cells, colMax);
  const missing = bytes === 4 ? 0xffffffff : bytes === 2 ? 0xffff : -1;
  const rowBase = local ? 0 : 1;
  const colMissing = dense ? -1 : cols instanceof Uint8Array ? 0xff : cols instanceof Uint16Array ? 0xffff : 0xffffffff;
  const keys = new Uint32Array(data.buffer, data.byteOffset, data.length);
  const table = new Int32Array(1 << KEY_BITS);
  for (let c = 0; c < numCols; c++) {
    const lo = ptr[c];
    const hi = ptr[c + 1];
    const last = hi - 1;
    // table[p]: the first cut above the smallest value whose key starts with p
    let b = lo;
    for (let p = 0; p < 1 << KEY_BITS; p++) {
      const key = (p << (32 - KEY_BITS)) >>> 0;
      keyScratch[0] = key & 0x80000000 ? key & 0x7fffffff : ~key;
      const least = valScratch[0];
      while (b < hi && cv[b] <= least) b++;
      table[p] = b;
    }
    const colBase = c * numRows;
    for (let r = 0; r < numRows; r++) {
      const at = r * numCols + c;
      const v = data[at];
      if (Number.isNaN(v)) {
        bins[at] = missing;
        cols[colBase + r] = colMissing;
        continue;
      }
      const u = keys[at];
      const key = u & 0x80000000 ? ~u >>> 0 : (u | 0x80000000) >>> 0;
      let k = table[key >>> (32 - KEY_BITS)];
      while (k < hi && cv[k] <= v) k++;
      if (k > last) k = last;
      bins[at] = k - lo * (1 - rowBase);
      cols[colBase + r] = k - lo;
    }
  }
  return { numRows, numCols, bins, offsets: local ? ptr : undefined, missing, cols, colMissing, cuts, dense };
}

/**
 * Adds rows rowIdx[begin..end) of features [c0, c1) into hist (grad, hess interleaved per bin).
 * Rows go through four (dense) or two at a time, feature by feature: a bin still receives its rows
 * in row order (xgboost's order, so the same sums) while the rows' loads overlap.
 */
export function buildHist(
  bins: RowBins,
  offsets: Int32Array | undefined,
  missing: number,
  dense: boolean,
  numCols: number,
  c0: number,
  c1: number,
  rowIdx: Int32Array,
  begin: number,
  end: number,
  grad: Float32Array,
  hess: Float32Array,
  hist: Float64Array,
  gradOnly = false,
): void {
  if (offsets !== undefined) {
    const b8 = bins as Uint8Array;
    if (gradOnly) buildGradLocal(b8, offsets, numCols, c0, c1, rowIdx, begin, end, grad, hist);
    else buildDenseLocal(b8, offsets, numCols, c0, c1, rowIdx, begin, end, grad, hess, hist);
    return;
  }
  const wide = bins as Uint16Array | Uint32Array;
  if (gradOnly) buildGrad(wide, missing, dense, numCols, c0, c1, rowIdx, begin, end, grad, hist);
  else if (dense) buildDense(wide, numCols, c0, c1, rowIdx, begin, end, grad, hess, hist);
  else buildSparse(wide, missing, numCols, c0, c1, rowIdx, begin, end, grad, hess, hist);
}

/** buildDense over feature-local byte bins. */
function buildDenseLocal(
  bins: Uint8Array,
  offsets: Int32Array,
  numCols: number,
  c0: number,
  c1: number,
  rowIdx: Int32Array,
  begin: number,
  end: number,
  grad: Float32Array,
  hess: Float32Array,
  hist: Float64Array,
): void {
  let i = begin;
  for (; i + 3 < end; i += 4) {
    const r1 = rowIdx[i];
    const r2 = rowIdx[i + 1];
    const r3 = rowIdx[i + 2];
    const r4 = rowIdx[i + 3];
    const g1 = grad[r1];
    const h1 = hess[r1];
    const g2 = grad[r2];
    const h2 = hess[r2];
    const g3 = grad[r3];
    const h3 = hess[r3];
    const g4 = grad[r4];
    const h4 = hess[r4];
    const j1 = r1 * numCols;
    const j2 = r2 * numCols;
    const j3 = r3 * numCols;
    const j4 = r4 * numCols;
    for (let c = c0; c < c1; c++) {
      const o = offsets[c];
      const k1 = (o + bins[j1 + c]) << 1;
      hist[k1] += g1;
      hist[k1 + 1] += h1;
      const k2 = (o + bins[j2 + c]) << 1;
      hist[k2] += g2;
      hist[k2 + 1] += h2;
      const k3 = (o + bins[j3 + c]) << 1;
      hist[k3] += g3;
      hist[k3 + 1] += h3;
      const k4 = (o + bins[j4 + c]) << 1;
      hist[k4] += g4;
      hist[k4 + 1] += h4;
    }
  }
  for (; i < end; i++) {
    const r = rowIdx[i];
    const g = grad[r];
    const h = hess[r];
    const j = r * numCols;
    for (let c = c0; c < c1; c++) {
      const k = (offsets[c] + bins[j + c]) << 1;
      hist[k] += g;
      hist[k + 1] += h;
    }
  }
}

/** buildGrad over feature-local byte bins. */
function buildGradLocal(
  bins: Uint8Array,
  offsets: Int32Array,
  numCols: number,
  c0: number,
  c1: number,
  rowIdx: Int32Array,
  begin: number,
  end: number,
  grad: Float32Array,
  hist: Float64Array,
): void {
  let i = begin;
  for (; i + 3 < end; i += 4) {
    const r1 = rowIdx[i];
    const r2 = rowIdx[i + 1];
    const r3 = rowIdx[i + 2];
    const r4 = rowIdx[i + 3];
    const g1 = grad[r1];
    const g2 = grad[r2];
    const g3 = grad[r3];
    const g4 = grad[r4];
    const j1 = r1 * numCols;
    const j2 = r2 * numCols;
    const j3 = r3 * numCols;
    const j4 = r4 * numCols;
    for (let c = c0; c < c1; c++) {
      const o = offsets[c];
      hist[(o + bins[j1 + c]) << 1] += g1;
      hist[(o + bins[j2 + c]) << 1] += g2;
      hist[(o + bins[j3 + c]) << 1] += g3;
      hist[(o + bins[j4 + c]) << 1] += g4;
    }
  }
  for (; i < end; i++) {
    const r = rowIdx[i];
    const g = grad[r];
    const j = r * numCols;
    for (let c = c0; c < c1; c++) hist[(offsets[c] + bins[j + c]) << 1] += g;
  }
}

/** buildHist's gradient half alone, for a histogram whose hessian sums are already in place. */
function buildGrad(
  bins: Uint16Array | Uint32Array,
  missing: number,
  dense: boolean,
  numCols: number,
  c0: number,
  c1: number,
  rowIdx: Int32Array,
  begin: number,
  end: number,
  grad: Float32Array,
  hist: Float64Array,
): void {
  let i = begin;
  const span = c1 - c0;
  if (dense) {
    for (; i + 3 < end; i += 4) {
      const r1 = rowIdx[i];
      const r2 = rowIdx[i + 1];
      const r3 = rowIdx[i + 2];
      const r4 = rowIdx[i + 3];
      const g1 = grad[r1];
      const g2 = grad[r2];
      const g3 = grad[r3];
      const g4 = grad[r4];
      const j1 = r1 * numCols + c0;
      const j2 = r2 * numCols + c0;
      const j3 = r3 * numCols + c0;
      const j4 = r4 * numCols + c0;
      for (let c = 0; c < span; c++) {
        hist[bins[j1 + c] << 1] += g1;
        hist[bins[j2 + c] << 1] += g2;
        hist[bins[j3 + c] << 1] += g3;
        hist[bins[j4 + c] << 1] += g4;
      }
    }
  }
  for (; i < end; i++) {
    const r = rowIdx[i];
    const g = grad[r];
    const j = r * numCols;
    for (let c = c0; c < c1; c++) {
      const b = bins[j + c];
      if (b !== missing) hist[b << 1] += g;
    }
  }
}

function buildDense(
  bins: Uint16Array | Uint32Array,
  numCols: number,
  c0: number,
  c1: number,
  rowIdx: Int32Array,
  begin: number,
  end: number,
  grad: Float32Array,
  hess: Float32Array,
  hist: Float64Array,
): void {
  let i = begin;
  const span = c1 - c0;
  for (; i + 3 < end; i += 4) {
    const r1 = rowIdx[i];
    const r2 = rowIdx[i + 1];
    const r3 = rowIdx[i + 2];
    const r4 = rowIdx[i + 3];
    const g1 = grad[r1];
    const h1 = hess[r1];
    const g2 = grad[r2];
    const h2 = hess[r2];
    const g3 = grad[r3];
    const h3 = hess[r3];
    const g4 = grad[r4];
    const h4 = hess[r4];
    const j1 = r1 * numCols + c0;
    const j2 = r2 * numCols + c0;
    const j3 = r3 * numCols + c0;
    const j4 = r4 * numCols + c0;
    for (let c = 0; c < span; c++) {
      const k1 = bins[j1 + c] << 1;
      hist[k1] += g1;
      hist[k1 + 1] += h1;
      const k2 = bins[j2 + c] << 1;
      hist[k2] += g2;
      hist[k2 + 1] += h2;
      const k3 = bins[j3 + c] << 1;
      hist[k3] += g3;
      hist[k3 + 1] += h3;
      const k4 = bins[j4 + c] << 1;
      hist[k4] += g4;
      hist[k4 + 1] += h4;
    }
  }
  for (; i < end; i++) {
    const r = rowIdx[i];
    const g = grad[r];
    const h = hess[r];
    const j = r * numCols;
    for (let c = c0; c < c1; c++) {
      const k = bins[j + c] << 1;
      hist[k] += g;
      hist[k + 1] += h;
    }
  }
}

function buildSparse(
  bins: Uint16Array | Uint32Array,
  missing: number,
  numCols: number,
  c0: number,
  c1: number,
  rowIdx: Int32Array,
  begin: number,
  end: number,
  grad: Float32Array,
  hess: Float32Array,
  hist: Float64Array,
): void {
  let i = begin;
  for (; i + 1 < end; i += 2) {
    const r1 = rowIdx[i];
    const r2 = rowIdx[i + 1];
    const g1 = grad[r1];
    const h1 = hess[r1];
    const g2 = grad[r2];
    const h2 = hess[r2];
    const j1 = r1 * numCols;
    const j2 = r2 * numCols;
    for (let c = c0; c < c1; c++) {
      const b1 = bins[j1 + c];
      if (b1 !== missing) {
        const k = b1 << 1;
        hist[k] += g1;
        hist[k + 1] += h1;
      }
      const b2 = bins[j2 + c];
      if (b2 !== missing) {
        const k = b2 << 1;
        hist[k] += g2;
        hist[k + 1] += h2;
      }
    }
  }
  if (i < end) {
    const r = rowIdx[i];
    const g = grad[r];
    const h = hess[r];
    const base = r * numCols;
    for (let c = c0; c < c1; c++) {
      const b = bins[base + c];
      if (b !== missing) {
        const k = b << 1;
        hist[k] += g;
        hist[k + 1] += h;
      }
    }
  }
}

/**
 * Splits rowIdx[begin..end) in place by feature fid's local bin: rows at or below `bin` (and missing
 * rows when defaultLeft) first, the rest after, each side in row order. Returns the first right row.
 * `tmp` holds at least end - begin entries.
 */
export function partitionRows(
  m: BinMatrix,
  rowIdx: Int32Array,
  tmp: Int32Array,
  begin: number,
  end: number,
  fid: number,
  bin: number,
  defaultLeft: boolean,
): number {
  const col = m.cols;
  const base = fid * m.numRows;
  let nl = begin;
  let nr = 0;
  if (m.dense) {
    for (let i = begin; i < end; i++) {
      const r = rowIdx[i];
      // 1 when col[base + r] <= bin
      const l = ((bin - col[base + r]) >>> 31) ^ 1;
      rowIdx[nl] = r;
      tmp[nr] = r;
      nl += l;
      nr += l ^ 1;
    }
  } else {
    const miss = m.colMissing;
    const dl = defaultLeft ? 1 : 0;
    for (let i = begin; i < end; i++) {
      const r = rowIdx[i];
      const b = col[base + r];
      const l = b === miss ? dl : ((bin - b) >>> 31) ^ 1;
      rowIdx[nl] = r;
      tmp[nr] = r;
      nl += l;
      nr += l ^ 1;
    }
  }
  rowIdx.set(tmp.subarray(0, nr), nl);
  return nl;
}
