// Objective functions as xgboost applies them at prediction time: the conversion of the stored
// base_score to margin space (ProbToMargin) and the output transform (PredTransform). Every step is
// rounded to float32 the way xgboost's C++ code computes it.

import { fail } from './errors.js';

export type OutputTransform = 'identity' | 'sigmoid' | 'exp' | 'hinge' | 'softprob' | 'softmax';

export interface ObjectiveInfo {
  readonly name: string;
  readonly transform: OutputTransform;
  /** base_score (output space) → margin, float32. */
  probToMargin(baseScore: number): number;
}

const f = Math.fround;

const identity = (x: number): number => f(x);
const logMargin = (x: number): number => f(Math.log(f(x)));
function logitMargin(x: number): number {
  const b = f(x);
  if (!(b > 0 && b < 1)) fail(`base_score must be in (0,1) for logistic loss, got ${x}`);
  return f(-f(Math.log(f(f(1 / b) - 1))));
}

const TABLE: Record<string, [OutputTransform, (x: number) => number]> = {
  'reg:squarederror': ['identity', identity],
  'reg:linear': ['identity', identity],
  'reg:squaredlogerror': ['identity', identity],
  'reg:pseudohubererror': ['identity', identity],
  'reg:absoluteerror': ['identity', identity],
  'reg:quantileerror': ['identity', identity],
  'reg:logistic': ['sigmoid', logitMargin],
  'binary:logistic': ['sigmoid', logitMargin],
  'binary:logitraw': ['identity', identity],
  'binary:hinge': ['hinge', identity],
  'reg:gamma': ['exp', logMargin],
  'reg:tweedie': ['exp', logMargin],
  'count:poisson': ['exp', logMargin],
  'survival:cox': ['exp', logMargin],
  'survival:aft': ['exp', logMargin],
  'multi:softprob': ['softprob', identity],
  'multi:softmax': ['softmax', identity],
  'rank:pairwise': ['identity', identity],
  'rank:ndcg': ['identity', identity],
  'rank:map': ['identity', identity],
};

export function objectiveInfo(name: string): ObjectiveInfo {
  const entry = Object.hasOwn(TABLE, name) ? TABLE[name] : undefined;
  if (!entry) fail(`unsupported objective '${name}'`);
  // xgboost creates reg:squarederror for the deprecated reg:linear (and reports that name)
  return { name: name === 'reg:linear' ? 'reg:squarederror' : name, transform: entry[0], probToMargin: entry[1] };
}

/** xgboost's common::Sigmoid (1.7): 1 / (exp(min(-x, 88.7)) + 1 + 1e-16), in float32. */
export function sigmoid(x: number): number {
  const nx = Math.min(-x, 88.69999694824219);
  return f(1 / f(f(Math.exp(nx)) + 1));
}

/** Scalar PredTransform, used for the pre-1.0 binary base_score conversion. */
export function transformScalar(t: OutputTransform, x: number): number {
  switch (t) {
    case 'sigmoid':
      return sigmoid(x);
    case 'exp':
      return f(Math.exp(x));
    case 'hinge':
      return x > 0 ? 1 : 0;
    default:
      return f(x);
  }
}

/**
 * Apply the objective's output transform to margins laid out row-major with `groups` values per row.
 * Returns the output array (a new, shorter one for multi:softmax, whose output is the class index).
 */
export function applyTransform(t: OutputTransform, margins: Float32Array, nRows: number, groups: number): Float32Array {
  const n = nRows * groups;
  switch (t) {
    case 'identity':
      return margins;
    case 'sigmoid':
      for (let i = 0; i < n; i++) margins[i] = sigmoid(margins[i]);
      return margins;
    case 'exp':
      for (let i = 0; i < n; i++) margins[i] = Math.exp(margins[i]);
      return margins;
    case 'hinge':
      for (let i = 0; i < n; i++) margins[i] = margins[i] > 0 ? 1 : 0;
      return margins;
    case 'softprob':
      for (let r = 0; r < nRows; r++) softmaxInPlace(margins, r * groups, groups);
      return margins;
    case 'softmax': {
      const out = new Float32Array(nRows);
      for (let r = 0; r < nRows; r++) {
        const o = r * groups;
        let best = 0;
        for (let k = 1; k < groups; k++) if (margins[o + k] > margins[o + best]) best = k;
        out[r] = best;
      }
      return out;
    }
  }
}

/** common::Softmax: float32 max and exps, double sum, float32 division. */
function softmaxInPlace(a: Float32Array, o: number, k: number): void {
  let wmax = a[o];
  for (let i = 1; i < k; i++) {
    const v = a[o + i];
    // fmaxf ignores NaN operands
    if (v > wmax || Number.isNaN(wmax)) wmax = v;
  }
  let wsum = 0;
  for (let i = 0; i < k; i++) {
    const e = f(Math.exp(f(a[o + i] - wmax)));
    a[o + i] = e;
    wsum += e;
  }
  const s = f(wsum);
  for (let i = 0; i < k; i++) a[o + i] = a[o + i] / s;
}
