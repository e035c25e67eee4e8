import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Config, SearchSpace } from '../space.js';
import type { Curve } from '../stopping.js';
import type { DefinitionSpace, Strategy, Trial } from '../strategy.js';
import { bayesianStrategy } from './bayesian.js';
import { gridStrategy } from './grid.js';
import { bracketOf, hyperbandPlan, hyperbandStopper, rungs } from './hyperband.js';
import { randomStrategy } from './random.js';

/** Branin on [-5, 10] × [0, 15]: three global minima of 0.397887. */
const branin = (c: Config) => {
  const x = Number(c.x);
  const y = Number(c.y);
  return (
    (y - (5.1 / (4 * Math.PI ** 2)) * x * x + (5 / Math.PI) * x - 6) ** 2 +
    10 * (1 - 1 / (8 * Math.PI)) * Math.cos(x) +
    10
  );
};
const braninSpace: DefinitionSpace = {
  name: '',
  maximize: false,
  space: new SearchSpace([
    { name: 'x', kind: 'Continuous', min: -5, max: 10, scale: 'Linear' },
    { name: 'y', kind: 'Continuous', min: 0, max: 15, scale: 'Linear' },
  ]),
};

/** Runs a strategy for `n` sequential jobs on `f`; returns the best value. */
function run(strategy: Strategy, f: (c: Config) => number, n: number): { best: number; trials: Trial[] } {
  const trials: Trial[] = [];
  for (let seq = 1; seq <= n; seq++) {
    const s = strategy.suggest(seq, trials);
    assert.ok(s);
    trials.push({ seq, definition: s.definition, config: s.config, pending: false, objective: f(s.config) });
  }
  return { best: Math.min(...trials.map((t) => t.objective!)), trials };
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

test('random search is reproducible with its seed, and differs with another', () => {
  const a = run(randomStrategy([braninSpace], 42), branin, 5).trials.map((t) => t.config);
  const b = run(randomStrategy([braninSpace], 42), branin, 5).trials.map((t) => t.config);
  const c = run(randomStrategy([braninSpace], 43), branin, 5).trials.map((t) => t.config);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});

test('random search draws log-scaled ranges log-uniformly and never repeats a point of a small discrete space', () => {
  const def: DefinitionSpace = {
    name: '',
    maximize: false,
    space: new SearchSpace([{ name: 'lr', kind: 'Continuous', min: 1e-4, max: 1, scale: 'Logarithmic' }]),
  };
  const values = run(randomStrategy([def], 1), () => 0, 400).trials.map((t) => Number(t.config.lr));
  const below = values.filter((v) => v < 1e-2).length / values.length;
  assert.ok(below > 0.4 && below < 0.6, `half the draws lie below 1e-2 on a log scale: ${below}`);
  const small: DefinitionSpace = {
    name: '',
    maximize: false,
    space: new SearchSpace([
      { name: 'depth', kind: 'Integer', min: 1, max: 3, scale: 'Linear' },
      { name: 'booster', kind: 'Categorical', values: ['gbtree', 'dart'] },
    ]),
  };
  const keys = run(randomStrategy([small], 9), () => 0, 6).trials.map((t) => `${t.config.depth}/${t.config.booster}`);
  assert.equal(new Set(keys).size, 6);
});

test('grid search launches every combination once, then stops', () => {
  const def: DefinitionSpace = {
    name: '',
    maximize: false,
    space: new SearchSpace([
      { name: 'a', kind: 'Categorical', values: ['x', 'y'] },
      { name: 'b', kind: 'Integer', min: 1, max: 3, scale: 'Linear' },
    ]),
  };
  const g = gridStrategy([def]);
  const seen = new Set<string>();
  for (let seq = 1; seq <= 6; seq++) {
    const s = g.suggest(seq, [])!;
    seen.add(`${s.config.a}${s.config.b}`);
  }
  assert.deepEqual([...seen].sort(), ['x1', 'x2', 'x3', 'y1', 'y2', 'y3']);
  assert.equal(g.suggest(7, []), undefined);
});

test('Bayesian optimisation beats random search on Branin at 20 evaluations (median of 5 seeds)', () => {
  const bayes: number[] = [];
  const rand: number[] = [];
  for (let seed = 1; seed <= 5; seed++) {
    bayes.push(run(bayesianStrategy([braninSpace], seed, { budget: 20 }), branin, 20).best);
    rand.push(run(randomStrategy([braninSpace], seed), branin, 20).best);
  }
  assert.ok(median(bayes) < median(rand), `Bayesian ${median(bayes)} vs random ${median(rand)}`);
  assert.ok(median(bayes) < 1.5, `Bayesian gets near Branin's minimum 0.398: ${median(bayes)}`);
});

test('Bayesian optimisation handles integer and categorical parameters, and jobs still running', () => {
  // Minimum at depth 7, booster "b", rate 0.1.
  const f = (c: Config) =>
    (Number(c.depth) - 7) ** 2 / 10 + (c.booster === 'b' ? 0 : 1) + Math.log10(Number(c.rate) / 0.1) ** 2;
  const def: DefinitionSpace = {
    name: '',
    maximize: false,
    space: new SearchSpace([
      { name: 'depth', kind: 'Integer', min: 1, max: 12, scale: 'Linear' },
      { name: 'booster', kind: 'Categorical', values: ['a', 'b', 'c'] },
      { name: 'rate', kind: 'Continuous', min: 1e-4, max: 1, scale: 'Logarithmic' },
    ]),
  };
  const strategy = bayesianStrategy([def], 5, { budget: 24 });
  const trials: Trial[] = [];
  // Two at a time: each suggestion sees the other job as pending.
  for (let seq = 1; seq <= 24; seq += 2) {
    const a = strategy.suggest(seq, trials)!;
    trials.push({ seq, definition: '', config: a.config, pending: true });
    const b = strategy.suggest(seq + 1, trials)!;
    assert.notDeepEqual(a.config, b.config, 'parallel suggestions differ');
    trials.pop();
    trials.push({ seq, definition: '', config: a.config, pending: false, objective: f(a.config) });
    trials.push({ seq: seq + 1, definition: '', config: b.config, pending: false, objective: f(b.config) });
  }
  for (const t of trials) {
    assert.ok(Number.isInteger(t.config.depth) && ['a', 'b', 'c'].includes(String(t.config.booster)));
  }
  const best = Math.min(...trials.map((t) => t.objective!));
  assert.ok(best < 0.3, `best ${best}`);
});

test('Bayesian optimisation maximises when told to', () => {
  const def: DefinitionSpace = { ...braninSpace, maximize: true };
  const best = Math.max(
    ...run(bayesianStrategy([def], 3, { budget: 20 }), (c) => -branin(c), 20).trials.map((t) => t.objective!),
  );
  assert.ok(best > -2, `best ${best}`);
});

test('Hyperband plan: the brackets of Li et al. for R = 81, η = 3', () => {
  const plan = hyperbandPlan(1, 81);
  assert.equal(plan.sMax, 4);
  // Bracket s stops no job before 3^s rounds; its share follows n = 81, 34, 15, 8, 5.
  const n = [81, 34, 15, 8, 5];
  for (const [s, w] of plan.weights.entries()) assert.ok(Math.abs(w - n[s]! / 143) < 1e-12);
  assert.deepEqual(rungs(plan, 0), [1, 3, 9, 27]);
  assert.deepEqual(rungs(plan, 2), [9, 27]);
  assert.deepEqual(rungs(plan, 4), []);
  const counts = [0, 0, 0, 0, 0];
  for (let seq = 1; seq <= 2000; seq++) counts[bracketOf(plan, 7, seq)]!++;
  assert.ok(counts[0]! > counts[1]! && counts[1]! > counts[2]! && counts[2]! > counts[4]!, String(counts));
});

test('Hyperband stops a job outside the best 1/η at a rung, keeps the best, and stops at MaxResource', () => {
  const plan = hyperbandPlan(1, 9);
  const seed = 11;
  // Jobs of bracket 0 (rungs at 1 and 3).
  const inBracket0: number[] = [];
  for (let seq = 1; inBracket0.length < 4; seq++) if (bracketOf(plan, seed, seq) === 0) inBracket0.push(seq);
  const stopper = hyperbandStopper(plan, seed, false);
  const curve = (seq: number, values: Array<[number, number]>, ended = true): Curve => ({
    seq,
    definition: '',
    values: new Map(values),
    ended,
  });
  const others = [curve(inBracket0[0]!, [[1, 5]]), curve(inBracket0[1]!, [[1, 4]]), curve(inBracket0[2]!, [[1, 6]])];
  const bad = curve(inBracket0[3]!, [[1, 5.5]], false);
  assert.equal(stopper.shouldStop(bad, 1, 5.5, [...others, bad]), true);
  const good = curve(inBracket0[3]!, [[1, 3]], false);
  assert.equal(stopper.shouldStop(good, 1, 3, [...others, good]), false);
  // Past the rung it is not judged again until the next one.
  const later = curve(
    inBracket0[3]!,
    [
      [1, 3],
      [2, 9],
    ],
    false,
  );
  assert.equal(stopper.shouldStop(later, 2, 9, [...others, later]), false);
  assert.equal(stopper.shouldStop(good, 9, 1, [good]), true);
});
