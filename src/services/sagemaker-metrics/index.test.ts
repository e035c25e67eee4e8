// Run metrics: the trial component's summaries as values arrive, and BatchGetMetrics' views.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aggregateOf } from '../../metrics/series.js';
import { queryValues, updateSummaries } from './index.js';

test('summaries: Min, Max, Avg, sample StdDev, Last by timestamp, Count, across calls', () => {
  let s = updateSummaries(undefined, [
    { name: 'loss', value: 4, at: 1000 },
    { name: 'loss', value: 2, at: 3000 },
  ]);
  s = updateSummaries(s, [
    { name: 'loss', value: 6, at: 2000 },
    { name: 'acc', value: 0.5, at: 2000 },
  ]);
  const loss = s.find((m) => m.MetricName === 'loss')!;
  assert.deepEqual([loss.Min, loss.Max, loss.Avg, loss.Count, loss.Last, loss.TimeStamp], [2, 6, 4, 3, 2, 3000]);
  assert.ok(Math.abs(loss.StdDev! - 2) < 1e-12);
  assert.deepEqual(s.find((m) => m.MetricName === 'acc')!.StdDev, 0);
});

test('BatchGetMetrics: by step, by period, Start and End, Last', () => {
  const pts = [
    { ts: 60_000, resolution: 1, unit: 'None', step: 0, agg: aggregateOf(1) },
    { ts: 61_000, resolution: 1, unit: 'None', step: 1, agg: aggregateOf(3) },
    { ts: 62_000, resolution: 1, unit: 'None', step: 1, agg: aggregateOf(5) },
    { ts: 180_000, resolution: 1, unit: 'None', step: 2, agg: aggregateOf(7) },
  ];
  const q = {
    MetricName: 'm',
    ResourceArn: 'arn',
    MetricStat: 'Avg',
    Period: 'IterationNumber',
    XAxisType: 'IterationNumber',
  } as const;
  assert.deepEqual(queryValues(pts, q), { Status: 'Complete', XAxisValues: [0, 1, 2], MetricValues: [1, 4, 7] });
  assert.deepEqual(queryValues(pts, { ...q, MetricStat: 'Last', Start: 1 }).MetricValues, [5, 7]);
  assert.deepEqual(queryValues(pts, { ...q, MetricStat: 'Count', XAxisType: 'Timestamp', Period: 'OneMinute' }), {
    Status: 'Complete',
    XAxisValues: [60, 180],
    MetricValues: [3, 1],
  });
  assert.equal(queryValues(pts, { ...q, MetricStat: 'StdDev' }).MetricValues[1], Math.SQRT2);
  assert.equal(queryValues(pts, { ...q, XAxisType: 'Timestamp' }).Status, 'ValidationError');
});
