// xgboost 1.7's cut points (src/common/quantile.cc SketchContainer::MakeCuts/AddCutPoint,
// SortedSketchContainer, hist_util.h SearchBin), built from the sketches in ./sketch.ts.

import { primeAtLoad } from './prime.js';
import { Sketch, Summary } from './sketch.js';

const f = Math.fround;
const KF = 8; // kFactor

/** Histogram cut points (HistogramCuts): per feature [ptr[f], ptr[f+1]) into values; minValues. */
export interface Cuts {
  ptr: Int32Array;
  values: Float32Array;
  minValues: Float32Array;
}

/**
 * SketchContainer::MakeCuts. `weights[r]` (or 1) weighs row r: sample weights for hist, hessian ×
 * weight for approx. `sorted` selects SortedSketchContainer (approx with a non-constant hessian).
 */
export function makeCuts(
  data: Float32Array,
  numRows: number,
  numCols: number,
  maxBins: number,
  weights: Float32Array | undefined,
  sorted: boolean,
  colsSorted?: { ptr: Int32Array; rows: Int32Array; values: Float32Array },
): Cuts {
  if (!sorted) {
    // a block of features at a time through one cutter, its buffers reused
    const cutter = new ColumnCutter();
    const values = new Float32Array(numCols * maxBins);
    const counts = new Int32Array(numCols);
    const minValues = new Float32Array(numCols);
    for (let c0 = 0; c0 < numCols; c0 += CUT_BLOCK) {
      const c1 = Math.min(c0 + CUT_BLOCK, numCols);
      cutter.gather(data, numRows, numCols, c0, c1, weights);
      for (let c = c0; c < c1; c++) {
        const out = values.subarray(c * maxBins, (c + 1) * maxBins);
        counts[c] = cutter.column(c - c0, maxBins, weights !== undefined, out);
        minValues[c] = cutter.minValue;
      }
    }
    return assembleCuts(numCols, maxBins, values, counts, minValues);
  }
  const colSize = new Float64Array(numCols);
  for (let r = 0; r < numRows; r++) {
    const b = r * numCols;
    for (let c = 0; c < numCols; c++) if (!Number.isNaN(data[b + c])) colSize[c]++;
  }
  if (!colsSorted) throw new Error('sorted sketch needs sorted columns');
  const values = new Float32Array(numCols * maxBins);
  const counts = new Int32Array(numCols);
  const minValues = new Float32Array(numCols);
  const out = new Summary(0);
  const red = new Summary(0);
  const final = new Summary(0);
  for (let c = 0; c < numCols; c++) {
    const sk = new Sketch(true);
    sk.init(colSize[c], 2 / maxBins);
    pushSortedColumn(sk, colsSorted, c, weights, maxBins);
    red.size = 0;
    if (colSize[c] !== 0) {
      sk.getSummary(out);
      red.setPruneX(out, Math.min(colSize[c], maxBins * KF));
    }
    counts[c] = addCutPoints(red, colSize[c], maxBins, true, final, values.subarray(c * maxBins));
    minValues[c] = cutMin;
  }
  return assembleCuts(numCols, maxBins, values, counts, minValues);
}

/** the minimum value addCutPoints found for its feature */
let cutMin = 0;

/**
 * The end of MakeCuts for one feature with summary `s` of colSize values: the prune to the bins,
 * the feature's minimum value (in cutMin), AddCutPoint. Writes the cut values into out; returns
 * how many (at most maxBins).
 */
function addCutPoints(
  s: Summary,
  colSize: number,
  maxBins: number,
  sorted: boolean,
  a: Summary,
  out: Float32Array,
): number {
  const numCuts = colSize === 0 ? 0 : Math.min(colSize, maxBins * KF);
  const maxNumBins = Math.min(numCuts, maxBins);
  a.size = 0;
  if (numCuts !== 0) {
    if (sorted) a.setPruneX(s, maxNumBins + 1);
    else a.setPrune(s, maxNumBins + 1);
    const mval = a.value[0];
    cutMin = f(f(mval - Math.abs(mval)) - f(1e-5));
  } else {
    cutMin = f(1e-5);
  }
  let n = 0;
  const required = Math.min(a.size, maxNumBins);
  for (let i = 1; i < required; i++) {
    const cpt = a.value[i];
    if (i === 1 || cpt > out[n - 1]) out[n++] = cpt;
  }
  const cpt = a.size > 0 ? a.value[a.size - 1] : cutMin;
  out[n++] = f(cpt + f(Math.abs(cpt) + f(1e-5)));
  return n;
}

/** Cuts from each feature's cut values (values[c * maxBins ..], counts[c] of them) and minimum. */
export function assembleCuts(
  numCols: number,
  maxBins: number,
  values: Float32Array,
  counts: Int32Array,
  minValues: Float32Array,
): Cuts {
  const ptr = new Int32Array(numCols + 1);
  for (let c = 0; c < numCols; c++) ptr[c + 1] = ptr[c] + counts[c];
  const all = new Float32Array(ptr[numCols]);
  for (let c = 0; c < numCols; c++) all.set(values.subarray(c * maxBins, c * maxBins + counts[c]), ptr[c]);
  return { ptr, values: all, minValues: Float32Array.from(minValues) };
}

/** features gathered together: one pass over the row-major values reads each cache line once for them */
export const CUT_BLOCK = 4;

/**
 * The cut values of one feature at a time (WQuantileSketch, the unsorted container), its sketch
 * and summaries reused from feature to feature. A block of features is first gathered out of the
 * row-major matrix in one pass (present values only, with their rows' weights).
 */
export class ColumnCutter {
  private readonly sketch = new Sketch(false);
  private readonly out = new Summary(0);
  private readonly red = new Summary(0);
  private readonly final = new Summary(0);
  private values: Float32Array[] = [];
  private weights: Float32Array[] = [];
  private readonly sizes = new Int32Array(CUT_BLOCK);
  /** the last feature's minimum value and number of present values */
  minValue = 0;
  colSize = 0;

  /** Gathers features c0..c1-1 (at most CUT_BLOCK) of the row-major data. */
  gather(data: Float32Array, numRows: number, numCols: number, c0: number, c1: number, weights?: Float32Array): void {
    for (let k = 0; k < c1 - c0; k++) {
      if (this.values[k] === undefined || this.values[k].length < numRows) {
        this.values[k] = new Float32Array(numRows);
        if (weights) this.weights[k] = new Float32Array(numRows);
      }
      if (weights && (this.weights[k] === undefined || this.weights[k].length < numRows))
        this.weights[k] = new Float32Array(numRows);
    }
    this.sizes.fill(0);
    gatherColumns(data, numRows, numCols, c0, c1, weights, this.values, this.weights, this.sizes);
  }

  /** Gathered feature k: writes its cut values into out, returns how many. */
  column(k: number, maxBins: number, weighted: boolean, out: Float32Array): number {
    const size = this.sizes[k];
    const values = this.values[k];
    const w = this.weights[k];
    const sk = this.sketch;
    const nb = Math.max(Math.min(maxBins, size), 1);
    sk.init(size, 1 / f(nb * KF));
    sk.resizeQueue(sk.limitSize * 2);
    if (weighted) for (let i = 0; i < size; i++) sk.push(values[i], w[i]);
    else for (let i = 0; i < size; i++) sk.push(values[i], 1);
    this.red.size = 0;
    if (size !== 0) {
      sk.getSummary(this.out);
      this.red.setPrune(this.out, Math.min(size, maxBins * KF));
    }
    const n = addCutPoints(this.red, size, maxBins, false, this.final, out);
    this.minValue = cutMin;
    this.colSize = size;
    return n;
  }
}

function gatherColumns(
  data: Float32Array,
  numRows: number,
  numCols: number,
  c0: number,
  c1: number,
  weights: Float32Array | undefined,
  values: Float32Array[],
  ws: Float32Array[],
  sizes: Int32Array,
): void {
  // chunks of rows, the block's columns one after the other in each: a chunk's cache lines are
  // read from memory once for all of them
  for (let r0 = 0; r0 < numRows; r0 += 2048) {
    const r1 = Math.min(r0 + 2048, numRows);
    for (let c = c0; c < c1; c++) {
      const k = c - c0;
      const out = values[k];
      const wout = ws[k];
      let size = sizes[k];
      for (let r = r0, at = r0 * numCols + c; r < r1; r++, at += numCols) {
        const v = data[at];
        if (Number.isNaN(v)) continue;
        if (weights) wout[size] = weights[r];
        out[size++] = v;
      }
      sizes[k] = size;
    }
  }
}

/** SortedSketchContainer::PushColPage for one column (values ascending). */
function pushSortedColumn(
  sk: Sketch,
  cols: { ptr: Int32Array; rows: Int32Array; values: Float32Array },
  c: number,
  weights: Float32Array | undefined,
  maxSize: number,
): void {
  const s = cols.ptr[c];
  const e = cols.ptr[c + 1];
  const temp = sk.temp;
  temp.reserve(maxSize + 1);
  temp.size = 0;
  let sumTotal = 0;
  for (let i = s; i < e; i++) sumTotal += weights ? weights[cols.rows[i]] : 1;
  if (e === s) return;
  let nextGoal = -1;
  let rmin = 0;
  let wmin = 0;
  let last = 0;
  for (let i = s; i < e; i++) {
    const fv = cols.values[i];
    const w = weights ? weights[cols.rows[i]] : 1;
    if (nextGoal === -1) {
      nextGoal = 0;
      last = fv;
      wmin = w;
      continue;
    }
    if (last !== fv) {
      const rmax = rmin + wmin;
      if (rmax >= nextGoal && temp.size !== maxSize) {
        if (temp.size === 0 || last > temp.value[temp.size - 1]) {
          temp.set(temp.size, f(rmin), f(rmax), f(wmin), last);
          ++temp.size;
        }
        if (temp.size === maxSize) nextGoal = sumTotal * 2 + f(1e-5);
        else nextGoal = f((temp.size * sumTotal) / maxSize);
      }
      rmin = rmax;
      wmin = w;
      last = fv;
    } else {
      wmin += w;
    }
  }
  // Finalize
  const rmax = rmin + wmin;
  if (temp.size === 0 || last > temp.value[temp.size - 1]) {
    temp.set(temp.size, f(rmin), f(rmax), f(wmin), last);
    ++temp.size;
  }
  sk.pushTemp();
}

/** HistogramCuts::SearchBin: the bin (local to the feature) of a present value. */
export function searchBin(cuts: Cuts, c: number, v: number): number {
  let lo = cuts.ptr[c];
  let hi = cuts.ptr[c + 1];
  const end = hi;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cuts.values[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  if (lo === end) lo -= 1;
  return lo - cuts.ptr[c];
}

// `column`'s tail after its push loop, primed (./prime.ts): columns weighted and not, one empty.
{
  const n = 64;
  const cols = 3;
  const data = new Float32Array(n * cols);
  for (let r = 0; r < n; r++) {
    data[r * cols] = ((r * 37) % 23) - 11 + (r % 3) * 0.25;
    data[r * cols + 1] = r % 5 === 0 ? Number.NaN : (r * 7) % 4;
    data[r * cols + 2] = Number.NaN;
  }
  const weights = new Float32Array(n).map((_, r) => 1 + (r % 2));
  const cutter = new ColumnCutter();
  const out = new Float32Array(16);
  primeAtLoad((i) => {
    const weighted = i % 2 === 1;
    cutter.gather(data, n, cols, 0, cols, weighted ? weights : undefined);
    for (let k = 0; k < cols; k++) cutter.column(k, 16, weighted, out);
  });
}
