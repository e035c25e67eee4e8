// The server's own metrics in the Prometheus text format (0.0.4): counters and histograms kept
// per label set, gauges read when scraped. Endpoint series stay in src/inference/metrics.ts.
// https://prometheus.io/docs/instrumenting/exposition_formats/
//
// Hand-written rather than prom-client: the hot paths (every request, every query) hold a direct
// reference to their series, so recording is a few additions with no label lookup, and rendering
// 1,000 endpoints' series stays within the scrape budget (docs/benchmarks.md, issue 33).

/** Buckets for request and query durations (seconds): 100 µs to 60 s. */
export const LATENCY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

export function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labelText(names: readonly string[], values: readonly string[]): string {
  return names.map((n, i) => `${n}="${escapeLabel(values[i] ?? '')}"`).join(',');
}

export class CounterSeries {
  value = 0;
  inc(n = 1): void {
    this.value += n;
  }
}

export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(readonly buckets: readonly number[]) {
    this.counts = new Float64Array(buckets.length);
  }
  observe(v: number): void {
    const b = this.buckets;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    if (i < b.length) this.counts[i]!++;
    this.sum += v;
    this.count++;
  }
}

interface Family {
  render(out: string[]): void;
}

/** A family of series with the same label names; `with(...values)` is the series for those values. */
class Labelled<S> {
  readonly series = new Map<string, { values: readonly string[]; s: S }>();
  constructor(
    readonly labels: readonly string[],
    private readonly make: () => S,
  ) {}
  with(...values: string[]): S {
    const key = values.join('\u0000');
    let e = this.series.get(key);
    if (!e) {
      e = { values, s: this.make() };
      this.series.set(key, e);
    }
    return e.s;
  }
}

export class Counter extends Labelled<CounterSeries> implements Family {
  constructor(
    readonly name: string,
    readonly help: string,
    labels: readonly string[] = [],
  ) {
    super(labels, () => new CounterSeries());
  }
  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`);
    for (const { values, s } of this.series.values())
      out.push(`${this.name}${this.labels.length ? `{${labelText(this.labels, values)}}` : ''} ${s.value}`);
  }
}

export class Histogram extends Labelled<HistogramSeries> implements Family {
  constructor(
    readonly name: string,
    readonly help: string,
    labels: readonly string[] = [],
    readonly buckets: readonly number[] = LATENCY_BUCKETS,
  ) {
    super(labels, () => new HistogramSeries(buckets));
  }
  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`);
    for (const { values, s } of this.series.values()) {
      const l = labelText(this.labels, values);
      const sep = l ? ',' : '';
      let cumulative = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        cumulative += s.counts[i]!;
        out.push(`${this.name}_bucket{${l}${sep}le="${this.buckets[i]}"} ${cumulative}`);
      }
      out.push(`${this.name}_bucket{${l}${sep}le="+Inf"} ${s.count}`);
      const tail = l ? `{${l}}` : '';
      out.push(`${this.name}_sum${tail} ${s.sum}`, `${this.name}_count${tail} ${s.count}`);
    }
  }
}

/** A gauge (or a counter kept elsewhere) whose values are read at each scrape. */
export class Collected implements Family {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'gauge' | 'counter',
    readonly labels: readonly string[],
    private readonly read: () => Iterable<readonly [values: readonly string[], value: number]>,
  ) {}
  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`);
    for (const [values, v] of this.read())
      out.push(`${this.name}${this.labels.length ? `{${labelText(this.labels, values)}}` : ''} ${v}`);
  }
}

export class MetricsRegistry {
  readonly #families: Family[] = [];
  /** Work to do before each render (refreshing values read from the database). */
  readonly #before: Array<() => Promise<void>> = [];

  counter(name: string, help: string, labels: readonly string[] = []): Counter {
    return this.#add(new Counter(name, help, labels));
  }

  histogram(name: string, help: string, labels: readonly string[] = [], buckets?: readonly number[]): Histogram {
    return this.#add(new Histogram(name, help, labels, buckets));
  }

  gauge(
    name: string,
    help: string,
    labels: readonly string[],
    read: () => Iterable<readonly [readonly string[], number]>,
  ): void {
    this.#add(new Collected(name, help, 'gauge', labels, read));
  }

  /** A counter whose value something else keeps (process CPU time, a store's own count). */
  counterOf(
    name: string,
    help: string,
    labels: readonly string[],
    read: () => Iterable<readonly [readonly string[], number]>,
  ): void {
    this.#add(new Collected(name, help, 'counter', labels, read));
  }

  /** Runs before every render, e.g. to refresh values from the database (errors are swallowed). */
  beforeRender(fn: () => Promise<void>): void {
    this.#before.push(fn);
  }

  async render(): Promise<string> {
    await Promise.all(this.#before.map((f) => f().catch(() => undefined)));
    const out: string[] = [];
    for (const f of this.#families) f.render(out);
    return out.length ? `${out.join('\n')}\n` : '';
  }

  #add<F extends Family>(f: F): F {
    this.#families.push(f);
    return f;
  }
}
