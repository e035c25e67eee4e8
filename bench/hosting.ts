// Issue 5 and 6 figures through the real HTTP stack, against Slipway as `npm start` runs it:
//   - CreateEndpoint → InService for the abalone model stored in the embedded S3;
//   - DescribeEndpoint requests/s (autocannon, 32 connections, SQLite);
//   - warm InvokeEndpoint throughput vs a bare node:http server answering a fixed 20-byte body;
//   - warm p99 at 1,000 requests/s; cold start after scale to zero; RSS of 1,000 idle endpoints.
// Run: npm run build && node dist/bench/hosting.js [--seconds 10] [--endpoints 1000]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SAGEMAKER_HEADERS, bareServer, load, percentile, rssMB, sagemaker, sleep, slipway } from './support.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    endpoints: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '32' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const ROW = '.345,0.224414,.131102,0.042329,.279923,-0.110329,-0.099358,0.0';
const IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3';
const ROLE = 'arn:aws:iam::000000000000:role/bench';
const report = (s: string) => console.log(s);

const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-'));
// Scale-in after 1 s of idleness so the cold-start figure can be taken without waiting 5 minutes.
const s = await slipway(dir, ['--log-level', 'warn', '--serverless-idle-seconds', '1']);
const base = `http://127.0.0.1:${s.port}`;
try {
  // The model goes into Slipway's own S3, as a user uploads it.
  await fetch(`${base}/bench-models`, { method: 'PUT' });
  const put = await fetch(`${base}/bench-models/abalone/model.tar.gz`, {
    method: 'PUT',
    body: readFileSync('test/fixtures/xgboost/models/abalone.pkl3-cfgoffset.tar.gz'),
  });
  if (put.status !== 200) throw new Error(`upload: ${put.status} ${await put.text()}`);
  await sagemaker(s.port, 'CreateModel', {
    ModelName: 'abalone',
    ExecutionRoleArn: ROLE,
    PrimaryContainer: { Image: IMAGE, ModelDataUrl: 's3://bench-models/abalone/model.tar.gz' },
  });
  const config = (name: string, max: number) =>
    sagemaker(s.port, 'CreateEndpointConfig', {
      EndpointConfigName: name,
      ProductionVariants: [
        {
          VariantName: 'AllTraffic',
          ModelName: 'abalone',
          ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: max },
        },
      ],
    });
  await config('abalone-200', 200);
  await config('abalone-10', 10);

  // 1. CreateEndpoint → InService, polling DescribeEndpoint every millisecond.
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await sagemaker(s.port, 'CreateEndpoint', { EndpointName: `ep-${i}`, EndpointConfigName: 'abalone-10' });
    for (;;) {
      const d = await sagemaker(s.port, 'DescribeEndpoint', { EndpointName: `ep-${i}` });
      if (d.EndpointStatus === 'InService') break;
      if (d.EndpointStatus === 'Failed') throw new Error(String(d.FailureReason));
      await sleep(1);
    }
    times.push(performance.now() - t0);
  }
  report(
    `CreateEndpoint → InService (abalone, embedded S3, 20 endpoints): median ${percentile(times, 50).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms (first, with the artifact not yet cached: ${times[0]!.toFixed(1)} ms)`,
  );

  // 2. DescribeEndpoint throughput.
  const describe = await load(
    `${base}/`,
    { headers: SAGEMAKER_HEADERS('DescribeEndpoint'), body: () => '{"EndpointName":"ep-0"}' },
    { seconds, connections },
  );
  report(
    `DescribeEndpoint (SQLite, ${connections} connections): ${describe.rps} req/s (p50 ${describe.p50} ms, p99 ${describe.p99} ms, errors ${describe.bad})`,
  );

  // 3. Warm invoke throughput against a bare node:http server with a fixed 20-byte body.
  await sagemaker(s.port, 'CreateEndpoint', { EndpointName: 'hot', EndpointConfigName: 'abalone-200' });
  while ((await sagemaker(s.port, 'DescribeEndpoint', { EndpointName: 'hot' })).EndpointStatus !== 'InService')
    await sleep(5);
  const invoke = { headers: { 'content-type': 'text/csv' }, body: () => ROW };
  const invokeUrl = `${base}/endpoints/hot/invocations`;
  await load(invokeUrl, invoke, { seconds: 2, connections });
  const bare = await bareServer('15.405422210693359\n', 'text/csv');
  const bareUrl = `http://127.0.0.1:${bare.port}/endpoints/hot/invocations`;
  await load(bareUrl, invoke, { seconds: 2, connections });
  const b = await load(bareUrl, invoke, { seconds, connections });
  await bare.stop();
  const w = await load(invokeUrl, invoke, { seconds, connections });
  report(`bare node:http, fixed 20-byte body: ${b.rps} req/s (p50 ${b.p50} ms, p99 ${b.p99} ms)`);
  report(
    `InvokeEndpoint warm (abalone, 1 CSV row, MaxConcurrency 200, ${connections} connections): ${w.rps} req/s (p50 ${w.p50} ms, p99 ${w.p99} ms, errors ${w.bad}); ratio to bare ${(w.rps / b.rps).toFixed(2)}`,
  );

  // 4. Warm latency at a steady 1,000 requests/s.
  const paced = await load(invokeUrl, invoke, { seconds, connections: 16, rate: 1000 });
  report(
    `InvokeEndpoint at 1,000 req/s: p50 ${paced.p50} ms, p99 ${paced.p99} ms (${paced.total} requests, errors ${paced.bad})`,
  );

  // 5. Cold start: the first invoke after the endpoint scaled to zero (idle 1 s here).
  const cold: number[] = [];
  for (let i = 0; i < 10; i++) {
    await sleep(1600);
    const t0 = performance.now();
    const r = await fetch(`${base}/endpoints/ep-1/invocations`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: ROW,
    });
    await r.arrayBuffer();
    cold.push(performance.now() - t0);
  }
  const metrics = await (await fetch(`${base}/metrics`)).text();
  const setup = metrics
    .split('\n')
    .filter((l) => /model_setup_time_seconds_(sum|count)/.test(l) && /ep-1/.test(l) && !l.startsWith('#'));
  report(
    `cold start (first invoke after scale to zero, 10 times, whole HTTP round trip): median ${percentile(cold, 50).toFixed(1)} ms, max ${Math.max(...cold).toFixed(1)} ms`,
  );
  if (setup.length) report(`  /metrics ModelSetupTime for ep-1: ${setup.slice(0, 3).join(' | ')}`);

  // 6. RSS of 1,000 deployed, idle endpoints.
  const n = Number(values.endpoints);
  await sleep(2500);
  const before = rssMB(s.child.pid!);
  for (let i = 0; i < n; i++)
    await sagemaker(s.port, 'CreateEndpoint', { EndpointName: `idle-${i}`, EndpointConfigName: 'abalone-10' });
  for (;;) {
    const listed = await sagemaker(s.port, 'ListEndpoints', { StatusEquals: 'Creating', MaxResults: 1 });
    if ((listed.Endpoints as unknown[]).length === 0) break;
    await sleep(100);
  }
  await sleep(2500); // let the deployment loads scale in
  const after = rssMB(s.child.pid!);
  report(`${n} idle deployed endpoints: RSS ${before} MB → ${after} MB (+${after - before} MB)`);
} finally {
  await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
