// Endpoint lifecycle: Creating → InService | Failed with a FailureReason a user can act on,
// UpdateEndpoint (success, and failure back to InService on the old config), DeleteEndpoint,
// the errors of the reference, and a restart while an endpoint is Creating.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DeleteEndpointCommand,
  DescribeEndpointCommand,
  ListEndpointsCommand,
  ListTagsCommand,
  SageMakerClient,
  UpdateEndpointCommand,
  waitUntilEndpointDeleted,
  waitUntilEndpointInService,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { rejects } from '../support/errors.js';
import {
  ACCOUNT,
  CREDENTIALS,
  REGION,
  databaseArgs,
  spawnServer,
  startServer,
  tempDir,
  type TestServer,
} from '../support/server.js';

const IMAGE = `683313688378.dkr.ecr.${REGION}.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3`;
const IMAGE_13 = `683313688378.dkr.ecr.${REGION}.amazonaws.com/sagemaker-xgboost:1.7-1`;
const ROLE = `arn:aws:iam::${ACCOUNT}:role/service-role/AmazonSageMaker-ExecutionRole`;
const arn = (type: string, name: string) => `arn:aws:sagemaker:${REGION}:${ACCOUNT}:${type}/${name}`;
const seed = JSON.parse(readFileSync('test/fixtures/xgboost/manifest.json', 'utf8')).seedRow as {
  csv: string;
  prediction: number;
};

async function settle(sm: SageMakerClient, name: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const d = await sm.send(new DescribeEndpointCommand({ EndpointName: name }));
    if (d.EndpointStatus !== 'Creating' && d.EndpointStatus !== 'Updating') return d.EndpointStatus!;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${name} did not settle`);
}

for (const dialect of ['sqlite', 'postgres'] as const)
  describe(`endpoint lifecycle (${dialect})`, () => {
    let server: TestServer;
    let sm: SageMakerClient;
    let rt: SageMakerRuntimeClient;
    let s3: S3Client;

    async function model(name: string, modelDataUrl: string, image = IMAGE) {
      await sm.send(
        new CreateModelCommand({
          ModelName: name,
          ExecutionRoleArn: ROLE,
          PrimaryContainer: { Image: image, ModelDataUrl: modelDataUrl },
        }),
      );
      await sm.send(
        new CreateEndpointConfigCommand({
          EndpointConfigName: `${name}-cfg`,
          ProductionVariants: [
            {
              VariantName: 'AllTraffic',
              ModelName: name,
              ServerlessConfig: { MemorySizeInMB: 2048, MaxConcurrency: 5 },
            },
          ],
        }),
      );
    }

    before(async () => {
      server = await startServer(databaseArgs(dialect));
      const common = { endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS };
      sm = new SageMakerClient(common);
      rt = new SageMakerRuntimeClient(common);
      s3 = new S3Client({ ...common, forcePathStyle: true });
      await s3.send(new CreateBucketCommand({ Bucket: 'slipway-models' }));
      const put = (Key: string, Body: Buffer) => s3.send(new PutObjectCommand({ Bucket: 'slipway-models', Key, Body }));
      await put('abalone.tar.gz', readFileSync('test/fixtures/xgboost/models/abalone.pkl3-cfgoffset.tar.gz'));
      await put('abalone-json.tar.gz', readFileSync('test/fixtures/xgboost/models/abalone.json.tar.gz'));
      await put('not-an-archive.tar.gz', Buffer.from('this is not gzip'));
      await model('good', 's3://slipway-models/abalone.tar.gz');
      await model('good13', 's3://slipway-models/abalone-json.tar.gz', IMAGE_13);
      await model('missing', 's3://slipway-models/nothing-here.tar.gz');
      await model('garbage', 's3://slipway-models/not-an-archive.tar.gz');
    });
    after(async () => {
      sm.destroy();
      rt.destroy();
      s3.destroy();
      await server.close();
    });

    test('CreateEndpoint answers Creating at once, then InService', async () => {
      await sm.send(
        new CreateEndpointCommand({
          EndpointName: 'ep',
          EndpointConfigName: 'good-cfg',
          Tags: [{ Key: 'k', Value: 'v' }],
        }),
      );
      const creating = await sm.send(new DescribeEndpointCommand({ EndpointName: 'ep' }));
      if (creating.EndpointStatus === 'Creating') {
        assert.equal(creating.ProductionVariants?.[0]?.VariantStatus?.[0]?.Status, 'Creating');
        assert.equal(creating.ProductionVariants?.[0]?.CurrentServerlessConfig, undefined);
      }
      await waitUntilEndpointInService(
        { client: sm, maxWaitTime: 20, minDelay: 1, maxDelay: 1 },
        { EndpointName: 'ep' },
      );
      const d = await sm.send(new DescribeEndpointCommand({ EndpointName: 'ep' }));
      assert.equal(d.EndpointArn, arn('endpoint', 'ep'));
      assert.equal(d.EndpointConfigName, 'good-cfg');
      const v = d.ProductionVariants?.[0];
      assert.equal(v?.VariantName, 'AllTraffic');
      assert.deepEqual(v?.DesiredServerlessConfig, { MemorySizeInMB: 2048, MaxConcurrency: 5 });
      assert.deepEqual(v?.CurrentServerlessConfig, { MemorySizeInMB: 2048, MaxConcurrency: 5 });
      assert.equal(v?.DeployedImages?.[0]?.SpecifiedImage, IMAGE);
      assert.ok(v?.DeployedImages?.[0]?.ResolvedImage);
      assert.ok(v?.DeployedImages?.[0]?.ResolutionTime instanceof Date);
      assert.equal(d.FailureReason, undefined);
      const tags = await sm.send(new ListTagsCommand({ ResourceArn: d.EndpointArn }));
      assert.deepEqual(tags.Tags, [{ Key: 'k', Value: 'v' }]);
      assert.ok(d.LastModifiedTime! >= d.CreationTime!);
      await rejects(
        sm.send(new CreateEndpointCommand({ EndpointName: 'EP', EndpointConfigName: 'good-cfg' })),
        'ValidationException',
        `Cannot create already existing endpoint "${arn('endpoint', 'ep')}".`,
      );
      await rejects(
        sm.send(new CreateEndpointCommand({ EndpointName: 'ep2', EndpointConfigName: 'nope' })),
        'ValidationException',
        `Could not find endpoint configuration "${arn('endpoint-config', 'nope')}".`,
      );
      await rejects(
        sm.send(new DescribeEndpointCommand({ EndpointName: 'ghost' })),
        'ValidationException',
        `Could not find endpoint "${arn('endpoint', 'ghost')}".`,
      );
    });

    test('a missing artifact, a file that is not an archive: Failed, with a reason to act on', async () => {
      await sm.send(new CreateEndpointCommand({ EndpointName: 'ep-missing', EndpointConfigName: 'missing-cfg' }));
      await sm.send(new CreateEndpointCommand({ EndpointName: 'ep-garbage', EndpointConfigName: 'garbage-cfg' }));
      assert.equal(await settle(sm, 'ep-missing'), 'Failed');
      assert.equal(await settle(sm, 'ep-garbage'), 'Failed');
      const missing = await sm.send(new DescribeEndpointCommand({ EndpointName: 'ep-missing' }));
      assert.match(missing.FailureReason ?? '', /s3:\/\/slipway-models\/nothing-here\.tar\.gz/);
      const garbage = await sm.send(new DescribeEndpointCommand({ EndpointName: 'ep-garbage' }));
      assert.match(garbage.FailureReason ?? '', /not-an-archive\.tar\.gz/);
      assert.ok((garbage.FailureReason ?? '').length <= 1024);
      // A Failed endpoint can only be deleted.
      await rejects(
        sm.send(new UpdateEndpointCommand({ EndpointName: 'ep-missing', EndpointConfigName: 'good-cfg' })),
        'ValidationException',
        /Cannot update failed endpoint/,
      );
      const failed = await sm.send(
        new ListEndpointsCommand({ StatusEquals: 'Failed', SortBy: 'Name', SortOrder: 'Ascending' }),
      );
      assert.deepEqual(
        failed.Endpoints?.map((e) => e.EndpointName),
        ['ep-garbage', 'ep-missing'],
      );
      await sm.send(new DeleteEndpointCommand({ EndpointName: 'ep-missing' }));
      await waitUntilEndpointDeleted(
        { client: sm, maxWaitTime: 20, minDelay: 1, maxDelay: 1 },
        { EndpointName: 'ep-missing' },
      );
    });

    test('UpdateEndpoint: Updating → InService on the new config; a failed update keeps the old one', async () => {
      // Invocations keep flowing through the swap, and none fails.
      let stop = false;
      let served = 0;
      const failures: unknown[] = [];
      const traffic = (async () => {
        while (!stop) {
          try {
            await rt.send(
              new InvokeEndpointCommand({ EndpointName: 'ep', ContentType: 'text/csv', Body: Buffer.from(seed.csv) }),
            );
            served++;
          } catch (err) {
            failures.push(err);
          }
        }
      })();
      await sm.send(new UpdateEndpointCommand({ EndpointName: 'ep', EndpointConfigName: 'good13-cfg' }));
      const updating = await sm.send(new DescribeEndpointCommand({ EndpointName: 'ep' }));
      assert.ok(['Updating', 'InService'].includes(updating.EndpointStatus!));
      assert.equal(await settle(sm, 'ep'), 'InService');
      await new Promise((r) => setTimeout(r, 200));
      stop = true;
      await traffic;
      assert.deepEqual(failures, []);
      assert.ok(served > 0);
      let d = await sm.send(new DescribeEndpointCommand({ EndpointName: 'ep' }));
      assert.equal(d.EndpointConfigName, 'good13-cfg');
      // Container 1.7-1 answers one prediction per line.
      const out = await rt.send(
        new InvokeEndpointCommand({ EndpointName: 'ep', ContentType: 'text/csv', Body: Buffer.from(seed.csv) }),
      );
      assert.match(Buffer.from(out.Body!).toString(), /^[0-9.]+\n$/);

      await sm.send(new UpdateEndpointCommand({ EndpointName: 'ep', EndpointConfigName: 'garbage-cfg' }));
      assert.equal(await settle(sm, 'ep'), 'InService');
      d = await sm.send(new DescribeEndpointCommand({ EndpointName: 'ep' }));
      assert.equal(d.EndpointConfigName, 'good13-cfg');
      assert.match(d.FailureReason ?? '', /not-an-archive/);
      const again = await rt.send(
        new InvokeEndpointCommand({ EndpointName: 'ep', ContentType: 'text/csv', Body: Buffer.from(seed.csv) }),
      );
      assert.ok(Math.abs(Number(Buffer.from(again.Body!).toString()) - seed.prediction) < 1e-4);
    });
  });

// A restart while an endpoint is Creating: the server is killed (SIGKILL) right after CreateEndpoint
// answered, while its container is still starting; the next server resumes the deployment.
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`restart during Creating (${dialect})`, () => {
    const dataDir = tempDir();
    const dbArgs = databaseArgs(dialect);
    const containers = join(dataDir, 'containers.json');
    const ECHO_SLOW = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/slipway-test-slow-echo:1`;
    after(() => rmSync(dataDir, { recursive: true, force: true }));

    test('kill -9 while Creating, restart: the deployment resumes and the endpoint serves', async () => {
      // A container that takes 1.5 s to answer /ping keeps the endpoint Creating long enough to kill the server.
      writeFileSync(
        containers,
        JSON.stringify({
          images: {
            '*/slipway-test-slow-echo:*': {
              command: ['node', resolve('test/fixtures/containers/echo-server.mjs')],
              env: { STARTUP_DELAY_MS: '1500' },
              startupTimeoutSeconds: 30,
            },
          },
        }),
      );
      const args = ['--containers-file', containers, ...dbArgs];
      const first = await spawnServer(args, dataDir);
      const common = { region: REGION, credentials: CREDENTIALS, maxAttempts: 1 };
      let sm = new SageMakerClient({ ...common, endpoint: first.endpoint });
      const s3 = new S3Client({ ...common, endpoint: first.endpoint, forcePathStyle: true });
      await s3.send(new CreateBucketCommand({ Bucket: 'restart-models' }));
      await s3.send(
        new PutObjectCommand({
          Bucket: 'restart-models',
          Key: 'm.tar.gz',
          Body: readFileSync('test/fixtures/onnx/model.tar.gz'),
        }),
      );
      s3.destroy();
      await sm.send(
        new CreateModelCommand({
          ModelName: 'slow',
          ExecutionRoleArn: ROLE,
          PrimaryContainer: { Image: ECHO_SLOW, ModelDataUrl: 's3://restart-models/m.tar.gz' },
        }),
      );
      await sm.send(
        new CreateEndpointConfigCommand({
          EndpointConfigName: 'slow',
          ProductionVariants: [
            {
              VariantName: 'AllTraffic',
              ModelName: 'slow',
              ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: 2 },
            },
          ],
        }),
      );
      await sm.send(new CreateEndpointCommand({ EndpointName: 'resumed', EndpointConfigName: 'slow' }));
      assert.equal(
        (await sm.send(new DescribeEndpointCommand({ EndpointName: 'resumed' }))).EndpointStatus,
        'Creating',
      );
      first.child.kill('SIGKILL');
      assert.equal(await first.exited, 'SIGKILL');
      sm.destroy();

      const second = await spawnServer(args, dataDir);
      sm = new SageMakerClient({ ...common, endpoint: second.endpoint });
      const rt = new SageMakerRuntimeClient({ ...common, endpoint: second.endpoint });
      try {
        assert.equal(
          (await sm.send(new DescribeEndpointCommand({ EndpointName: 'resumed' }))).EndpointStatus,
          'Creating',
        );
        await waitUntilEndpointInService(
          { client: sm, maxWaitTime: 30, minDelay: 1, maxDelay: 1 },
          { EndpointName: 'resumed' },
        );
        const out = await rt.send(
          new InvokeEndpointCommand({ EndpointName: 'resumed', ContentType: 'text/csv', Body: Buffer.from('2,3') }),
        );
        assert.equal(Buffer.from(out.Body!).toString(), '2,3');
      } finally {
        sm.destroy();
        rt.destroy();
        await second.close();
      }
    });
  });
}
