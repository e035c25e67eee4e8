// An endpoint's traffic over a time window: THE one place the endpoint charts get their points. They
// come from the metric history the server keeps as CloudWatch does (namespace AWS/SageMaker, by
// EndpointName and VariantName, a data point a minute), read with one GetMetricData
// (endpoint-history.ts lays the answer on the window's periods).
import { cloudWatch } from '../api/client';
import { type History, layout, periodFor, QUERIES, type Result } from './endpoint-history';

/** The time window a chart spans, epoch milliseconds. */
export interface MetricWindow {
  readonly start: number;
  readonly end: number;
}

export interface MetricPoint {
  /** Start of the period, seconds since the epoch (uPlot's x). */
  readonly t: number;
  readonly invocations: number;
  readonly errors4xx: number;
  readonly errors5xx: number;
  /** Model latency of the period's invocations, ms (null when there were none). */
  readonly latencyMs: number | null;
  readonly latencyP99Ms: number | null;
  readonly overheadMs: number | null;
}

export interface EndpointMetrics {
  /** One point per period inside the window, oldest first. */
  readonly points: readonly MetricPoint[];
  /** Seconds each point covers. */
  readonly period: number;
  /** What the charts say under them about where the points come from. */
  readonly source: string;
  /** How often the page asks again (ms). */
  readonly refreshMs: number;
}

/** The windows the endpoint page offers, longest last. */
export const WINDOWS = [
  { key: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { key: '1h', label: 'Last hour', ms: 60 * 60_000 },
  { key: '3h', label: 'Last 3 hours', ms: 3 * 60 * 60_000 },
  { key: '1d', label: 'Last day', ms: 24 * 60 * 60_000 },
] as const;

/** The window shown until the user picks another: an hour, sixty one-minute points. */
export const DEFAULT_WINDOW = '1h';

/** The stored history an endpoint's variant has in `window`. */
export async function endpointMetrics(
  endpoint: string,
  variant: string,
  window: MetricWindow,
  signal?: AbortSignal,
): Promise<EndpointMetrics> {
  const period = periodFor((window.end - window.start) / 1000);
  const endS = Math.floor(window.end / 1000);
  const end = endS - (endS % period) + period;
  const start = end - Math.ceil((window.end - window.start) / 1000 / period) * period;
  const dims = [
    { Name: 'EndpointName', Value: endpoint },
    { Name: 'VariantName', Value: variant },
  ];
  const r = await cloudWatch<{ MetricDataResults?: Result[] }>(
    'GetMetricData',
    {
      StartTime: start,
      EndTime: end,
      ScanBy: 'TimestampAscending',
      MetricDataQueries: QUERIES.map(([Id, MetricName, Stat]) => ({
        Id,
        MetricStat: { Metric: { Namespace: 'AWS/SageMaker', MetricName, Dimensions: dims }, Period: period, Stat },
      })),
    },
    signal,
  );
  return {
    points: points(layout(r.MetricDataResults ?? [], start, end, period)),
    period,
    source: `CloudWatch's AWS/SageMaker metrics of variant ${variant}, one data point per ${period / 60} min (each written as its minute ends)`,
    refreshMs: 30_000,
  };
}

function points(h: History): MetricPoint[] {
  return h.x.map((t, i) => ({
    t,
    invocations: h.invocations[i]!,
    errors4xx: h.errors4xx[i]!,
    errors5xx: h.errors5xx[i]!,
    latencyMs: h.modelLatency[i] ?? null,
    latencyP99Ms: h.modelLatencyP99[i] ?? null,
    overheadMs: h.overheadLatency[i] ?? null,
  }));
}
