import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import type { CreateHyperParameterTuningJobRequest } from '../generated/sagemaker/shapes.js';
import { planTuning } from './plan.js';
import { strategyFor } from './strategies/index.js';
import { Suggester } from './suggester.js';
import type { Trial } from './strategy.js';

const request = (
  strategy: 'Random' | 'Bayesian',
): Omit<CreateHyperParameterTuningJobRequest, 'HyperParameterTuningJobName'> => ({
  HyperParameterTuningJobConfig: {
    Strategy: strategy,
    ResourceLimits: { MaxNumberOfTrainingJobs: 10, MaxParallelTrainingJobs: 1 },
    HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'validation:rmse' },
    ParameterRanges: { ContinuousParameterRanges: [{ Name: 'eta', MinValue: '0.01', MaxValue: '0.5' }] },
  },
  TrainingJobDefinition: {
    StaticHyperParameters: { num_round: '10' },
    AlgorithmSpecification: {
      TrainingImage: '1.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1',
      TrainingInputMode: 'File',
    },
    RoleArn: 'arn:aws:iam::111122223333:role/sm',
    OutputDataConfig: { S3OutputPath: 's3://b/o' },
    ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 1 },
    StoppingCondition: { MaxRuntimeInSeconds: 60 },
  },
});

test('suggestions computed in the worker are the strategy’s own', async () => {
  const s = new Suggester(pino({ level: 'silent' }));
  try {
    const r = request('Random');
    const local = strategyFor(planTuning(r), 9);
    for (let seq = 1; seq <= 3; seq++) {
      assert.deepEqual(await s.suggest({ key: 'k', request: r, seed: 9, seq, trials: [] }), local.suggest(seq, []));
    }
    // A Bayesian suggestion after a few observations, inside the range.
    const trials: Trial[] = [0.02, 0.1, 0.3, 0.45].map((eta, i) => ({
      seq: i + 1,
      definition: '',
      config: { eta },
      pending: false,
      objective: (Math.log(eta) + 2.3) ** 2,
    }));
    const b = await s.suggest({ key: 'b', request: request('Bayesian'), seed: 1, seq: 5, trials });
    assert.ok(b && Number(b.config.eta) >= 0.01 && Number(b.config.eta) <= 0.5);
    // A request the plan refuses is the caller's error.
    const bad = request('Random');
    bad.HyperParameterTuningJobConfig.ParameterRanges = {
      ContinuousParameterRanges: [{ Name: 'eta', MinValue: '2', MaxValue: '1' }],
    };
    await assert.rejects(
      s.suggest({ key: 'x', request: bad, seed: 1, seq: 1, trials: [] }),
      /must be less than its MaxValue/,
    );
  } finally {
    await s.close();
  }
});
