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
});
