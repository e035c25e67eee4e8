// Two replicas on one PostgreSQL schema serve one serverless endpoint: its MaxConcurrency holds for
// the endpoint as a whole under concurrent load on both (the model records how many invocations
// ran at once), and the slots of a replica killed with -9 are given back to the other at once.
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
  DeleteEndpointCommand,
  SageMakerClient,
  UpdateEndpointCommand,
  waitUntilEndpointDeleted,
  waitUntilEndpointInService,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import pg from 'pg';
import { deployServerless } from '../support/deploy.js';
import {
  ACCOUNT,
  CREDENTIALS,
  type ChildServer,
  PG_URL,
  REGION,
  databaseArgs,
  spawnServer,
  startServer,
  tempDir,
  type TestServer,
} from '../support/server.js';

const ROLE = `arn:aws:iam::${ACCOUNT}:role/sm`;
const IMAGE = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/slipway-test-recorder:1`;
const MAX = 2;

/** Descendant process ids (the model containers a replica started). */
function children(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** The model servers (echo-server.mjs) running below `pid`, whatever the sandbox puts between them. */
function modelWorkers(pid: number): number[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const below = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of rows)
      if (below.has(r.ppid) && !below.has(r.pid)) {
        below.add(r.pid);
        grew = true;
      }
  }
  return rows.filter((r) => r.pid !== pid && below.has(r.pid) && r.args.includes('echo-server.mjs')).map((r) => r.pid);
}

describe('two replicas share an endpoint MaxConcurrency (PostgreSQL)', () => {
  const schema = `t_${process.pid}_${Date.now().toString(36)}_limits`;
  const dirs = [tempDir(), tempDir(), tempDir()];
  const record = tempDir();
  let objects: TestServer;
  let a: ChildServer;
  let b: ChildServer;
  const orphans: number[] = [];
  const sql = new pg.Client({ connectionString: PG_URL });

  before(async () => {
    objects = await startServer();
    process.env.AWS_ACCESS_KEY_ID = CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = CREDENTIALS.secretAccessKey;
    process.env.AWS_REGION = REGION;
    await sql.connect();
    const s3 = new S3Client({
      region: REGION,
      credentials: CREDENTIALS,
      endpoint: objects.endpoint,
      forcePathStyle: true,
    });
    await s3.send(new CreateBucketCommand({ Bucket: 'limit-models' }));
    await s3.send(
      new PutObjectCommand({
        Bucket: 'limit-models',
        Key: 'm.tar.gz',
        Body: readFileSync('test/fixtures/onnx/model.tar.gz'),
      }),
    );
    s3.destroy();
    const containers = join(dirs[0]!, 'containers.json');
    writeFileSync(
      containers,
      JSON.stringify({
        images: {
          '*/slipway-test-recorder:*': {
            command: ['node', resolve('test/fixtures/containers/echo-server.mjs')],
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
      '--replica-id',
      id,
      // Long enough that only the dead session (not an expired lease) can free the slots in the kill test.
      '--slot-lease-seconds',
      '60',
    ];
    a = await spawnServer(args('replica-a'), dirs[1]!);
    b = await spawnServer(args('replica-b'), dirs[2]!);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    for (const pid of orphans) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    await objects?.close();
    await sql.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await sql.query(`DROP SCHEMA IF EXISTS ${schema}_graph CASCADE`);
    await sql.end();
    for (const d of [...dirs, record]) rmSync(d, { recursive: true, force: true });
  });

  const runtime = (s: ChildServer) =>
    new SageMakerRuntimeClient({ region: REGION, credentials: CREDENTIALS, endpoint: s.endpoint, maxAttempts: 1 });
  /** 'throttled', or when the model ran the invocation (record:<ms> answers its start and end). */
  const invoke = async (
    rt: SageMakerRuntimeClient,
    body: string,
  ): Promise<{ start: number; end: number } | 'throttled'> => {
    try {
      const out = await rt.send(
        new InvokeEndpointCommand({ EndpointName: 'shared-limit', ContentType: 'text/plain', Body: Buffer.from(body) }),
      );
      return JSON.parse(Buffer.from(out.Body!).toString()) as { start: number; end: number };
    } catch (err) {
      if ((err as Error).name === 'ThrottlingException') return 'throttled';
      throw err;
    }
  };

  test('40 concurrent invocations over both replicas: never more than MaxConcurrency at once', async () => {
    const sm = new SageMakerClient({ region: REGION, credentials: CREDENTIALS, endpoint: a.endpoint, maxAttempts: 1 });
    try {
      await deployServerless(sm, 'recorder', { Image: IMAGE, ModelDataUrl: 's3://limit-models/m.tar.gz' }, ROLE, {
        endpointName: 'shared-limit',
        maxConcurrency: MAX,
      });
    } finally {
      sm.destroy();
    }
    const [ra, rb] = [runtime(a), runtime(b)];
    try {
      // Both replicas load the model first (a cold start each), so the round below measures the limit.
      await invoke(ra, 'record:10');
      await invoke(rb, 'record:10');
      const outcomes = await Promise.all(
        Array.from({ length: 40 }, (_, i) => invoke(i % 2 === 0 ? ra : rb, 'record:400')),
      );
      const ran = outcomes.filter((o) => o !== 'throttled');
      assert.ok(ran.length >= MAX, `${ran.length} ran`);
      // The most that ran at once, from when each ran in the model (an end before a start at the same ms).
      const edges = ran
        .flatMap((r) => [[r.start, 1] as const, [r.end, -1] as const])
        .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
      let running = 0;
      let peak = 0;
      for (const [, d] of edges) {
        running += d;
        peak = Math.max(peak, running);
      }
      assert.ok(peak <= MAX, `${peak} invocations ran at once (MaxConcurrency ${MAX})`);
      // What an operator sees of it: grants through PostgreSQL, throttles, the pool's connections.
      const metrics = await (await fetch(`${b.endpoint}/metrics`)).text();
      assert.match(metrics, /^slipway_concurrency_grants_total [1-9]\d*$/m);
      assert.match(metrics, /^slipway_db_pool_connections\{state="max"\} 10$/m);
      assert.match(
        metrics,
        /^slipway_throttled_invocations_total\{endpoint="shared-limit",variant="AllTraffic"\} [1-9]/m,
      );
    } finally {
      ra.destroy();
      rb.destroy();
    }
  });

  test('an UpdateEndpoint on one replica is served by the other within a bounded time; a delete on one stops the workers of the other', async () => {
    const sm = new SageMakerClient({ region: REGION, credentials: CREDENTIALS, endpoint: a.endpoint, maxAttempts: 1 });
    const rb = runtime(b);
    const text = async (body: string) => {
      const out = await rb.send(
        new InvokeEndpointCommand({ EndpointName: 'shared-limit', ContentType: 'text/plain', Body: Buffer.from(body) }),
      );
      return out.Body ? Buffer.from(out.Body).toString() : '';
    };
    try {
      assert.equal(await text('env:MODEL_VERSION'), '', 'B serves the first model');
      await sm.send(
        new CreateModelCommand({
          ModelName: 'recorder-v2',
          ExecutionRoleArn: ROLE,
          PrimaryContainer: {
            Image: IMAGE,
            ModelDataUrl: 's3://limit-models/m.tar.gz',
            Environment: { MODEL_VERSION: '2' },
          },
        }),
      );
      await sm.send(
        new CreateEndpointConfigCommand({
          EndpointConfigName: 'recorder-v2',
          ProductionVariants: [
            {
              VariantName: 'AllTraffic',
              ModelName: 'recorder-v2',
              ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: MAX },
            },
          ],
        }),
      );
      await sm.send(new UpdateEndpointCommand({ EndpointName: 'shared-limit', EndpointConfigName: 'recorder-v2' }));
      await waitUntilEndpointInService(
        { client: sm, maxWaitTime: 60, minDelay: 1, maxDelay: 1 },
        { EndpointName: 'shared-limit' },
      );
      const updatedAt = Date.now();
      let seen = '';
      while (seen !== '2' && Date.now() - updatedAt < 10_000) seen = await text('env:MODEL_VERSION');
      assert.equal(seen, '2', 'B serves the new model');
      assert.ok(
        Date.now() - updatedAt < 5000,
        `B served the update ${Date.now() - updatedAt} ms after it completed on A`,
      );

      // Deleted on A: B stops its workers (no request needed) within its reconciliation period.
      assert.ok(modelWorkers(b.child.pid!).length > 0, 'B runs model workers');
      await sm.send(new DeleteEndpointCommand({ EndpointName: 'shared-limit' }));
      await waitUntilEndpointDeleted(
        { client: sm, maxWaitTime: 30, minDelay: 1, maxDelay: 1 },
        { EndpointName: 'shared-limit' },
      );
      const deletedAt = Date.now();
      while (modelWorkers(b.child.pid!).length > 0 && Date.now() - deletedAt < 10_000) await sleep(100);
      assert.deepEqual(modelWorkers(b.child.pid!), [], "B's workers of the deleted endpoint stopped");
      // Back for the next test.
      await sm.send(new CreateEndpointCommand({ EndpointName: 'shared-limit', EndpointConfigName: 'recorder' }));
      await waitUntilEndpointInService(
        { client: sm, maxWaitTime: 60, minDelay: 1, maxDelay: 1 },
        { EndpointName: 'shared-limit' },
      );
    } finally {
      sm.destroy();
      rb.destroy();
    }
  });

  test('a replica killed with -9 gives its slots back', async () => {
    const [ra, rb] = [runtime(a), runtime(b)];
    try {
      // A holds both slots with long invocations; B is refused.
      const held = [invoke(ra, 'record:20000'), invoke(ra, 'record:20000')];
      for (const p of held) p.catch(() => undefined);
      const deadline = Date.now() + 10_000;
      while (
        (await sql.query(`SELECT COALESCE(SUM(slots), 0)::int AS n FROM ${schema}.slot_holds WHERE scope LIKE 'e|%'`))
          .rows[0].n < MAX
      ) {
        assert.ok(Date.now() < deadline, 'replica A never held both slots');
        await sleep(50);
      }
      await sleep(200);
      assert.equal(await invoke(rb, 'record:10'), 'throttled');

      for (const pid of children(a.child.pid!)) orphans.push(pid, ...children(pid));
      a.child.kill('SIGKILL');
      assert.equal(await a.exited, 'SIGKILL');
      const killedAt = Date.now();
      let outcome: Awaited<ReturnType<typeof invoke>>;
      do outcome = await invoke(rb, 'record:10');
      while (outcome === 'throttled' && Date.now() - killedAt < 5000);
      const ms = Date.now() - killedAt;
      assert.notEqual(outcome, 'throttled', 'B got the slots back');
      // Bounded by the session, not by the 60 s lease.
      assert.ok(ms < 5000, `B was served ${ms} ms after the kill`);
    } finally {
      ra.destroy();
      rb.destroy();
    }
  });
});
