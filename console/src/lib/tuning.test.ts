import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Child, objectiveSpec, rank, tunedParams } from './tuning.js';

const child = (name: string, value?: number): Child => ({
  TrainingJobName: name,
  TrainingJobStatus: value === undefined ? 'Failed' : 'Completed',
  TunedHyperParameters: {},
  ...(value === undefined ? {} : { FinalHyperParameterTuningJobObjectiveMetric: { MetricName: 'm', Value: value } }),
});

test('children rank best first in the objective’s direction, jobs without one last', () => {
  const c = [child('t-001', 3), child('t-002'), child('t-003', 1), child('t-004', 2)];
  assert.deepEqual(
    rank(c, false).map((x) => x.TrainingJobName),
    ['t-003', 't-004', 't-001', 't-002'],
  );
  assert.deepEqual(
    rank(c, true).map((x) => x.TrainingJobName),
    ['t-001', 't-004', 't-003', 't-002'],
  );
});

test('tuned hyperparameters: log axes for log scaling, categories in order, across definitions', () => {
  const d = {
    HyperParameterTuningJobConfig: {
      HyperParameterTuningJobObjective: { Type: 'Maximize', MetricName: 'validation:auc' },
      ParameterRanges: {
        ContinuousParameterRanges: [
          { Name: 'eta', MinValue: '0.001', MaxValue: '1', ScalingType: 'Auto' },
          { Name: 'subsample', MinValue: '0.5', MaxValue: '1' },
        ],
        IntegerParameterRanges: [{ Name: 'num_round', MinValue: '10', MaxValue: '500', ScalingType: 'Logarithmic' }],
        CategoricalParameterRanges: [{ Name: 'booster', Values: ['gbtree', 'dart'] }],
      },
    },
  };
  const p = tunedParams(d);
  assert.deepEqual(
    p.map((x) => [x.name, x.log]),
    [
      ['num_round', true],
      ['eta', true],
      ['subsample', false],
      ['booster', false],
    ],
  );
  assert.deepEqual(p[3]!.categories, ['gbtree', 'dart']);
  assert.deepEqual(objectiveSpec(d), { name: 'validation:auc', maximize: true });
});
