import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../training/xgboost/sampler.js';
import { autoScale, fromUnit, type NumericParam, SearchSpace, toUnit } from './space.js';
import { medianStopper } from './stopping.js';

test('each scale maps its range onto [0, 1] and back', () => {
  const cases: NumericParam[] = [
    { name: 'eta', kind: 'Continuous', min: 0.1, max: 0.5, scale: 'Linear' },
    { name: 'alpha', kind: 'Continuous', min: 1e-3, max: 1000, scale: 'Logarithmic' },
    { name: 'momentum', kind: 'Continuous', min: 0.9, max: 0.9999, scale: 'ReverseLogarithmic' },
  ];
  for (const p of cases) {
    assert.equal(fromUnit(p, 0), p.min);
    assert.ok(Math.abs(fromUnit(p, 1) - p.max) < 1e-12 * p.max);
    for (const u of [0.1, 0.5, 0.9]) assert.ok(Math.abs(toUnit(p, fromUnit(p, u)) - u) < 1e-9);
  }
  // On a log scale the middle of [1e-3, 1000] is 1; on a reverse-log scale the middle of [0.9, 0.9999] is
  // where 1 − v is the geometric mean of 0.1 and 1e-4.
  assert.ok(Math.abs(fromUnit(cases[1]!, 0.5) - 1) < 1e-9);
  assert.ok(Math.abs(fromUnit(cases[2]!, 0.5) - (1 - Math.sqrt(1e-5))) < 1e-9);
});

test('integers round, give each value equal room and stay in range', () => {
  const p: NumericParam = { name: 'max_depth', kind: 'Integer', min: 1, max: 4, scale: 'Linear' };
  const counts = new Map<number, number>();
  for (let i = 0; i < 4000; i++) {
    const v = fromUnit(p, (i + 0.5) / 4000);
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  assert.deepEqual([...counts.keys()].sort(), [1, 2, 3, 4]);
  for (const n of counts.values()) assert.equal(n, 1000);
});

test('Auto picks a log scale for wide positive ranges only', () => {
  assert.equal(autoScale('Continuous', 1e-4, 1), 'Logarithmic');
  assert.equal(autoScale('Continuous', 0, 1000), 'Linear');
  assert.equal(autoScale('Continuous', 0.1, 0.5), 'Linear');
  assert.equal(autoScale('Integer', 1, 4000), 'Logarithmic');
  assert.equal(autoScale('Integer', 1, 9), 'Linear');
});

test('encoding: one coordinate per number, one-hot categories; decode snaps to the point trained', () => {
  const s = new SearchSpace([
    { name: 'max_depth', kind: 'Integer', min: 2, max: 10, scale: 'Linear' },
    { name: 'booster', kind: 'Categorical', values: ['gbtree', 'dart', 'gblinear'] },
    { name: 'eta', kind: 'Continuous', min: 0.01, max: 1, scale: 'Logarithmic' },
  ]);
  assert.equal(s.dims, 5);
  const c = { max_depth: 7, booster: 'dart', eta: 0.1 };
  const x = s.encode(c);
  assert.deepEqual(Array.from(x.subarray(1, 4)), [0, 1, 0]);
  const back = s.decode(x);
  assert.equal(back.max_depth, 7);
  assert.equal(back.booster, 'dart');
  assert.ok(Math.abs(Number(back.eta) - 0.1) < 1e-12);
  assert.deepEqual(s.format(c), { max_depth: '7', booster: 'dart', eta: '0.1' });
  assert.deepEqual(s.parse({ max_depth: '7', booster: 'dart', eta: '0.1' }), c);
  assert.equal(s.parse({ max_depth: '11', booster: 'dart', eta: '0.1' }), undefined);
  assert.equal(s.size(), Number.POSITIVE_INFINITY);
  assert.equal(new SearchSpace(s.params.slice(0, 2)).size(), 27);
  const rng = new Rng(1);
  for (let i = 0; i < 50; i++) {
    const sampled = s.sample(rng);
    assert.deepEqual(s.parse(s.format(sampled)), sampled);
  }
});

test('median rule: stops a job worse than the median of earlier jobs’ running averages, not before three ended', () => {
  const stop = medianStopper(false);
  const curve = (seq: number, v: number[], ended = true) => ({
    seq,
    definition: '',
    values: new Map(v.map((x, i) => [i + 1, x] as [number, number])),
    ended,
  });
  const done = [curve(1, [10, 6, 4]), curve(2, [10, 8, 6]), curve(3, [12, 9, 7])];
  // Running averages to round 2: 8, 9, 10.5 → median 9.
  const job = curve(4, [11, 9.5], false);
  assert.equal(stop.shouldStop(job, 2, 9.5, [...done, job]), true);
  assert.equal(stop.shouldStop(job, 2, 8.5, [...done, job]), false);
  assert.equal(stop.shouldStop(job, 2, 9.5, [...done.slice(0, 2), job]), false);
  assert.equal(medianStopper(true).shouldStop(job, 2, 8.5, [...done, job]), true);
});
