// Bayesian optimisation as SageMaker describes its own: a Gaussian-process regression model of the
// objective over the hyperparameters (./gp.ts: Matérn 5/2, fitted length scales), and the next
// configuration the one of greatest expected improvement. The first jobs spread over the space
// (a randomly shifted Halton sequence); jobs still running count at the model's own prediction
// ("kriging believer") so parallel jobs do not all go to the same place. Integers and categories
// are evaluated where they will really be trained: a candidate is snapped (rounded, arg-max of its
// one-hot coordinates) before its improvement is computed.
import type { Rng } from '../../training/xgboost/sampler.js';
import { expectedImprovement, GaussianProcess, type GpTheta } from '../gp.js';
import type { Config, SearchSpace } from '../space.js';
import {
  type DefinitionSpace,
  pickDefinition,
  rngFor,
  type Strategy,
  type Suggestion,
  type Trial,
} from '../strategy.js';

const PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101];

function radicalInverse(i: number, base: number): number {
  let f = 1;
  let r = 0;
  while (i > 0) {
    f /= base;
    r += f * (i % base);
    i = Math.floor(i / base);
  }
  return r;
}

/** Point i of a Halton sequence in `d` dimensions, shifted by `shift` modulo 1 (Cranley–Patterson). */
function halton(i: number, shift: readonly number[]): number[] {
  return shift.map((s, k) => (radicalInverse(i + 1, PRIMES[k % PRIMES.length]!) + s) % 1);
}

/** A space-filling configuration: parameter k takes coordinate k of the shifted Halton point. */
function initialPoint(space: SearchSpace, i: number, seed: number): Config {
  const shiftRng = rngFor(seed, 0, 7);
  const shift = space.params.map(() => shiftRng.next());
  const u = halton(i, shift);
  const x = new Float64Array(space.dims);
  space.params.forEach((p, k) => {
    const o = space.offsets[k]!;
    if (p.kind === 'Categorical') x[o + Math.min(p.values.length - 1, Math.floor(u[k]! * p.values.length))] = 1;
    else x[o] = u[k]!;
  });
  return space.decode(x);
}

export interface BayesianOptions {
  /** Jobs launched before the model is used (default: the number of parameters + 1, between 3 and 10, at most a third of the budget). */
  readonly initialJobs?: number;
  /** MaxNumberOfTrainingJobs, for the default number of initial jobs. */
  readonly budget?: number;
  /** Random candidates scored per suggestion. */
  readonly candidates?: number;
}

/** Snaps a unit-cube vector to the point that would be trained (integers rounded, one category). */
function snap(space: SearchSpace, x: ArrayLike<number>): { config: Config; x: Float64Array } {
  const config = space.decode(x);
  return { config, x: space.encode(config) };
}

function randomVector(space: SearchSpace, rng: Rng): Float64Array {
  const x = new Float64Array(space.dims);
  space.params.forEach((p, k) => {
    const o = space.offsets[k]!;
    if (p.kind === 'Categorical') x[o + Math.floor(rng.next() * p.values.length)] = 1;
    else x[o] = rng.next();
  });
  return x;
}

function gaussian(rng: Rng): number {
  const u = Math.max(rng.next(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** A neighbour of x: numeric coordinates moved by N(0, σ²), each category switched with probability 0.15. */
function perturb(space: SearchSpace, x: Float64Array, sigma: number, rng: Rng): Float64Array {
  const y = new Float64Array(x);
  space.params.forEach((p, k) => {
    const o = space.offsets[k]!;
    if (p.kind === 'Categorical') {
      if (rng.next() < 0.15) {
        for (let j = 0; j < p.values.length; j++) y[o + j] = 0;
        y[o + Math.floor(rng.next() * p.values.length)] = 1;
      }
    } else {
      y[o] = Math.min(1, Math.max(0, x[o]! + sigma * gaussian(rng)));
    }
  });
  return y;
}

interface Scored {
  readonly config: Config;
  readonly x: Float64Array;
  readonly ei: number;
}

/**
 * The candidate of greatest expected improvement under `gp` (minimising), among points not yet
 * tried: random points and neighbours of the best observations, the best few refined by a local
 * search of shrinking steps.
 */
export function maximiseImprovement(
  space: SearchSpace,
  gp: GaussianProcess,
  best: number,
  seeds: readonly Float64Array[],
  tried: ReadonlySet<string>,
  rng: Rng,
  count: number,
): Scored | undefined {
  const xi = 0.01 * gp.scale;
  const score = (raw: Float64Array): Scored => {
    const s = snap(space, raw);
    return { ...s, ei: expectedImprovement(gp.predict(s.x), best, xi) };
  };
  const pool: Scored[] = [];
  for (let i = 0; i < count; i++) pool.push(score(randomVector(space, rng)));
  for (const s of seeds) for (let i = 0; i < Math.ceil(count / 10); i++) pool.push(score(perturb(space, s, 0.1, rng)));
  pool.sort((a, b) => b.ei - a.ei);
  const starts: Scored[] = [];
  const seen = new Set<string>();
  for (const p of pool) {
    const k = space.key(p.config);
    if (seen.has(k) || tried.has(k)) continue;
    seen.add(k);
    starts.push(p);
    if (starts.length === 4) break;
  }
  let winner: Scored | undefined;
  for (const start of starts) {
    let cur = start;
    for (let step = 0; step < 40; step++) {
      const sigma = 0.1 * 0.94 ** step;
      const next = score(perturb(space, cur.x, sigma, rng));
      if (next.ei > cur.ei && !tried.has(space.key(next.config))) cur = next;
    }
    if (!winner || cur.ei > winner.ei) winner = cur;
  }
  return winner;
}

/** Objective values to minimise: negated when the objective is maximised, the worst tail capped. */
function targets(values: readonly number[], maximize: boolean): number[] {
  const y = values.map((v) => (maximize ? -v : v));
  const sorted = [...y].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  // A few disastrous jobs (a learning rate near zero) would otherwise flatten the model everywhere else.
  const cap = median + 2 * (median - sorted[0]!);
  return cap > median ? y.map((v) => Math.min(v, cap)) : y;
}

export function bayesianStrategy(defs: readonly DefinitionSpace[], seed: number, o: BayesianOptions = {}): Strategy {
  // The kernel's hyperparameters change little from one suggestion to the next: each fit starts
  // from the last one's (a short search), and every fifth also from scratch.
  const thetas = new Map<string, GpTheta>();
  const fitted = new Map<string, number>();
  const fit = (def: DefinitionSpace, x: Float64Array[], y: number[]) => {
    const last = thetas.get(def.name);
    const n = (fitted.get(def.name) ?? 0) + 1;
    fitted.set(def.name, n);
    const warm = last !== undefined && n % 5 !== 0;
    const gp = GaussianProcess.fit(
      x,
      y,
      warm ? { starts: [last], fromDefault: false, iterations: 40 } : { starts: last ? [last] : [] },
    );
    thetas.set(def.name, gp.theta);
    return gp;
  };
  return {
    suggest(seq, trials) {
      const rng = rngFor(seed, seq, 2);
      const launched = trials.filter((t) => t.seq > 0);
      // Which definition: uniformly while any still lacks its initial jobs, then the one whose best
      // candidate promises the most improvement (in the objective's own units).
      const initialFor = (def: DefinitionSpace) => {
        const params = def.space.params.length;
        const budget = o.budget ? Math.max(3, Math.floor(o.budget / 3 / defs.length)) : 10;
        return o.initialJobs ?? Math.max(3, Math.min(params + 1, 10, budget));
      };
      const observedOf = (def: DefinitionSpace) =>
        trials.filter((t) => t.definition === def.name && !t.pending && t.objective !== undefined);
      // A warm start's prior observations (seq 0) count towards the initial jobs.
      const starving = defs.filter((d) => trials.filter((t) => t.definition === d.name).length < initialFor(d));
      if (starving.length > 0) {
        const def = pickDefinition(starving, rng);
        const i = launched.filter((t) => t.definition === def.name).length;
        const tried = new Set(trials.filter((t) => t.definition === def.name).map((t) => def.space.key(t.config)));
        let config = initialPoint(def.space, i, seed);
        for (let j = 0; j < 100 && tried.has(def.space.key(config)); j++) config = def.space.sample(rng);
        return { definition: def.name, config };
      }
      let choice: (Suggestion & { gain: number }) | undefined;
      for (const def of defs) {
        const s = suggestFor(def, trials, observedOf(def), rng, o.candidates ?? 600, fit);
        if (s && (!choice || s.gain > choice.gain)) choice = s;
      }
      if (choice) return { definition: choice.definition, config: choice.config };
      const def = pickDefinition(defs, rng);
      return { definition: def.name, config: def.space.sample(rng) };
    },
  };
}

function suggestFor(
  def: DefinitionSpace,
  trials: readonly Trial[],
  observed: readonly Trial[],
  rng: Rng,
  candidates: number,
  fit: (def: DefinitionSpace, x: Float64Array[], y: number[]) => GaussianProcess,
): (Suggestion & { gain: number }) | undefined {
  const { space } = def;
  const tried = new Set(trials.filter((t) => t.definition === def.name).map((t) => space.key(t.config)));
  if (observed.length < 2) return undefined;
  const x = observed.map((t) => space.encode(t.config));
  const y = targets(
    observed.map((t) => t.objective!),
    def.maximize,
  );
  let gp = fit(def, x, y);
  const pending = trials.filter((t) => t.definition === def.name && t.pending).map((t) => space.encode(t.config));
  if (pending.length > 0)
    gp = gp.withPoints(
      pending,
      pending.map((p) => gp.predict(p).mean),
    );
  const best = Math.min(...y);
  const order = y.map((_, i) => i).sort((a, b) => y[a]! - y[b]!);
  const seeds = order.slice(0, 5).map((i) => x[i]!);
  const found = maximiseImprovement(space, gp, best, seeds, tried, rng, candidates);
  if (!found) return undefined;
  return { definition: def.name, config: found.config, gain: found.ei };
}
