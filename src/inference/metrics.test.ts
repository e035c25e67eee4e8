import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MetricsRegistry } from './metrics.js';

const gauges = { inFlight: 0, maxConcurrency: 5, idleWorkers: 0, busyWorkers: 0, startingWorkers: 0 };

test('kept exposition bytes follow every change, arrival and departure', () => {
  const r = new MetricsRegistry();
  const a = r.attach('a', 'AllTraffic', { ...gauges });
  const bPool = { ...gauges };
  const b = r.attach('b', 'AllTraffic', bPool);
  let text = r.render();
  assert.match(text, /^slipway_invocations_total\{endpoint="a",variant="AllTraffic"\} 0$/m);
  assert.doesNotMatch(text, /slipway_model_latency_seconds_count/, 'no histogram series before an observation');
  assert.doesNotMatch(text, /slipway_throttled_invocations_total\{/, 'no zero error series');
  a.invocations = 3;
  a.modelLatency.observe(0.002);
  b.throttles = 1;
  text = r.render();
  assert.match(text, /^slipway_invocations_total\{endpoint="a",variant="AllTraffic"\} 3$/m);
  assert.match(text, /^slipway_model_latency_seconds_count\{endpoint="a",variant="AllTraffic"\} 1$/m);
  assert.match(text, /^slipway_throttled_invocations_total\{endpoint="b",variant="AllTraffic"\} 1$/m);
  // Unchanged: the same bytes.
  assert.equal(r.render(), text);
  r.detach(b, bPool);
  text = r.render();
  assert.doesNotMatch(text, /endpoint="b"/);
  // Every family still has its HELP and TYPE once.
  assert.equal(text.match(/^# TYPE slipway_invocations_total counter$/gm)?.length, 1);
});

test('latencies are summaries (sum, count) unless buckets are asked for', () => {
  for (const buckets of [false, true]) {
    const r = new MetricsRegistry({ buckets });
    r.attach('a', 'AllTraffic', { ...gauges }).modelLatency.observe(0.003);
    const text = r.render();
    assert.match(text, new RegExp(`^# TYPE slipway_model_latency_seconds ${buckets ? 'histogram' : 'summary'}$`, 'm'));
    assert.match(text, /^slipway_model_latency_seconds_count\{endpoint="a",variant="AllTraffic"\} 1$/m);
    assert.equal(/slipway_model_latency_seconds_bucket\{.*le="0.005"\} 1/.test(text), buckets);
  }
});
