// Issue 33 figures for endpoint limits held across replicas (two replicas on one PostgreSQL):
//   1. the cost of the shared limit per warm invocation: the server CPU per InvokeEndpoint with
//      `--endpoint-limits shared` (the default) and `replica` (each replica counts alone, as before),
//      side by side, in alternating rounds on the same replicas' setup;
//   2. the time a replica killed with -9 takes to give its slots back: from the kill until the other
//      replica is served at an endpoint whose MaxConcurrency the dead one held (the lease, the bound
//      without the session check, is printed beside it).
// Run: npm run build && node dist/bench/replicas.js [--seconds 5] [--rounds 4] [--kills 5]
// Needs PostgreSQL at SLIPWAY_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { LocalLimiter } from '../src/inference/concurrency/limiter.js';
import { SharedLimiter } from '../src/inference/concurrency/shared-limiter.js';
import { openDatabase } from '../src/storage/db/index.js';
import { MIGRATIONS } from '../src/storage/migrations.js';
import { cpuMs, load, median, type Proc, sagemaker, sleep, slipway } from './support.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '4' },
    kills: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const kills = Number(values.kills);
const connections = Number(values.connections);
const PG_URL = process.env.SLIPWAY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_replicas_${process.pid}`;
const ROW = '.345,0.224414,.131102,0.042329,.279923,-0.110329,-0.099358,0.0';
const XGB = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3';
const SLOW = '000000000000.dkr.ecr.us-east-1.amazonaws.com/bench-slow:1';
const ROLE = 'arn:aws:iam::000000000000:role/bench';
const LEASE_SECONDS = 10;
const dirs = [
  mkdtempSync(join(tmpdir(), 'slipway-bench-')),
  mkdtempSync(join(tmpdir(), 'slipway-bench-')),
  mkdtempSync(join(tmpdir(), 'slipway-bench-')),
];
const report = (s: string) => console.log(s);

function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const containers = join(dirs[0]!, 'containers.json');
writeFileSync(
  containers,
  JSON.stringify({
    images: { '*/bench-slow:*': { command: ['node', resolve('test/fixtures/containers/echo-server.mjs')] } },
  }),
);
// The replicas share objects through a third Slipway, as they would a MinIO.
const objects = await slipway(dirs[0]!, ['--log-level', 'warn']);
process.env.AWS_ACCESS_KEY_ID = 'AKIDBENCH';
process.env.AWS_SECRET_ACCESS_KEY = 'secret';
process.env.AWS_REGION = 'us-east-1';
const replicaArgs = (id: string, limits: string) => [
  '--log-level',
  'warn',
  '--database-url',
  PG_URL,
  '--database-schema',
  schema,
  '--s3-endpoint',
  `http://127.0.0.1:${objects.port}`,
  '--containers-file',
  containers,
  '--replica-id',
  id,
  '--endpoint-limits',
  limits,
  '--slot-lease-seconds',
  String(LEASE_SECONDS),
];
const replicas: Proc[] = [];
const startReplicas = async (limits: string) => {
  for (const r of replicas.splice(0)) await r.stop();
  replicas.push(
    await slipway(dirs[1]!, replicaArgs('bench-a', limits)),
    await slipway(dirs[2]!, replicaArgs('bench-b', limits)),
  );
};
const invokeUrl = (p: Proc, endpoint: string) => `http://127.0.0.1:${p.port}/endpoints/${endpoint}/invocations`;

try {
  await fetch(`http://127.0.0.1:${objects.port}/bench-models`, { method: 'PUT' });
  await fetch(`http://127.0.0.1:${objects.port}/bench-models/abalone/model.tar.gz`, {
    method: 'PUT',
    body: readFileSync('test/fixtures/xgboost/models/abalone.pkl3-cfgoffset.tar.gz'),
  });
  await fetch(`http://127.0.0.1:${objects.port}/bench-models/none/model.tar.gz`, {
    method: 'PUT',
    body: readFileSync('test/fixtures/onnx/model.tar.gz'),
  });
  await startReplicas('shared');
  const a = () => replicas[0]!;
  const b = () => replicas[1]!;
  const create = async (name: string, image: string, data: string, max: number) => {
    await sagemaker(a().port, 'CreateModel', {
      ModelName: name,
      ExecutionRoleArn: ROLE,
      PrimaryContainer: { Image: image, ModelDataUrl: data },
    });
    await sagemaker(a().port, 'CreateEndpointConfig', {
      EndpointConfigName: name,
      ProductionVariants: [
        { VariantName: 'AllTraffic', ModelName: name, ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: max } },
      ],
    });
    await sagemaker(a().port, 'CreateEndpoint', { EndpointName: name, EndpointConfigName: name });
    for (;;) {
      const d = await sagemaker(a().port, 'DescribeEndpoint', { EndpointName: name });
      if (d.EndpointStatus === 'InService') break;
      if (d.EndpointStatus === 'Failed') throw new Error(String(d.FailureReason));
      await sleep(50);
    }
  };
  await create('abalone', XGB, 's3://bench-models/abalone/model.tar.gz', 200);
  await create('slow', SLOW, 's3://bench-models/none/model.tar.gz', 2);

  // 1. Warm invocations on both replicas at once; server CPU per invocation, shared vs per replica.
  const headers = { 'content-type': 'text/csv' };
  const measure = async () => {
    const pids = replicas.map((r) => r.child.pid!);
    // Warm both (model loaded, slots held) before counting.
    await Promise.all(
      replicas.map((r) => load(invokeUrl(r, 'abalone'), { headers, body: () => ROW }, { seconds: 1, connections })),
    );
    const cpu0 = pids.map(cpuMs);
    const results = await Promise.all(
      replicas.map((r) => load(invokeUrl(r, 'abalone'), { headers, body: () => ROW }, { seconds, connections })),
    );
    const cpu = pids.map((p, i) => cpuMs(p) - cpu0[i]!).reduce((x, y) => x + y, 0);
    const total = results.reduce((x, r) => x + r.total, 0);
    const bad = results.reduce((x, r) => x + r.bad, 0);
    return { usPerInvoke: (cpu * 1000) / total, rps: Math.round(total / seconds), bad };
  };
  const byMode: Record<string, number[]> = { shared: [], replica: [] };
  for (let round = 0; round < rounds; round++) {
    for (const mode of round % 2 === 0 ? ['shared', 'replica'] : ['replica', 'shared']) {
      await startReplicas(mode);
      const r = await measure();
      byMode[mode]!.push(r.usPerInvoke);
      report(
        `round ${round + 1} ${mode.padEnd(7)}: ${r.usPerInvoke.toFixed(1)} µs server CPU per invoke, ${r.rps} invokes/s, ${r.bad} not 200`,
      );
    }
  }
  const shared = median(byMode.shared!);
  const replica = median(byMode.replica!);
  report(
    `warm InvokeEndpoint, two replicas: ${shared.toFixed(1)} µs CPU shared vs ${replica.toFixed(1)} µs per replica (medians of ${rounds}): ` +
      `the shared limit costs ${(((shared - replica) / replica) * 100).toFixed(1)} % (target ≤ 5 %)`,
  );
  // The same cost measured where it is spent: a warm invocation's take and give of a slot held
  // here, through the shared limiter on this PostgreSQL and through the in-memory one.
  const db = await openDatabase({ url: PG_URL, schema, migrations: MIGRATIONS, poolSize: 2 });
  const log = pino({ level: 'silent' });
  const limiters = {
    shared: await SharedLimiter.open({ db, log, leaseMs: LEASE_SECONDS * 1000, accountConcurrency: 1000 }),
    replica: new LocalLimiter({ accountConcurrency: 1000 }),
  };
  const pairNs: Record<string, number> = {};
  for (const [mode, limiter] of Object.entries(limiters)) {
    const h = limiter.handle({ key: `bench|${mode}`, max: 200, account: `bench-account-${mode}` });
    if (!(await h.take())) throw new Error('no slot');
    h.give();
    const n = 2_000_000;
    const samples: number[] = [];
    for (let run = 0; run < 5; run++) {
      const t0 = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        if (!h.tryTake()) throw new Error('the fast path missed');
        h.give();
      }
      const d = process.cpuUsage(t0);
      samples.push(((d.user + d.system) * 1000) / n);
    }
    pairNs[mode] = median(samples);
  }
  await limiters.shared.close();
  await db.close();
  const extra = (pairNs.shared! - pairNs.replica!) / 1000;
  report(
    `slot take + give on the warm path: ${pairNs.shared!.toFixed(0)} ns shared vs ${pairNs.replica!.toFixed(0)} ns in memory (CPU, medians of 5 × 2M): ` +
      `${extra.toFixed(3)} µs more per invoke, ${((extra / replica) * 100).toFixed(3)} % of an invoke's ${replica.toFixed(1)} µs`,
  );

  // 2. kill -9 of the replica holding the slots: how long until the other is served.
  await startReplicas('shared');
  const sql = new pg.Client({ connectionString: PG_URL });
  await sql.connect();
  const times: number[] = [];
  try {
    for (let k = 0; k < kills; k++) {
      // A holds both slots of `slow` with long invocations; B is refused.
      for (let i = 0; i < 2; i++)
        void fetch(invokeUrl(a(), 'slow'), {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: 'sleep:60000',
        }).catch(() => undefined);
      for (;;) {
        const r = await sql.query(
          `SELECT COALESCE(SUM(slots), 0)::int AS n FROM ${schema}.slot_holds WHERE scope LIKE 'e|%|slow|%'`,
        );
        if (r.rows[0].n >= 2) break;
        await sleep(20);
      }
      const refused = await fetch(invokeUrl(b(), 'slow'), {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'sleep:1',
      });
      if (refused.status !== 429) throw new Error(`B was not throttled (${refused.status})`);
      const orphans = childPids(a().child.pid!);
      const killedAt = performance.now();
      a().child.kill('SIGKILL');
      for (;;) {
        const r = await fetch(invokeUrl(b(), 'slow'), {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: 'sleep:1',
        });
        if (r.status === 200) break;
        if (performance.now() - killedAt > 2 * LEASE_SECONDS * 1000) throw new Error('slots never came back');
      }
      times.push(performance.now() - killedAt);
      report(`kill ${k + 1}: B served ${Math.round(times[times.length - 1]!)} ms after A was killed`);
      // A fresh A for the next round; the killed one's model containers are orphans: end them.
      for (const pid of orphans) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
      replicas[0] = await slipway(dirs[1]!, replicaArgs('bench-a', 'shared'));
      await sleep(500);
    }
  } finally {
    await sql.end();
  }
  report(
    `kill -9 of the replica holding an endpoint's slots: the other replica is served ${Math.round(median(times))} ms later (median of ${kills}; ` +
      `max ${Math.round(Math.max(...times))} ms); the lease alone would take up to ${LEASE_SECONDS} s`,
  );
} finally {
  for (const r of replicas) await r.stop().catch(() => undefined);
  await objects.stop();
  const sql = new pg.Client({ connectionString: PG_URL });
  await sql.connect();
  await sql.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await sql.query(`DROP SCHEMA IF EXISTS ${schema}_graph CASCADE`);
  await sql.end();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
