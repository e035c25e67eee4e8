// Hyperband (Li et al., "Hyperband: a novel bandit-based approach to hyperparameter optimization",
// JMLR 2018), run asynchronously as SageMaker runs it: every job starts with the full resource
// (rounds for the built-in XGBoost, epochs for others) and is stopped at a rung when its objective
// there is not among the best 1/η of the jobs of its bracket that reached the rung before it
// (asynchronous successive halving, Li et al., MLSys 2020). Brackets trade how early jobs may be
// stopped against how many are tried: bracket s stops no job before MinResource·η^s rounds, and
// takes its share of the jobs in proportion to the configurations Hyperband's bracket s' = s_max − s
// evaluates, n = ⌈(s_max + 1)·η^s' / (s' + 1)⌉. Configurations are drawn at random (seeded).
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_HyperbandStrategyConfig.html
import type { Curve, Stopper } from '../stopping.js';
import { type DefinitionSpace, pickDefinition, rngFor, type Strategy } from '../strategy.js';

export const ETA = 3;

export interface HyperbandPlan {
  readonly minResource: number;
  readonly maxResource: number;
  readonly eta: number;
  /** The largest bracket index: ⌊log_η(R / r)⌋. */
  readonly sMax: number;
  /** Share of the jobs each bracket takes (sums to 1). */
  readonly weights: readonly number[];
}

export function hyperbandPlan(minResource: number, maxResource: number, eta = ETA): HyperbandPlan {
  // Floating logarithms of exact powers (log(9)/log(3) = 1.9999…) must not lose a bracket.
  const sMax = Math.max(0, Math.floor(Math.log(maxResource / minResource) / Math.log(eta) + 1e-9));
  const n = Array.from({ length: sMax + 1 }, (_, s) => {
    const halvings = sMax - s;
    return Math.ceil(((sMax + 1) * eta ** halvings) / (halvings + 1));
  });
  const total = n.reduce((a, b) => a + b, 0);
  return { minResource, maxResource, eta, sMax, weights: n.map((v) => v / total) };
}

/** The bracket of launch `seq`: drawn with the plan's weights from the launch's own generator. */
export function bracketOf(plan: HyperbandPlan, seed: number, seq: number): number {
  const u = rngFor(seed, seq, 3).next();
  let acc = 0;
  for (let s = 0; s < plan.weights.length; s++) {
    acc += plan.weights[s]!;
    if (u < acc) return s;
  }
  return plan.weights.length - 1;
}

/** The rungs (rounds at which a job of bracket s may be stopped), below MaxResource. */
export function rungs(plan: HyperbandPlan, bracket: number): number[] {
  const out: number[] = [];
  for (let r = plan.minResource * plan.eta ** bracket; r < plan.maxResource; r *= plan.eta) out.push(Math.round(r));
  return out;
}

export function hyperbandStrategy(defs: readonly DefinitionSpace[], seed: number): Strategy {
  return {
    suggest(seq) {
      const rng = rngFor(seed, seq, 1);
      const def = pickDefinition(defs, rng);
      return { definition: def.name, config: def.space.sample(rng) };
    },
  };
}

/** The value a curve had after `round` rounds (its last value at or before), if it got that far. */
function valueAt(c: Curve, round: number): number | undefined {
  let best: [number, number] | undefined;
  let reached = false;
  for (const [r, v] of c.values) {
    if (r >= round) reached = true;
    if (r <= round && (!best || r > best[0])) best = [r, v];
  }
  return reached && best ? best[1] : undefined;
}

export function hyperbandStopper(plan: HyperbandPlan, seed: number, maximize: boolean): Stopper {
  const better = (a: number, b: number) => (maximize ? a > b : a < b);
  return {
    shouldStop(job, round, value, all) {
      // "Once a job reaches the MaxResource value, it is stopped."
      if (round >= plan.maxResource) return true;
      const bracket = bracketOf(plan, seed, job.seq);
      const rung = [...rungs(plan, bracket)].reverse().find((r) => r <= round);
      if (rung === undefined) return false;
      // Decide once per rung: at the first value reported at or past it.
      const earlier = [...job.values.keys()].filter((r) => r < round);
      if (earlier.some((r) => r >= rung)) return false;
      const others: number[] = [];
      for (const c of all) {
        if (c.seq === job.seq || c.definition !== job.definition || bracketOf(plan, seed, c.seq) !== bracket) continue;
        const v = valueAt(c, rung);
        if (v !== undefined) others.push(v);
      }
      if (others.length === 0) return false;
      // Continue when among the best 1/η of this rung, counting the job itself.
      const ranked = [...others, value].sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
      const keep = Math.max(1, Math.floor(ranked.length / plan.eta));
      return better(ranked[keep - 1]!, value);
    },
  };
}
