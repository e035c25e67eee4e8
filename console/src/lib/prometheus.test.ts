import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endpointCounters, intervals, parsePrometheus } from './prometheus.js';

const text = (inv: number, sum: number, count: number) => `# HELP slipway_invocations_total x
# TYPE slipway_invocations_total counter
slipway_invocations_total{endpoint="abalone",variant="AllTraffic"} ${inv}
slipway_invocations_total{endpoint="abalone",variant="Canary"} 1
slipway_invocations_total{endpoint="other",variant="AllTraffic"} 99
slipway_invocation_5xx_errors_total{endpoint="abalone",variant="AllTraffic"} 2
slipway_model_latency_seconds_bucket{endpoint="abalone",variant="AllTraffic",le="+Inf"} ${count}
slipway_model_latency_seconds_sum{endpoint="abalone",variant="AllTraffic"} ${sum}
slipway_model_latency_seconds_count{endpoint="abalone",variant="AllTraffic"} ${count}
`;

test('labels with escaped quotes are read', () => {
  const [s] = parsePrometheus('m{endpoint="a\\"b",variant="v"} 3\n');
  assert.deepEqual(s, { name: 'm', labels: { endpoint: 'a"b', variant: 'v' }, value: 3 });
});

test("an endpoint's counters add its variants and leave other endpoints out", () => {
  const c = endpointCounters(parsePrometheus(text(10, 0.5, 10)), 'abalone', 0);
  assert.equal(c.invocations, 11);
  assert.equal(c.errors5xx, 2);
  assert.equal(c.latencySum, 0.5);
});

test('intervals are per-minute rates and the mean latency of the interval', () => {
  const a = endpointCounters(parsePrometheus(text(10, 0.5, 10)), 'abalone', 0);
  const b = endpointCounters(parsePrometheus(text(40, 1.1, 40)), 'abalone', 30_000);
  const [i] = intervals([a, b]);
  assert.equal(i!.invocationsPerMin, 60);
  assert.equal(i!.errorsPerMin, 0);
  assert.ok(Math.abs(i!.latencyMs! - 20) < 1e-9);
  const [idle] = intervals([b, { ...b, t: 60_000 }]);
  assert.equal(idle!.latencyMs, null);
});

test('samples further apart than the page watched break the line instead of averaging the gap', () => {
  const a = endpointCounters(parsePrometheus(text(10, 0.5, 10)), 'abalone', 0);
  const b = endpointCounters(parsePrometheus(text(20, 0.6, 20)), 'abalone', 2_000);
  const c = endpointCounters(parsePrometheus(text(500, 9, 500)), 'abalone', 600_000);
  const d = endpointCounters(parsePrometheus(text(506, 9.1, 506)), 'abalone', 602_000);
  const points = intervals([a, b, c, d], 6_000);
  assert.deepEqual(
    points.map((p) => p.invocationsPerMin),
    [300, null, 180],
  );
  assert.equal(points[1]!.t, 600, 'the gap ends where the page started watching again');
});
