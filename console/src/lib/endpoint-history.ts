// An endpoint's stored metric history, as CloudWatch keeps it (AWS/SageMaker, by EndpointName and
// VariantName, a data point a minute): invocations, errors and latencies over a chosen range,
// read with one GetMetricData (endpoint-metrics.ts) and laid on one time axis here (counts are 0
// where nothing was invoked). https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-cloudwatch.html

export interface History {
  /** Period starts, epoch seconds. */
  readonly x: number[];
  readonly invocations: number[];
  readonly errors4xx: number[];
  readonly errors5xx: number[];
  /** Milliseconds; null where nothing was invoked. */
  readonly modelLatency: (number | null)[];
  readonly modelLatencyP99: (number | null)[];
  readonly overheadLatency: (number | null)[];
}

export interface Result {
  readonly Id: string;
  readonly Timestamps?: readonly (number | string)[];
  readonly Values?: readonly number[];
}

export const QUERIES: ReadonlyArray<readonly [id: string, metric: string, stat: string]> = [
  ['invocations', 'Invocations', 'Sum'],
  ['errors4xx', 'Invocation4XXErrors', 'Sum'],
  ['errors5xx', 'Invocation5XXErrors', 'Sum'],
  ['modelLatency', 'ModelLatency', 'Average'],
  ['modelLatencyP99', 'ModelLatency', 'p99'],
  ['overheadLatency', 'OverheadLatency', 'Average'],
];

/** A period fine enough to see, coarse enough to stay within a few hundred points. */
export const periodFor = (rangeSeconds: number): number => (rangeSeconds <= 3 * 3600 ? 60 : 300);

/** Lays GetMetricData results on the periods of [start, end). */
export function layout(results: readonly Result[], start: number, end: number, period: number): History {
  const x: number[] = [];
  for (let t = start; t < end; t += period) x.push(t);
  const index = new Map(x.map((t, i) => [t, i]));
  const series = (id: string, fill: number | null) => {
    const out: (number | null)[] = x.map(() => fill);
    const r = results.find((q) => q.Id === id);
    r?.Timestamps?.forEach((t, i) => {
      const s = typeof t === 'number' ? t : Date.parse(t) / 1000;
      const at = index.get(s);
      if (at !== undefined) out[at] = r.Values![i]!;
    });
    return out;
  };
  const ms = (v: number | null) => (v === null ? null : v / 1000);
  return {
    x,
    invocations: series('invocations', 0) as number[],
    errors4xx: series('errors4xx', 0) as number[],
    errors5xx: series('errors5xx', 0) as number[],
    modelLatency: series('modelLatency', null).map(ms),
    modelLatencyP99: series('modelLatencyP99', null).map(ms),
    overheadLatency: series('overheadLatency', null).map(ms),
  };
}
