import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from '../training/xgboost/sampler.js';
import { expectedImprovement, GaussianProcess, normCdf } from './gp.js';

const grid = (n: number) => Array.from({ length: n }, (_, i) => Float64Array.of(i / (n - 1)));

test('normCdf matches known quantiles', () => {
  assert.ok(Math.abs(normCdf(0) - 0.5) < 1e-7);
  assert.ok(Math.abs(normCdf(1.959964) - 0.975) < 1e-6);
  assert.ok(Math.abs(normCdf(-1.644854) - 0.05) < 1e-6);
  assert.ok(normCdf(-10) >= 0 && normCdf(-10) < 1e-20);
});

test('the GP interpolates a smooth function and is unsure far from its data', () => {
  const f = (x: number) => Math.sin(6 * x) + 0.5 * x;
  const xs = grid(9);
  const gp = GaussianProcess.fit(
    xs,
    xs.map((x) => f(x[0]!)),
  );
  for (const x of [0.06, 0.31, 0.52, 0.77, 0.94]) {
    const p = gp.predict([x]);
    assert.ok(Math.abs(p.mean - f(x)) < 0.05, `mean at ${x}: ${p.mean} vs ${f(x)}`);
  }
  // At a training point the variance is tiny; between points it is larger.
  assert.ok(gp.predict([0.5]).variance < gp.predict([0.5625]).variance);
});

test('fitted length scales tell a relevant coordinate from an irrelevant one (ARD)', () => {
  const rng = new Rng(3);
  const x: Float64Array[] = [];
  const y: number[] = [];
  for (let i = 0; i < 40; i++) {
    const p = Float64Array.of(rng.next(), rng.next());
    x.push(p);
    y.push(Math.sin(5 * p[0]!));
  }
  const gp = GaussianProcess.fit(x, y);
  const [l0, l1] = [Math.exp(gp.theta[0]!), Math.exp(gp.theta[1]!)];
  assert.ok(l1 > 3 * l0, `length scales ${l0} (relevant) and ${l1} (irrelevant)`);
});

test('expected improvement is zero where the model is sure and worse, larger where uncertain', () => {
  assert.equal(expectedImprovement({ mean: 2, variance: 0 }, 1), 0);
  assert.equal(expectedImprovement({ mean: 0.5, variance: 0 }, 1), 0.5);
  const sure = expectedImprovement({ mean: 1.2, variance: 0.01 }, 1);
  const unsure = expectedImprovement({ mean: 1.2, variance: 1 }, 1);
  assert.ok(unsure > sure && sure > 0);
});

test('conditioning on a fantasy point collapses the variance there', () => {
  const xs = grid(3);
  const gp = GaussianProcess.fit(
    xs,
    xs.map((x) => Math.sin(3 * x[0]!)),
  );
  const before = gp.predict([0.25]).variance;
  const after = gp.withPoints([Float64Array.of(0.25)], [gp.predict([0.25]).mean]).predict([0.25]).variance;
  assert.ok(after < before / 5, `${after} vs ${before}`);
  assert.ok(gp.withPoints([Float64Array.of(0.25)], [0]).predict([0.9]).variance > after);
});
