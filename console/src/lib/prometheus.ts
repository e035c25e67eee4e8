// Reads Slipway's GET /metrics (Prometheus text format 0.0.4) into per-endpoint counters, and turns
// successive samples into the rates the endpoint charts show.
// https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheus(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) {
      labels[l[1]!] = l[2]!.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const value = m[3] === '+Inf' ? Number.POSITIVE_INFINITY : m[3] === '-Inf' ? Number.NEGATIVE_INFINITY : Number(m[3]);
    out.push({ name: m[1]!, labels, value });
  }
  return out;
}

/** One endpoint's cumulative counters at one moment (all variants added up). */
export interface EndpointCounters {
  readonly t: number;
  readonly invocations: number;
  readonly errors4xx: number;
  readonly errors5xx: number;
  readonly throttles: number;
  readonly latencySum: number;
  readonly latencyCount: number;
  readonly overheadSum: number;
  readonly overheadCount: number;
}

const FIELDS: Record<string, keyof Omit<EndpointCounters, 't'>> = {
  slipway_invocations_total: 'invocations',
  slipway_invocation_4xx_errors_total: 'errors4xx',
  slipway_invocation_5xx_errors_total: 'errors5xx',
  slipway_throttled_invocations_total: 'throttles',
  slipway_model_latency_seconds_sum: 'latencySum',
  slipway_model_latency_seconds_count: 'latencyCount',
  slipway_overhead_latency_seconds_sum: 'overheadSum',
  slipway_overhead_latency_seconds_count: 'overheadCount',
};

export function endpointCounters(samples: readonly Sample[], endpoint: string, t: number): EndpointCounters {
  const c = { t, invocations: 0, errors4xx: 0, errors5xx: 0, throttles: 0, latencySum: 0, latencyCount: 0, overheadSum: 0, overheadCount: 0 };
  for (const s of samples) {
    const field = FIELDS[s.name];
    if (field && s.labels.endpoint === endpoint) c[field] += s.value;
  }
  return c;
}

/** What the charts plot for each interval between two samples. */
export interface Interval {
  /** End of the interval, seconds since the epoch (uPlot's x). */
  readonly t: number;
  /** Null for a gap in the samples (the page was closed): the line breaks there. */
  readonly invocationsPerMin: number | null;
  readonly errorsPerMin: number | null;
  readonly throttlesPerMin: number | null;
  /** Mean model latency of the interval's invocations, ms (null when there were none). */
  readonly latencyMs: number | null;
  readonly overheadMs: number | null;
}

/**
 * The rates between successive samples. Two samples further apart than `maxGapMs` (the page was
 * not open in between) give a point of nulls, so the charts break the line instead of drawing an
 * average over minutes nobody watched.
 */
export function intervals(samples: readonly EndpointCounters[], maxGapMs = Number.POSITIVE_INFINITY): Interval[] {
  const out: Interval[] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    const minutes = (b.t - a.t) / 60_000;
    if (minutes <= 0) continue;
    if (b.t - a.t > maxGapMs) {
      const none = { invocationsPerMin: null, errorsPerMin: null, throttlesPerMin: null, latencyMs: null, overheadMs: null };
      out.push({ t: b.t / 1000, ...none });
      continue;
    }
    // A counter that went down was reset (the endpoint was recreated): count from zero.
    const d = (x: number, y: number) => (y >= x ? y - x : y);
    const n = d(a.latencyCount, b.latencyCount);
    const on = d(a.overheadCount, b.overheadCount);
    out.push({
      t: b.t / 1000,
      invocationsPerMin: d(a.invocations, b.invocations) / minutes,
      errorsPerMin: (d(a.errors4xx, b.errors4xx) + d(a.errors5xx, b.errors5xx)) / minutes,
      throttlesPerMin: d(a.throttles, b.throttles) / minutes,
      latencyMs: n > 0 ? (d(a.latencySum, b.latencySum) / n) * 1000 : null,
      overheadMs: on > 0 ? (d(a.overheadSum, b.overheadSum) / on) * 1000 : null,
    });
  }
  return out;
}
