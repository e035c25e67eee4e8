// Endpoint metrics into the metrics store, as SageMaker publishes them to CloudWatch (namespace
// AWS/SageMaker, dimensions EndpointName and VariantName, one data point a minute): Invocations,
// Invocation4XXErrors, Invocation5XXErrors (0/1 a request: Average is the error rate),
// ModelLatency, OverheadLatency and ModelSetupTime in microseconds, and
// ServerlessConcurrentExecutionsUtilization (invocations in flight over MaxConcurrency, sampled
// every second). Counts come from the same
// counters /metrics reports; latencies are also kept per minute in logarithmic buckets (1 %), so
// the invoke path adds one bucket increment and the store sees one row per metric a minute.
// DEVIATION(aws): /aws/sagemaker/Endpoints (CPU, memory and disk utilization of endpoint instances)
// is not published: workers run on the server's own machine, beside everything else.
// https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-cloudwatch.html#cloudwatch-metrics-endpoint-invocation
import type { Logger } from 'pino';
import type { Partition } from '../domain/arn.js';
import type { Histogram, MetricsRegistry, VariantMetrics } from '../inference/metrics.js';
import { bucketRepresentative, type Distribution, fromValues, LOG_GAMMA } from './distribution.js';
import type { Metrics } from './index.js';
import type { Aggregate } from './series.js';
import type { PointInput } from './store.js';

export const SAGEMAKER_NAMESPACE = 'AWS/SageMaker';
const MINUTE_MS = 60_000;
/** Buckets cover 0.01 µs to beyond an hour; index 0 holds zero. */
const OFFSET = 240;
const BUCKETS = 1600;

/** One minute of a latency's observations: statistic set and logarithmic buckets, in microseconds. */
export class LatencyWindow {
  count = 0;
  sum = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;
  readonly buckets = new Float64Array(BUCKETS);

  observe(seconds: number): void {
    const us = seconds * 1e6;
    this.count++;
    this.sum += us;
    if (us < this.min) this.min = us;
    if (us > this.max) this.max = us;
    let i = us > 1e-2 ? Math.ceil(Math.log(us) / LOG_GAMMA) + OFFSET : 0;
    if (i >= BUCKETS) i = BUCKETS - 1;
    this.buckets[i]!++;
  }

  aggregate(): Aggregate | undefined {
    if (this.count === 0) return undefined;
    const values: number[] = [];
    const counts: number[] = [];
    for (let i = 0; i < BUCKETS; i++) {
      const c = this.buckets[i]!;
      if (c === 0) continue;
      // Bucket representatives, clamped to what was seen so p0 and p100 stay the extremes.
      values.push(i === 0 ? 0 : Math.min(this.max, Math.max(this.min, bucketRepresentative(i - OFFSET))));
      counts.push(c);
    }
    const dist: Distribution = { values: Float64Array.from(values), counts: Float64Array.from(counts) };
    return { count: this.count, sum: this.sum, min: this.min, max: this.max, dist };
  }
}

/** A variant's counters when its current window opened, and the minute it opened in. */
interface Snapshot {
  start: number;
  invocations: number;
  errors4xx: number;
  errors5xx: number;
  /** Concurrency utilization samples of the window (one a second). */
  utilization: number[];
}

const SAMPLE_MS = 1000;

/** A 0/1-per-request metric over `n` requests of which `k` were 1. */
function rate(k: number, n: number): Aggregate {
  const values: number[] = [];
  const counts: number[] = [];
  if (n - k > 0) {
    values.push(0);
    counts.push(n - k);
  }
  if (k > 0) {
    values.push(1);
    counts.push(k);
  }
  return {
    count: n,
    sum: k,
    min: k === n ? 1 : 0,
    max: k > 0 ? 1 : 0,
    dist: { values: Float64Array.from(values), counts: Float64Array.from(counts) },
  };
}

export interface EndpointRecorderOptions {
  readonly registry: MetricsRegistry;
  readonly metrics: Metrics;
  /** Where a variant's points go when its deployment did not say (the server's account and region). */
  readonly defaultPartition: Partition;
  readonly log: Logger;
  readonly now?: () => number;
}

export class EndpointMetricsRecorder {
  private readonly last = new WeakMap<VariantMetrics, Snapshot>();
  private timer: NodeJS.Timeout | undefined;
  private sampler: NodeJS.Timeout | undefined;
  private closed = false;
  private writing: Promise<void> = Promise.resolve();
  private readonly now: () => number;

  constructor(private readonly o: EndpointRecorderOptions) {
    this.now = o.now ?? Date.now;
    o.registry.onAttach = (m) => this.track(m);
  }

  /** Starts a variant's window (once): its counters as they stand, and empty latency windows. */
  private track(m: VariantMetrics): void {
    if (this.last.has(m)) return;
    for (const h of this.latencies(m)) h[1].window ??= new LatencyWindow();
    this.last.set(m, {
      start: this.minuteOf(this.now()),
      invocations: m.invocations,
      errors4xx: m.errors4xx,
      errors5xx: m.errors5xx,
      utilization: [],
    });
  }

  /** One utilization sample of every variant: in flight over MaxConcurrency, over its live pools. */
  sample(): void {
    for (const m of this.o.registry.variants()) {
      this.track(m);
      let inFlight = 0;
      let max = 0;
      for (const pool of m.pools) {
        inFlight += pool.inFlight;
        max += pool.maxConcurrency;
      }
      if (max > 0) this.last.get(m)!.utilization.push(inFlight / max);
    }
  }

  private latencies(m: VariantMetrics): ReadonlyArray<readonly [string, Histogram]> {
    return [
      ['ModelLatency', m.modelLatency],
      ['OverheadLatency', m.overheadLatency],
      ['ModelSetupTime', m.modelSetupTime],
    ];
  }

  private minuteOf(t: number): number {
    return t - (t % MINUTE_MS);
  }

  /** Flushes at every minute boundary. */
  start(): void {
    const schedule = () => {
      if (this.closed) return;
      const now = this.now();
      this.timer = setTimeout(
        () => {
          this.flush();
          schedule();
        },
        MINUTE_MS - (now % MINUTE_MS) + 5,
      );
      this.timer.unref();
    };
    schedule();
    this.sampler = setInterval(() => this.sample(), SAMPLE_MS);
    this.sampler.unref();
  }

  /** Writes the minute just ended (or, at close, the minute so far) of every variant; returns when stored. */
  flush(): Promise<void> {
    const now = this.now();
    const points: Array<{ p: Partition; point: PointInput }> = [];
    for (const m of this.o.registry.variants()) {
      this.track(m);
      const p = m.partition ?? this.o.defaultPartition;
      const dims = [
        { Name: 'EndpointName', Value: m.endpoint },
        { Name: 'VariantName', Value: m.variant },
      ];
      const before = this.last.get(m)!;
      // The window's data points carry the minute it opened in (one minute long but for the first).
      const at = before.start;
      const push = (metricName: string, unit: string, agg: Aggregate) =>
        points.push({
          p,
          point: {
            series: { namespace: SAGEMAKER_NAMESPACE, metricName, dimensions: dims },
            timestamp: at,
            unit,
            resolution: 60,
            agg,
          },
        });
      const n = m.invocations - before.invocations;
      if (n > 0) {
        push('Invocations', 'None', {
          count: n,
          sum: n,
          min: 1,
          max: 1,
          dist: { values: Float64Array.of(1), counts: Float64Array.of(n) },
        });
        push('Invocation4XXErrors', 'None', rate(Math.min(n, m.errors4xx - before.errors4xx), n));
        push('Invocation5XXErrors', 'None', rate(Math.min(n, m.errors5xx - before.errors5xx), n));
      }
      for (const [name, h] of this.latencies(m)) {
        const w = h.window as LatencyWindow | null;
        h.window = new LatencyWindow();
        const agg = w?.aggregate();
        if (agg) push(name, 'Microseconds', agg);
      }
      // Published while the variant is used: a minute with invocations or work in flight.
      const u = before.utilization;
      if (u.length > 0 && (n > 0 || u.some((x) => x > 0))) {
        const dist = fromValues(u);
        push('ServerlessConcurrentExecutionsUtilization', 'None', {
          count: u.length,
          sum: u.reduce((a, b) => a + b, 0),
          min: dist.values[0]!,
          max: dist.values[dist.values.length - 1]!,
          dist,
        });
      }
      this.last.set(m, {
        start: this.minuteOf(now),
        invocations: m.invocations,
        errors4xx: m.errors4xx,
        errors5xx: m.errors5xx,
        utilization: [],
      });
    }
    if (points.length === 0) return this.writing;
    const byPartition = new Map<string, { p: Partition; points: PointInput[] }>();
    for (const { p, point } of points) {
      const key = `${p.accountId}|${p.region}`;
      const g = byPartition.get(key) ?? { p, points: [] };
      g.points.push(point);
      byPartition.set(key, g);
    }
    this.writing = this.writing.then(async () => {
      for (const g of byPartition.values()) {
        await this.o.metrics
          .write(g.p, g.points)
          .catch((err) => this.o.log.warn({ err }, 'endpoint metrics could not be stored'));
      }
    });
    return this.writing;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.sampler);
    this.o.registry.onAttach = undefined;
    await this.flush();
  }
}
