// Issue 33 figure: GET /metrics with 1,000 serverless endpoints, each invoked (so each has its
// invocation counters, latency and cold-start histograms), as a Prometheus scrape sees it: the
// time from the request to the last byte, over a kept-alive connection; idle, and while 10 of the
// endpoints take traffic (their series change between scrapes).
// Run: npm run build && node dist/bench/metrics-scrape.js [--endpoints 1000] [--scrapes 200] [--buckets]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { load, percentile, sagemaker, sleep, slipway } from './support.js';

const { values } = parseArgs({
  options: {
    endpoints: { type: 'string', default: '1000' },
    scrapes: { type: 'string', default: '200' },
    // Endpoint latencies as histograms with buckets (--endpoint-latency-buckets) rather than summaries.
    buckets: { type: 'boolean', default: false },
  },
});
const endpoints = Number(values.endpoints);
const scrapes = Number(values.scrapes);
const ROW = '.345,0.224414,.131102,0.042329,.279923,-0.110329,-0.099358,0.0';
const IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3';
const report = (s: string) => console.log(s);

const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-'));
const s = await slipway(dir, [
  '--log-level',
  'warn',
  '--serverless-idle-seconds',
  '3600',
  ...(values.buckets ? ['--endpoint-latency-buckets'] : []),
]);
const base = `http://127.0.0.1:${s.port}`;
try {
  await fetch(`${base}/bench-models`, { method: 'PUT' });
  await fetch(`${base}/bench-models/abalone/model.tar.gz`, {
    method: 'PUT',
    body: readFileSync('test/fixtures/xgboost/models/abalone.pkl3-cfgoffset.tar.gz'),
  });
  await sagemaker(s.port, 'CreateModel', {
    ModelName: 'abalone',
    ExecutionRoleArn: 'arn:aws:iam::000000000000:role/bench',
    PrimaryContainer: { Image: IMAGE, ModelDataUrl: 's3://bench-models/abalone/model.tar.gz' },
  });
  await sagemaker(s.port, 'CreateEndpointConfig', {
    EndpointConfigName: 'abalone',
    ProductionVariants: [
      {
        VariantName: 'AllTraffic',
        ModelName: 'abalone',
        ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: 10 },
      },
    ],
  });
  const names = Array.from({ length: endpoints }, (_, i) => `endpoint-${String(i).padStart(4, '0')}`);
  for (let i = 0; i < names.length; i += 50)
    await Promise.all(
      names
        .slice(i, i + 50)
        .map((n) => sagemaker(s.port, 'CreateEndpoint', { EndpointName: n, EndpointConfigName: 'abalone' })),
    );
  for (const n of names) {
    for (;;) {
      const d = await sagemaker(s.port, 'DescribeEndpoint', { EndpointName: n });
      if (d.EndpointStatus === 'InService') break;
      if (d.EndpointStatus === 'Failed') throw new Error(String(d.FailureReason));
      await sleep(20);
    }
  }
  const invoke = (n: string) =>
    fetch(`${base}/endpoints/${n}/invocations`, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: ROW });
  for (let i = 0; i < names.length; i += 50)
    await Promise.all(names.slice(i, i + 50).map(async (n) => (await invoke(n)).arrayBuffer()));

  // node:http with a kept-alive connection, bytes counted and dropped: the client costs little.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const scrape = () =>
    new Promise<{ ms: number; bytes: number }>((resolve, reject) => {
      const t0 = performance.now();
      request({ host: '127.0.0.1', port: s.port, path: '/metrics', agent }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ ms: performance.now() - t0, bytes }));
      })
        .on('error', reject)
        .end();
    });
  const run = async (label: string) => {
    for (let i = 0; i < 20; i++) await scrape();
    const ms: number[] = [];
    let bytes = 0;
    for (let i = 0; i < scrapes; i++) {
      const r = await scrape();
      ms.push(r.ms);
      bytes = r.bytes;
    }
    report(
      `GET /metrics, ${endpoints} endpoints, ${label}: median ${percentile(ms, 50).toFixed(2)} ms, p90 ${percentile(ms, 90).toFixed(2)} ms, ` +
        `p99 ${percentile(ms, 99).toFixed(2)} ms, ${(bytes / 1e6).toFixed(2)} MB (target ≤ 5 ms)`,
    );
  };
  await run('idle');
  // Traffic on 10 endpoints while scraping: their series change between scrapes.
  const busy = names.slice(0, 10);
  const traffic = Promise.all(
    busy.map((n) =>
      load(
        `${base}/endpoints/${n}/invocations`,
        { headers: { 'content-type': 'text/csv' }, body: () => ROW },
        { seconds: 8, connections: 1, rate: 100 },
      ),
    ),
  );
  await sleep(500);
  await run('10 of them taking 100 invocations/s each');
  await traffic;
} finally {
  await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
