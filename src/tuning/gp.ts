// A Gaussian-process regression surrogate over the unit cube, as Bayesian optimisation uses it: a
// Matérn 5/2 kernel with one length scale per coordinate (ARD), signal and noise variances, all
// fitted by maximising the log marginal likelihood with weak priors (MAP), and the expected
// improvement of a point. Targets are standardised inside; means and variances come back in the
// caller's units. Written here because no maintained npm package offers a fitted GP (checked:
// the few that exist fix their hyperparameters or are unmaintained).
import { choleskyJittered, inverseFromCholesky, solveLower, solveUpper } from './linalg.js';

const SQRT5 = Math.sqrt(5);

/** log length scales (one per coordinate), then log signal variance, then log noise variance. */
export type GpTheta = Float64Array;

/** Limits on the fitted hyperparameters (in the standardised target's units, inputs in [0, 1]). */
const LOG_LS = [Math.log(0.01), Math.log(20)] as const;
const LOG_SF2 = [Math.log(0.05), Math.log(20)] as const;
const LOG_SN2 = [Math.log(1e-6), Math.log(0.5)] as const;

/** Log prior density of θ (up to a constant): Gamma(3, 6) on each length scale, log-normal on both variances. */
function logPrior(theta: GpTheta, d: number): { value: number; grad: Float64Array } {
  const grad = new Float64Array(d + 2);
  let value = 0;
  for (let k = 0; k < d; k++) {
    // Gamma(3, 6) on ℓ with the Jacobian of ℓ = e^θ: 3θ − 6e^θ.
    const l = Math.exp(theta[k]!);
    value += 3 * theta[k]! - 6 * l;
    grad[k] = 3 - 6 * l;
  }
  const sf = theta[d]!;
  value -= (sf * sf) / (2 * 1.5 * 1.5);
  grad[d] = -sf / (1.5 * 1.5);
  const sn = theta[d + 1]! - Math.log(1e-2);
  value -= (sn * sn) / (2 * 2 * 2);
  grad[d + 1] = -sn / 4;
  return { value, grad };
}

function clampTheta(theta: GpTheta, d: number): void {
  for (let k = 0; k < d; k++) theta[k] = Math.min(LOG_LS[1], Math.max(LOG_LS[0], theta[k]!));
  theta[d] = Math.min(LOG_SF2[1], Math.max(LOG_SF2[0], theta[d]!));
  theta[d + 1] = Math.min(LOG_SN2[1], Math.max(LOG_SN2[0], theta[d + 1]!));
}

/** Scaled distance r between two points under length scales ℓ. */
function distance(a: ArrayLike<number>, b: ArrayLike<number>, invLs: Float64Array): number {
  let s = 0;
  for (let k = 0; k < invLs.length; k++) {
    const t = (a[k]! - b[k]!) * invLs[k]!;
    s += t * t;
  }
  return Math.sqrt(s);
}

const matern = (r: number) => (1 + SQRT5 * r + (5 / 3) * r * r) * Math.exp(-SQRT5 * r);

/** The MAP objective (log marginal likelihood + log prior) and its gradient at θ. */
function objective(
  x: readonly Float64Array[],
  y: Float64Array,
  theta: GpTheta,
): { value: number; grad: Float64Array } | undefined {
  const n = x.length;
  const d = theta.length - 2;
  const invLs = new Float64Array(d);
  for (let k = 0; k < d; k++) invLs[k] = Math.exp(-theta[k]!);
  const sf2 = Math.exp(theta[d]!);
  const sn2 = Math.exp(theta[d + 1]!);
  const kmat = new Float64Array(n * n);
  const r = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    kmat[i * n + i] = sf2 + sn2;
    for (let j = 0; j < i; j++) {
      const rij = distance(x[i]!, x[j]!, invLs);
      r[i * n + j] = rij;
      r[j * n + i] = rij;
      const v = sf2 * matern(rij);
      kmat[i * n + j] = v;
      kmat[j * n + i] = v;
    }
  }
  let l: Float64Array;
  try {
    l = choleskyJittered(kmat, n);
  } catch {
    return undefined;
  }
  const alpha = solveUpper(l, n, solveLower(l, n, y));
  let logDet = 0;
  for (let i = 0; i < n; i++) logDet += Math.log(l[i * n + i]!);
  let fit = 0;
  for (let i = 0; i < n; i++) fit += y[i]! * alpha[i]!;
  const lml = -0.5 * fit - logDet - 0.5 * n * Math.log(2 * Math.PI);
  const kinv = inverseFromCholesky(l, n);
  const grad = new Float64Array(d + 2);
  // W = ααᵀ − K⁻¹; ∂LML/∂θ = ½ tr(W ∂K/∂θ).
  // Both halves of the symmetric sum at once: the off-diagonal terms count twice.
  for (let i = 0; i < n; i++) {
    const w0 = alpha[i]! * alpha[i]! - kinv[i * n + i]!;
    grad[d] += 0.5 * w0 * sf2;
    grad[d + 1] += 0.5 * w0 * sn2;
    const xi = x[i]!;
    for (let j = 0; j < i; j++) {
      const w = alpha[i]! * alpha[j]! - kinv[i * n + j]!;
      const rij = r[i * n + j]!;
      const e = Math.exp(-SQRT5 * rij);
      grad[d] += w * sf2 * (1 + SQRT5 * rij + (5 / 3) * rij * rij) * e;
      // ∂k/∂log ℓ_k = σf² (5/3)(1 + √5 r) e^{−√5 r} (Δ_k / ℓ_k)².
      const g = w * sf2 * (5 / 3) * (1 + SQRT5 * rij) * e;
      const xj = x[j]!;
      for (let k = 0; k < d; k++) {
        const t = (xi[k]! - xj[k]!) * invLs[k]!;
        grad[k] += g * t * t;
      }
    }
  }
  const prior = logPrior(theta, d);
  for (let k = 0; k < d + 2; k++) grad[k] += prior.grad[k]!;
  return { value: lml + prior.value, grad };
}

/** Maximises the MAP objective from `start` with Adam in log space; returns the best θ seen and its value. */
function optimise(x: readonly Float64Array[], y: Float64Array, start: GpTheta, iterations: number) {
  const d = start.length - 2;
  const theta = new Float64Array(start);
  clampTheta(theta, d);
  const m = new Float64Array(theta.length);
  const v = new Float64Array(theta.length);
  let best = { theta: new Float64Array(theta), value: Number.NEGATIVE_INFINITY };
  const lr = 0.08;
  for (let t = 1; t <= iterations; t++) {
    const o = objective(x, y, theta);
    if (!o) break;
    if (o.value > best.value) best = { theta: new Float64Array(theta), value: o.value };
    for (let k = 0; k < theta.length; k++) {
      const g = o.grad[k]!;
      m[k] = 0.9 * m[k]! + 0.1 * g;
      v[k] = 0.999 * v[k]! + 0.001 * g * g;
      const mh = m[k]! / (1 - 0.9 ** t);
      const vh = v[k]! / (1 - 0.999 ** t);
      theta[k]! += (lr * mh) / (Math.sqrt(vh) + 1e-8);
    }
    clampTheta(theta, d);
  }
  return best;
}

export interface GpOptions {
  /** Extra starting points for the hyperparameter search (besides the default). */
  readonly starts?: readonly GpTheta[];
  /** Also search from the default starting point (default true; a warm start may skip it). */
  readonly fromDefault?: boolean;
  readonly iterations?: number;
  /** Fit the hyperparameters on at most this many points (the best half and the most recent). */
  readonly fitLimit?: number;
}

export class GaussianProcess {
  readonly theta: GpTheta;
  readonly #x: Float64Array[];
  readonly #y: readonly number[];
  readonly #mean: number;
  readonly #scale: number;
  readonly #invLs: Float64Array;
  readonly #sf2: number;
  readonly #sn2: number;
  readonly #l: Float64Array;
  readonly #alpha: Float64Array;

  private constructor(x: Float64Array[], y: readonly number[], theta: GpTheta, mean: number, scale: number) {
    const n = x.length;
    const d = theta.length - 2;
    this.theta = theta;
    this.#x = x;
    this.#y = y;
    this.#mean = mean;
    this.#scale = scale;
    this.#invLs = new Float64Array(d);
    for (let k = 0; k < d; k++) this.#invLs[k] = Math.exp(-theta[k]!);
    this.#sf2 = Math.exp(theta[d]!);
    this.#sn2 = Math.exp(theta[d + 1]!);
    const kmat = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      kmat[i * n + i] = this.#sf2 + this.#sn2;
      for (let j = 0; j < i; j++) {
        const v = this.#sf2 * matern(distance(x[i]!, x[j]!, this.#invLs));
        kmat[i * n + j] = v;
        kmat[j * n + i] = v;
      }
    }
    this.#l = choleskyJittered(kmat, n);
    const ys = Float64Array.from(y, (v) => (v - mean) / scale);
    this.#alpha = solveUpper(this.#l, n, solveLower(this.#l, n, ys));
  }

  /** Fits θ to (x, y) by MAP and conditions on every point. */
  static fit(x: readonly Float64Array[], y: readonly number[], o: GpOptions = {}): GaussianProcess {
    if (x.length === 0) throw new Error('a Gaussian process needs at least one point');
    const d = x[0]!.length;
    const mean = y.reduce((a, b) => a + b, 0) / y.length;
    const sd = Math.sqrt(y.reduce((a, b) => a + (b - mean) ** 2, 0) / y.length);
    const scale = sd > 1e-12 ? sd : 1;
    const subset = pickForFit(y, o.fitLimit ?? 80);
    const fx = subset.map((i) => x[i]!);
    const fy = Float64Array.from(subset, (i) => (y[i]! - mean) / scale);
    const defaultStart = new Float64Array(d + 2);
    defaultStart.fill(Math.log(0.3), 0, d);
    defaultStart[d] = 0;
    defaultStart[d + 1] = Math.log(1e-3);
    const starts = [
      ...(o.fromDefault === false ? [] : [defaultStart]),
      ...(o.starts ?? []).filter((s) => s.length === d + 2),
    ];
    if (starts.length === 0) starts.push(defaultStart);
    let best: { theta: GpTheta; value: number } | undefined;
    for (const s of starts) {
      const r = optimise(fx, fy, s, o.iterations ?? 100);
      if (!best || r.value > best.value) best = r;
    }
    return new GaussianProcess([...x], y, best!.theta, mean, scale);
  }

  /** The same kernel conditioned on more points (fantasies for jobs still running: "kriging believer"). */
  withPoints(x: readonly Float64Array[], y: readonly number[]): GaussianProcess {
    return new GaussianProcess([...this.#x, ...x], [...this.#y, ...y], this.theta, this.#mean, this.#scale);
  }

  /** Posterior mean and variance of the latent function at x, in the caller's units. */
  predict(x: ArrayLike<number>): { mean: number; variance: number } {
    const n = this.#x.length;
    const ks = new Float64Array(n);
    for (let i = 0; i < n; i++) ks[i] = this.#sf2 * matern(distance(x, this.#x[i]!, this.#invLs));
    let mu = 0;
    for (let i = 0; i < n; i++) mu += ks[i]! * this.#alpha[i]!;
    const v = solveLower(this.#l, n, ks);
    let q = 0;
    for (let i = 0; i < n; i++) q += v[i]! * v[i]!;
    const variance = Math.max(this.#sf2 - q, 1e-12);
    return { mean: mu * this.#scale + this.#mean, variance: variance * this.#scale * this.#scale };
  }

  /** Standard deviation of the targets the model was standardised with (for scale-free thresholds). */
  get scale(): number {
    return this.#scale;
  }
}

/** The points θ is fitted on: all when few, else the best half and the most recent half of the limit. */
function pickForFit(y: readonly number[], limit: number): number[] {
  if (y.length <= limit) return y.map((_, i) => i);
  const order = y.map((_, i) => i).sort((a, b) => y[a]! - y[b]!);
  const chosen = new Set(order.slice(0, Math.floor(limit / 2)));
  for (let i = y.length - 1; i >= 0 && chosen.size < limit; i--) chosen.add(i);
  return [...chosen].sort((a, b) => a - b);
}

/** Standard normal density and distribution function. */
export function normPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

export function normCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** erfc with a Chebyshev-fitted exponent (Numerical Recipes' erfcc), relative error below 1.2e-7 everywhere. */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/**
 * Expected improvement below `best` (minimisation) of a prediction, with an exploration margin ξ:
 * E[max(best − ξ − f, 0)].
 */
export function expectedImprovement(p: { mean: number; variance: number }, best: number, xi = 0): number {
  const sd = Math.sqrt(p.variance);
  const imp = best - xi - p.mean;
  if (sd < 1e-12) return Math.max(imp, 0);
  const z = imp / sd;
  return imp * normCdf(z) + sd * normPdf(z);
}
