import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MetricsRegistry } from './registry.js';

test('renders counters, histograms and gauges in the Prometheus text format', async () => {
  const m = new MetricsRegistry();
  const c = m.counter('requests_total', 'Requests.', ['service', 'status']);
  c.with('S3', '200').inc();
  c.with('S3', '200').inc(2);
  c.with('S"3', '500').inc();
  const h = m.histogram('latency_seconds', 'Latency.', ['op'], [0.1, 1]);
  h.with('Get').observe(0.05);
  h.with('Get').observe(0.5);
  h.with('Get').observe(5);
  m.gauge('up', 'Up.', [], () => [[[], 1]]);
  let refreshed = 0;
  m.beforeRender(async () => void refreshed++);
  const text = await m.render();
  assert.equal(refreshed, 1);
  assert.equal(
    text,
    [
      '# HELP requests_total Requests.',
      '# TYPE requests_total counter',
      'requests_total{service="S3",status="200"} 3',
      'requests_total{service="S\\"3",status="500"} 1',
      '# HELP latency_seconds Latency.',
      '# TYPE latency_seconds histogram',
      'latency_seconds_bucket{op="Get",le="0.1"} 1',
      'latency_seconds_bucket{op="Get",le="1"} 2',
      'latency_seconds_bucket{op="Get",le="+Inf"} 3',
      'latency_seconds_sum{op="Get"} 5.55',
      'latency_seconds_count{op="Get"} 3',
      '# HELP up Up.',
      '# TYPE up gauge',
      'up 1',
      '',
    ].join('\n'),
  );
});
