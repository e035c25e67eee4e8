// Issue 6 figures at the engine level (no HTTP; the HTTP bench compares with bare node:http):
// cold start of the abalone endpoint after scale to zero, warm invoke latency (sequential and
// paced at 1,000 req/s), a worker-thread cold start, and the RSS that 1,000 idle deployed
// endpoints add. Run: npm run build && node --expose-gc dist/bench/invoke/engine-bench.js [--endpoints 1000]

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createInferenceEngine } from '../../src/inference/index.js';
import { MemoryBlobStore } from '../../src/inference/testing/memory-blob-store.js';

const { values } = parseArgs({
  options: {
    endpoints: { type: 'string', default: '1000' },
    warm: { type: 'string', default: '200000' },
  },
});

const IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3';
const ROW = Buffer.from('.345,0.224414,.131102,0.042329,.279923,-0.110329,-0.099358,0.0');
const gc = (globalThis as { gc?: () => void }).gc;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-'));
  const blobs = new MemoryBlobStore();
  await blobs.put(
    's3://bench/abalone.tar.gz',
    readFileSync('test/fixtures/xgboost/models/abalone.pkl3-cfgoffset.tar.gz'),
  );
  const engine = createInferenceEngine({ blobs, dataDir, idleSeconds: 0.05 });
  const spec = (name: string) => ({
    endpointName: name,
    variantName: 'AllTraffic',
    containers: [{ image: IMAGE, modelDataUrl: 's3://bench/abalone.tar.gz', environment: {} }],
    serverless: { memorySizeInMB: 1024, maxConcurrency: 10 },
  });

  // Cold start: first invoke after scale to zero (idle 50 ms), 30 times.
  const v = await engine.deploy(spec('abalone'));
  const cold: number[] = [];
  for (let i = 0; i < 30; i++) {
    await sleep(120);
    const t = performance.now();
    await v.invoke({ body: ROW, contentType: 'text/csv' });
    cold.push(performance.now() - t);
  }
  console.log(`cold start (abalone, after scale to zero): median ${fmt(pct(cold, 50))}, max ${fmt(Math.max(...cold))}`);
  await v.stop();

  // Warm, sequential.
  const warmEngine = createInferenceEngine({ blobs, dataDir, idleSeconds: 300 });
  const w = await warmEngine.deploy(spec('warm'));
  for (let i = 0; i < 20000; i++) await w.invoke({ body: ROW, contentType: 'text/csv' });
  const n = Number(values.warm);
  let t = performance.now();
  for (let i = 0; i < n; i++) await w.invoke({ body: ROW, contentType: 'text/csv' });
  const perCall = (performance.now() - t) / n;
  console.log(
    `warm invoke, sequential: ${fmt(perCall)} per call (${Math.round(1000 / perCall).toLocaleString()} calls/s on one core)`,
  );

  // Warm, paced at 1,000 req/s for 5 s: latency of each call, event-loop included.
  const lat: number[] = [];
  const start = performance.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const due = Math.floor((performance.now() - start) / 1);
      while (sent < due && sent < 5000) {
        sent++;
        const t0 = performance.now();
        void w.invoke({ body: ROW, contentType: 'text/csv' }).then(() => lat.push(performance.now() - t0));
      }
      if (sent >= 5000) {
        clearInterval(tick);
        setTimeout(resolve, 50);
      }
    }, 1);
  });
  console.log(
    `warm invoke at 1,000 req/s: p50 ${fmt(pct(lat, 50))}, p99 ${fmt(pct(lat, 99))}, max ${fmt(Math.max(...lat))}`,
  );

  // A worker-thread cold start (a batch too big for the event loop), new thread vs reused thread.
  const big = Buffer.from(Array(3000).fill(ROW.toString()).join('\n'));
  const tEngine = createInferenceEngine({ blobs, dataDir, idleSeconds: 0.05 });
  const tv = await tEngine.deploy(spec('threaded'));
  t = performance.now();
  await tv.invoke({ body: big, contentType: 'text/csv' });
  const first = performance.now() - t;
  await sleep(150);
  t = performance.now();
  await tv.invoke({ body: big, contentType: 'text/csv' });
  const reused = performance.now() - t;
  t = performance.now();
  await tv.invoke({ body: big, contentType: 'text/csv' });
  const warmBig = performance.now() - t;
  console.log(
    `3,000-row batch in a worker thread: cold (new thread) ${fmt(first)}, cold (kept thread) ${fmt(reused)}, warm ${fmt(warmBig)}`,
  );
  await tEngine.close();
  await warmEngine.close();

  // RSS of idle deployed endpoints.
  const count = Number(values.endpoints);
  const idleEngine = createInferenceEngine({ blobs, dataDir, idleSeconds: 300 });
  await (await idleEngine.deploy(spec('warmup'))).stop();
  gc?.();
  await sleep(100);
  gc?.();
  const before = process.memoryUsage().rss;
  t = performance.now();
  const deployed = [];
  for (let i = 0; i < count; i++) deployed.push(await idleEngine.deploy(spec(`idle-${i}`)));
  const deployMs = performance.now() - t;
  gc?.();
  await sleep(200);
  gc?.();
  const after = process.memoryUsage().rss;
  console.log(
    `${count} idle deployed endpoints: +${((after - before) / 1024 / 1024).toFixed(1)} MB RSS (${((after - before) / count / 1024).toFixed(1)} KB each${gc ? '' : ', run with --expose-gc for a steadier figure'}); deployed in ${(deployMs / 1000).toFixed(1)} s`,
  );
  await idleEngine.close();
  await engine.close();
  rmSync(dataDir, { recursive: true, force: true });
}

await main();
