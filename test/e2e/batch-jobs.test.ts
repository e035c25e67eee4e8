// Processing and batch transform jobs end to end with the AWS SDK for JavaScript: a processing script
// splits the data, the built-in XGBoost trains on its output, the model is deployed and batch
// transformed, and lineage runs from the endpoint back to the processing job; failures, stops,
// filters and joins as a user sees them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import {
  AddTagsCommand,
  CreateModelCommand,
  CreateProcessingJobCommand,
  type CreateProcessingJobCommandInput,
  CreateTrainingJobCommand,
  CreateTransformJobCommand,
  type CreateTransformJobCommandInput,
  DescribeProcessingJobCommand,
  DescribeTransformJobCommand,
  ListContextsCommand,
  ListProcessingJobsCommand,
  ListTagsCommand,
  ListTransformJobsCommand,
  ListTrialComponentsCommand,
  QueryLineageCommand,
  SearchCommand,
  type SageMakerClient,
  StopProcessingJobCommand,
  StopTransformJobCommand,
  waitUntilProcessingJobCompletedOrStopped,
  waitUntilTrainingJobCompletedOrStopped,
  waitUntilTransformJobCompletedOrStopped,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, type SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { sdkClients } from '../support/clients.js';
import { deployServerless } from '../support/deploy.js';
import { abaloneCsv } from '../support/abalone.js';
import { startServer, type TestServer } from '../support/server.js';

const XGB = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1';
const PROC = '111122223333.dkr.ecr.us-west-2.amazonaws.com/slipway-test-process:1';
const ROLE = 'arn:aws:iam::111122223333:role/sm';
const wait = { minDelay: 1, maxDelay: 1, maxWaitTime: 120 };

describe('processing and transform jobs', () => {
  let server: TestServer;
  let sm: SageMakerClient;
  let s3: S3Client;
  let rt: SageMakerRuntimeClient;
  const rows = abaloneCsv().trim().split('\n');
  before(async () => {
    server = await startServer(['--containers-file', 'test/fixtures/containers/containers.json']);
    ({ sm, s3, rt } = sdkClients(server.endpoint));
    await s3.send(new CreateBucketCommand({ Bucket: 'ml-data' }));
    const half = Math.floor(rows.length / 2);
    const header = 'label,sex,length,diameter,height,whole,shucked,viscera,shell';
    await put('raw/part-1.csv', `${header}\n${rows.slice(0, half).join('\n')}\n`);
    await put('raw/part-2.csv', `${rows.slice(half).join('\n')}\n`);
  });
  after(() => server.close());

  const put = (key: string, body: string | Uint8Array) =>
    s3.send(new PutObjectCommand({ Bucket: 'ml-data', Key: key, Body: body }));
  const get = async (key: string) =>
    await (await s3.send(new GetObjectCommand({ Bucket: 'ml-data', Key: key }))).Body!.transformToString();
  const keys = async (prefix: string) =>
    ((await s3.send(new ListObjectsV2Command({ Bucket: 'ml-data', Prefix: prefix }))).Contents ?? []).map((o) => o.Key);

  const processing = (
    name: string,
    args: string[],
    over: Partial<CreateProcessingJobCommandInput> = {},
  ): CreateProcessingJobCommandInput => ({
    ProcessingJobName: name,
    RoleArn: ROLE,
    AppSpecification: { ImageUri: PROC, ContainerArguments: args },
    ProcessingResources: { ClusterConfig: { InstanceCount: 1, InstanceType: 'ml.m5.xlarge', VolumeSizeInGB: 5 } },
    ProcessingInputs: [
      {
        InputName: 'raw',
        S3Input: {
          S3Uri: 's3://ml-data/raw',
          LocalPath: '/opt/ml/processing/input/raw',
          S3DataType: 'S3Prefix',
          S3InputMode: 'File',
        },
      },
    ],
    ProcessingOutputConfig: {
      Outputs: ['train', 'validation'].map((o) => ({
        OutputName: o,
        S3Output: {
          S3Uri: `s3://ml-data/${name}/${o}`,
          LocalPath: `/opt/ml/processing/output/${o}`,
          S3UploadMode: 'EndOfJob',
        },
      })),
    },
    Environment: { SPLIT: '0.75' },
    StoppingCondition: { MaxRuntimeInSeconds: 300 },
    ...over,
  });
  const finishProcessing = async (name: string) => {
    await waitUntilProcessingJobCompletedOrStopped({ client: sm, ...wait }, { ProcessingJobName: name }).catch(
      () => undefined,
    );
    return sm.send(new DescribeProcessingJobCommand({ ProcessingJobName: name }));
  };
  const finishTransform = async (name: string) => {
    await waitUntilTransformJobCompletedOrStopped({ client: sm, ...wait }, { TransformJobName: name }).catch(
      () => undefined,
    );
    return sm.send(new DescribeTransformJobCommand({ TransformJobName: name }));
  };
  const transform = (
    name: string,
    over: Partial<CreateTransformJobCommandInput> = {},
  ): CreateTransformJobCommandInput => ({
    TransformJobName: name,
    ModelName: 'abalone',
    BatchStrategy: 'MultiRecord',
    MaxPayloadInMB: 1,
    MaxConcurrentTransforms: 2,
    TransformInput: {
      DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://ml-data/batch/features/' } },
      ContentType: 'text/csv',
      SplitType: 'Line',
    },
    TransformOutput: { S3OutputPath: `s3://ml-data/batch/${name}`, AssembleWith: 'Line', Accept: 'text/csv' },
    TransformResources: { InstanceType: 'ml.m5.large', InstanceCount: 1 },
    ...over,
  });

  test('processing → training → model → endpoint, and lineage from the endpoint reaches the processing job', async () => {
    const created = await sm.send(
      new CreateProcessingJobCommand(processing('prep-1', ['--mode', 'ok'], { Tags: [{ Key: 'team', Value: 'ml' }] })),
    );
    const d = await finishProcessing('prep-1');
    assert.equal(d.ProcessingJobStatus, 'Completed', d.FailureReason);
    assert.ok(d.ProcessingStartTime && d.ProcessingEndTime);
    assert.deepEqual(d.AppSpecification?.ContainerArguments, ['--mode', 'ok']);
    const train = (await get('prep-1/train/data.csv')).trim().split('\n');
    const validation = (await get('prep-1/validation/data.csv')).trim().split('\n');
    assert.equal(train.length, Math.floor(rows.length * 0.75));
    assert.equal(train.length + validation.length, rows.length);
    const tags = await sm.send(new ListTagsCommand({ ResourceArn: created.ProcessingJobArn }));
    assert.deepEqual(tags.Tags, [{ Key: 'team', Value: 'ml' }]);

    // The built-in algorithm trains on what the processing job wrote (the same S3 URIs).
    await sm.send(
      new CreateTrainingJobCommand({
        TrainingJobName: 'abalone-from-prep',
        RoleArn: ROLE,
        AlgorithmSpecification: { TrainingImage: XGB, TrainingInputMode: 'File' },
        HyperParameters: { objective: 'reg:squarederror', num_round: '20', max_depth: '4' },
        InputDataConfig: ['train', 'validation'].map((c) => ({
          ChannelName: c,
          ContentType: 'text/csv',
          DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: `s3://ml-data/prep-1/${c}` } },
        })),
        OutputDataConfig: { S3OutputPath: 's3://ml-data/models' },
        ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 },
        StoppingCondition: { MaxRuntimeInSeconds: 300 },
      }),
    );
    await waitUntilTrainingJobCompletedOrStopped({ client: sm, ...wait }, { TrainingJobName: 'abalone-from-prep' });
    await deployServerless(
      sm,
      'abalone',
      {
        Image: XGB,
        ModelDataUrl: 's3://ml-data/models/abalone-from-prep/output/model.tar.gz',
      },
      ROLE,
    );

    const ctx = await sm.send(new ListContextsCommand({ ContextType: 'Endpoint' }));
    const up = await sm.send(
      new QueryLineageCommand({
        StartArns: [ctx.ContextSummaries![0]!.ContextArn!],
        Direction: 'Ascendants',
        IncludeEdges: true,
        MaxDepth: 10,
      }),
    );
    const tcs = await sm.send(new ListTrialComponentsCommand({ SourceArn: d.ProcessingJobArn }));
    const tc = tcs.TrialComponentSummaries?.[0];
    assert.equal(tc?.TrialComponentName, 'prep-1-aws-processing-job');
    assert.equal(tc?.Status?.PrimaryStatus, 'Completed');
    const reached = up.Vertices?.map((v) => v.Arn);
    assert.ok(
      reached?.includes(tc!.TrialComponentArn),
      JSON.stringify(up.Vertices?.map((v) => `${v.LineageType}:${v.Type}`)),
    );
    // Search shows the job behind the trial component in its SourceDetail, as SageMaker does.
    const found = await sm.send(
      new SearchCommand({
        Resource: 'ExperimentTrialComponent',
        SearchExpression: {
          Filters: [{ Name: 'TrialComponentName', Operator: 'Equals', Value: 'prep-1-aws-processing-job' }],
        },
      }),
    );
    const detail = found.Results?.[0]?.TrialComponent?.SourceDetail;
    assert.equal(detail?.SourceArn, d.ProcessingJobArn);
    assert.equal(detail?.ProcessingJob?.ProcessingJobName, 'prep-1');
    assert.equal(detail?.ProcessingJob?.ProcessingJobStatus, 'Completed');
  });

  test('batch transform writes one .out per object, in order, equal to what the endpoint answers', async () => {
    const features = rows.map((r) => r.split(',').slice(1).join(','));
    await put('batch/features/a.csv', `${features.slice(0, 1500).join('\n')}\n`);
    await put('batch/features/sub/b.csv', `${features.slice(1500, 3000).join('\n')}\n`);
    await put('batch/features/c.csv.gz', gzipSync(`${features.slice(3000).join('\n')}\n`));
    const created = await sm.send(new CreateTransformJobCommand(transform('t-1')));
    // The .gz object is read as text here (CompressionType None): it is refused by the model...
    const failed = await finishTransform('t-1');
    assert.equal(failed.TransformJobStatus, 'Failed');
    assert.match(failed.FailureReason ?? '', /record 1 of s3:\/\/ml-data\/batch\/features\/c\.csv\.gz/);
    // ...and nothing the job wrote is left under its output prefix.
    assert.deepEqual(await keys('batch/t-1/'), []);
    assert.ok(created.TransformJobArn?.endsWith(':transform-job/t-1'));

    await sm.send(
      new CreateTransformJobCommand(
        transform('t-2', {
          TransformInput: {
            ...transform('').TransformInput,
            DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://ml-data/batch/features/sub' } },
          },
        }),
      ),
    );
    const d = await finishTransform('t-2');
    assert.equal(d.TransformJobStatus, 'Completed', d.FailureReason);
    assert.deepEqual(await keys('batch/t-2/'), ['batch/t-2/sub/b.csv.out']);
    const out = (await get('batch/t-2/sub/b.csv.out')).trim().split('\n');
    assert.equal(out.length, 1500);
    const direct = await rt.send(
      new InvokeEndpointCommand({
        EndpointName: 'abalone',
        ContentType: 'text/csv',
        Body: Buffer.from(features.slice(1500, 1510).join('\n')),
      }),
    );
    assert.deepEqual(out.slice(0, 10).map(Number), Buffer.from(direct.Body!).toString().trim().split('\n').map(Number));

    // Gzip objects with CompressionType Gzip, listed in a manifest.
    await put('batch/manifest.json', JSON.stringify([{ prefix: 's3://ml-data/batch/features/' }, 'c.csv.gz']));
    await sm.send(
      new CreateTransformJobCommand(
        transform('t-4', {
          TransformInput: {
            ...transform('').TransformInput,
            CompressionType: 'Gzip',
            DataSource: { S3DataSource: { S3DataType: 'ManifestFile', S3Uri: 's3://ml-data/batch/manifest.json' } },
          },
        }),
      ),
    );
    const g = await finishTransform('t-4');
    assert.equal(g.TransformJobStatus, 'Completed', g.FailureReason);
    assert.equal((await get('batch/t-4/c.csv.gz.out')).trim().split('\n').length, rows.length - 3000);

    const list = await sm.send(new ListTransformJobsCommand({ StatusEquals: 'Completed' }));
    assert.ok(list.TransformJobSummaries?.some((s) => s.TransformJobName === 't-2'));
    // Lineage: the model artifact ContributedTo the transform job, which Produced its output.
    const tcs = await sm.send(new ListTrialComponentsCommand({ SourceArn: d.TransformJobArn }));
    assert.equal(tcs.TrialComponentSummaries?.[0]?.TrialComponentName, 't-2-aws-transform-job');
  });

  test('MultiRecord payloads cut from the bytes answer byte for byte what the per-record path answers', async () => {
    // 6 × abalone (~1.2 MB) in two objects, with CRLF line ends and blank lines, in 1 MB payloads.
    const features = rows.map((r) => r.split(',').slice(1).join(','));
    const many = Array.from({ length: 6 }, () => features).flat();
    const lines = many.map((l, i) => (i % 97 === 0 ? `${l}\r\n` : i % 89 === 0 ? `${l}\n\n` : `${l}\n`));
    await put('bulk/in/a.csv', lines.slice(0, 15000).join(''));
    await put('bulk/in/b.csv', lines.slice(15000).join('').trimEnd()); // no final newline
    const job = (name: string, over: Partial<CreateTransformJobCommandInput>) =>
      transform(name, {
        TransformInput: {
          ...transform('').TransformInput,
          DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://ml-data/bulk/in/' } },
        },
        ...over,
      });
    // The bulk path (MultiRecord, no filter); MultiRecord with a filter that keeps every column (the
    // per-record path); SingleRecord, one record a request.
    await sm.send(new CreateTransformJobCommand(job('bulk-1', {})));
    await sm.send(new CreateTransformJobCommand(job('bulk-2', { DataProcessing: { InputFilter: '$[0:]' } })));
    await sm.send(new CreateTransformJobCommand(job('bulk-3', { BatchStrategy: 'SingleRecord' })));
    for (const name of ['bulk-1', 'bulk-2', 'bulk-3']) {
      const d = await finishTransform(name);
      assert.equal(d.TransformJobStatus, 'Completed', `${name}: ${d.FailureReason}`);
    }
    for (const obj of ['a.csv', 'b.csv']) {
      const bulk = await get(`batch/bulk-1/${obj}.out`);
      assert.equal(bulk, await get(`batch/bulk-2/${obj}.out`), obj);
      assert.equal(bulk, await get(`batch/bulk-3/${obj}.out`), obj);
    }
    assert.equal((await get('batch/bulk-1/b.csv.out')).split('\n').length - 1, many.length - 15000);

    // A record the model refuses, deep in a payload: the job fails naming the object and the record.
    const bad = [...features.slice(0, 2000), 'M,0.5,0.4,0.1,0.5,0.2,0.1,0.15', ...features.slice(2000)];
    await put('bulk/bad/x.csv', `${bad.join('\n')}\n`);
    await sm.send(
      new CreateTransformJobCommand(
        job('bulk-bad', {
          TransformInput: {
            ...transform('').TransformInput,
            DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://ml-data/bulk/bad/' } },
          },
        }),
      ),
    );
    const failed = await finishTransform('bulk-bad');
    assert.equal(failed.TransformJobStatus, 'Failed');
    assert.match(
      failed.FailureReason ?? '',
      /record 2001 of s3:\/\/ml-data\/bulk\/bad\/x\.csv: [\s\S]*could not convert string to float: 'M'/,
    );
    assert.deepEqual(await keys('batch/bulk-bad/'), []);
  });

  test('InputFilter, JoinSource Input and OutputFilter: the label joined with the prediction', async () => {
    await put('batch/labelled/all.csv', `${rows.slice(0, 200).join('\n')}\n`);
    await sm.send(
      new CreateTransformJobCommand(
        transform('t-join', {
          BatchStrategy: 'SingleRecord',
          TransformInput: {
            ...transform('').TransformInput,
            DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://ml-data/batch/labelled/' } },
          },
          DataProcessing: { InputFilter: '$[1:]', JoinSource: 'Input', OutputFilter: '$[0,-1]' },
        }),
      ),
    );
    const d = await finishTransform('t-join');
    assert.equal(d.TransformJobStatus, 'Completed', d.FailureReason);
    const out = (await get('batch/t-join/all.csv.out')).trim().split('\n');
    assert.equal(out.length, 200);
    for (const [i, line] of out.entries()) {
      const [label, prediction] = line.split(',');
      assert.equal(label, rows[i]!.split(',')[0]);
      assert.ok(Number(prediction) > 0 && Number(prediction) < 30, line);
    }
  });

  test('a containers-file model: numbers scaled line by line, a refused record named, a stop', async () => {
    const ECHO = '111122223333.dkr.ecr.us-west-2.amazonaws.com/slipway-test-echo:1';
    await sm.send(
      new CreateModelCommand({ ModelName: 'echo', ExecutionRoleArn: ROLE, PrimaryContainer: { Image: ECHO } }),
    );
    const echo = (name: string, prefix: string, over: Partial<CreateTransformJobCommandInput> = {}) =>
      transform(name, {
        ModelName: 'echo',
        BatchStrategy: 'SingleRecord',
        TransformInput: {
          ...transform('').TransformInput,
          DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: `s3://ml-data/echo/${prefix}/` } },
        },
        ...over,
      });
    await put('echo/ok/a.txt', '1,2\n3,4\n5\n');
    await sm.send(new CreateTransformJobCommand(echo('e-ok', 'ok')));
    const ok = await finishTransform('e-ok');
    assert.equal(ok.TransformJobStatus, 'Completed', ok.FailureReason);
    assert.equal(await get('batch/e-ok/a.txt.out'), '1,2\n3,4\n5\n');

    await put('echo/bad/a.txt', '1\n2\nfail:400\n4\n');
    await sm.send(new CreateTransformJobCommand(echo('e-bad', 'bad')));
    const bad = await finishTransform('e-bad');
    assert.equal(bad.TransformJobStatus, 'Failed');
    assert.match(bad.FailureReason ?? '', /record 3 of s3:\/\/ml-data\/echo\/bad\/a\.txt/);
    assert.deepEqual(await keys('batch/e-bad/'), []);

    await put('echo/slow/a.txt', 'sleep:200\n'.repeat(50));
    await sm.send(new CreateTransformJobCommand(echo('e-slow', 'slow', { MaxConcurrentTransforms: 1 })));
    await new Promise((r) => setTimeout(r, 700));
    await sm.send(new StopTransformJobCommand({ TransformJobName: 'e-slow' }));
    const stopped = await finishTransform('e-slow');
    assert.equal(stopped.TransformJobStatus, 'Stopped');
    assert.deepEqual(await keys('batch/e-slow/'), []);
  });

  test('bad input: a missing model, an empty prefix, a failing script, a stop', async () => {
    await assert.rejects(
      sm.send(new CreateTransformJobCommand(transform('t-nomodel', { ModelName: 'nope' }))),
      /Could not find model/,
    );
    await sm.send(
      new CreateTransformJobCommand(
        transform('t-empty', {
          TransformInput: {
            ...transform('').TransformInput,
            DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://ml-data/nothing/' } },
          },
        }),
      ),
    );
    assert.match(
      (await finishTransform('t-empty')).FailureReason ?? '',
      /No S3 objects found under S3 URL "s3:\/\/ml-data\/nothing\/"/,
    );

    await sm.send(new CreateProcessingJobCommand(processing('prep-fail', ['--mode', 'fail'])));
    const f = await finishProcessing('prep-fail');
    assert.equal(f.ProcessingJobStatus, 'Failed');
    assert.match(f.FailureReason ?? '', /^AlgorithmError: .*ExitCode 3: the input has no rows/);
    assert.equal(f.ExitMessage, 'the input has no rows');
    assert.deepEqual(await keys('prep-fail/'), []);

    await sm.send(
      new CreateProcessingJobCommand(
        processing('prep-bad-entry', [], {
          AppSpecification: { ImageUri: PROC, ContainerEntrypoint: ['no-such-program'] },
        }),
      ),
    );
    const b = await finishProcessing('prep-bad-entry');
    assert.equal(b.ProcessingJobStatus, 'Failed');
    assert.match(b.FailureReason ?? '', /no-such-program/);

    await sm.send(new CreateProcessingJobCommand(processing('prep-sleep', ['--mode', 'sleep'])));
    await new Promise((r) => setTimeout(r, 500));
    await sm.send(new StopProcessingJobCommand({ ProcessingJobName: 'prep-sleep' }));
    const s = await finishProcessing('prep-sleep');
    assert.equal(s.ProcessingJobStatus, 'Stopped');
    const listed = await sm.send(new ListProcessingJobsCommand({ StatusEquals: 'Failed' }));
    assert.deepEqual(listed.ProcessingJobSummaries?.map((j) => j.ProcessingJobName).sort(), [
      'prep-bad-entry',
      'prep-fail',
    ]);
    await assert.rejects(
      sm.send(
        new CreateProcessingJobCommand(
          processing('prep-path', ['--mode', 'ok'], {
            ProcessingInputs: [
              { InputName: 'x', S3Input: { S3Uri: 's3://ml-data/raw', LocalPath: '/tmp/x', S3DataType: 'S3Prefix' } },
            ],
          }),
        ),
      ),
      /must be an absolute path under \/opt\/ml\/processing/,
    );
    await sm.send(new AddTagsCommand({ ResourceArn: s.ProcessingJobArn, Tags: [{ Key: 'k', Value: 'v' }] }));
  });
});
