// Endpoint counters and latencies become one AWS/SageMaker data point per metric and minute.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { MetricsRegistry } from '../inference/metrics.js';
import { percentile } from './distribution.js';
import { EndpointMetricsRecorder } from './endpoint-recorder.js';
import type { Metrics } from './index.js';
import type { PointInput } from './store.js';

test('a minute of invocations, errors and latencies as SageMaker publishes them', async () => {
  const written: Array<{ p: unknown; points: readonly PointInput[] }> = [];
  const metrics = {
    write: async (p: unknown, points: readonly PointInput[]) => void written.push({ p, points }),
  } as unknown as Metrics;
  let now = Date.UTC(2026, 0, 1, 10, 0, 30);
  const registry = new MetricsRegistry();
  const recorder = new EndpointMetricsRecorder({
    registry,
    metrics,
    defaultPartition: { accountId: '0', region: 'x' },
    log: pino({ level: 'silent' }),
    now: () => now,
  });
  const pool = { inFlight: 0, maxConcurrency: 1, idleWorkers: 0, busyWorkers: 0, startingWorkers: 0 };
  const m = registry.attach('ep', 'AllTraffic', pool, { accountId: '111122223333', region: 'eu-west-1' });
  for (let i = 1; i <= 100; i++) {
    m.invocations++;
    m.modelLatency.observe(i / 1000); // 1 ms .. 100 ms
    m.overheadLatency.observe(0);
  }
  m.errors4xx += 3;
  m.errors5xx += 1;
  pool.inFlight = 1;
  recorder.sample();
  pool.inFlight = 0;
  recorder.sample();
  now += 60_000;
  await recorder.flush();
  assert.equal(written.length, 1);
  assert.deepEqual(written[0]!.p, { accountId: '111122223333', region: 'eu-west-1' });
  const by = new Map(written[0]!.points.map((p) => [p.series.metricName, p]));
  assert.deepEqual([...by.keys()].sort(), [
    'Invocation4XXErrors',
    'Invocation5XXErrors',
    'Invocations',
    'ModelLatency',
    'OverheadLatency',
    'ServerlessConcurrentExecutionsUtilization',
  ]);
  const util = by.get('ServerlessConcurrentExecutionsUtilization')!.agg;
  assert.deepEqual([util.count, util.sum, util.min, util.max], [2, 1, 0, 1]);
  const inv = by.get('Invocations')!;
  assert.equal(inv.series.namespace, 'AWS/SageMaker');
  assert.deepEqual(inv.series.dimensions, [
    { Name: 'EndpointName', Value: 'ep' },
    { Name: 'VariantName', Value: 'AllTraffic' },
  ]);
  assert.equal(inv.timestamp, Date.UTC(2026, 0, 1, 10, 0, 0));
  assert.equal(inv.agg.sum, 100);
  assert.deepEqual([by.get('Invocation4XXErrors')!.agg.sum, by.get('Invocation4XXErrors')!.agg.count], [3, 100]);
  const lat = by.get('ModelLatency')!;
  assert.equal(lat.unit, 'Microseconds');
  assert.deepEqual([lat.agg.count, lat.agg.min, lat.agg.max], [100, 1000, 100_000]);
  assert.ok(Math.abs(lat.agg.sum - 5_050_000) < 1e-3);
  const p50 = percentile(lat.agg.dist!, 50)!;
  assert.ok(Math.abs(p50 - 50_000) / 50_000 < 0.011, `p50 ${p50}`);
  // A quiet minute writes nothing.
  now += 60_000;
  await recorder.flush();
  assert.equal(written.length, 1);
  await recorder.close();
  assert.equal(registry.onAttach, undefined);
});
