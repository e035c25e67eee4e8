// A/B of the hosting lifecycle figures between this build and another one (e.g. main before a
// change), interleaved so that both see the same machine load: CreateEndpoint → InService
// (polling DescribeEndpoint every 1 ms, as bench/hosting.ts) and DescribeEndpoint throughput.
// Run: npm run build && node dist/bench/hosting-ab.js --baseline /path/to/other/checkout [--rounds 40] [--seconds 5]
// (the baseline checkout must be built too: its bin/slipway.js and dist/ are what runs).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type Proc, SAGEMAKER_HEADERS, load, percentile, sagemaker, sleep, spawnAndWait } from './support.js';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '40' },
    seconds: { type: 'string', default: '5' },
  },
});
if (!values.baseline) throw new Error('--baseline DIR (a built checkout to compare with) is required');
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const ROLE = 'arn:aws:iam::000000000000:role/bench';
const IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3';
const model = readFileSync('test/fixtures/xgboost/models/abalone.pkl3-cfgoffset.tar.gz');

async function start(root: string): Promise<Proc & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-ab-'));
  const s = await spawnAndWait(
    [
      join(root, 'bin/slipway.js'),
      'serve',
      '--port',
      '0',
      '--graph-port',
      '0',
      '--data-dir',
      dir,
      '--log-level',
      'warn',
    ],
    (l) => {
      try {
        const r = JSON.parse(l);
        return r.msg === 'listening' ? r.port : undefined;
      } catch {
        return undefined;
      }
    },
  );
  const base = `http://127.0.0.1:${s.port}`;
  await fetch(`${base}/bench-models`, { method: 'PUT' });
  await fetch(`${base}/bench-models/abalone/model.tar.gz`, { method: 'PUT', body: model });
  await sagemaker(s.port, 'CreateModel', {
    ModelName: 'abalone',
    ExecutionRoleArn: ROLE,
    PrimaryContainer: { Image: IMAGE, ModelDataUrl: 's3://bench-models/abalone/model.tar.gz' },
  });
  await sagemaker(s.port, 'CreateEndpointConfig', {
    EndpointConfigName: 'c',
    ProductionVariants: [
      {
        VariantName: 'AllTraffic',
        ModelName: 'abalone',
        ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: 10 },
      },
    ],
  });
  return { ...s, dir };
}

async function createToInService(s: Proc, name: string): Promise<number> {
  const t0 = performance.now();
  await sagemaker(s.port, 'CreateEndpoint', { EndpointName: name, EndpointConfigName: 'c' });
  for (;;) {
    const d = await sagemaker(s.port, 'DescribeEndpoint', { EndpointName: name });
    if (d.EndpointStatus === 'InService') break;
    if (d.EndpointStatus === 'Failed') throw new Error(String(d.FailureReason));
    await sleep(1);
  }
  return performance.now() - t0;
}

const builds = { baseline: resolve(values.baseline), this: resolve('.') } as const;
type Build = keyof typeof builds;
const names: Build[] = ['baseline', 'this'];
const servers = { baseline: await start(builds.baseline), this: await start(builds.this) };
try {
  const times: Record<Build, number[]> = { baseline: [], this: [] };
  for (let i = 0; i < rounds; i++) {
    for (const b of i % 2 ? names : [...names].reverse()) times[b].push(await createToInService(servers[b], `ep-${i}`));
  }
  for (const b of names) {
    // The first endpoint downloads and unpacks the artifact; the rest find it cached.
    const t = times[b].slice(1);
    console.log(
      `${b}: CreateEndpoint → InService median ${percentile(t, 50).toFixed(1)} ms, p90 ${percentile(t, 90).toFixed(1)} ms (${t.length} endpoints; first ${times[b][0]!.toFixed(1)} ms)`,
    );
  }
  const rps: Record<Build, number[]> = { baseline: [], this: [] };
  for (let r = 0; r < 4; r++) {
    for (const b of r % 2 ? names : [...names].reverse()) {
      const res = await load(
        `http://127.0.0.1:${servers[b].port}/`,
        {
          method: 'POST',
          headers: SAGEMAKER_HEADERS('DescribeEndpoint'),
          body: () => JSON.stringify({ EndpointName: 'ep-0' }),
        },
        { seconds, connections: 32 },
      );
      rps[b].push(res.rps);
    }
  }
  for (const b of names)
    console.log(`${b}: DescribeEndpoint (32 connections) req/s per ${seconds} s run: ${rps[b].join(', ')}`);
} finally {
  for (const b of names) {
    await servers[b].stop();
    rmSync(servers[b].dir, { recursive: true, force: true });
  }
}
