// Issue 2 figures: DescribeModelPackageGroup and CreateModelPackageGroup through the real HTTP
// stack (autocannon, 32 connections) against a bare node:http baseline measured in the same run,
// and the idle server's RSS. Run: npm run build && node dist/bench/api.js [--duration 10]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SAGEMAKER_HEADERS, bareServer, load, rssMB, sagemaker, sleep, slipway } from './support.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    postgres: {
      type: 'string',
      default: process.env.SLIPWAY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    },
    'log-level': { type: 'string', default: 'info' },
  },
});
const opts = { seconds: Number(values.duration), connections: Number(values.connections) };
const report = (line: string) => console.log(line);
const describe = {
  headers: SAGEMAKER_HEADERS('DescribeModelPackageGroup'),
  body: () => '{"ModelPackageGroupName":"bench"}',
};
const creates = () => {
  let n = 0;
  return { headers: SAGEMAKER_HEADERS('CreateModelPackageGroup'), body: () => `{"ModelPackageGroupName":"g-${n++}"}` };
};

// 1. Baseline: bare node:http answering a fixed JSON body of the same size as Describe's answer.
const bare = await bareServer(
  JSON.stringify({
    ModelPackageGroupName: 'bench',
    ModelPackageGroupArn: 'arn:aws:sagemaker:us-east-1:000000000000:model-package-group/bench',
    CreationTime: 1700000000.123,
    ModelPackageGroupStatus: 'Completed',
    CreatedBy: {},
  }),
  'application/x-amz-json-1.1',
);
await load(`http://127.0.0.1:${bare.port}/`, describe, { ...opts, seconds: 2 });
const base = await load(`http://127.0.0.1:${bare.port}/`, describe, opts);
await bare.stop();
report(`bare node:http fixed JSON:            ${base.rps} req/s (p50 ${base.p50} ms, p99 ${base.p99} ms)`);

const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-'));
try {
  // 2. Slipway on SQLite.
  const s = await slipway(dir, ['--log-level', values['log-level']!]);
  await sleep(3000);
  report(`idle RSS after start (SQLite):        ${rssMB(s.child.pid!)} MB`);
  await sagemaker(s.port, 'CreateModelPackageGroup', { ModelPackageGroupName: 'bench' });
  const url = `http://127.0.0.1:${s.port}/`;
  await load(url, describe, { ...opts, seconds: 2 });
  const d = await load(url, describe, opts);
  report(
    `DescribeModelPackageGroup (SQLite):   ${d.rps} req/s (p50 ${d.p50} ms, p99 ${d.p99} ms, errors ${d.bad}); ratio to bare ${(d.rps / base.rps).toFixed(2)}`,
  );
  const c = await load(url, creates(), opts);
  report(`CreateModelPackageGroup (SQLite):     ${c.rps} req/s (p50 ${c.p50} ms, p99 ${c.p99} ms, errors ${c.bad})`);
  report(`RSS after the load (SQLite):          ${rssMB(s.child.pid!)} MB`);
  await s.stop();

  // 3. Slipway on PostgreSQL, in a schema of its own.
  const schema = `bench_${Date.now().toString(36)}`;
  const p = await slipway(dir, [
    '--log-level',
    values['log-level']!,
    '--database-url',
    values.postgres!,
    '--database-schema',
    schema,
  ]);
  await sagemaker(p.port, 'CreateModelPackageGroup', { ModelPackageGroupName: 'bench' });
  const pUrl = `http://127.0.0.1:${p.port}/`;
  const pd = await load(pUrl, describe, opts);
  report(
    `DescribeModelPackageGroup (Postgres): ${pd.rps} req/s (p50 ${pd.p50} ms, p99 ${pd.p99} ms, errors ${pd.bad})`,
  );
  const pc = await load(pUrl, creates(), opts);
  report(
    `CreateModelPackageGroup (Postgres):   ${pc.rps} req/s (p50 ${pc.p50} ms, p99 ${pc.p99} ms, errors ${pc.bad})`,
  );
  await p.stop();
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: values.postgres });
  await client.connect();
  await client.query(`DROP SCHEMA ${schema} CASCADE`);
  await client.end();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
