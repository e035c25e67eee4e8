// InvokeEndpoint through the real SDK as a client sees serverless behaviour: headers passed through,
// ModelError with the container's status, MaxConcurrency throttling, a crashing container replaced,
// the serverless body limit, ModelNotReadyException, ONNX, and the metrics endpoint.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  SageMakerClient,
  waitUntilEndpointInService,
} from '@aws-sdk/client-sagemaker';
import {
  InvokeEndpointCommand,
  SageMakerRuntimeClient,
  SageMakerRuntimeServiceException,
} from '@aws-sdk/client-sagemaker-runtime';
import { ACCOUNT, CREDENTIALS, REGION, startServer, type TestServer } from '../support/server.js';

const ROLE = `arn:aws:iam::${ACCOUNT}:role/sm`;
const ECHO = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/slipway-test-echo:1`;
const SLOW_START = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/slipway-test-slow-start:1`;
const ONNX = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/slipway-test-onnx:1`;
const XGB = `683313688378.dkr.ecr.${REGION}.amazonaws.com/sagemaker-xgboost:1.7-1`;
const seed = JSON.parse(readFileSync('test/fixtures/xgboost/manifest.json', 'utf8')).seedRow as {
  csv: string;
  prediction: number;
};

describe('InvokeEndpoint', () => {
  let server: TestServer;
  let sm: SageMakerClient;
  let rt: SageMakerRuntimeClient;

  async function deploy(name: string, image: string, modelDataUrl: string, maxConcurrency = 5, wait = true) {
    await sm.send(
      new CreateModelCommand({
        ModelName: name,
        ExecutionRoleArn: ROLE,
        PrimaryContainer: { Image: image, ModelDataUrl: modelDataUrl },
      }),
    );
    await sm.send(
      new CreateEndpointConfigCommand({
        EndpointConfigName: name,
        ProductionVariants: [
          {
            VariantName: 'AllTraffic',
            ModelName: name,
            ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: maxConcurrency },
          },
        ],
      }),
    );
    await sm.send(new CreateEndpointCommand({ EndpointName: name, EndpointConfigName: name }));
    if (wait)
      await waitUntilEndpointInService(
        { client: sm, maxWaitTime: 30, minDelay: 1, maxDelay: 1 },
        { EndpointName: name },
      );
  }
  const invoke = (
    EndpointName: string,
    body: string | Buffer,
    extra: Partial<ConstructorParameters<typeof InvokeEndpointCommand>[0]> = {},
  ) => rt.send(new InvokeEndpointCommand({ EndpointName, ContentType: 'text/csv', Body: Buffer.from(body), ...extra }));

  async function invokeError(p: Promise<unknown>): Promise<SageMakerRuntimeServiceException & Record<string, unknown>> {
    try {
      await p;
    } catch (err) {
      assert.ok(err instanceof SageMakerRuntimeServiceException, String(err));
      return err as SageMakerRuntimeServiceException & Record<string, unknown>;
    }
    assert.fail('expected an error');
  }

  before(async () => {
    server = await startServer([
      '--containers-file',
      'test/fixtures/containers/containers.json',
      '--serverless-idle-seconds',
      '1',
    ]);
    const common = { endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS };
    sm = new SageMakerClient(common);
    rt = new SageMakerRuntimeClient({ ...common, maxAttempts: 1 });
    const s3 = new S3Client({ ...common, forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: 'invoke-models' }));
    await s3.send(
      new PutObjectCommand({
        Bucket: 'invoke-models',
        Key: 'onnx.tar.gz',
        Body: readFileSync('test/fixtures/onnx/model.tar.gz'),
      }),
    );
    await s3.send(
      new PutObjectCommand({
        Bucket: 'invoke-models',
        Key: 'abalone.tar.gz',
        Body: readFileSync('test/fixtures/xgboost/models/abalone.json.tar.gz'),
      }),
    );
    s3.destroy();
    await deploy('echo', ECHO, 's3://invoke-models/onnx.tar.gz');
    await deploy('narrow', ECHO, 's3://invoke-models/onnx.tar.gz', 2);
    await deploy('xgb', XGB, 's3://invoke-models/abalone.tar.gz');
    await deploy('onnx', ONNX, 's3://invoke-models/onnx.tar.gz');
    // Two instance-based variants behind one endpoint, for TargetVariant.
    await sm.send(
      new CreateEndpointConfigCommand({
        EndpointConfigName: 'two-variants',
        ProductionVariants: ['A', 'B'].map((VariantName) => ({
          VariantName,
          ModelName: 'echo',
          InstanceType: 'ml.m5.large' as const,
          InitialInstanceCount: 1,
          InitialVariantWeight: 1,
        })),
      }),
    );
    await sm.send(new CreateEndpointCommand({ EndpointName: 'two', EndpointConfigName: 'two-variants' }));
    await waitUntilEndpointInService(
      { client: sm, maxWaitTime: 30, minDelay: 1, maxDelay: 1 },
      { EndpointName: 'two' },
    );
  });
  after(async () => {
    sm.destroy();
    rt.destroy();
    await server.close();
  });

  test('a custom container (process runtime): body, content type and custom attributes pass through', async () => {
    const out = await invoke('echo', '1,2.5,3', { CustomAttributes: 'trace-id=abc', Accept: 'text/csv' });
    assert.equal(Buffer.from(out.Body!).toString(), '1,2.5,3');
    assert.equal(out.ContentType, 'text/csv');
    assert.equal(out.CustomAttributes, 'trace-id=abc');
    assert.equal(out.InvokedProductionVariant, 'AllTraffic');
  });

  test('TargetVariant picks the variant; an unknown one is a ValidationError; InferenceId reaches the container', async () => {
    for (const v of ['A', 'B', 'B', 'A']) {
      const out = await invoke('two', '7', { TargetVariant: v });
      assert.equal(out.InvokedProductionVariant, v);
    }
    const unknown = await invokeError(invoke('two', '7', { TargetVariant: 'C' }));
    assert.equal(unknown.name, 'ValidationError');
    const id = await invoke('echo', 'inference-id', { InferenceId: 'req-42' });
    assert.equal(Buffer.from(id.Body!).toString(), 'req-42');
  });

  test("the container's errors are ModelError 424 with its status and message", async () => {
    const server500 = await invokeError(invoke('echo', 'fail:500'));
    assert.equal(server500.name, 'ModelError');
    assert.equal(server500.$metadata.httpStatusCode, 424);
    assert.equal(server500.OriginalStatusCode, 500);
    assert.match(server500.message, /^Received server error \(500\) from primary with message "failure requested"/);
    const client400 = await invokeError(invoke('echo', 'not,numbers'));
    assert.equal(client400.name, 'ModelError');
    assert.equal(client400.OriginalStatusCode, 400);
    assert.match(client400.message, /^Received client error \(400\) from primary/);
  });

  test('over MaxConcurrency: exactly MaxConcurrency run, the rest get ThrottlingException 429', async () => {
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => invoke('narrow', 'sleep:600')));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const throttled = results.filter(
      (r) => r.status === 'rejected' && (r.reason as SageMakerRuntimeServiceException).name === 'ThrottlingException',
    );
    assert.equal(ok.length, 2);
    assert.equal(throttled.length, 8);
    assert.equal(
      ((throttled[0] as PromiseRejectedResult).reason as SageMakerRuntimeServiceException).$metadata.httpStatusCode,
      429,
    );
  });

  test('a crashing container answers ModelError and is replaced; the endpoint stays InService', async () => {
    const crashed = await invokeError(invoke('echo', 'crash'));
    assert.equal(crashed.name, 'ModelError');
    const out = await invoke('echo', '4');
    assert.equal(Buffer.from(out.Body!).toString(), '4');
  });

  test('XGBoost: the prediction xgboost computes; a row with the wrong feature count is a ModelError 400', async () => {
    const out = await invoke('xgb', seed.csv);
    assert.ok(Math.abs(Number(Buffer.from(out.Body!).toString()) - seed.prediction) <= 1e-6 * seed.prediction);
    const bad = await invokeError(invoke('xgb', '1,2,3,4,5,6,7,8,9,10'));
    assert.equal(bad.name, 'ModelError');
    assert.equal(bad.OriginalStatusCode, 400);
  });

  test('ONNX: predictions equal the reference outputs', async () => {
    const inputs = JSON.parse(readFileSync('test/fixtures/onnx/inputs.json', 'utf8')) as { csv: string };
    const ref = JSON.parse(readFileSync('test/fixtures/onnx/reference.json', 'utf8')) as { probabilities: number[][] };
    const out = await invoke('onnx', inputs.csv, { Accept: 'application/json' });
    const got = JSON.parse(Buffer.from(out.Body!).toString()) as { predictions: number[][] };
    assert.equal(got.predictions.length, ref.probabilities.length);
    for (const [i, row] of got.predictions.entries()) {
      for (const [j, v] of row.entries()) assert.ok(Math.abs(v - ref.probabilities[i]![j]!) < 1e-5);
    }
  });

  test("serverless payloads over 4 MB are refused with SageMaker's message", async () => {
    const err = await invokeError(invoke('echo', Buffer.alloc(4 * 1024 * 1024 + 1, 0x31)));
    assert.equal(err.name, 'ValidationError');
    assert.match(err.message, /^Request [0-9a-f-]{36} has oversize body\.$/);
  });

  test('unknown endpoints, and endpoints not yet InService', async () => {
    const missing = await invokeError(invoke('ghost', '1'));
    assert.equal(missing.name, 'ValidationError');
    assert.equal(missing.message, `Endpoint ghost of account ${ACCOUNT} not found.`);
    // This image's container never becomes healthy: the endpoint stays Creating until its start-up times out.
    await deploy('slow', SLOW_START, 's3://invoke-models/onnx.tar.gz', 5, false);
    const notReady = await invokeError(invoke('slow', '1'));
    assert.equal(notReady.name, 'ModelNotReadyException');
    assert.equal(notReady.$metadata.httpStatusCode, 429);
  });

  test('scale to zero after the idle time; the next invoke is a cold start counted in ModelSetupTime', async () => {
    const setups = async () => {
      const text = await (await fetch(`${server.endpoint}/metrics`)).text();
      const m = /slipway_model_setup_time_seconds_count\{[^}]*endpoint="xgb"[^}]*\} (\d+)/.exec(text);
      return Number(m?.[1] ?? 0);
    };
    await invoke('xgb', seed.csv);
    const before = await setups();
    await new Promise((r) => setTimeout(r, 1600)); // --serverless-idle-seconds 1
    const out = await invoke('xgb', seed.csv);
    assert.ok(Math.abs(Number(Buffer.from(out.Body!).toString()) - seed.prediction) <= 1e-6 * seed.prediction);
    assert.equal(await setups(), before + 1);
    // Warm again: no further cold start.
    await invoke('xgb', seed.csv);
    assert.equal(await setups(), before + 1);
  });

  test('GET /metrics: SageMaker metric names per endpoint and variant, in Prometheus text', async () => {
    const text = await (await fetch(`${server.endpoint}/metrics`)).text();
    assert.match(text, /slipway_invocations_total\{[^}]*endpoint="echo"[^}]*variant="AllTraffic"[^}]*\} \d+/);
    assert.match(text, /slipway_throttled_invocations_total\{[^}]*endpoint="narrow"[^}]*\} 8/);
    assert.match(text, /slipway_model_setup_time_seconds_count\{[^}]*endpoint="xgb"/);
  });
});
