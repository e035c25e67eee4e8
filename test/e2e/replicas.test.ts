// Two Slipway replicas on one PostgreSQL schema (objects in a shared S3, here a third Slipway):
// background work is claimed by exactly one replica, which keeps its lease by heartbeat; when that
// replica is killed (kill -9) mid-deployment, the other takes the work over once the lease expires
// and finishes it. See src/jobs/README.md.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DescribeEndpointCommand,
  SageMakerClient,
  waitUntilEndpointInService,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import pg from 'pg';
import {
  ACCOUNT,
  CREDENTIALS,
  PG_URL,
  REGION,
  databaseArgs,
  spawnServer,
  startServer,
  tempDir,
  type TestServer,
} from '../support/server.js';

const ROLE = `arn:aws:iam::${ACCOUNT}:role/sm`;
const IMAGE = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/slipway-test-slow-echo:1`;
const LEASE_SECONDS = 2;

interface ItemRow {
  claimed_by: string | null;
  attempts: number;
  state: string;
}

describe('two replicas on one PostgreSQL database', () => {
  const schema = `t_${process.pid}_${Date.now().toString(36)}_replicas`;
  const dirs = [tempDir(), tempDir(), tempDir()];
  let objects: TestServer;
  const sql = new pg.Client({ connectionString: PG_URL });

  before(async () => {
    // The replicas' shared object store (as a MinIO would be), reached with the usual AWS credentials.
    objects = await startServer();
    process.env.AWS_ACCESS_KEY_ID = CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = CREDENTIALS.secretAccessKey;
    process.env.AWS_REGION = REGION;
    await sql.connect();
  });
  after(async () => {
    await objects?.close();
    await sql.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await sql.query(`DROP SCHEMA IF EXISTS ${schema}_graph CASCADE`);
    await sql.end();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('kill -9 of the replica deploying an endpoint: the other finishes it after the lease expires', async () => {
    const s3 = new S3Client({
      region: REGION,
      credentials: CREDENTIALS,
      endpoint: objects.endpoint,
      forcePathStyle: true,
    });
    await s3.send(new CreateBucketCommand({ Bucket: 'replica-models' }));
    await s3.send(
      new PutObjectCommand({
        Bucket: 'replica-models',
        Key: 'm.tar.gz',
        Body: readFileSync('test/fixtures/onnx/model.tar.gz'),
      }),
    );
    s3.destroy();
    // A container that answers /ping only after 5 s keeps the deployment in progress long enough.
    const containers = join(dirs[0]!, 'containers.json');
    writeFileSync(
      containers,
      JSON.stringify({
        images: {
          '*/slipway-test-slow-echo:*': {
            command: ['node', resolve('test/fixtures/containers/echo-server.mjs')],
            env: { STARTUP_DELAY_MS: '5000' },
            startupTimeoutSeconds: 30,
          },
        },
      }),
    );
    const args = (id: string) => [
      ...databaseArgs('postgres', schema),
      '--s3-endpoint',
      objects.endpoint,
      '--containers-file',
      containers,
      '--job-lease-seconds',
      String(LEASE_SECONDS),
      '--replica-id',
      id,
    ];
    const a = await spawnServer(args('replica-a'), dirs[1]!);
    const b = await spawnServer(args('replica-b'), dirs[2]!);
    const common = { region: REGION, credentials: CREDENTIALS, maxAttempts: 1 };
    const smA = new SageMakerClient({ ...common, endpoint: a.endpoint });
    const smB = new SageMakerClient({ ...common, endpoint: b.endpoint });
    const rtB = new SageMakerRuntimeClient({ ...common, endpoint: b.endpoint });
    const orphans: number[] = [];
    const item = async () =>
      (
        await sql.query<ItemRow>(
          `SELECT claimed_by, attempts, state FROM ${schema}.job_items WHERE item_id LIKE '%|shared'`,
        )
      ).rows[0];
    try {
      await smA.send(
        new CreateModelCommand({
          ModelName: 'slow',
          ExecutionRoleArn: ROLE,
          PrimaryContainer: { Image: IMAGE, ModelDataUrl: 's3://replica-models/m.tar.gz' },
        }),
      );
      await smA.send(
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
      await smA.send(new CreateEndpointCommand({ EndpointName: 'shared', EndpointConfigName: 'slow' }));
      assert.deepEqual(await item(), { claimed_by: 'replica-a', attempts: 1, state: 'running' });

      // Past one lease: replica A's heartbeat keeps its claim; B, polling all along, has not taken it.
      await sleep(LEASE_SECONDS * 1000 + 700);
      assert.deepEqual(await item(), { claimed_by: 'replica-a', attempts: 1, state: 'running' });
      assert.equal(
        (await smB.send(new DescribeEndpointCommand({ EndpointName: 'shared' }))).EndpointStatus,
        'Creating',
      );

      // What kill -9 leaves behind (the container A was starting) is cleaned up at the end.
      orphans.push(
        ...execFileSync('ps', ['-o', 'pid=', '--ppid', String(a.child.pid)], { encoding: 'utf8' })
          .split(/\s+/)
          .filter(Boolean)
          .map(Number),
      );
      a.child.kill('SIGKILL');
      assert.equal(await a.exited, 'SIGKILL');
      const killedAt = Date.now();
      await waitUntilEndpointInService(
        { client: smB, maxWaitTime: 60, minDelay: 1, maxDelay: 1 },
        { EndpointName: 'shared' },
      );
      // B waited for the lease to run out, then deployed from the start (the container's 5 s again).
      assert.ok(Date.now() - killedAt >= 5000, `InService ${Date.now() - killedAt} ms after the kill`);
      assert.deepEqual(await item(), { claimed_by: null, attempts: 2, state: 'done' });
      const history = await sql.query<{ status: string }>(
        `SELECT status FROM ${schema}.job_transitions WHERE item_id LIKE '%|shared' ORDER BY seq`,
      );
      assert.deepEqual(
        history.rows.map((r) => r.status),
        ['Creating', 'InService'],
      );
      const out = await rtB.send(
        new InvokeEndpointCommand({ EndpointName: 'shared', ContentType: 'text/csv', Body: Buffer.from('2,3') }),
      );
      assert.equal(Buffer.from(out.Body!).toString(), '2,3');
    } finally {
      smA.destroy();
      smB.destroy();
      rtB.destroy();
      await a.close();
      await b.close();
      for (const pid of orphans) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
    }
  });
});
