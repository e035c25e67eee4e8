// Requests by service, operation and status, with their latency: the same names on the AWS port
// (SageMaker, SageMaker Runtime, S3, CloudWatch Logs) and the graph port (neptune-db).
import type { CounterSeries, HistogramSeries, MetricsRegistry } from './registry.js';

export interface RequestObserver {
  /** One answered request; `seconds` from its arrival to the last byte of the answer. */
  request(service: string, operation: string, status: number, seconds: number): void;
}

export function httpMetrics(m: MetricsRegistry): RequestObserver {
  const total = m.counter(
    'slipway_http_requests_total',
    'HTTP requests answered, by service, operation and status code.',
    ['service', 'operation', 'status'],
  );
  const duration = m.histogram(
    'slipway_http_request_duration_seconds',
    'Time from a request arriving to its answer being written, by service and operation.',
    ['service', 'operation'],
  );
  // The series of a (service, operation, status): found once, then updated in place.
  const cache = new Map<string, { n: CounterSeries; d: HistogramSeries }>();
  return {
    request(service, operation, status, seconds) {
      const key = `${service}\u0000${operation}\u0000${status}`;
      let s = cache.get(key);
      if (!s) {
        // Bounded: operation names come from the service tables, statuses from the protocols.
        if (cache.size > 20_000) cache.clear();
        s = { n: total.with(service, operation, String(status)), d: duration.with(service, operation) };
        cache.set(key, s);
      }
      s.n.inc();
      s.d.observe(seconds);
    },
  };
}
