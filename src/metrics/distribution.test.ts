import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decode, encode, fold, fromValues, MAX_EXACT_VALUES, merge, percentile, totalCount } from './distribution.js';
import { percentileOf } from './statistics.js';

describe('distributions', () => {
  test('few values: exact nearest-rank percentiles', () => {
    const d = fromValues([5, 1, 3, 2, 4]);
    assert.deepEqual(
      [0, 20, 50, 80, 99, 100].map((p) => percentile(d, p)),
      [1, 1, 3, 4, 5, 5],
    );
    assert.equal(percentile(fromValues([7], [3]), 50), 7);
  });

  test('many values fold into buckets that keep every percentile within 1 %', () => {
    const values = Array.from({ length: 20_000 }, (_, i) => 0.001 * 1.0007 ** i * (1 + (i % 7) / 100));
    const exactSorted = [...values].sort((a, b) => a - b);
    const halves = [fromValues(values.slice(0, 10_000)), fromValues(values.slice(10_000))];
    const d = merge(halves);
    assert.ok(d.values.length <= 1200 && d.values.length > MAX_EXACT_VALUES, `folded to ${d.values.length} buckets`);
    assert.equal(totalCount(d), 20_000);
    for (const p of [1, 10, 50, 90, 99, 99.9]) {
      const exact = exactSorted[Math.ceil((p / 100) * values.length) - 1]!;
      const got = percentile(d, p)!;
      assert.ok(Math.abs(got - exact) / exact <= 0.0101, `p${p}: ${got} vs ${exact}`);
    }
    // Folding twice changes nothing: merges in any order agree.
    assert.deepEqual(fold(d), d);
    assert.deepEqual(decode(encode(d)), d);
  });

  test('negative values and zero keep their order', () => {
    const d = fold(fromValues([-10, -1, 0, 1, 10]));
    assert.deepEqual(
      [...d.values].map((v) => Math.sign(v)),
      [-1, -1, 0, 1, 1],
    );
  });

  test('percentile statistic names', () => {
    assert.equal(percentileOf('p99'), 99);
    assert.equal(percentileOf('p99.99'), 99.99);
    assert.equal(percentileOf('p100'), 100);
    assert.equal(percentileOf('p0.5'), 0.5);
    for (const bad of ['p101', 'p99.999', 'P99', 'p', 'tm99', 'Average'])
      assert.equal(percentileOf(bad), undefined, bad);
  });
});
