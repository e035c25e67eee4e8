// SigV4 and IAM policies on the SageMaker and SageMaker Runtime APIs, driven by the AWS SDK for
// JavaScript with good, wrong and unknown keys, and by a child server for SIGHUP and the secure default.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateModelCommand,
  CreateProcessingJobCommand,
  CreateTrainingJobCommand,
  CreateTransformJobCommand,
  DescribeProcessingJobCommand,
  DescribeTransformJobCommand,
  DescribeTrainingJobCommand,
  waitUntilProcessingJobCompletedOrStopped,
  waitUntilTrainingJobCompletedOrStopped,
  waitUntilTransformJobCompletedOrStopped,
  DeleteModelCommand,
  DescribeModelCommand,
  ListModelsCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import {
  ALICE,
  BOB,
  BOB_ARN,
  CAROL,
  credentialsDocument,
  LOADER_ROLE,
  UNKNOWN,
  writeCredentialsFile,
} from '../support/credentials.js';
import { ACCOUNT, REGION, spawnServer, startServer, tempDir, type TestServer } from '../support/server.js';

type Creds = { accessKeyId: string; secretAccessKey: string };

async function failure(p: Promise<unknown>): Promise<{ name: string; message: string; status: number | undefined }> {
  try {
    await p;
  } catch (err) {
    const e = err as Error & { $metadata?: { httpStatusCode?: number } };
    return { name: e.name, message: e.message, status: e.$metadata?.httpStatusCode };
  }
  assert.fail('expected the request to fail');
}

const MODEL = (name: string) => ({
  ModelName: name,
  ExecutionRoleArn: `arn:aws:iam::${ACCOUNT}:role/sm`,
  PrimaryContainer: { Image: 'slipway/xgboost:latest', ModelDataUrl: 's3://models/m.tar.gz' },
});

describe('SageMaker APIs with a credentials file', () => {
  let server: TestServer;
  const sm = (c: Creds) =>
    new SageMakerClient({ endpoint: server.endpoint, region: REGION, credentials: c, maxAttempts: 1 });

  before(async () => {
    const dir = tempDir();
    server = await startServer(['--credentials-file', writeCredentialsFile(dir)]);
  });
  after(() => server.close());

  it('a principal whose policy allows everything creates and reads', async () => {
    await sm(ALICE).send(new CreateModelCommand(MODEL('auth-model')));
    const d = await sm(ALICE).send(new DescribeModelCommand({ ModelName: 'auth-model' }));
    assert.equal(d.ModelName, 'auth-model');
  });

  it('an unknown access key: UnrecognizedClientException, 400', async () => {
    const e = await failure(sm(UNKNOWN).send(new ListModelsCommand({})));
    assert.deepEqual(e, {
      name: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
      status: 400,
    });
  });

  it('the wrong secret: InvalidSignatureException, 403', async () => {
    const e = await failure(sm({ ...ALICE, secretAccessKey: 'wrong-secret' }).send(new ListModelsCommand({})));
    assert.equal(e.name, 'InvalidSignatureException');
    assert.equal(e.status, 403);
    assert.match(e.message, /^The request signature we calculated does not match the signature you provided\./);
  });

  it('no signature at all: MissingAuthenticationTokenException', async () => {
    const res = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'x-amz-target': 'SageMaker.ListModels', 'content-type': 'application/x-amz-json-1.1' },
      body: '{}',
    });
    assert.equal(res.status, 403);
    assert.deepEqual(await res.json(), {
      __type: 'MissingAuthenticationTokenException',
      message: 'Missing Authentication Token',
    });
  });

  it('a clock 20 minutes behind: Signature expired', async () => {
    const skewed = new SageMakerClient({
      endpoint: server.endpoint,
      region: REGION,
      credentials: ALICE,
      maxAttempts: 1,
      systemClockOffset: -20 * 60_000,
    });
    const e = await failure(skewed.send(new ListModelsCommand({})));
    assert.equal(e.name, 'InvalidSignatureException');
    assert.match(
      e.message,
      /^Signature expired: \d{8}T\d{6}Z is now earlier than \d{8}T\d{6}Z \(\d{8}T\d{6}Z - 15 min\.\)$/,
    );
  });

  it('a read-only principal reads, but may not create: AWS wording and the resource ARN', async () => {
    const list = await sm(BOB).send(new ListModelsCommand({}));
    assert.ok(list.Models?.some((m) => m.ModelName === 'auth-model'));
    const e = await failure(sm(BOB).send(new CreateModelCommand(MODEL('bob-model'))));
    assert.equal(e.name, 'AccessDeniedException');
    assert.equal(e.status, 400);
    assert.equal(
      e.message,
      `User: ${BOB_ARN} is not authorized to perform: sagemaker:CreateModel on resource: arn:aws:sagemaker:${REGION}:${ACCOUNT}:model/bob-model because no identity-based policy allows the sagemaker:CreateModel action`,
    );
  });

  it('an explicit deny wins over an allow', async () => {
    const e = await failure(sm(BOB).send(new DeleteModelCommand({ ModelName: 'auth-model' })));
    assert.equal(
      e.message,
      `User: ${BOB_ARN} is not authorized to perform: sagemaker:DeleteModel on resource: arn:aws:sagemaker:${REGION}:${ACCOUNT}:model/auth-model with an explicit deny in an identity-based policy`,
    );
    await sm(ALICE).send(new DescribeModelCommand({ ModelName: 'auth-model' }));
  });

  it('InvokeEndpoint is sagemaker:InvokeEndpoint on the endpoint ARN', async () => {
    const rt = (c: Creds) =>
      new SageMakerRuntimeClient({ endpoint: server.endpoint, region: REGION, credentials: c, maxAttempts: 1 });
    const body = new TextEncoder().encode('1,2,3');
    const denied = await failure(
      rt(CAROL).send(new InvokeEndpointCommand({ EndpointName: 'ep', ContentType: 'text/csv', Body: body })),
    );
    assert.equal(denied.name, 'AccessDeniedException');
    assert.match(
      denied.message,
      new RegExp(`sagemaker:InvokeEndpoint on resource: arn:aws:sagemaker:${REGION}:${ACCOUNT}:endpoint/ep `),
    );
    const bad = await failure(
      rt({ ...ALICE, secretAccessKey: 'x'.repeat(20) }).send(
        new InvokeEndpointCommand({ EndpointName: 'ep', ContentType: 'text/csv', Body: body }),
      ),
    );
    assert.equal(bad.name, 'InvalidSignatureException');
    // Alice passes authentication and authorization: the answer is about the endpoint itself.
    const missing = await failure(
      rt(ALICE).send(new InvokeEndpointCommand({ EndpointName: 'ep', ContentType: 'text/csv', Body: body })),
    );
    assert.equal(missing.name, 'ValidationError');
  });

  it('health stays open; /metrics wants a signature', async () => {
    assert.equal((await fetch(`${server.endpoint}/_slipway/health`)).status, 200);
    const m = await fetch(`${server.endpoint}/metrics`);
    assert.equal(m.status, 403);
    assert.equal(m.headers.get('x-amzn-errortype'), 'MissingAuthenticationTokenException');
  });

  it('a training job reads its channels as its RoleArn: a role that may not read them fails the job', async () => {
    const s3 = new S3Client({ endpoint: server.endpoint, region: REGION, credentials: ALICE, forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: 'data' })).catch(() => undefined);
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'train/a.csv', Body: '1,2\n' }));
    const job = (name: string, RoleArn: string) =>
      sm(ALICE).send(
        new CreateTrainingJobCommand({
          TrainingJobName: name,
          RoleArn,
          AlgorithmSpecification: { TrainingImage: 'acct/sagemaker-xgboost:1.7-1', TrainingInputMode: 'File' },
          HyperParameters: { num_round: '2' },
          InputDataConfig: [
            {
              ChannelName: 'train',
              ContentType: 'text/csv',
              DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://data/train/' } },
            },
          ],
          OutputDataConfig: { S3OutputPath: 's3://data/out' },
          ResourceConfig: { InstanceType: 'ml.m5.large', InstanceCount: 1, VolumeSizeInGB: 1 },
        }),
      );
    // The loader role may read s3://data/graph/* only; a role the file does not hold cannot be passed.
    await job('role-cannot-read', LOADER_ROLE);
    const unknown = `arn:aws:iam::${ACCOUNT}:role/nobody`;
    assert.deepEqual(await failure(job('role-unknown', unknown)), {
      name: 'ValidationException',
      message: `Could not assume role ${unknown}. Please ensure that the role exists and allows principal 'sagemaker.amazonaws.com' to assume the role.`,
      status: 400,
    });
    for (const name of ['role-cannot-read']) {
      await waitUntilTrainingJobCompletedOrStopped(
        { client: sm(ALICE), maxWaitTime: 30, minDelay: 1, maxDelay: 1 },
        { TrainingJobName: name },
      ).catch(() => undefined);
      const d = await sm(ALICE).send(new DescribeTrainingJobCommand({ TrainingJobName: name }));
      assert.equal(d.TrainingJobStatus, 'Failed', name);
      assert.match(
        d.FailureReason ?? '',
        /^ClientError: Data download failed: Access Denied\. .*"s3:GetObject" permissions on "s3:\/\/data\/train\/"/,
        name,
      );
    }
    // A processing job reads its inputs as its RoleArn too.
    await sm(ALICE).send(
      new CreateProcessingJobCommand({
        ProcessingJobName: 'prep-cannot-read',
        RoleArn: LOADER_ROLE,
        AppSpecification: { ImageUri: 'acct/prep:1' },
        ProcessingInputs: [
          {
            InputName: 'raw',
            S3Input: {
              S3Uri: 's3://data/train/',
              LocalPath: '/opt/ml/processing/input',
              S3DataType: 'S3Prefix',
              S3InputMode: 'File',
            },
          },
        ],
        ProcessingResources: { ClusterConfig: { InstanceCount: 1, InstanceType: 'ml.m5.large', VolumeSizeInGB: 1 } },
      }),
    );
    await waitUntilProcessingJobCompletedOrStopped(
      { client: sm(ALICE), maxWaitTime: 30, minDelay: 1, maxDelay: 1 },
      { ProcessingJobName: 'prep-cannot-read' },
    ).catch(() => undefined);
    const prep = await sm(ALICE).send(new DescribeProcessingJobCommand({ ProcessingJobName: 'prep-cannot-read' }));
    assert.equal(prep.ProcessingJobStatus, 'Failed');
    assert.match(prep.FailureReason ?? '', /^ClientError: Data download failed: Access Denied\./);
  });

  it("a transform job reads its input and writes its output as its model's ExecutionRoleArn", async () => {
    const s3 = new S3Client({ endpoint: server.endpoint, region: REGION, credentials: ALICE, forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: 'data' })).catch(() => undefined);
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'train/a.csv', Body: '1,2\n' }));
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'graph/a.csv', Body: '1,2\n' }));
    // The loader role may list the bucket and read s3://data/graph/* only; it may write nothing.
    await sm(ALICE).send(
      new CreateModelCommand({
        ModelName: 'loader-model',
        ExecutionRoleArn: LOADER_ROLE,
        PrimaryContainer: { Image: 'acct/sagemaker-xgboost:1.7-1', ModelDataUrl: 's3://data/graph/model.tar.gz' },
      }),
    );
    const transform = (name: string, input: string) =>
      sm(ALICE).send(
        new CreateTransformJobCommand({
          TransformJobName: name,
          ModelName: 'loader-model',
          TransformInput: {
            DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: input } },
            ContentType: 'text/csv',
            SplitType: 'Line',
          },
          TransformOutput: { S3OutputPath: 's3://data/scored/' },
          TransformResources: { InstanceType: 'ml.m5.large', InstanceCount: 1 },
        }),
      );
    const finish = async (name: string) => {
      await waitUntilTransformJobCompletedOrStopped(
        { client: sm(ALICE), maxWaitTime: 30, minDelay: 1, maxDelay: 1 },
        { TransformJobName: name },
      ).catch(() => undefined);
      return sm(ALICE).send(new DescribeTransformJobCommand({ TransformJobName: name }));
    };
    await transform('transform-cannot-read', 's3://data/train/');
    await transform('transform-cannot-write', 's3://data/graph/');
    const read = await finish('transform-cannot-read');
    assert.equal(read.TransformJobStatus, 'Failed');
    assert.match(
      read.FailureReason ?? '',
      /^ClientError: Data download failed: Access Denied\. .*role\/graph-loader.*"s3:GetObject" permissions on "s3:\/\/data\/train\/"/,
    );
    const write = await finish('transform-cannot-write');
    assert.equal(write.TransformJobStatus, 'Failed');
    assert.match(
      write.FailureReason ?? '',
      /^ClientError: The role ".*role\/graph-loader" may not write the output to "s3:\/\/data\/scored\/"/,
    );
  });
});

describe('the server process with --credentials-file', () => {
  it('re-reads the file on SIGHUP without dropping a keep-alive connection', async () => {
    const dir = tempDir();
    const file = writeCredentialsFile(dir, { principals: [] });
    const server = await spawnServer(['--credentials-file', file], dir);
    try {
      const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 1 });
      const sockets = new Set<unknown>();
      const health = () =>
        new Promise<number>((resolve, reject) => {
          const r = request(`${server.endpoint}/_slipway/health`, { agent }, (res) => {
            sockets.add(res.socket);
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
          r.on('error', reject);
          r.end();
        });
      assert.equal(await health(), 200);
      const before = await failure(client(server.endpoint, ALICE).send(new ListModelsCommand({})));
      assert.equal(before.name, 'UnrecognizedClientException');
      writeFileSync(file, JSON.stringify(credentialsDocument()));
      server.child.kill('SIGHUP');
      // The reload is synchronous in the signal handler; poll briefly for the signal to land.
      let listed = false;
      for (let i = 0; i < 50 && !listed; i++) {
        listed = await client(server.endpoint, ALICE)
          .send(new ListModelsCommand({}))
          .then(
            () => true,
            () => false,
          );
        if (!listed) await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(listed, 'alice is known after SIGHUP');
      assert.equal(await health(), 200);
      assert.equal(sockets.size, 1, 'the keep-alive connection was not dropped');
      // A broken file keeps the previous principals.
      writeFileSync(file, '{"principals": [ {"accessKeyId": "AKIA"');
      server.child.kill('SIGHUP');
      await new Promise((r) => setTimeout(r, 200));
      await client(server.endpoint, ALICE).send(new ListModelsCommand({}));
      agent.destroy();
    } finally {
      await server.close();
    }
  });

  it('refuses to listen off loopback without a credentials file, naming --credentials-file', async () => {
    const child = spawn(
      process.execPath,
      ['bin/slipway.js', 'serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', tempDir()],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.match(err, /--credentials-file/);
    assert.match(err, /--allow-anonymous/);
  });

  it('a credentials file that does not parse stops the start and prints no secret', async () => {
    const dir = tempDir();
    const file = `${dir}/bad.json`;
    writeFileSync(
      file,
      '{"principals": [{"accessKeyId": "AKIAALICE00000000001", "secretAccessKey": "top-secret-value", "arn": "nope"}]}',
    );
    const child = spawn(
      process.execPath,
      ['bin/slipway.js', 'serve', '--credentials-file', file, '--port', '0', '--graph-port', '0', '--data-dir', dir],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stderr.on('data', (d) => (out += d));
    child.stdout.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.match(out, /principals\[0\]\.arn/);
    assert.ok(!out.includes('top-secret-value'));
  });
});

function client(endpoint: string, c: Creds): SageMakerClient {
  return new SageMakerClient({ endpoint, region: REGION, credentials: c, maxAttempts: 1 });
}
