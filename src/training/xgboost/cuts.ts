// xgboost 1.7's cut points (src/common/quantile.cc SketchContainer::MakeCuts/AddCutPoint,
// SortedSketchContainer, hist_util.h SearchBin), built from the sketches in ./sketch.ts.

import { Sketch, Summary } from './sketch.js';

const f = Math.fround;

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
  const KF = 8; // kFactor
  const colSize = new Float64Array(numCols);
  for (let r = 0; r < numRows; r++) {
    const b = r * numCols;
    for (let c = 0; c < numCols; c++) if (!Number.isNaN(data[b + c])) colSize[c]++;
  }
  const summaries: Summary[] = [];
  const reduce = (sk: Sketch, c: number) => {
    const out = new Summary(0);
    if (colSize[c] === 0) return out;
    sk.getSummary(out);
    const red = new Summary(0);
    const inter = Math.min(colSize[c], maxBins * KF);
    if (sorted) red.setPruneX(out, inter);
    else red.setPrune(out, inter);
    return red;
  };
  if (!sorted) {
    // one feature at a time through one sketch, its buffers reused
    const sk = new Sketch(false);
    for (let c = 0; c < numCols; c++) {
      const nb = Math.max(Math.min(maxBins, colSize[c]), 1);
      sk.init(colSize[c], 1 / f(nb * KF));
      sk.resizeQueue(sk.limitSize * 2);
      for (let r = 0, at = c; r < numRows; r++, at += numCols) {
        const v = data[at];
        if (!Number.isNaN(v)) sk.push(v, weights ? weights[r] : 1);
      }
      summaries.push(reduce(sk, c));
    }
  } else {
    if (!colsSorted) throw new Error('sorted sketch needs sorted columns');
    for (let c = 0; c < numCols; c++) {
      const sk = new Sketch(true);
      sk.init(colSize[c], 2 / maxBins);
      pushSortedColumn(sk, colsSorted, c, weights, maxBins);
      summaries.push(reduce(sk, c));
    }
  }
  const ptr = new Int32Array(numCols + 1);
  const values: number[] = [];
  const minValues = new Float32Array(numCols);
  for (let c = 0; c < numCols; c++) {
    const numCuts = colSize[c] === 0 ? 0 : Math.min(colSize[c], maxBins * KF);
    const maxNumBins = Math.min(numCuts, maxBins);
    const a = new Summary(0);
    if (numCuts !== 0) {
      if (sorted) a.setPruneX(summaries[c], maxNumBins + 1);
      else a.setPrune(summaries[c], maxNumBins + 1);
      const mval = a.value[0];
      minValues[c] = f(f(mval - Math.abs(mval)) - f(1e-5));
    } else {
      minValues[c] = f(1e-5);
    }
    // AddCutPoint
    const required = Math.min(a.size, maxNumBins);
    for (let i = 1; i < required; i++) {
      const cpt = a.value[i];
      if (i === 1 || cpt > values[values.length - 1]) values.push(cpt);
    }
    const cpt = a.size > 0 ? a.value[a.size - 1] : minValues[c];
    values.push(f(cpt + f(Math.abs(cpt) + f(1e-5))));
    ptr[c + 1] = values.length;
  }
  return { ptr, values: Float32Array.from(values), minValues };
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
