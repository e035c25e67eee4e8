// xgboost 1.7's split arithmetic (src/tree/param.h CalcWeight/CalcGain, split_evaluator.h, the
// SplitEntry "NeedReplace" rule), reproduced operation by operation: sums in double, results
// rounded to float where xgboost stores or returns a float.

const f = Math.fround;

/** kRtEps in include/xgboost/base.h */
export const RT_EPS = f(1e-6);

/** The tree parameters the split arithmetic reads, already rounded to float as xgboost holds them. */
export interface SplitParams {
  eta: number;
  lambda: number;
  alpha: number;
  gamma: number;
  minChildWeight: number;
  maxDeltaStep: number;
}

export function splitParams(p: {
  eta: number;
  lambda: number;
  alpha: number;
  gamma: number;
  min_child_weight: number;
  max_delta_step: number;
}): SplitParams {
  return {
    eta: f(p.eta),
    lambda: f(p.lambda),
    alpha: f(p.alpha),
    gamma: f(p.gamma),
    minChildWeight: f(p.min_child_weight),
    maxDeltaStep: f(p.max_delta_step),
  };
}

function thresholdL1(w: number, alpha: number): number {
  if (w > alpha) return w - alpha;
  if (w < -alpha) return w + alpha;
  return 0;
}

/** tree::CalcWeight in double, then the evaluator's cast to float. */
export function calcWeight(p: SplitParams, g: number, h: number): number {
  if (h < p.minChildWeight || h <= 0) return 0;
  let dw = -thresholdL1(g, p.alpha) / (h + p.lambda);
  if (p.maxDeltaStep !== 0 && Math.abs(dw) > p.maxDeltaStep) {
    dw = dw < 0 || Object.is(dw, -0) ? -p.maxDeltaStep : p.maxDeltaStep;
  }
  return f(dw);
}

/** SplitEvaluator::CalcGainGivenWeight (float result). */
export function calcGainGivenWeight(p: SplitParams, g: number, h: number, w: number): number {
  if (h <= 0) return 0;
  if (p.maxDeltaStep === 0) {
    // float(sqr(thresholdL1(g)) in double) / float(h + lambda) in float
    const t = thresholdL1(g, p.alpha);
    return f(f(t * t) / f(h + p.lambda));
  }
  const gf = f(g);
  const hf = f(h);
  // -(2*g*w + (h + lambda)*w*w), all in float
  const a = f(f(2 * gf) * w);
  const b = f(f(hf + p.lambda) * f(w * w));
  return f(-f(a + b));
}

/** SplitEvaluator::CalcGain: the gain of a node with these sums (float). */
export function calcGain(p: SplitParams, g: number, h: number): number {
  return calcGainGivenWeight(p, g, h, calcWeight(p, g, h));
}

/** SplitEvaluator::CalcSplitGain (float). */
export function calcSplitGain(p: SplitParams, gl: number, hl: number, gr: number, hr: number): number {
  if (p.maxDeltaStep === 0) {
    // the weights do not enter the gain without max_delta_step (split_evaluator.h)
    const tl = thresholdL1(gl, p.alpha);
    const tr = thresholdL1(gr, p.alpha);
    const a = hl <= 0 ? 0 : f(f(tl * tl) / f(hl + p.lambda));
    const b = hr <= 0 ? 0 : f(f(tr * tr) / f(hr + p.lambda));
    return f(a + b);
  }
  const wl = calcWeight(p, gl, hl);
  const wr = calcWeight(p, gr, hr);
  return f(calcGainGivenWeight(p, gl, hl, wl) + calcGainGivenWeight(p, gr, hr, wr));
}

/** A candidate split (SplitEntryContainer): gain, feature, default direction, threshold, child sums. */
export class SplitEntry {
  lossChg = 0;
  feature = 0;
  defaultLeft = false;
  value = 0;
  /** for hist: the split's bin within the feature (-1: every present value goes right) */
  bin = -1;
  lg = 0;
  lh = 0;
  rg = 0;
  rh = 0;

  /** SplitEntryContainer::NeedReplace: the lower feature index wins ties. */
  needReplace(lossChg: number, feature: number): boolean {
    if (lossChg === Number.POSITIVE_INFINITY || lossChg === Number.NEGATIVE_INFINITY) return false;
    if (this.feature <= feature) return lossChg > this.lossChg;
    return !(this.lossChg > lossChg);
  }

  update(
    lossChg: number,
    feature: number,
    value: number,
    defaultLeft: boolean,
    lg: number,
    lh: number,
    rg: number,
    rh: number,
    bin = -1,
  ): boolean {
    if (!this.needReplace(lossChg, feature)) return false;
    this.lossChg = lossChg;
    this.feature = feature;
    this.defaultLeft = defaultLeft;
    this.value = value;
    this.bin = bin;
    this.lg = lg;
    this.lh = lh;
    this.rg = rg;
    this.rh = rh;
    return true;
  }

  updateFrom(o: SplitEntry): boolean {
    return this.update(o.lossChg, o.feature, o.value, o.defaultLeft, o.lg, o.lh, o.rg, o.rh, o.bin);
  }
}
