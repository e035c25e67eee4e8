// Evaluation metrics of xgboost 1.7 (src/metric/elementwise_metric.cu, multiclass_metric.cu,
// auc.cc): per-row residues in float, sums in double, the names xgboost prints.

import { formatG } from './cpp-format.js';

const f = Math.fround;
const EPS16 = f(1e-16);

export interface Metric {
  /** the name as xgboost prints it ("error@0.3", "tweedie-nloglik@1.5") */
  name: string;
  /** larger is better (auc, aucpr), for early stopping */
  maximize: boolean;
  /** preds: transformed predictions, numRows × groups */
  eval(preds: Float32Array, labels: Float32Array, weights: Float32Array | undefined, groups: number): number;
}

function ewise(name: string, row: (y: number, p: number) => number, final: (e: number, w: number) => number): Metric {
  return {
    name,
    maximize: false,
    eval(preds, labels, weights) {
      let es = 0;
      let ws = 0;
      for (let i = 0; i < labels.length; i++) {
        const w = weights ? weights[i] : 1;
        es += f(row(labels[i], preds[i]) * w);
        ws += w;
      }
      return final(es, ws);
    },
  };
}

const mean = (e: number, w: number) => (w === 0 ? e : e / w);

function rmse(preds: Float32Array, labels: Float32Array): number {
  let es = 0;
  const n = labels.length;
  for (let i = 0; i < n; i++) {
    const d = f(labels[i] - preds[i]);
    es += f(d * d);
  }
  return n === 0 ? Math.sqrt(es) : Math.sqrt(es / n);
}

/** log Γ(x) (Lanczos, g=7), for poisson-nloglik's LogGamma(y + 1). */
function lgamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lgamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

function logLoss(y: number, py: number): number {
  const xlogy = (x: number, v: number) => (f(x - 0) === 0 ? 0 : f(x * f(Math.log(Math.max(v, EPS16)))));
  const pneg = f(1 - py);
  return f(xlogy(-y, py) + xlogy(-f(1 - y), pneg));
}

function binaryAuc(
  preds: Float32Array,
  labels: Float32Array,
  weights: Float32Array | undefined,
  area: (fp0: number, fp: number, tp0: number, tp: number) => number,
): [number, number, number] {
  const n = labels.length;
  const idx = Array.from({ length: n }, (_, i) => i).sort((a, b) => preds[b] - preds[a]);
  const w0 = weights ? weights[idx[0]] : 1;
  let fp = (1 - labels[idx[0]]) * w0;
  let tp = labels[idx[0]] * w0;
  let fp0 = 0;
  let tp0 = 0;
  let auc = 0;
  for (let i = 1; i < n; i++) {
    if (preds[idx[i]] !== preds[idx[i - 1]]) {
      auc += area(fp0, fp, tp0, tp);
      tp0 = tp;
      fp0 = fp;
    }
    const w = weights ? weights[idx[i]] : 1;
    fp += f(f(1 - labels[idx[i]]) * w);
    tp += f(labels[idx[i]] * w);
  }
  auc += area(fp0, fp, tp0, tp);
  if (fp <= 0 || tp <= 0) return [0, 0, 0];
  return [fp, tp, auc];
}

const trapezoid = (x0: number, x1: number, y0: number, y1: number) => Math.abs(x0 - x1) * (y0 + y1) * 0.5;

const auc: Metric = {
  name: 'auc',
  maximize: true,
  eval(preds, labels, weights, groups) {
    if (groups !== 1) throw new Error('auc: multi-class AUC is not supported');
    if (labels.length === 0) return Number.NaN;
    const [fp, tp, a] = binaryAuc(preds, labels, weights, trapezoid);
    const area = fp * tp;
    return area <= 0 ? Number.NaN : a / area;
  },
};

const aucpr: Metric = {
  name: 'aucpr',
  maximize: true,
  eval(preds, labels, weights, groups) {
    if (groups !== 1) throw new Error('aucpr: multi-class AUC is not supported');
    let totalPos = 0;
    let totalNeg = 0;
    for (let i = 0; i < labels.length; i++) {
      const w = weights ? weights[i] : 1;
      totalPos += w * labels[i];
      totalNeg += w * f(1 - labels[i]);
    }
    if (totalPos <= 0 || totalNeg <= 0) return Number.NaN;
    const delta = (fp0: number, fp: number, tp0: number, tp: number) => {
      const pr0 = tp0 / totalPos;
      const pr = tp / totalPos;
      let a = 1;
      let b = 0;
      if (tp !== tp0) {
        const h = (fp - fp0) / (tp - tp0);
        a = h + 1;
        b = (fp0 - h * tp0) / totalPos;
      }
      if (b !== 0) return (pr - pr0 - (b / a) * (Math.log(a * pr + b) - Math.log(a * pr0 + b))) / a;
      return (pr - pr0) / a;
    };
    const [, , a] = binaryAuc(preds, labels, weights, delta);
    // BinaryPRAUC reports fp = tp = 1, so the area is not normalised further
    return a;
  },
};

function multi(name: string, row: (label: number, p: Float32Array, b: number, k: number) => number): Metric {
  return {
    name,
    maximize: false,
    eval(preds, labels, weights, k) {
      let es = 0;
      let ws = 0;
      for (let i = 0; i < labels.length; i++) {
        const w = weights ? weights[i] : 1;
        es += f(row(Math.trunc(labels[i]), preds, i * k, k) * w);
        ws += w;
      }
      return mean(es, ws);
    },
  };
}

export function makeMetric(spec: string, hints: { huberSlope: number }): Metric {
  const at = spec.indexOf('@');
  const base = at < 0 ? spec : spec.slice(0, at);
  const arg = at < 0 ? undefined : spec.slice(at + 1);
  switch (base) {
    case 'rmse': {
      const general = ewise(
        'rmse',
        (y, p) => f(f(y - p) * f(y - p)),
        (e, w) => (w === 0 ? Math.sqrt(e) : Math.sqrt(e / w)),
      );
      return {
        ...general,
        // every round of the default objective: the same float residues and double sums as the
        // general loop (a weight of 1 changes no residue; the weights sum to the row count)
        eval(preds, labels, weights, groups) {
          if (weights) return general.eval(preds, labels, weights, groups);
          return rmse(preds, labels);
        },
      };
    }
    case 'mae':
      return ewise('mae', (y, p) => Math.abs(f(y - p)), mean);
    case 'logloss':
      return ewise('logloss', logLoss, mean);
    case 'error': {
      const t = arg === undefined ? 0.5 : f(Number.parseFloat(arg));
      if (Number.isNaN(t)) throw new Error(`bad metric ${spec}`);
      const name = arg !== undefined && t !== 0.5 ? `error@${formatG(t, 6)}` : 'error';
      return ewise(name, (y, p) => (p > t ? f(1 - y) : y), mean);
    }
    case 'poisson-nloglik':
      return ewise(
        'poisson-nloglik',
        (y, py) => {
          const p = py < EPS16 ? EPS16 : py;
          return f(f(f(lgamma(f(y + 1))) + p) - f(f(Math.log(p)) * y));
        },
        mean,
      );
    case 'gamma-nloglik':
      return ewise(
        'gamma-nloglik',
        (y, py) => {
          const p = Math.max(py, f(1e-6));
          const theta = f(-1 / p);
          const b = f(-f(Math.log(-theta)));
          return f(-f(f(y * theta) - b));
        },
        mean,
      );
    case 'tweedie-nloglik': {
      if (arg === undefined) throw new Error('tweedie-nloglik must be in format tweedie-nloglik@rho');
      const rho = f(Number.parseFloat(arg));
      if (!(rho < 2 && rho >= 1)) throw new Error('tweedie variance power must be in interval [1, 2)');
      return ewise(
        `tweedie-nloglik@${formatG(rho, 6)}`,
        (y, p) => {
          const lp = f(Math.log(p));
          const a = f(f(y * f(Math.exp(f(f(1 - rho) * lp)))) / f(1 - rho));
          const b = f(f(Math.exp(f(f(2 - rho) * lp))) / f(2 - rho));
          return f(-a + b);
        },
        mean,
      );
    }
    case 'mphe': {
      const slope = f(hints.huberSlope);
      return ewise(
        'mphe',
        (y, p) => {
          const a = f(y - p);
          const r = f(a / slope);
          return f(f(slope * slope) * f(f(Math.sqrt(f(1 + f(r * r)))) - 1));
        },
        mean,
      );
    }
    case 'auc':
      return auc;
    case 'aucpr':
      return aucpr;
    case 'merror':
      return multi('merror', (label, p, b, k) => {
        let best = 0;
        for (let c = 1; c < k; c++) if (p[b + c] > p[b + best]) best = c;
        return best !== label ? 1 : 0;
      });
    case 'mlogloss':
      return multi('mlogloss', (label, p, b) => {
        const v = p[b + label];
        return v > EPS16 ? f(-Math.log(v)) : f(-Math.log(EPS16));
      });
    default:
      throw new Error(`unknown eval_metric '${spec}'`);
  }
}
