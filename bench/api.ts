// Issue 2 figures: DescribeModelPackageGroup and CreateModelPackageGroup through the real HTTP
// stack (autocannon, 32 connections) against a bare node:http baseline measured in the same run,
// and the idle server's RSS. Run: npm run build && node dist/bench/api.js [--duration 10]
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    postgres: { type: 'string', default: process.env.SLIPWAY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    'log-level': { type: 'string', default: 'info' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);

interface Proc {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

async function spawnAndWait(args: string[], portOf: (line: string) => number | undefined): Promise<Proc> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    lines.on('line', (l) => {
      const p = portOf(l);
      if (p) resolve(p);
    });
    child.once('exit', (c) => reject(new Error(`exited ${c}`)));
  });
  return {
    child,
    port,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const BARE = `
const http = require('node:http');
const body = JSON.stringify({ ModelPackageGroupName: 'bench', ModelPackageGroupArn: 'arn:aws:sagemaker:us-east-1:000000000000:model-package-group/bench', CreationTime: 1700000000.123, ModelPackageGroupStatus: 'Completed', CreatedBy: {} });
const s = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1', 'content-length': Buffer.byteLength(body) }); res.end(body); }); });
s.listen(0, '127.0.0.1', () => console.log('port=' + s.address().port));
process.on('SIGTERM', () => process.exit(0));
`;

function slipway(dataDir: string, extra: string[] = []): Promise<Proc> {
  return spawnAndWait(
    ['bin/slipway.js', 'serve', '--port', '0', '--graph-port', '0', '--data-dir', dataDir, '--log-level', values['log-level']!, ...extra],
    (l) => {
      try {
        const r = JSON.parse(l);
        return r.msg === 'listening' ? r.port : undefined;
      } catch {
        return undefined;
      }
    },
  );
}

function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(m![1]) / 1024);
}

async function load(port: number, target: string, body: () => string, seconds = duration) {
  const r = await autocannon({
    url: `http://127.0.0.1:${port}/`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.1',
          'x-amz-target': `SageMaker.${target}`,
          authorization:
            'AWS4-HMAC-SHA256 Credential=AKIDBENCH/20260101/us-east-1/sagemaker/aws4_request, SignedHeaders=host, Signature=0',
        },
        setupRequest: (req) => ({ ...req, body: body() }),
      },
    ],
  });
  const bad = r.non2xx + r.errors + r.timeouts;
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total, bad };
}

async function call(port: number, target: string, body: unknown) {
  const r = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'x-amz-target': `SageMaker.${target}` }, body: JSON.stringify(body) });
  if (r.status !== 200) throw new Error(`${target}: ${r.status} ${await r.text()}`);
}

const out: string[] = [];
const report = (line: string) => {
  out.push(line);
  console.log(line);
};

// 1. Baseline: bare node:http answering a fixed JSON body.
const bare = await spawnAndWait(['-e', BARE], (l) => (l.startsWith('port=') ? Number(l.slice(5)) : undefined));
await load(bare.port, 'Warmup', () => '{}', 2);
const base = await load(bare.port, 'DescribeModelPackageGroup', () => '{"ModelPackageGroupName":"bench"}');
await bare.stop();
report(`bare node:http fixed JSON:            ${base.rps} req/s (p50 ${base.p50} ms, p99 ${base.p99} ms)`);

// 2. Slipway on SQLite.
const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-'));
try {
  const s = await slipway(dir);
  await new Promise((r) => setTimeout(r, 3000));
  report(`idle RSS after start (SQLite):        ${rssMB(s.child.pid!)} MB`);
  await call(s.port, 'CreateModelPackageGroup', { ModelPackageGroupName: 'bench' });
  await load(s.port, 'DescribeModelPackageGroup', () => '{"ModelPackageGroupName":"bench"}', 2);
  const d = await load(s.port, 'DescribeModelPackageGroup', () => '{"ModelPackageGroupName":"bench"}');
  report(
    `DescribeModelPackageGroup (SQLite):   ${d.rps} req/s (p50 ${d.p50} ms, p99 ${d.p99} ms, non-2xx ${d.bad}); ratio to bare ${(d.rps / base.rps).toFixed(2)}`,
  );
  let n = 0;
  const c = await load(s.port, 'CreateModelPackageGroup', () => `{"ModelPackageGroupName":"g-${n++}"}`);
  report(`CreateModelPackageGroup (SQLite):     ${c.rps} req/s (p50 ${c.p50} ms, p99 ${c.p99} ms, non-2xx ${c.bad})`);
  report(`RSS after the load (SQLite):          ${rssMB(s.child.pid!)} MB`);
  await s.stop();

  // 3. Slipway on PostgreSQL, in a schema of its own.
  const schema = `bench_${Date.now().toString(36)}`;
  const p = await slipway(dir, ['--database-url', values.postgres!, '--database-schema', schema]);
  await call(p.port, 'CreateModelPackageGroup', { ModelPackageGroupName: 'bench' });
  const pd = await load(p.port, 'DescribeModelPackageGroup', () => '{"ModelPackageGroupName":"bench"}');
  report(`DescribeModelPackageGroup (Postgres): ${pd.rps} req/s (p50 ${pd.p50} ms, p99 ${pd.p99} ms, non-2xx ${pd.bad})`);
  n = 0;
  const pc = await load(p.port, 'CreateModelPackageGroup', () => `{"ModelPackageGroupName":"g-${n++}"}`);
  report(`CreateModelPackageGroup (Postgres):   ${pc.rps} req/s (p50 ${pc.p50} ms, p99 ${pc.p99} ms, non-2xx ${pc.bad})`);
  await p.stop();
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: values.postgres });
  await client.connect();
  await client.query(`DROP SCHEMA ${schema} CASCADE`);
  await client.end();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
