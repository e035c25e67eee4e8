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
  /** This variant's lines of each family at the last scrape, and the values they were made from. */
  rendered: { key: string; texts: string[]; bytes: Buffer[] } | undefined;

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
  private readonly kinds: readonly FamilyRender[];
  private readonly headers: readonly Buffer[];
  /** Each family's bytes as last sent (see exposition()). */
  private readonly families: Buffer[];

  /** `buckets`: latencies as histograms with their buckets instead of summaries (see histogram()). */
  constructor(o: { buckets?: boolean } = {}) {
    this.kinds = o.buckets ? FAMILIES.buckets : FAMILIES.summaries;
    this.headers = this.kinds.map((f) => Buffer.from(`${f.header}\n`));
    this.families = this.kinds.map(() => Buffer.alloc(0));
  }
  /** Bumped when a variant comes or goes; every family is rebuilt then. */
  private membership = 0;
  private renderedMembership = -1;
  private lastCount = -1;

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
      this.membership++;
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
    if (m.pools.size === 0 && this.series.delete(`${m.endpoint}\u0000${m.variant}`)) this.membership++;
  }

  /** The exposition as text (tests, tools); the server sends exposition(). */
  render(): string {
    return this.exposition().toString('utf8');
  }

  /**
   * The exposition, encoded. Each variant's lines of each family are kept (encoded) from the
   * previous scrape and rebuilt only when one of its values changed, and each family's bytes are
   * kept whole until one of its variants changed: a scrape of many idle endpoints is a copy of kept
   * bytes (docs/benchmarks.md, issue 33). Series that are still zero (errors, throttles, worker
   * failures, a histogram with no observation) are left out until they count something, as
   * Prometheus client libraries do for labelled series.
   */
  exposition(): Buffer {
    const all = [...this.series.values()];
    const changed = new Set<number>();
    if (all.length !== this.lastCount || this.membership !== this.renderedMembership) {
      for (let i = 0; i < this.kinds.length; i++) changed.add(i);
      this.lastCount = all.length;
      this.renderedMembership = this.membership;
    }
    for (const m of all) {
      const key = fingerprint(m);
      const old = m.rendered;
      if (old && old.key === key) continue;
      const l = labels(m);
      const parts = this.kinds.map((f, i) => {
        const text = f.lines(m, l);
        const prev = old?.texts[i];
        if (prev !== text) changed.add(i);
        return text;
      });
      m.rendered = { key, texts: parts, bytes: parts.map((t) => (t ? Buffer.from(`${t}\n`) : EMPTY)) };
    }
    for (const i of changed) {
      const chunks: Buffer[] = [this.headers[i]!];
      for (const m of all) {
        const b = m.rendered!.bytes[i]!;
        if (b.length > 0) chunks.push(b);
      }
      this.families[i] = Buffer.concat(chunks);
    }
    return Buffer.concat(this.families);
  }
}

const EMPTY = Buffer.alloc(0);

/** What a variant's exposition depends on: when none of it changed, its kept text is still right. */
function fingerprint(m: VariantMetrics): string {
  let gauges = '';
  for (const p of m.pools)
    gauges += `${p.inFlight},${p.maxConcurrency},${p.idleWorkers},${p.busyWorkers},${p.startingWorkers};`;
  const f = m.workerFailures;
  return `${m.invocations},${m.errors4xx},${m.errors5xx},${m.throttles},${m.modelLatency.count},${m.overheadLatency.count},${m.modelSetupTime.count},${f.crash},${f.memory},${f.timeout},${f.startup}|${gauges}`;
}

interface FamilyRender {
  readonly header: string;
  lines(m: VariantMetrics, labels: string): string;
}

/** `always`: the series is shown at 0 too (invocations); others appear once they count something. */
function counter(name: string, help: string, get: (m: VariantMetrics) => number, always = false): FamilyRender {
  return {
    header: `# HELP ${name} ${help}\n# TYPE ${name} counter`,
    lines: (m, l) => {
      const v = get(m);
      return v === 0 && !always ? '' : `${name}{${l}} ${v}`;
    },
  };
}

function gauge(name: string, help: string, get: (g: PoolGauges) => number): FamilyRender {
  return {
    header: `# HELP ${name} ${help}\n# TYPE ${name} gauge`,
    lines: (m, l) => `${name}{${l}} ${sumPools(m, get)}`,
  };
}

/**
 * A latency of a variant: a Prometheus histogram with its buckets when asked for
 * (--endpoint-latency-buckets), otherwise a summary of its sum and count (CloudWatch's Average and
 * SampleCount): 2 series per endpoint instead of 21, which keeps a scrape of 1,000 endpoints small.
 * The latency distribution of invocations is in slipway_http_request_duration_seconds either way.
 */
function histogram(name: string, help: string, get: (m: VariantMetrics) => Histogram, buckets: boolean): FamilyRender {
  if (!buckets)
    return {
      header: `# HELP ${name} ${help}\n# TYPE ${name} summary`,
      lines(m, l) {
        const h = get(m);
        return h.count === 0 ? '' : `${name}_sum{${l}} ${h.sum}\n${name}_count{${l}} ${h.count}`;
      },
    };
  return {
    header: `# HELP ${name} ${help}\n# TYPE ${name} histogram`,
    lines(m, l) {
      const h = get(m);
      if (h.count === 0) return '';
      const out: string[] = [];
      let cumulative = 0;
      for (let i = 0; i < BUCKETS.length; i++) {
        cumulative += h.counts[i]!;
        out.push(`${name}_bucket{${l},le="${BUCKETS[i]}"} ${cumulative}`);
      }
      out.push(
        `${name}_bucket{${l},le="+Inf"} ${h.count}`,
        `${name}_sum{${l}} ${h.sum}`,
        `${name}_count{${l}} ${h.count}`,
      );
      return out.join('\n');
    },
  };
}

const familiesWith = (buckets: boolean): readonly FamilyRender[] => [
  counter(
    'slipway_invocations_total',
    'SageMaker Invocations: requests sent to the model.',
    (m) => m.invocations,
    true,
  ),
  counter(
    'slipway_invocation_4xx_errors_total',
    'SageMaker Invocation4XXErrors: requests the model answered with a 4xx status.',
    (m) => m.errors4xx,
  ),
  counter(
    'slipway_invocation_5xx_errors_total',
    'SageMaker Invocation5XXErrors: requests the model answered with a 5xx status, crashed, ran out of memory or timed out.',
    (m) => m.errors5xx,
  ),
  counter(
    'slipway_throttled_invocations_total',
    'Requests refused with ThrottlingException because the variant was at its MaxConcurrency.',
    (m) => m.throttles,
  ),
  histogram(
    'slipway_model_latency_seconds',
    'SageMaker ModelLatency: time the model took to answer.',
    (m) => m.modelLatency,
    buckets,
  ),
  histogram(
    'slipway_overhead_latency_seconds',
    'SageMaker OverheadLatency: time spent outside the model, cold starts included.',
    (m) => m.overheadLatency,
    buckets,
  ),
  histogram(
    'slipway_model_setup_time_seconds',
    'SageMaker ModelSetupTime: time to launch a worker and load the model (cold starts).',
    (m) => m.modelSetupTime,
    buckets,
  ),
  gauge(
    'slipway_concurrent_executions',
    'SageMaker ServerlessConcurrentExecutions: invocations in progress.',
    (g) => g.inFlight,
  ),
  gauge('slipway_max_concurrency', 'The variant MaxConcurrency.', (g) => g.maxConcurrency),
  {
    header:
      '# HELP slipway_workers Warm workers (threads, processes or containers) by state.\n# TYPE slipway_workers gauge',
    lines: (m, l) =>
      [
        `slipway_workers{${l},state="idle"} ${sumPools(m, (g) => g.idleWorkers)}`,
        `slipway_workers{${l},state="busy"} ${sumPools(m, (g) => g.busyWorkers)}`,
        `slipway_workers{${l},state="starting"} ${sumPools(m, (g) => g.startingWorkers)}`,
      ].join('\n'),
  },
  {
    header:
      '# HELP slipway_worker_failures_total Workers replaced after a crash, a memory overrun, a timeout or a failed start.\n# TYPE slipway_worker_failures_total counter',
    lines: (m, l) =>
      Object.entries(m.workerFailures)
        .filter(([, n]) => n > 0)
        .map(([reason, n]) => `slipway_worker_failures_total{${l},reason="${reason}"} ${n}`)
        .join('\n'),
  },
];

const FAMILIES = { summaries: familiesWith(false), buckets: familiesWith(true) };

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
