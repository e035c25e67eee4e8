// Per endpoint and variant figures named after SageMaker's CloudWatch metrics, exposed in the
// Prometheus text format (version 0.0.4).
// https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-cloudwatch.html#cloudwatch-metrics-endpoint-invocation
// https://prometheus.io/docs/instrumenting/exposition_formats/
//
// Naming: `slipway_<SageMaker name in snake_case>` with Prometheus suffixes (_total for counters,
// _seconds for durations); each HELP line names the CloudWatch metric it mirrors. Labels:
// endpoint, variant. ModelSetupTime's histogram count is the number of cold starts.
// DEVIATION(aws): latencies are seconds (Prometheus convention), not CloudWatch's microseconds.

export interface PoolGauges {
  readonly inFlight: number;
  readonly maxConcurrency: number;
  readonly idleWorkers: number;
  readonly busyWorkers: number;
  readonly startingWorkers: number;
}

// Latency buckets in seconds: sub-millisecond for warm in-process models, up to the 60 s timeout.
const BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/** Where a histogram's observations also go, a minute at a time (src/metrics/endpoint-recorder.ts). */
export interface ObservationWindow {
  observe(seconds: number): void;
}

export class Histogram {
  readonly counts = new Float64Array(BUCKETS.length + 1);
  sum = 0;
  count = 0;
  /** The metrics store's current minute of this histogram, when endpoint metrics are recorded. */
  window: ObservationWindow | null = null;

  observe(seconds: number): void {
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]) i++;
    this.counts[i]++;
    this.sum += seconds;
    this.count++;
    const w = this.window;
    if (w !== null) w.observe(seconds);
  }
}

export class VariantMetrics {
  invocations = 0;
  errors4xx = 0;
  errors5xx = 0;
  throttles = 0;
  readonly workerFailures = { crash: 0, memory: 0, timeout: 0, startup: 0 };
  readonly modelLatency = new Histogram();
  readonly overheadLatency = new Histogram();
  readonly modelSetupTime = new Histogram();
  /** Live pools of this endpoint/variant (two while UpdateEndpoint swaps models). */
  readonly pools = new Set<PoolGauges>();

  constructor(
    readonly endpoint: string,
    readonly variant: string,
    /** The account and region of the endpoint, for the metrics store. */
    readonly partition?: { readonly accountId: string; readonly region: string },
  ) {}
}

export class MetricsRegistry {
  private readonly series = new Map<string, VariantMetrics>();
  /** Told of every series attached (the metrics store's recorder starts its minute windows). */
  onAttach: ((m: VariantMetrics) => void) | undefined;

  /** The series of a variant; counters carry over when a new deployment replaces the old one. */
  attach(
    endpoint: string,
    variant: string,
    pool: PoolGauges,
    partition?: { readonly accountId: string; readonly region: string },
  ): VariantMetrics {
    const key = `${endpoint}\u0000${variant}`;
    let m = this.series.get(key);
    if (!m) {
      m = new VariantMetrics(endpoint, variant, partition);
      this.series.set(key, m);
    }
    m.pools.add(pool);
    this.onAttach?.(m);
    return m;
  }

  /** Every variant with a live deployment. */
  variants(): IterableIterator<VariantMetrics> {
    return this.series.values();
  }

  /** Drops the series once no deployment of the variant is left (the endpoint was deleted). */
  detach(m: VariantMetrics, pool: PoolGauges): void {
    m.pools.delete(pool);
    if (m.pools.size === 0) this.series.delete(`${m.endpoint}\u0000${m.variant}`);
  }

  render(): string {
    const all = [...this.series.values()];
    const out: string[] = [];
    const counter = (name: string, help: string, get: (m: VariantMetrics) => number): void => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
      for (const m of all) out.push(`${name}{${labels(m)}} ${get(m)}`);
    };
    const gauge = (name: string, help: string, get: (g: PoolGauges) => number): void => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`);
      for (const m of all) out.push(`${name}{${labels(m)}} ${sumPools(m, get)}`);
    };
    const histogram = (name: string, help: string, get: (m: VariantMetrics) => Histogram): void => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
      for (const m of all) {
        const h = get(m);
        const l = labels(m);
        let cumulative = 0;
        for (let i = 0; i < BUCKETS.length; i++) {
          cumulative += h.counts[i];
          out.push(`${name}_bucket{${l},le="${BUCKETS[i]}"} ${cumulative}`);
        }
        out.push(
          `${name}_bucket{${l},le="+Inf"} ${h.count}`,
          `${name}_sum{${l}} ${h.sum}`,
          `${name}_count{${l}} ${h.count}`,
        );
      }
    };
    counter('slipway_invocations_total', 'SageMaker Invocations: requests sent to the model.', (m) => m.invocations);
    counter(
      'slipway_invocation_4xx_errors_total',
      'SageMaker Invocation4XXErrors: requests the model answered with a 4xx status.',
      (m) => m.errors4xx,
    );
    counter(
      'slipway_invocation_5xx_errors_total',
      'SageMaker Invocation5XXErrors: requests the model answered with a 5xx status, crashed, ran out of memory or timed out.',
      (m) => m.errors5xx,
    );
    counter(
      'slipway_throttled_invocations_total',
      'Requests refused with ThrottlingException because the variant was at its MaxConcurrency.',
      (m) => m.throttles,
    );
    histogram(
      'slipway_model_latency_seconds',
      'SageMaker ModelLatency: time the model took to answer.',
      (m) => m.modelLatency,
    );
    histogram(
      'slipway_overhead_latency_seconds',
      'SageMaker OverheadLatency: time spent outside the model, cold starts included.',
      (m) => m.overheadLatency,
    );
    histogram(
      'slipway_model_setup_time_seconds',
      'SageMaker ModelSetupTime: time to launch a worker and load the model (cold starts).',
      (m) => m.modelSetupTime,
    );
    gauge(
      'slipway_concurrent_executions',
      'SageMaker ServerlessConcurrentExecutions: invocations in progress.',
      (g) => g.inFlight,
    );
    gauge('slipway_max_concurrency', 'The variant MaxConcurrency.', (g) => g.maxConcurrency);
    out.push(
      '# HELP slipway_workers Warm workers (threads, processes or containers) by state.',
      '# TYPE slipway_workers gauge',
    );
    for (const m of all) {
      const l = labels(m);
      out.push(
        `slipway_workers{${l},state="idle"} ${sumPools(m, (g) => g.idleWorkers)}`,
        `slipway_workers{${l},state="busy"} ${sumPools(m, (g) => g.busyWorkers)}`,
        `slipway_workers{${l},state="starting"} ${sumPools(m, (g) => g.startingWorkers)}`,
      );
    }
    out.push(
      '# HELP slipway_worker_failures_total Workers replaced after a crash, a memory overrun, a timeout or a failed start.',
      '# TYPE slipway_worker_failures_total counter',
    );
    for (const m of all) {
      const l = labels(m);
      for (const [reason, n] of Object.entries(m.workerFailures))
        out.push(`slipway_worker_failures_total{${l},reason="${reason}"} ${n}`);
    }
    return `${out.join('\n')}\n`;
  }
}

function sumPools(m: VariantMetrics, get: (g: PoolGauges) => number): number {
  let s = 0;
  for (const p of m.pools) s += get(p);
  return s;
}

function labels(m: VariantMetrics): string {
  return `endpoint="${escapeLabel(m.endpoint)}",variant="${escapeLabel(m.variant)}"`;
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
