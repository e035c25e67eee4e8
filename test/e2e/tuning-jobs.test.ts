// Hyperparameter tuning jobs end to end with the AWS SDK for JavaScript: a Bayesian tuning of the
// built-in XGBoost algorithm on the abalone data (children named, tagged and recorded as SageMaker
// records them, the best job and the list sorted by objective), Random's RandomSeed, Grid, Hyperband
// and early stopping on a custom image, stopping, failures, completion criteria, warm start,
// Search, and the refusals with SageMaker's words.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  type CreateHyperParameterTuningJobCommandInput,
  CreateHyperParameterTuningJobCommand,
  DeleteHyperParameterTuningJobCommand,
  DescribeExperimentCommand,
  DescribeHyperParameterTuningJobCommand,
  type DescribeHyperParameterTuningJobCommandOutput,
  DescribeTrainingJobCommand,
  DescribeTrialCommand,
  type HyperParameterTrainingJobDefinition,
  ListHyperParameterTuningJobsCommand,
  ListTagsCommand,
  ListTrainingJobsForHyperParameterTuningJobCommand,
  ListTrialComponentsCommand,
  type SageMakerClient,
  SearchCommand,
  StopHyperParameterTuningJobCommand,
} from '@aws-sdk/client-sagemaker';
import { abaloneCsv, NOTEBOOK_IMAGE } from '../support/abalone.js';
import { sdkClients } from '../support/clients.js';
import { startServer, type TestServer } from '../support/server.js';

const ROLE = 'arn:aws:iam::111122223333:role/sm';
const OBJECTIVE_IMAGE = '111122223333.dkr.ecr.us-west-2.amazonaws.com/slipway-test-objective:1';

/** The built-in XGBoost algorithm on the abalone data, with a validation channel. */
export const xgboostDefinition = (
  over: Partial<HyperParameterTrainingJobDefinition> = {},
): HyperParameterTrainingJobDefinition => ({
  StaticHyperParameters: { objective: 'reg:squarederror', num_round: '20' },
  AlgorithmSpecification: { TrainingImage: NOTEBOOK_IMAGE, TrainingInputMode: 'File' },
  RoleArn: ROLE,
  InputDataConfig: ['train', 'validation'].map((c) => ({
    ChannelName: c,
    ContentType: 'text/csv',
    DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: `s3://tuning/abalone/${c}/` } },
  })),
  OutputDataConfig: { S3OutputPath: 's3://tuning/output' },
  ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 },
  StoppingCondition: { MaxRuntimeInSeconds: 600 },
  ...over,
});

/** The synthetic objective image (test/fixtures/containers/objective.mjs): `epoch=k objective=v`. */
const objectiveDefinition = (
  over: Partial<HyperParameterTrainingJobDefinition> = {},
): HyperParameterTrainingJobDefinition => ({
  StaticHyperParameters: { epochs: '9' },
  AlgorithmSpecification: {
    TrainingImage: OBJECTIVE_IMAGE,
    TrainingInputMode: 'File',
    MetricDefinitions: [{ Name: 'objective', Regex: 'objective=([-0-9.eE+]+)' }],
  },
  RoleArn: ROLE,
  OutputDataConfig: { S3OutputPath: 's3://tuning/output' },
  ResourceConfig: { InstanceType: 'ml.m5.large', InstanceCount: 1, VolumeSizeInGB: 1 },
  StoppingCondition: { MaxRuntimeInSeconds: 600 },
  ...over,
});

const xRanges = (n: number) => ({
  ContinuousParameterRanges: Array.from({ length: n }, (_, i) => ({ Name: `x${i + 1}`, MinValue: '0', MaxValue: '1' })),
});

describe('hyperparameter tuning jobs', () => {
  let server: TestServer;
  let sm: SageMakerClient;
  let s3: S3Client;
  before(async () => {
    server = await startServer(['--containers-file', 'test/fixtures/containers/containers.json']);
    ({ sm, s3 } = sdkClients(server.endpoint));
    await s3.send(new CreateBucketCommand({ Bucket: 'tuning' }));
    const csv = abaloneCsv().trim().split('\n');
    const put = (key: string, rows: string[]) =>
      s3.send(new PutObjectCommand({ Bucket: 'tuning', Key: key, Body: `${rows.join('\n')}\n` }));
    await put('abalone/train/abalone.csv', csv.slice(0, 3000));
    await put('abalone/validation/abalone.csv', csv.slice(3000));
  });
  after(() => server.close());

  const create = (
    input: Partial<CreateHyperParameterTuningJobCommandInput> & { HyperParameterTuningJobName: string },
  ) =>
    sm.send(
      new CreateHyperParameterTuningJobCommand({
        HyperParameterTuningJobConfig: {
          Strategy: 'Bayesian',
          ResourceLimits: { MaxNumberOfTrainingJobs: 6, MaxParallelTrainingJobs: 2 },
          HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'validation:rmse' },
          ParameterRanges: {
            ContinuousParameterRanges: [{ Name: 'eta', MinValue: '0.05', MaxValue: '0.5', ScalingType: 'Logarithmic' }],
            IntegerParameterRanges: [{ Name: 'max_depth', MinValue: '2', MaxValue: '8' }],
          },
        },
        TrainingJobDefinition: xgboostDefinition(),
        ...input,
      }),
    );

  const describeJob = (name: string) =>
    sm.send(new DescribeHyperParameterTuningJobCommand({ HyperParameterTuningJobName: name }));

  /** Polls until the tuning job has ended (bounded: 60 s). */
  const finish = async (name: string): Promise<DescribeHyperParameterTuningJobCommandOutput> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const d = await describeJob(name);
      if (!['InProgress', 'Stopping'].includes(d.HyperParameterTuningJobStatus!)) return d;
      if (Date.now() > deadline) throw new Error(`${name} still ${d.HyperParameterTuningJobStatus}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const children = async (name: string, sort: 'Name' | 'FinalObjectiveMetricValue' = 'Name') =>
    (
      await sm.send(
        new ListTrainingJobsForHyperParameterTuningJobCommand({
          HyperParameterTuningJobName: name,
          SortBy: sort,
          MaxResults: 100,
        }),
      )
    ).TrainingJobSummaries!;

  test('Bayesian tuning of the built-in XGBoost: children, best job, counters, tags and lineage', async () => {
    const arn = (await create({ HyperParameterTuningJobName: 'Abalone-Bayes', Tags: [{ Key: 'team', Value: 'ml' }] }))
      .HyperParameterTuningJobArn!;
    assert.equal(arn, 'arn:aws:sagemaker:us-west-2:111122223333:hyper-parameter-tuning-job/abalone-bayes');
    const d = await finish('Abalone-Bayes');
    assert.equal(d.HyperParameterTuningJobStatus, 'Completed', d.FailureReason);
    assert.deepEqual(d.TrainingJobStatusCounters, {
      Completed: 6,
      InProgress: 0,
      RetryableError: 0,
      NonRetryableError: 0,
      Stopped: 0,
    });
    assert.deepEqual(d.ObjectiveStatusCounters, { Succeeded: 6, Pending: 0, Failed: 0 });
    assert.equal(d.TrainingJobDefinition?.StaticHyperParameters?._tuning_objective_metric, 'validation:rmse');
    assert.ok(d.HyperParameterTuningEndTime && d.ConsumedResources?.RuntimeInSeconds !== undefined);

    const list = await children('Abalone-Bayes');
    assert.equal(list.length, 6);
    for (const c of list) assert.match(c.TrainingJobName!, /^Abalone-Bayes-00[1-6]-[0-9a-f]{8}$/);
    const sorted = await children('Abalone-Bayes', 'FinalObjectiveMetricValue');
    const values = sorted.map((c) => c.FinalHyperParameterTuningJobObjectiveMetric!.Value!);
    assert.deepEqual(
      values,
      [...values].sort((a, b) => a - b),
    );
    const best = d.BestTrainingJob!;
    assert.equal(best.TrainingJobName, sorted[0]!.TrainingJobName);
    assert.equal(best.FinalHyperParameterTuningJobObjectiveMetric?.MetricName, 'validation:rmse');
    assert.ok(best.FinalHyperParameterTuningJobObjectiveMetric!.Value! < 3, 'a sensible abalone rmse');

    // The best child is a full training job: TuningJobArn, merged hyperparameters, metrics, tags.
    const job = await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: best.TrainingJobName }));
    assert.equal(job.TuningJobArn, arn);
    assert.equal(job.TrainingJobStatus, 'Completed');
    assert.equal(job.HyperParameters?._tuning_objective_metric, 'validation:rmse');
    assert.equal(job.HyperParameters?.num_round, '20');
    assert.equal(job.HyperParameters?.eta, best.TunedHyperParameters?.eta);
    const rmse = job.FinalMetricDataList!.find((m) => m.MetricName === 'validation:rmse')!.Value!;
    assert.ok(Math.abs(rmse - best.FinalHyperParameterTuningJobObjectiveMetric!.Value!) < 1e-6);
    const tags = await sm.send(new ListTagsCommand({ ResourceArn: job.TrainingJobArn }));
    assert.deepEqual(tags.Tags, [{ Key: 'team', Value: 'ml' }]);

    // Lineage: the tuning job's experiment, a trial per training job holding its trial component.
    const experiment = await sm.send(new DescribeExperimentCommand({ ExperimentName: 'Abalone-Bayes-aws-tuning-job' }));
    assert.equal(experiment.Source?.SourceArn, arn);
    const trial = await sm.send(new DescribeTrialCommand({ TrialName: `${best.TrainingJobName}-aws-trial` }));
    assert.equal(trial.ExperimentName, 'Abalone-Bayes-aws-tuning-job');
    const components = await sm.send(new ListTrialComponentsCommand({ TrialName: trial.TrialName }));
    assert.deepEqual(
      components.TrialComponentSummaries!.map((c) => c.TrialComponentName),
      [`${best.TrainingJobName}-aws-training-job`],
    );

    const listed = await sm.send(new ListHyperParameterTuningJobsCommand({ NameContains: 'bayes' }));
    assert.equal(listed.HyperParameterTuningJobSummaries?.[0]?.Strategy, 'Bayesian');
    assert.equal(listed.HyperParameterTuningJobSummaries?.[0]?.TrainingJobStatusCounters?.Completed, 6);
    const found = await sm.send(
      new SearchCommand({
        Resource: 'HyperParameterTuningJob',
        SearchExpression: {
          Filters: [{ Name: 'BestTrainingJob.TrainingJobName', Operator: 'Equals', Value: best.TrainingJobName }],
        },
      }),
    );
    assert.equal(found.Results?.[0]?.HyperParameterTuningJob?.HyperParameterTuningJobArn, arn);
  });

  test('Random search with RandomSeed is reproducible: the same configurations in the same order', async () => {
    const ranges = {
      ContinuousParameterRanges: [
        { Name: 'eta', MinValue: '0.01', MaxValue: '0.5', ScalingType: 'Logarithmic' as const },
      ],
      IntegerParameterRanges: [{ Name: 'max_depth', MinValue: '1', MaxValue: '10' }],
    };
    const config = (seed: number) => ({
      Strategy: 'Random' as const,
      RandomSeed: seed,
      ResourceLimits: { MaxNumberOfTrainingJobs: 4, MaxParallelTrainingJobs: 2 },
      HyperParameterTuningJobObjective: { Type: 'Minimize' as const, MetricName: 'validation:rmse' },
      ParameterRanges: ranges,
    });
    for (const [name, seed] of [
      ['seeded-a', 7],
      ['seeded-b', 7],
      ['seeded-c', 8],
    ] as const) {
      await create({ HyperParameterTuningJobName: name, HyperParameterTuningJobConfig: config(seed) });
    }
    const tuned = async (name: string) => {
      assert.equal((await finish(name)).HyperParameterTuningJobStatus, 'Completed');
      return (await children(name)).map((c) => c.TunedHyperParameters);
    };
    const [a, b, c] = [await tuned('seeded-a'), await tuned('seeded-b'), await tuned('seeded-c')];
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
    for (const t of a) {
      assert.ok(Number(t!.eta) >= 0.01 && Number(t!.eta) <= 0.5);
      assert.ok(Number.isInteger(Number(t!.max_depth)));
    }
  });

  test('Grid search trains every combination once; MaxNumberOfTrainingJobs is worked out', async () => {
    await create({
      HyperParameterTuningJobName: 'grid',
      HyperParameterTuningJobConfig: {
        Strategy: 'Grid',
        ResourceLimits: { MaxParallelTrainingJobs: 3 },
        HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'objective' },
        ParameterRanges: {
          CategoricalParameterRanges: [{ Name: 'x1', Values: ['0.1', '0.5', '0.9'] }],
          IntegerParameterRanges: [{ Name: 'x2', MinValue: '0', MaxValue: '1' }],
        },
      },
      TrainingJobDefinition: objectiveDefinition({ StaticHyperParameters: { function: 'sphere', epochs: '1' } }),
    });
    const d = await finish('grid');
    assert.equal(d.HyperParameterTuningJobStatus, 'Completed', d.FailureReason);
    assert.equal(d.HyperParameterTuningJobConfig?.ResourceLimits?.MaxNumberOfTrainingJobs, undefined);
    const combos = (await children('grid'))
      .map((c) => `${c.TunedHyperParameters!.x1}/${c.TunedHyperParameters!.x2}`)
      .sort();
    assert.deepEqual(combos, ['0.1/0', '0.1/1', '0.5/0', '0.5/1', '0.9/0', '0.9/1']);
    // sphere: Σ (x − 0.3)² over x1..x6 with x3..x6 at 0.5, +2 from the single epoch.
    assert.deepEqual(d.BestTrainingJob?.TunedHyperParameters, { x1: '0.1', x2: '0' });
    assert.ok(
      Math.abs(d.BestTrainingJob!.FinalHyperParameterTuningJobObjectiveMetric!.Value! - (0.04 + 0.09 + 4 * 0.04 + 2)) <
        1e-5,
    );
  });

  test('Hyperband stops children at its rungs; stopped children count and keep their objective', async () => {
    await create({
      HyperParameterTuningJobName: 'hyperband',
      HyperParameterTuningJobConfig: {
        Strategy: 'Hyperband',
        RandomSeed: 3,
        ResourceLimits: { MaxNumberOfTrainingJobs: 12, MaxParallelTrainingJobs: 3 },
        HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'objective' },
        ParameterRanges: xRanges(6),
      },
      // MaxResource is inferred from `epochs`.
      TrainingJobDefinition: objectiveDefinition({ StaticHyperParameters: { epochs: '9', epoch_ms: '60' } }),
    });
    const d = await finish('hyperband');
    assert.equal(d.HyperParameterTuningJobStatus, 'Completed', d.FailureReason);
    const counters = d.TrainingJobStatusCounters!;
    assert.equal(counters.Completed! + counters.Stopped!, 12);
    assert.ok(counters.Stopped! >= 1, `some children were stopped early: ${JSON.stringify(counters)}`);
    assert.equal(d.ObjectiveStatusCounters?.Succeeded, 12);
    const stopped = (await children('hyperband')).filter((c) => c.TrainingJobStatus === 'Stopped');
    for (const c of stopped) assert.ok(c.FinalHyperParameterTuningJobObjectiveMetric?.Value !== undefined);
  });

  test('early stopping Auto stops children worse than the median of the jobs before them', async () => {
    await create({
      HyperParameterTuningJobName: 'median-rule',
      HyperParameterTuningJobConfig: {
        Strategy: 'Random',
        RandomSeed: 11,
        TrainingJobEarlyStoppingType: 'Auto',
        ResourceLimits: { MaxNumberOfTrainingJobs: 10, MaxParallelTrainingJobs: 2 },
        HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'objective' },
        ParameterRanges: xRanges(6),
      },
      TrainingJobDefinition: objectiveDefinition({ StaticHyperParameters: { epochs: '8', epoch_ms: '60' } }),
    });
    const d = await finish('median-rule');
    assert.equal(d.HyperParameterTuningJobStatus, 'Completed', d.FailureReason);
    assert.ok(d.TrainingJobStatusCounters!.Stopped! >= 1, JSON.stringify(d.TrainingJobStatusCounters));
    const list = await children('median-rule');
    // The first three (nothing to compare with yet) ran to the end.
    for (const c of list.slice(0, 3)) assert.equal(c.TrainingJobStatus, 'Completed');
  });

  test('StopHyperParameterTuningJob stops the children in flight and ends Stopped', async () => {
    await create({
      HyperParameterTuningJobName: 'to-stop',
      HyperParameterTuningJobConfig: {
        Strategy: 'Random',
        ResourceLimits: { MaxNumberOfTrainingJobs: 20, MaxParallelTrainingJobs: 2 },
        HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'objective' },
        ParameterRanges: xRanges(2),
      },
      TrainingJobDefinition: objectiveDefinition({ StaticHyperParameters: { epochs: '100', epoch_ms: '100' } }),
    });
    for (let i = 0; i < 200 && (await children('to-stop')).length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    await sm.send(new StopHyperParameterTuningJobCommand({ HyperParameterTuningJobName: 'to-stop' }));
    const stopping = await describeJob('to-stop');
    assert.ok(['Stopping', 'Stopped'].includes(stopping.HyperParameterTuningJobStatus!));
    const d = await finish('to-stop');
    assert.equal(d.HyperParameterTuningJobStatus, 'Stopped');
    const list = await children('to-stop');
    assert.equal(list.length, 2);
    for (const c of list) assert.equal(c.TrainingJobStatus, 'Stopped');
    await assert.rejects(
      sm.send(new StopHyperParameterTuningJobCommand({ HyperParameterTuningJobName: 'to-stop' })),
      /is in status Stopped/,
    );
  });

  test('children that all fail fail the tuning job after five attempts, counted as non-retryable errors', async () => {
    await create({
      HyperParameterTuningJobName: 'all-fail',
      HyperParameterTuningJobConfig: {
        Strategy: 'Random',
        ResourceLimits: { MaxNumberOfTrainingJobs: 10, MaxParallelTrainingJobs: 2 },
        HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'objective' },
        ParameterRanges: xRanges(2),
      },
      TrainingJobDefinition: objectiveDefinition({ StaticHyperParameters: { mode: 'fail' } }),
    });
    const d = await finish('all-fail');
    assert.equal(d.HyperParameterTuningJobStatus, 'Failed');
    assert.match(
      d.FailureReason!,
      /^No training job succeeded after [56] attempts\. Please take a look at the training job failures/,
    );
    assert.ok(d.TrainingJobStatusCounters!.NonRetryableError! >= 5);
    assert.equal(d.ObjectiveStatusCounters!.Succeeded, 0);
    const failed = (await children('all-fail'))[0]!;
    assert.match(failed.FailureReason!, /mode=fail: this job fails on purpose/);
  });

  test('TargetObjectiveMetricValue ends the tuning job once a child reaches it', async () => {
    await create({
      HyperParameterTuningJobName: 'target',
      HyperParameterTuningJobConfig: {
        Strategy: 'Random',
        RandomSeed: 1,
        ResourceLimits: { MaxNumberOfTrainingJobs: 40, MaxParallelTrainingJobs: 1 },
        HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'objective' },
        ParameterRanges: xRanges(1),
        // sphere at epoch 1: (x1 − 0.3)² + 5·0.04 + 2: below 2.3 for |x1 − 0.3| < 0.316.
        TuningJobCompletionCriteria: { TargetObjectiveMetricValue: 2.3 },
      },
      TrainingJobDefinition: objectiveDefinition({ StaticHyperParameters: { function: 'sphere', epochs: '1' } }),
    });
    const d = await finish('target');
    assert.equal(d.HyperParameterTuningJobStatus, 'Completed');
    const list = await children('target');
    assert.ok(list.length < 40, `${list.length} jobs`);
    assert.ok(d.BestTrainingJob!.FinalHyperParameterTuningJobObjectiveMetric!.Value! <= 2.3);
  });

  test("refusals, in SageMaker's words where known", async () => {
    const refused = async (input: Parameters<typeof create>[0], message: RegExp, name = 'ValidationException') => {
      await assert.rejects(create(input), (e: Error) => {
        assert.equal(e.name, name);
        assert.match(e.message, message);
        return true;
      });
    };
    const cfg = (over: object) => ({
      Strategy: 'Bayesian' as const,
      ResourceLimits: { MaxNumberOfTrainingJobs: 6, MaxParallelTrainingJobs: 2 },
      HyperParameterTuningJobObjective: { Type: 'Minimize' as const, MetricName: 'validation:rmse' },
      ParameterRanges: { ContinuousParameterRanges: [{ Name: 'eta', MinValue: '0.1', MaxValue: '0.5' }] },
      ...over,
    });
    const n = 'refused';
    await refused(
      {
        HyperParameterTuningJobName: n,
        HyperParameterTuningJobConfig: cfg({
          ParameterRanges: { ContinuousParameterRanges: [{ Name: 'eta', MinValue: '0.5', MaxValue: '0.1' }] },
        }),
      },
      /MinValue 0\.5 of hyperparameter eta must be less than its MaxValue 0\.1/,
    );
    await refused(
      {
        HyperParameterTuningJobName: n,
        HyperParameterTuningJobConfig: cfg({
          ParameterRanges: { ContinuousParameterRanges: [{ Name: 'eta', MinValue: '0.1', MaxValue: '1.5' }] },
        }),
      },
      /range \[0\.1, 1\.5\] of hyperparameter eta is outside the values the algorithm accepts, \[0, 1\]/,
    );
    await refused(
      {
        HyperParameterTuningJobName: n,
        HyperParameterTuningJobConfig: cfg({
          ParameterRanges: { IntegerParameterRanges: [{ Name: 'booster_depth', MinValue: '1', MaxValue: '5' }] },
        }),
      },
      /booster_depth is not a tunable hyperparameter of this algorithm/,
    );
    await refused(
      {
        HyperParameterTuningJobName: n,
        HyperParameterTuningJobConfig: cfg({
          HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'validation:nonsense' },
        }),
      },
      /objective metric validation:nonsense is not a metric of the algorithm/,
    );
    await refused(
      {
        HyperParameterTuningJobName: n,
        HyperParameterTuningJobConfig: cfg({
          HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'loss' },
          ParameterRanges: xRanges(1),
        }),
        TrainingJobDefinition: objectiveDefinition(),
      },
      /^A metric is required for this hyperparameter tuning job objective\. Provide a metric in the metric definitions\.$/,
    );
    await refused(
      {
        HyperParameterTuningJobName: n,
        HyperParameterTuningJobConfig: cfg({}),
        TrainingJobDefinition: xgboostDefinition({ StaticHyperParameters: { num_round: '10', eta: '0.2' } }),
      },
      /Hyperparameter eta is both a static hyperparameter and a hyperparameter to tune/,
    );
    await refused(
      {
        HyperParameterTuningJobName: n,
        HyperParameterTuningJobConfig: cfg({
          ResourceLimits: { MaxNumberOfTrainingJobs: 501, MaxParallelTrainingJobs: 2 },
        }),
      },
      /MaxNumberOfTrainingJobs 501 exceeds the limit of 500/,
    );
    await refused(
      {
        HyperParameterTuningJobName: n,
        HyperParameterTuningJobConfig: cfg({
          ParameterRanges: { IntegerParameterRanges: [{ Name: 'max_depth', MinValue: '1', MaxValue: '3' }] },
        }),
      },
      /^You don't have enough combinations of hyperparameter ranges\. The total number of hyperparameter combinations for the provided ranges \[3\.0\] must be equal or greater than the value of MaxNumberOfJobs, \[6\]\. Provide additional ranges\.$/,
    );
    await refused(
      {
        HyperParameterTuningJobName: n,
        HyperParameterTuningJobConfig: cfg({ Strategy: 'Grid', ResourceLimits: { MaxParallelTrainingJobs: 2 } }),
      },
      /Grid search supports only categorical and integer hyperparameter ranges; eta is continuous/,
    );
    await refused(
      {
        HyperParameterTuningJobName: n,
        HyperParameterTuningJobConfig: cfg({
          Strategy: 'Grid',
          ResourceLimits: { MaxParallelTrainingJobs: 2 },
          ParameterRanges: {
            IntegerParameterRanges: [
              { Name: 'max_depth', MinValue: '0', MaxValue: '30' },
              { Name: 'num_round', MinValue: '1', MaxValue: '30' },
            ],
          },
        }),
        TrainingJobDefinition: xgboostDefinition({ StaticHyperParameters: { objective: 'reg:squarederror' } }),
      },
      /grid of the hyperparameter ranges has 930 combinations, more than the limit of 500/,
    );
    await refused(
      {
        HyperParameterTuningJobName: n,
        HyperParameterTuningJobConfig: cfg({ Strategy: 'Hyperband', TrainingJobEarlyStoppingType: 'Auto' }),
      },
      /TrainingJobEarlyStoppingType must be OFF to use Hyperband/,
    );
    await refused(
      {
        HyperParameterTuningJobName: n,
        HyperParameterTuningJobConfig: cfg({
          ParameterRanges: {
            ContinuousParameterRanges: [{ Name: 'eta', MinValue: '0', MaxValue: '0.5', ScalingType: 'Logarithmic' }],
          },
        }),
      },
      /Logarithmic scaling works only for ranges that have only values greater than 0/,
    );
    await refused(
      {
        HyperParameterTuningJobName: n,
        HyperParameterTuningJobConfig: cfg({}),
        WarmStartConfig: {
          WarmStartType: 'TransferLearning',
          ParentHyperParameterTuningJobs: [{ HyperParameterTuningJobName: 'no-such-parent' }],
        },
      },
      /Parent hyperparameter tuning job no-such-parent does not exist/,
    );
    // Nothing was stored by a refused request.
    await assert.rejects(
      describeJob(n),
      (e: Error) => e.name === 'ResourceNotFound' && /can't find a tuning job with name refused/.test(e.message),
    );
    // A name already taken.
    await refused(
      { HyperParameterTuningJobName: 'Abalone-Bayes' },
      /a tuning job with this name already exists/,
      'ResourceInUse',
    );
  });

  test("warm start: the parents' jobs inform the new one, OverallBestTrainingJob spans them", async () => {
    const parent = await describeJob('Abalone-Bayes');
    await refusedWarm(
      'IdenticalDataAndAlgorithm',
      { TrainingImage: '683313688378.dkr.ecr.us-west-2.amazonaws.com/sagemaker-xgboost:1.5-1' },
      /IdenticalDataAndAlgorithm needs the parents' training image/,
    );
    await assert.rejects(
      create({
        HyperParameterTuningJobName: 'warm-names',
        TrainingJobDefinition: xgboostDefinition({
          StaticHyperParameters: { objective: 'reg:squarederror', num_round: '20', gamma: '1' },
        }),
        WarmStartConfig: {
          WarmStartType: 'TransferLearning',
          ParentHyperParameterTuningJobs: [{ HyperParameterTuningJobName: 'Abalone-Bayes' }],
        },
      }),
      /^ValidationException: The set of tunable plus static HyperParameter names is not the same across current and parent tuning jobs\./,
    );
    await create({
      HyperParameterTuningJobName: 'warm',
      HyperParameterTuningJobConfig: {
        Strategy: 'Bayesian',
        ResourceLimits: { MaxNumberOfTrainingJobs: 3, MaxParallelTrainingJobs: 1 },
        HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'validation:rmse' },
        ParameterRanges: {
          ContinuousParameterRanges: [{ Name: 'eta', MinValue: '0.05', MaxValue: '0.5', ScalingType: 'Logarithmic' }],
          IntegerParameterRanges: [{ Name: 'max_depth', MinValue: '2', MaxValue: '8' }],
        },
      },
      WarmStartConfig: {
        WarmStartType: 'IdenticalDataAndAlgorithm',
        ParentHyperParameterTuningJobs: [{ HyperParameterTuningJobName: 'Abalone-Bayes' }],
      },
    });
    const d = await finish('warm');
    assert.equal(d.HyperParameterTuningJobStatus, 'Completed', d.FailureReason);
    assert.equal(d.WarmStartConfig?.WarmStartType, 'IdenticalDataAndAlgorithm');
    const own = d.BestTrainingJob!.FinalHyperParameterTuningJobObjectiveMetric!.Value!;
    const theirs = parent.BestTrainingJob!.FinalHyperParameterTuningJobObjectiveMetric!.Value!;
    assert.equal(
      d.OverallBestTrainingJob!.TrainingJobName,
      own <= theirs ? d.BestTrainingJob!.TrainingJobName : parent.BestTrainingJob!.TrainingJobName,
    );
  });

  const refusedWarm = async (
    type: 'IdenticalDataAndAlgorithm' | 'TransferLearning',
    spec: { TrainingImage: string },
    message: RegExp,
  ) => {
    await assert.rejects(
      create({
        HyperParameterTuningJobName: 'warm-refused',
        TrainingJobDefinition: xgboostDefinition({ AlgorithmSpecification: { ...spec, TrainingInputMode: 'File' } }),
        WarmStartConfig: {
          WarmStartType: type,
          ParentHyperParameterTuningJobs: [{ HyperParameterTuningJobName: 'Abalone-Bayes' }],
        },
      }),
      message,
    );
  };

  test('several training job definitions: each with its objective and ranges; BestObjectiveNotImproving; delete', async () => {
    const def = (name: string, fn: string) => ({
      ...objectiveDefinition({ StaticHyperParameters: { function: fn, epochs: '1' } }),
      DefinitionName: name,
      TuningObjective: { Type: 'Minimize' as const, MetricName: 'objective' },
      HyperParameterRanges: xRanges(2),
    });
    await create({
      HyperParameterTuningJobName: 'two-algorithms',
      HyperParameterTuningJobConfig: {
        Strategy: 'Random',
        RandomSeed: 5,
        ResourceLimits: { MaxNumberOfTrainingJobs: 30, MaxParallelTrainingJobs: 2 },
        TuningJobCompletionCriteria: { BestObjectiveNotImproving: { MaxNumberOfTrainingJobsNotImproving: 3 } },
      },
      TrainingJobDefinition: undefined,
      TrainingJobDefinitions: [def('branin', 'branin'), def('sphere', 'sphere')],
    });
    const d = await finish('two-algorithms');
    assert.equal(d.HyperParameterTuningJobStatus, 'Completed', d.FailureReason);
    const list = await children('two-algorithms');
    assert.ok(list.length < 30, `BestObjectiveNotImproving ended it early: ${list.length} jobs`);
    assert.ok(d.TuningJobCompletionDetails!.NumberOfTrainingJobsObjectiveNotImproving! >= 3);
    const names = new Set(list.map((c) => c.TrainingJobDefinitionName));
    assert.deepEqual([...names].sort(), ['branin', 'sphere']);
    assert.ok(['branin', 'sphere'].includes(d.BestTrainingJob!.TrainingJobDefinitionName!));
    // Pages of 2, sorted by objective, best first.
    const seen: number[] = [];
    let token: string | undefined;
    do {
      const page = await sm.send(
        new ListTrainingJobsForHyperParameterTuningJobCommand({
          HyperParameterTuningJobName: 'two-algorithms',
          SortBy: 'FinalObjectiveMetricValue',
          SortOrder: 'Ascending',
          MaxResults: 2,
          NextToken: token,
        }),
      );
      seen.push(...page.TrainingJobSummaries!.map((c) => c.FinalHyperParameterTuningJobObjectiveMetric!.Value!));
      token = page.NextToken;
    } while (token);
    assert.equal(seen.length, list.length);
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
    );
    assert.equal(seen[0], d.BestTrainingJob!.FinalHyperParameterTuningJobObjectiveMetric!.Value);

    await sm.send(new DeleteHyperParameterTuningJobCommand({ HyperParameterTuningJobName: 'two-algorithms' }));
    await assert.rejects(describeJob('two-algorithms'), /can't find a tuning job/);
    // Its training jobs stay.
    const child = await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: list[0]!.TrainingJobName }));
    assert.equal(child.TrainingJobStatus, 'Completed');
  });

  test('ConvergenceDetected: CompleteOnConvergence ends a tuning job that stopped improving', async () => {
    await create({
      HyperParameterTuningJobName: 'converges',
      HyperParameterTuningJobConfig: {
        Strategy: 'Random',
        RandomSeed: 9,
        ResourceLimits: { MaxNumberOfTrainingJobs: 60, MaxParallelTrainingJobs: 3 },
        HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'objective' },
        ParameterRanges: xRanges(1),
        TuningJobCompletionCriteria: { ConvergenceDetected: { CompleteOnConvergence: 'Enabled' } },
      },
      TrainingJobDefinition: objectiveDefinition({ StaticHyperParameters: { function: 'sphere', epochs: '1' } }),
    });
    const d = await finish('converges');
    assert.equal(d.HyperParameterTuningJobStatus, 'Completed', d.FailureReason);
    assert.ok(d.TuningJobCompletionDetails?.ConvergenceDetectedTime, 'ConvergenceDetectedTime');
    assert.ok((await children('converges')).length < 60);
  });
});
