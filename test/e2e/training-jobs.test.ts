// Training jobs end to end with the AWS SDK for JavaScript: the built-in XGBoost algorithm on the
// notebook's job, its model deployed and invoked, its lineage from data set to endpoint; custom
// images through the containers file; stops, failures a user can act on, and listing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  CreateExperimentCommand,
  CreateTrainingJobCommand,
  type CreateTrainingJobCommandInput,
  DescribeTrainingJobCommand,
  ListTrainingJobsCommand,
  ListTrialComponentsCommand,
  ListTrialsCommand,
  QueryLineageCommand,
  ListContextsCommand,
  type SageMakerClient,
  SearchCommand,
  StopTrainingJobCommand,
  waitUntilTrainingJobCompletedOrStopped,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, type SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { abaloneCsv, NOTEBOOK_HYPERPARAMETERS, NOTEBOOK_IMAGE } from '../support/abalone.js';
import { sdkClients } from '../support/clients.js';
import { deployServerless } from '../support/deploy.js';
import { startServer, type TestServer } from '../support/server.js';

const ROLE = 'arn:aws:iam::111122223333:role/sm';

describe('training jobs', () => {
  let server: TestServer;
  let sm: SageMakerClient;
  let s3: S3Client;
  let rt: SageMakerRuntimeClient;
  before(async () => {
    server = await startServer(['--containers-file', 'test/fixtures/containers/containers.json']);
    ({ sm, s3, rt } = sdkClients(server.endpoint));
    await s3.send(new CreateBucketCommand({ Bucket: 'ml-data' }));
    const csv = abaloneCsv().trim().split('\n');
    await s3.send(
      new PutObjectCommand({
        Bucket: 'ml-data',
        Key: 'abalone/train/abalone.csv',
        Body: `${csv.slice(0, 3300).join('\n')}\n`,
      }),
    );
    await s3.send(
      new PutObjectCommand({
        Bucket: 'ml-data',
        Key: 'abalone/validation/abalone.csv',
        Body: `${csv.slice(3300).join('\n')}\n`,
      }),
    );
  });
  after(() => server.close());

  const job = (name: string, over: Partial<CreateTrainingJobCommandInput> = {}): CreateTrainingJobCommandInput => ({
    TrainingJobName: name,
    RoleArn: ROLE,
    AlgorithmSpecification: { TrainingImage: NOTEBOOK_IMAGE, TrainingInputMode: 'File' },
    HyperParameters: NOTEBOOK_HYPERPARAMETERS,
    InputDataConfig: ['train', 'validation'].map((c) => ({
      ChannelName: c,
      ContentType: 'text/csv',
      DataSource: {
        S3DataSource: {
          S3DataType: 'S3Prefix',
          S3Uri: `s3://ml-data/abalone/${c}/`,
          S3DataDistributionType: 'FullyReplicated',
        },
      },
    })),
    OutputDataConfig: { S3OutputPath: 's3://ml-data/abalone/output' },
    ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 },
    StoppingCondition: { MaxRuntimeInSeconds: 600 },
    ...over,
  });
  const finish = async (name: string) => {
    await waitUntilTrainingJobCompletedOrStopped(
      { client: sm, maxWaitTime: 120, minDelay: 1, maxDelay: 1 },
      { TrainingJobName: name },
    ).catch(() => undefined); // a Failed job ends the waiter with an error; the status is asserted
    return sm.send(new DescribeTrainingJobCommand({ TrainingJobName: name }));
  };

  test('the notebook job trains, its model serves, and lineage runs from the data set to the endpoint', async () => {
    await sm.send(new CreateExperimentCommand({ ExperimentName: 'abalone-exp' }));
    await sm.send(
      new CreateTrainingJobCommand(job('abalone-1', { ExperimentConfig: { ExperimentName: 'abalone-exp' } })),
    );
    const d = await finish('abalone-1');
    assert.equal(d.TrainingJobStatus, 'Completed', d.FailureReason);
    assert.equal(d.SecondaryStatus, 'Completed');
    assert.deepEqual(
      d.SecondaryStatusTransitions?.map((t) => t.Status),
      ['Starting', 'Downloading', 'Training', 'Uploading', 'Completed'],
    );
    assert.ok(d.SecondaryStatusTransitions?.every((t) => t.StartTime && t.EndTime && t.StatusMessage));
    assert.equal(d.ModelArtifacts?.S3ModelArtifacts, 's3://ml-data/abalone/output/abalone-1/output/model.tar.gz');
    assert.deepEqual(d.HyperParameters, NOTEBOOK_HYPERPARAMETERS);
    assert.ok((d.TrainingTimeInSeconds ?? 0) >= 1 && d.TrainingStartTime && d.TrainingEndTime);
    const metrics = Object.fromEntries((d.FinalMetricDataList ?? []).map((m) => [m.MetricName, m.Value]));
    assert.ok(metrics['train:rmse']! > 0 && metrics['train:rmse']! < 3, JSON.stringify(metrics));
    assert.ok(metrics['validation:rmse']! > 0 && metrics['validation:rmse']! < 4, JSON.stringify(metrics));

    const tar = gunzipSync(
      Buffer.from(
        await (
          await s3.send(
            new GetObjectCommand({ Bucket: 'ml-data', Key: 'abalone/output/abalone-1/output/model.tar.gz' }),
          )
        ).Body!.transformToByteArray(),
      ),
    );
    assert.equal(tar.subarray(0, 13).toString(), 'xgboost-model');

    // The trial component SageMaker records for the job, in the experiment's new trial.
    const tcs = await sm.send(new ListTrialComponentsCommand({ SourceArn: d.TrainingJobArn }));
    assert.equal(tcs.TrialComponentSummaries?.[0]?.TrialComponentName, 'abalone-1-aws-training-job');
    assert.equal(tcs.TrialComponentSummaries?.[0]?.Status?.PrimaryStatus, 'Completed');
    const trials = await sm.send(new ListTrialsCommand({ ExperimentName: 'abalone-exp' }));
    assert.equal(trials.TrialSummaries?.length, 1);

    // Deploy what the job produced and invoke it.
    await deployServerless(
      sm,
      'abalone',
      { Image: NOTEBOOK_IMAGE, ModelDataUrl: d.ModelArtifacts!.S3ModelArtifacts! },
      ROLE,
    );
    const out = await rt.send(
      new InvokeEndpointCommand({
        EndpointName: 'abalone',
        ContentType: 'text/csv',
        Body: Buffer.from('1,0.5,0.4,0.15,0.3,0.13,0.07,0.09'),
      }),
    );
    const rings = Number(Buffer.from(out.Body!).toString());
    assert.ok(rings > 3 && rings < 25, `prediction ${rings}`);

    const ctx = await sm.send(new ListContextsCommand({ ContextType: 'Endpoint' }));
    const up = await sm.send(
      new QueryLineageCommand({
        StartArns: [ctx.ContextSummaries![0]!.ContextArn!],
        Direction: 'Ascendants',
        IncludeEdges: true,
        MaxDepth: 10,
      }),
    );
    const types = new Set(up.Vertices?.map((v) => `${v.LineageType}:${v.Type}`));
    assert.ok(types.has('TrialComponent:TrainingJob'), [...types].join());
    assert.ok(types.has('Artifact:DataSet'), [...types].join());
  });

  test('a custom image runs its training script unchanged, with metrics from MetricDefinitions', async () => {
    await sm.send(
      new CreateTrainingJobCommand(
        job('custom-1', {
          AlgorithmSpecification: {
            TrainingImage: '111122223333.dkr.ecr.us-west-2.amazonaws.com/slipway-test-train:1',
            TrainingInputMode: 'File',
            MetricDefinitions: [{ Name: 'train:loss', Regex: 'loss=([0-9.]+)' }],
          },
          HyperParameters: { lr: '0.1' },
          InputDataConfig: [
            {
              ChannelName: 'train',
              DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://ml-data/abalone/train/' } },
            },
          ],
        }),
      ),
    );
    const d = await finish('custom-1');
    assert.equal(d.TrainingJobStatus, 'Completed', d.FailureReason);
    assert.equal(
      d.FinalMetricDataList?.find((m) => m.MetricName === 'train:loss')?.Value,
      Number((1 / (3 * 3300)).toFixed(6)),
    );
    const tar = gunzipSync(
      Buffer.from(
        await (
          await s3.send(new GetObjectCommand({ Bucket: 'ml-data', Key: 'abalone/output/custom-1/output/model.tar.gz' }))
        ).Body!.transformToByteArray(),
      ),
    );
    assert.match(tar.toString('latin1'), /\{"rows":3300,"lr":"0.1"\}/);
  });

  test('failures end the job with a reason the user can act on', async () => {
    const cases: Array<[string, Partial<CreateTrainingJobCommandInput>, RegExp]> = [
      ['bad-hp', { HyperParameters: { ...NOTEBOOK_HYPERPARAMETERS, max_depth: '-3' } }, /max_depth/],
      ['no-train', { InputDataConfig: job('x').InputDataConfig!.slice(1) }, /ClientError: .*train/i],
      [
        'empty-prefix',
        {
          InputDataConfig: [
            {
              ChannelName: 'train',
              ContentType: 'text/csv',
              DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://ml-data/none/' } },
            },
          ],
        },
        /No S3 objects found under S3 URL "s3:\/\/ml-data\/none\/"/,
      ],
      [
        'no-runtime',
        { AlgorithmSpecification: { TrainingImage: 'example.com/unknown:1', TrainingInputMode: 'File' } },
        /cannot be run/,
      ],
      [
        'script-fails',
        {
          AlgorithmSpecification: { TrainingImage: 'acct/slipway-test-train:1', TrainingInputMode: 'File' },
          HyperParameters: { mode: 'fail' },
        },
        /AlgorithmError: the data has no label column, exit code 1/,
      ],
    ];
    for (const [name] of cases)
      await sm.send(new CreateTrainingJobCommand(job(name, cases.find((c) => c[0] === name)![1])));
    for (const [name, , reason] of cases) {
      const d = await finish(name);
      assert.equal(d.TrainingJobStatus, 'Failed', name);
      assert.match(d.FailureReason ?? '', reason, name);
      assert.equal(d.ModelArtifacts?.S3ModelArtifacts, undefined, `${name} left no model`);
    }
    await assert.rejects(
      sm.send(new CreateTrainingJobCommand(job('bad-hp'))),
      (e: Error) => e.name === 'ResourceInUse',
    );
  });

  test('StopTrainingJob stops a running job', async () => {
    await sm.send(
      new CreateTrainingJobCommand(
        job('sleeper', {
          AlgorithmSpecification: { TrainingImage: 'acct/slipway-test-train:1', TrainingInputMode: 'File' },
          HyperParameters: { mode: 'sleep' },
        }),
      ),
    );
    for (let i = 0; i < 100; i++) {
      const d = await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: 'sleeper' }));
      if (d.SecondaryStatus === 'Training') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await sm.send(new StopTrainingJobCommand({ TrainingJobName: 'sleeper' }));
    const d = await finish('sleeper');
    assert.equal(d.TrainingJobStatus, 'Stopped');
    assert.equal(d.SecondaryStatus, 'Stopped');
    assert.ok(d.SecondaryStatusTransitions?.some((t) => t.Status === 'Stopping'));
    await assert.rejects(sm.send(new StopTrainingJobCommand({ TrainingJobName: 'sleeper' })), /status Stopped/);
  });

  test('Search finds training jobs by status and trial components by their metrics', async () => {
    const failed = await sm.send(
      new SearchCommand({
        Resource: 'TrainingJob',
        SearchExpression: { Filters: [{ Name: 'TrainingJobStatus', Operator: 'Equals', Value: 'Failed' }] },
        SortBy: 'TrainingJobName',
        SortOrder: 'Ascending',
      }),
    );
    assert.deepEqual(
      failed.Results?.map((r) => r.TrainingJob?.TrainingJobName),
      ['bad-hp', 'empty-prefix', 'no-runtime', 'no-train', 'script-fails'],
    );
    const best = await sm.send(
      new SearchCommand({
        Resource: 'ExperimentTrialComponent',
        SearchExpression: { Filters: [{ Name: 'Metrics.train:rmse.Min', Operator: 'LessThan', Value: '5' }] },
        SortBy: 'Metrics.train:rmse.Min',
        SortOrder: 'Ascending',
      }),
    );
    assert.equal(best.Results?.[0]?.TrialComponent?.TrialComponentName, 'abalone-1-aws-training-job');
    assert.equal(best.Results?.[0]?.TrialComponent?.Source?.SourceType, 'SageMakerTrainingJob');
  });

  test('ListTrainingJobs filters, sorts and pages', async () => {
    const failed = await sm.send(
      new ListTrainingJobsCommand({ StatusEquals: 'Failed', SortBy: 'Name', SortOrder: 'Ascending' }),
    );
    assert.deepEqual(
      failed.TrainingJobSummaries?.map((s) => s.TrainingJobName),
      ['bad-hp', 'empty-prefix', 'no-runtime', 'no-train', 'script-fails'],
    );
    const page1 = await sm.send(new ListTrainingJobsCommand({ MaxResults: 2, NameContains: '-' }));
    const page2 = await sm.send(
      new ListTrainingJobsCommand({ MaxResults: 2, NameContains: '-', NextToken: page1.NextToken }),
    );
    assert.equal(page1.TrainingJobSummaries?.length, 2);
    assert.notDeepEqual(
      page1.TrainingJobSummaries?.[0]?.TrainingJobName,
      page2.TrainingJobSummaries?.[0]?.TrainingJobName,
    );
  });
});
