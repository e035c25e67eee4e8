import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluationLine, metricCurves, storedCurves } from './job-metrics.js';

test('evaluation lines: tabs as the trainer writes them and #011 as syslog shows them', () => {
  assert.deepEqual(evaluationLine('[3]\ttrain-rmse:2.51\tvalidation-rmse:2.60'), {
    round: 3,
    metrics: [
      ['train:rmse', 2.51],
      ['validation:rmse', 2.6],
    ],
  });
  assert.deepEqual(evaluationLine('[10]#011train-auc:0.9#011validation-error:1e-3'), {
    round: 10,
    metrics: [
      ['train:auc', 0.9],
      ['validation:error', 0.001],
    ],
  });
  assert.equal(evaluationLine('[2026-11-24 10:00:00] INFO starting'), undefined);
  assert.equal(evaluationLine('Slipway training job j on the built-in XGBoost algorithm'), undefined);
});

test('built-in curves: one point per round, in round order, a gap where a metric is missing', () => {
  const c = metricCurves([
    'Slipway training job j',
    '[1]\ttrain-rmse:3\tvalidation-rmse:3.5',
    '[0]\ttrain-rmse:4',
    '[2]\ttrain-rmse:2\tvalidation-rmse:nan',
  ]);
  assert.equal(c.xLabel, 'round');
  assert.deepEqual(c.x, [0, 1, 2]);
  assert.deepEqual(
    [...c.series],
    [
      ['train:rmse', [4, 3, 2]],
      ['validation:rmse', [null, 3.5, null]],
    ],
  );
});

test('custom images: MetricDefinitions regexes, first group, a bad regex skipped', () => {
  const c = metricCurves(
    ['epoch 1 loss=0.9 acc=0.5', 'noise', 'epoch 2 loss=0.7 acc=0.6', 'epoch 3 loss=0.5'],
    [
      { Name: 'loss', Regex: 'loss=([0-9.]+)' },
      { Name: 'accuracy', Regex: 'acc=([0-9.]+)' },
      { Name: 'broken', Regex: '([' },
    ],
  );
  assert.equal(c.xLabel, 'report');
  assert.deepEqual(c.x, [1, 2, 3]);
  assert.deepEqual(
    [...c.series],
    [
      ['loss', [0.9, 0.7, 0.5]],
      ['accuracy', [0.5, 0.6, null]],
    ],
  );
});

test('stored curves: rounds as stored, other metrics numbered from 1; none stored is undefined', () => {
  const r = (x: number[], v: number[]) => ({ Status: 'Complete', XAxisValues: x, MetricValues: v });
  const c = storedCurves(['train:rmse', 'validation:rmse', 'train:auc'], [r([0, 1, 2], [3, 2, 1]), r([1, 2], [2.5, 1.5]), r([], [])], true)!;
  assert.deepEqual(c.x, [0, 1, 2]);
  assert.deepEqual([...c.series.keys()], ['train:rmse', 'validation:rmse']);
  assert.deepEqual(c.series.get('validation:rmse'), [null, 2.5, 1.5]);
  assert.equal(storedCurves(['loss'], [r([0, 1], [1, 2])], false)!.x.join(), '1,2');
  assert.equal(storedCurves(['loss'], [r([], [])], false), undefined);
});

test('#011 in a definition also matches the tab the trainer writes', () => {
  const c = metricCurves(['[0]\ttrain-rmse:3', '[1]#011train-rmse:2'], [{ Name: 'train:rmse', Regex: '.*\\[[0-9]+\\].*#011train-rmse:(\\S+)' }]);
  assert.deepEqual(c.series.get('train:rmse'), [3, 2]);
});
