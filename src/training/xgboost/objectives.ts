// Objectives of xgboost 1.7 (src/objective/regression_obj.cu, regression_loss.h, hinge.cu,
// multiclass_obj.cu): gradient pairs rounded to float as GradientPair stores them, the transform
// applied before evaluation, the margin of base_score, and the objective's part of the JSON model.

import { formatG } from './cpp-format.js';
import type { Objective, TrainParams } from './types.js';

const f = Math.fround;
const FLT_MIN = 1.1754943508222875e-38;
const EPS16 = f(1e-16);

const expf = (x: number) => f(Math.exp(x));
const sigmoid = (x: number) => f(1 / f(1 + expf(-x)));

export interface ObjectiveImpl {
  /** the objective name xgboost saves (reg:linear is saved as reg:squarederror) */
  name: string;
  /** number of outputs per row */
  groups: number;
  defaultMetric: string;
  /** base_score (probability space) → margin, as float */
  probToMargin(base: number): number;
  /**
   * Writes gradient pairs for all rows. `preds` holds numRows × groups margins (row-major);
   * grad/hess the same shape.
   */
  gradients(
    preds: Float32Array,
    labels: Float32Array,
    weights: Float32Array | undefined,
    grad: Float32Array,
    hess: Float32Array,
  ): void;
  /** EvalTransform: margins → what the metrics see (in place on a copy) */
  evalTransform(preds: Float32Array): void;
  /** evalTransform leaves every value as it is: the metrics may read the margins themselves */
  readonly evalIdentity?: boolean;
  /** the "objective" object of the JSON model */
  json(): Record<string, unknown>;
}

/** A dmlc float parameter as the JSON model writes it: ostream with max_digits10 (9) digits, %g style. */
export function paramFloat(x: number): string {
  return formatG(f(x), 9);
}

/** base_score as the learner writes it (to_chars: shortest round-trip float, "5E-1" style). */
export function floatParam(x: number): string {
  const v = f(x);
  if (v === 0) return '0';
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  for (let p = 1; p <= 9; p++) {
    const s = v.toExponential(p - 1);
    if (f(Number(s)) === v) {
      const [m, e] = s.split('e');
      return `${m.toUpperCase()}E${Number(e)}`;
    }
  }
  return String(v);
}

/** writes the gradient and hessian of one row into out[0], out[1] */
type Loss = (p: number, y: number, out: Float64Array) => void;
const scratch = new Float64Array(2);

function regLoss(
  name: string,
  metric: string,
  transform: (x: number) => number,
  loss: Loss,
  checkLabel: (y: number) => boolean,
  toMargin: (b: number) => number,
  spw: number,
): ObjectiveImpl {
  const scale = f(spw);
  return {
    name,
    groups: 1,
    defaultMetric: metric,
    probToMargin: toMargin,
    gradients(preds, labels, weights, grad, hess) {
      if (loss === squareLoss && !weights && scale === 1) {
        squaredGradients(preds, labels, grad, hess);
        return;
      }
      for (let i = 0; i < labels.length; i++) {
        const p = transform(preds[i]);
        let w = weights ? weights[i] : 1;
        const y = labels[i];
        if (y === 1) w = f(w * scale);
        if (!checkLabel(y)) throw new Error(`label ${y} is not valid for ${name}`);
        loss(p, y, scratch);
        grad[i] = scratch[0] * w;
        hess[i] = scratch[1] * w;
      }
    },
    evalTransform(preds) {
      for (let i = 0; i < preds.length; i++) preds[i] = transform(preds[i]);
    },
    evalIdentity: transform === ident,
    json: () => ({ name, reg_loss_param: { scale_pos_weight: paramFloat(spw) } }),
  };
}

const squareLoss: Loss = (p, y, o) => {
  o[0] = f(p - y);
  o[1] = 1;
};

/**
 * squareLoss of unweighted rows (scale_pos_weight 1), the default objective's every round. The
 * general loop's three calls through closures cost ~6 ns a row (0.6 s of a 1M-row, 100-round
 * training); this is the same float difference (a Float32Array store rounds as f does) and hessian 1.
 */
function squaredGradients(preds: Float32Array, labels: Float32Array, grad: Float32Array, hess: Float32Array): void {
  const n = labels.length;
  for (let i = 0; i < n; i++) {
    grad[i] = preds[i] - labels[i];
    hess[i] = 1;
  }
}
const logisticLoss: Loss = (p, y, o) => {
  o[0] = f(p - y);
  o[1] = Math.max(f(p * f(1 - p)), EPS16);
};
const rawLogisticLoss: Loss = (x, y, o) => logisticLoss(sigmoid(x), y, o);
const ident = (x: number) => x;
const unit01 = (y: number) => y >= 0 && y <= 1;
const logitMargin = (b: number) => {
  if (!(b > 0 && b < 1)) throw new Error(`base_score must be in (0,1) for logistic loss, got: ${b}`);
  return f(-Math.log(f(f(1 / f(b)) - 1)));
};

function elementwise(
  name: string,
  metric: string,
  loss: Loss,
  transform: (x: number) => number,
  toMargin: (b: number) => number,
  json: Record<string, unknown>,
): ObjectiveImpl {
  return {
    name,
    groups: 1,
    defaultMetric: metric,
    probToMargin: toMargin,
    gradients(preds, labels, weights, grad, hess) {
      for (let i = 0; i < labels.length; i++) {
        const w = weights ? weights[i] : 1;
        loss(preds[i], labels[i], scratch);
        grad[i] = scratch[0] * w;
        hess[i] = scratch[1] * w;
      }
    },
    evalTransform(preds) {
      for (let i = 0; i < preds.length; i++) preds[i] = transform(preds[i]);
    },
    json: () => ({ name, ...json }),
  };
}

const logMargin = (b: number) => f(Math.log(f(b)));

export function makeObjective(p: TrainParams): ObjectiveImpl {
  const obj: Objective = p.objective;
  switch (obj) {
    case 'reg:squarederror':
    case 'reg:linear':
      return regLoss('reg:squarederror', 'rmse', ident, squareLoss, () => true, f, p.scale_pos_weight);
    case 'reg:logistic':
      return regLoss('reg:logistic', 'rmse', sigmoid, logisticLoss, unit01, logitMargin, p.scale_pos_weight);
    case 'binary:logistic':
      return regLoss('binary:logistic', 'logloss', sigmoid, logisticLoss, unit01, logitMargin, p.scale_pos_weight);
    case 'binary:logitraw':
      return regLoss('binary:logitraw', 'logloss', ident, rawLogisticLoss, unit01, f, p.scale_pos_weight);
    case 'reg:pseudohubererror': {
      const slope = f(p.huber_slope);
      const s2 = f(slope * slope);
      return elementwise(
        'reg:pseudohubererror',
        'mphe',
        (pr, y, o) => {
          const z = f(pr - y);
          const z2 = f(z * z);
          const scaleSqrt = f(Math.sqrt(f(1 + f(z2 / s2))));
          const scale = f(s2 + z2);
          o[0] = f(z / scaleSqrt);
          o[1] = f(s2 / f(scale * scaleSqrt));
        },
        ident,
        f,
        { pseudo_huber_param: { huber_slope: paramFloat(slope) } },
      );
    }
    case 'count:poisson': {
      // learner.cc: count:poisson without an explicit max_delta_step uses 0.7 (also for the trees)
      const mds = f(p.max_delta_step === 0 ? 0.7 : p.max_delta_step);
      return elementwise(
        'count:poisson',
        'poisson-nloglik',
        (pr, y, o) => {
          if (y < 0) throw new Error('PoissonRegression: label must be nonnegative');
          o[0] = f(expf(pr) - y);
          o[1] = expf(f(pr + mds));
        },
        expf,
        logMargin,
        { poisson_regression_param: { max_delta_step: paramFloat(mds) } },
      );
    }
    case 'reg:gamma':
      return elementwise(
        'reg:gamma',
        'gamma-nloglik',
        (pr, y, o) => {
          if (y <= 0) throw new Error('GammaRegression: label must be positive');
          const e = expf(pr);
          o[0] = f(1 - f(y / e));
          o[1] = f(y / e);
        },
        expf,
        logMargin,
        {},
      );
    case 'reg:tweedie': {
      const rho = f(p.tweedie_variance_power);
      return elementwise(
        'reg:tweedie',
        `tweedie-nloglik@${cppFloat(rho)}`,
        (pr, y, o) => {
          if (y < 0) throw new Error('TweedieRegression: label must be nonnegative');
          const a = expf(f(f(1 - rho) * pr));
          const b = expf(f(f(2 - rho) * pr));
          const g = f(f(-y * a) + b);
          const h = f(f(f(-y * f(1 - rho)) * a) + f(f(2 - rho) * b));
          o[0] = g;
          o[1] = h;
        },
        expf,
        logMargin,
        { tweedie_regression_param: { tweedie_variance_power: paramFloat(rho) } },
      );
    }
    case 'binary:hinge':
      return elementwise(
        'binary:hinge',
        'error',
        (pr, label, o) => {
          const y = f(label * 2 - 1);
          o[0] = f(pr * y) < 1 ? -y : 0;
          o[1] = f(pr * y) < 1 ? 1 : FLT_MIN;
        },
        (x) => (x > 0 ? 1 : 0),
        f,
        {},
      );
    case 'multi:softmax':
    case 'multi:softprob':
      return softmax(obj, p.num_class);
  }
}

/** C++ ostream's default float formatting (6 significant digits, %g style). */
export function cppFloat(x: number): string {
  return formatG(x, 6);
}

function softmax(name: 'multi:softmax' | 'multi:softprob', k: number): ObjectiveImpl {
  if (!(k >= 2)) throw new Error(`${name} needs num_class >= 2`);
  return {
    name,
    groups: k,
    defaultMetric: 'mlogloss',
    probToMargin: f,
    gradients(preds, labels, weights, grad, hess) {
      const n = labels.length;
      for (let r = 0; r < n; r++) {
        const b = r * k;
        let wmax = 1.1754943508222875e-38; // numeric_limits<float>::min()
        for (let c = 0; c < k; c++) wmax = Math.max(preds[b + c], wmax);
        let wsum = 0;
        for (let c = 0; c < k; c++) wsum += expf(f(preds[b + c] - wmax));
        const label = labels[r];
        if (label < 0 || label >= k) throw new Error('SoftmaxMultiClassObj: label must be in [0, num_class).');
        const wt = weights ? weights[r] : 1;
        const fs = f(wsum);
        for (let c = 0; c < k; c++) {
          let pr = f(expf(f(preds[b + c] - wmax)) / fs);
          const h = Math.max(f(f(f(f(2 * pr) * f(1 - pr))) * wt), EPS16);
          if (label === c) pr = f(pr - 1);
          grad[b + c] = pr * wt;
          hess[b + c] = h;
        }
      }
    },
    evalTransform(preds) {
      // EvalTransform always gives probabilities (softmax over each row)
      for (let b = 0; b < preds.length; b += k) {
        let wmax = preds[b];
        for (let c = 1; c < k; c++) wmax = Math.max(wmax, preds[b + c]);
        let wsum = 0; // double, as common::Softmax sums
        for (let c = 0; c < k; c++) {
          preds[b + c] = expf(f(preds[b + c] - wmax));
          wsum += preds[b + c];
        }
        const fs = f(wsum);
        for (let c = 0; c < k; c++) preds[b + c] = f(preds[b + c] / fs);
      }
    },
    json: () => ({ name, softmax_multiclass_param: { num_class: String(k) } }),
  };
}
