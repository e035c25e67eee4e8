// Issue 29 figures for the metrics store, each measured against its own baseline in the same run:
//   1. recording endpoint metrics: InvokeEndpoint with --endpoint-metrics on vs off, two servers
//      side by side, rounds interleaved: throughput flat out, and the server's CPU time per
//      invocation at a fixed rate (less sensitive to a shared machine); target: cost ≤ 3 %;
//   2. PutMetricData: the ceiling (flat out), then a sustained 25,000 data points a second beside
//      a steady InvokeEndpoint load, whose p50/p99 are compared with the same load alone, and the
//      server CPU the points take; target ≥ 20,000/s with invoke p99 unchanged. Every point
//      answered is counted back;
//   3. GetMetricStatistics over one day at one-minute periods for one endpoint (1,440 datapoints)
//      on SQLite, a day of AWS/SageMaker data in the store: p50 over HTTP and server CPU per
//      query; target p50 ≤ 10 ms.
// Run: npm run build && node dist/bench/metrics.js [--rounds 8] [--seconds 5] [--put-seconds 20]
//      [--invoke-rate 300] [--put-rate 25] [--cpu-rate 2000] [--queries 200]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { fromValues } from '../src/metrics/distribution.js';
import { MetricsMaintenance } from '../src/metrics/maintenance.js';
import type { PointInput } from '../src/metrics/store.js';
import { MetricStore } from '../src/metrics/store.js';
import { openDatabase } from '../src/storage/db/index.js';
import { MIGRATIONS } from '../src/storage/migrations.js';
import { cpuMs, type LoadResult, load, median, percentile, type Proc, sagemaker, slipway } from './support.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '5' },
    'put-seconds': { type: 'string', default: '20' },
    'invoke-rate': { type: 'string', default: '300' },
    'put-connections': { type: 'string', default: '4' },
    'put-rate': { type: 'string', default: '25' },
    'cpu-rate': { type: 'string', default: '2000' },
    queries: { type: 'string', default: '200' },
  },
});
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const PUT_SECONDS = Number(values['put-seconds']);
const INVOKE_RATE = Number(values['invoke-rate']);
const QUERIES = Number(values.queries);
const IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3';
const ROW = '.345,0.224414,.131102,0.042329,.279923,-0.110329,-0.099358,0.0';
const model = readFileSync('test/fixtures/xgboost/models/abalone.pkl3-cfgoffset.tar.gz');
const MIN = 60_000;
const CW = (op: string) => ({
  'content-type': 'application/x-amz-json-1.0',
  'x-amz-target': `GraniteServiceVersion20100801.${op}`,
  authorization:
    'AWS4-HMAC-SHA256 Credential=AKIDBENCH/20260101/us-east-1/monitoring/aws4_request, SignedHeaders=host, Signature=0',
});

async function server(extra: string[] = []): Promise<Proc & { dir: string; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-metrics-bench-'));
  const s = await slipway(dir, ['--log-level', 'warn', ...extra]);
  return { ...s, dir, url: `http://127.0.0.1:${s.port}` };
}

async function deploy(s: { port: number; url: string }): Promise<void> {
  await fetch(`${s.url}/bench-models`, { method: 'PUT' });
  await fetch(`${s.url}/bench-models/abalone.tar.gz`, { method: 'PUT', body: model });
  await sagemaker(s.port, 'CreateModel', {
    ModelName: 'abalone',
    ExecutionRoleArn: 'arn:aws:iam::000000000000:role/bench',
    PrimaryContainer: { Image: IMAGE, ModelDataUrl: 's3://bench-models/abalone.tar.gz' },
  });
  await sagemaker(s.port, 'CreateEndpointConfig', {
    EndpointConfigName: 'abalone',
    ProductionVariants: [
      {
        VariantName: 'AllTraffic',
        ModelName: 'abalone',
        ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: 200, ProvisionedConcurrency: 1 },
      },
    ],
  });
  await sagemaker(s.port, 'CreateEndpoint', { EndpointName: 'abalone', EndpointConfigName: 'abalone' });
  for (;;) {
    const d = await sagemaker(s.port, 'DescribeEndpoint', { EndpointName: 'abalone' });
    if (d.EndpointStatus === 'InService') return;
    if (d.EndpointStatus === 'Failed') throw new Error(String(d.FailureReason));
    await new Promise((r) => setTimeout(r, 50));
  }
}

const invoke = (url: string, o: { seconds: number; connections: number; rate?: number }): Promise<LoadResult> =>
  load(`${url}/endpoints/abalone/invocations`, { headers: { 'content-type': 'text/csv' }, body: () => ROW }, o);

async function endpointMetricsCost(): Promise<void> {
  console.log(
    `1. InvokeEndpoint throughput, endpoint metrics on vs off (${ROUNDS} rounds of ${SECONDS} s each, interleaved)`,
  );
  const off = await server(['--endpoint-metrics', 'off']);
  const on = await server(['--endpoint-metrics', 'on']);
  try {
    await Promise.all([deploy(off), deploy(on)]);
    // Warm both (JIT, caches) before measuring.
    await invoke(off.url, { seconds: 2, connections: 8 });
    await invoke(on.url, { seconds: 2, connections: 8 });
    const rps = { off: [] as number[], on: [] as number[] };
    const ratios: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      const r: Record<string, number> = {};
      for (const k of order) {
        const res = await invoke(k === 'on' ? on.url : off.url, { seconds: SECONDS, connections: 8 });
        if (res.bad > 0) throw new Error(`${k}: ${res.bad} failed invocations`);
        r[k] = res.rps;
        rps[k].push(res.rps);
      }
      ratios.push(r.on! / r.off!);
      console.log(`   round ${i + 1}: off ${r.off} req/s, on ${r.on} req/s (on/off ${(r.on! / r.off!).toFixed(3)})`);
    }
    console.log(
      `   throughput median: off ${median(rps.off)} req/s, on ${median(rps.on)} req/s; on/off median of rounds ${median(ratios).toFixed(3)} (cost ${((1 - median(ratios)) * 100).toFixed(1)} %)`,
    );
    // CPU time per invocation at a fixed rate: what each server spends, whatever else runs.
    const rate = Number(values['cpu-rate']);
    const us = { off: [] as number[], on: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      for (const k of i % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        const s = k === 'on' ? on : off;
        const c0 = cpuMs(s.child.pid!);
        const res = await invoke(s.url, { seconds: SECONDS, connections: 8, rate });
        us[k].push(((cpuMs(s.child.pid!) - c0) * 1000) / res.total);
      }
    }
    const cost = median(us.on) / median(us.off) - 1;
    console.log(
      `   server CPU per invocation at ${rate} req/s (median of ${ROUNDS}): off ${median(us.off).toFixed(1)} µs, on ${median(us.on).toFixed(1)} µs (cost ${(cost * 100).toFixed(1)} %)`,
    );
  } finally {
    await Promise.all([off.stop(), on.stop()]);
    rmSync(off.dir, { recursive: true, force: true });
    rmSync(on.dir, { recursive: true, force: true });
  }
}

/** A PutMetricData body of 1,000 data points over 20 series (JSON 1.0, as current SDKs send it). */
function putBody(batch: number): string {
  const now = Date.now() / 1000;
  const MetricData = Array.from({ length: 1000 }, (_, i) => ({
    MetricName: `m${i % 20}`,
    Dimensions: [
      { Name: 'Service', Value: `svc-${batch % 5}` },
      { Name: 'Host', Value: 'bench' },
    ],
    Timestamp: now,
    Value: (i * 7919) % 1000,
    Unit: 'Milliseconds',
  }));
  return JSON.stringify({ Namespace: 'Bench', MetricData });
}

async function putMetricData(): Promise<void> {
  const putRate = Number(values['put-rate']);
  console.log(
    `2. PutMetricData, 1,000 data points a request (20 series each), JSON 1.0; InvokeEndpoint at ${INVOKE_RATE} req/s`,
  );
  const s = await server();
  try {
    await deploy(s);
    await invoke(s.url, { seconds: 2, connections: 4 });
    const bodies = Array.from({ length: 5 }, (_, i) => putBody(i));
    let n = 0;
    const put = (o: { seconds: number; connections: number; rate?: number }) =>
      load(`${s.url}/`, { headers: CW('PutMetricData'), body: () => bodies[n++ % bodies.length]! }, o);
    const ceiling = await put({ seconds: 10, connections: Number(values['put-connections']) });
    if (ceiling.bad > 0) throw new Error(`${ceiling.bad} PutMetricData requests failed`);
    console.log(
      `   ceiling (flat out, ${values['put-connections']} connections): ${(ceiling.rps * 1000).toLocaleString('en-US')} data points/s`,
    );
    let c0 = cpuMs(s.child.pid!);
    const alone = await invoke(s.url, { seconds: PUT_SECONDS, connections: 8, rate: INVOKE_RATE });
    const cpuAlone = cpuMs(s.child.pid!) - c0;
    c0 = cpuMs(s.child.pid!);
    const [sustained, beside] = await Promise.all([
      put({ seconds: PUT_SECONDS, connections: 2, rate: putRate }),
      invoke(s.url, { seconds: PUT_SECONDS, connections: 8, rate: INVOKE_RATE }),
    ]);
    const cpuBoth = cpuMs(s.child.pid!) - c0;
    if (sustained.bad > 0) throw new Error(`${sustained.bad} PutMetricData requests failed`);
    console.log(
      `   sustained ${PUT_SECONDS} s: ${(sustained.rps * 1000).toLocaleString('en-US')} data points/s (PutMetricData p50 ${sustained.p50} ms, p99 ${sustained.p99} ms), server CPU for them ${(((cpuBoth - cpuAlone) / PUT_SECONDS / 1000) * 100).toFixed(1)} % of a core`,
    );
    console.log(`   InvokeEndpoint alone:           ${alone.rps} req/s, p50 ${alone.p50} ms, p99 ${alone.p99} ms`);
    console.log(`   InvokeEndpoint beside the puts: ${beside.rps} req/s, p50 ${beside.p50} ms, p99 ${beside.p99} ms`);
    // Every point answered is there: the counts add up once the compactor caught up.
    const r = await fetch(`${s.url}/`, {
      method: 'POST',
      headers: CW('ListMetrics'),
      body: JSON.stringify({ Namespace: 'Bench' }),
    });
    const metrics = ((await r.json()) as { Metrics: Array<{ MetricName: string; Dimensions: unknown }> }).Metrics;
    let stored = 0;
    for (const m of metrics) {
      const q = await fetch(`${s.url}/`, {
        method: 'POST',
        headers: CW('GetMetricStatistics'),
        body: JSON.stringify({
          Namespace: 'Bench',
          MetricName: m.MetricName,
          Dimensions: m.Dimensions,
          StartTime: Date.now() / 1000 - 3600,
          EndTime: Date.now() / 1000 + 60,
          Period: 3600,
          Statistics: ['SampleCount'],
        }),
      });
      for (const d of ((await q.json()) as { Datapoints: Array<{ SampleCount: number }> }).Datapoints)
        stored += d.SampleCount;
    }
    console.log(
      `   stored: ${stored.toLocaleString('en-US')} points in ${metrics.length} series (answered requests: ${((ceiling.total + sustained.total) * 1000).toLocaleString('en-US')} points)`,
    );
  } finally {
    await s.stop();
    rmSync(s.dir, { recursive: true, force: true });
  }
}

/** A day of one endpoint's AWS/SageMaker metrics, as the recorder writes them, a minute at a time. */
async function writeDayOfEndpointMetrics(dir: string, end: number): Promise<void> {
  const db = await openDatabase({ dataDir: dir, migrations: MIGRATIONS });
  const store = new MetricStore();
  const p = { accountId: '000000000000', region: 'us-east-1' };
  const dims = [
    { Name: 'EndpointName', Value: 'abalone' },
    { Name: 'VariantName', Value: 'AllTraffic' },
  ];
  const series = (metricName: string) => ({ namespace: 'AWS/SageMaker', metricName, dimensions: dims });
  const inv = series('Invocations');
  const lat = series('ModelLatency');
  const err = series('Invocation5XXErrors');
  for (let h = 0; h < 24; h++) {
    const points: PointInput[] = [];
    for (let m = 0; m < 60; m++) {
      const t = end - 86_400_000 + (h * 60 + m) * MIN;
      const n = 500 + ((h * 60 + m) % 300);
      const latencies = Array.from({ length: 120 }, (_, i) => 300 + ((i * 37 + m) % 900));
      const d = fromValues(latencies);
      points.push(
        {
          series: inv,
          timestamp: t,
          unit: 'None',
          resolution: 60,
          agg: { count: n, sum: n, min: 1, max: 1, dist: fromValues([1], [n]) },
        },
        {
          series: err,
          timestamp: t,
          unit: 'None',
          resolution: 60,
          agg: { count: n, sum: 2, min: 0, max: 1, dist: fromValues([0, 1], [n - 2, 2]) },
        },
        {
          series: lat,
          timestamp: t,
          unit: 'Microseconds',
          resolution: 60,
          agg: { count: 120, sum: latencies.reduce((a, b) => a + b, 0), min: 300, max: 1199, dist: d },
        },
      );
    }
    await store.write(db, p, points, end);
  }
  await new MetricsMaintenance({ db, log: pino({ level: 'silent' }), retentionDays: 455 }).compactAll();
  await db.close();
}

async function statisticsLatency(): Promise<void> {
  console.log(
    `3. GetMetricStatistics, one day at one-minute periods for one endpoint (1,440 datapoints), SQLite, ${QUERIES} queries each`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'slipway-metrics-bench-'));
  const end = Date.now() - (Date.now() % MIN);
  await writeDayOfEndpointMetrics(dir, end);
  const s = await slipway(dir, ['--log-level', 'warn']);
  const url = `http://127.0.0.1:${s.port}/`;
  try {
    const ask = async (MetricName: string, stats: Record<string, unknown>) => {
      const body = JSON.stringify({
        Namespace: 'AWS/SageMaker',
        MetricName,
        Dimensions: [
          { Name: 'EndpointName', Value: 'abalone' },
          { Name: 'VariantName', Value: 'AllTraffic' },
        ],
        StartTime: (end - 86_400_000) / 1000,
        EndTime: end / 1000,
        Period: 60,
        ...stats,
      });
      const times: number[] = [];
      let datapoints = 0;
      let c0 = 0;
      for (let i = 0; i < QUERIES + 10; i++) {
        if (i === 10) c0 = cpuMs(s.child.pid!);
        const t0 = performance.now();
        const r = await fetch(url, { method: 'POST', headers: CW('GetMetricStatistics'), body });
        const out = (await r.json()) as { Datapoints: unknown[] };
        if (i >= 10) times.push(performance.now() - t0);
        datapoints = out.Datapoints.length;
      }
      const cpu = (cpuMs(s.child.pid!) - c0) / QUERIES;
      console.log(
        `   ${MetricName} ${JSON.stringify(stats)}: ${datapoints} datapoints, p50 ${percentile(times, 50).toFixed(2)} ms, p90 ${percentile(times, 90).toFixed(2)} ms over HTTP; server CPU ${cpu.toFixed(2)} ms a query`,
      );
    };
    await ask('Invocations', { Statistics: ['Sum', 'SampleCount'] });
    await ask('ModelLatency', { Statistics: ['Average', 'Maximum'] });
    await ask('ModelLatency', { ExtendedStatistics: ['p99'] });
    await ask('Invocation5XXErrors', { Statistics: ['Average'] });
  } finally {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await endpointMetricsCost();
await putMetricData();
await statisticsLatency();
