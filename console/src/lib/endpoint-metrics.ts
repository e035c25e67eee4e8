// An endpoint's traffic over a time window: THE one place the endpoint charts get their points.
// Today the points come from what this tab sampled of Slipway's GET /metrics (sampler.ts) while an
// endpoint's page was open. Once the server keeps CloudWatch metric history (GetMetricStatistics on
// namespace AWS/SageMaker, dimensions EndpointName and VariantName: Invocations and
// Invocation4XXErrors/Invocation5XXErrors as Sum, ModelLatency/OverheadLatency as Average in
// microseconds), only endpointMetrics() changes: the charts take whatever window it returns.
import type { Interval } from './prometheus';
import { intervals } from './prometheus';
import { SAMPLE_MS, sample, samplesOf } from './sampler';

export type { Interval as MetricPoint } from './prometheus';

/** The time window a chart spans, epoch milliseconds. */
export interface MetricWindow {
  readonly start: number;
  readonly end: number;
}

export interface EndpointMetrics {
  /** One point per period inside the window, oldest first (`t` in epoch seconds, uPlot's x). */
  readonly points: readonly Interval[];
  /** When the source holds nothing before this (ms): the charts say so rather than draw zeros. */
  readonly since?: number;
  /** What the charts say under them about where the points come from. */
  readonly source: string;
  /** How often the page asks again (ms). */
  readonly refreshMs: number;
}

/** The windows the endpoint page offers, longest last. */
export const WINDOWS = [
  { key: '5m', label: 'Last 5 minutes', ms: 5 * 60_000 },
  { key: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { key: '1h', label: 'Last hour', ms: 60 * 60_000 },
  { key: '3h', label: 'Last 3 hours', ms: 3 * 60 * 60_000 },
] as const;

/**
 * The endpoint's invocations, errors, throttles and latencies in `window`. Each call also takes a
 * sample of /metrics now: the page calls it every `refreshMs`, which is what builds the history.
 */
export async function endpointMetrics(endpoint: string, window: MetricWindow): Promise<EndpointMetrics> {
  await sample([endpoint]);
  const samples = samplesOf(endpoint);
  return {
    points: inWindow(intervals(samples, 3 * SAMPLE_MS), window),
    since: samples[0]?.t,
    source: `Sampled from /metrics every ${SAMPLE_MS / 1000} s while an endpoint's page is open in this tab`,
    refreshMs: SAMPLE_MS,
  };
}

/** The points whose time falls inside the window. */
export function inWindow(points: readonly Interval[], w: MetricWindow): Interval[] {
  return points.filter((p) => p.t * 1000 >= w.start && p.t * 1000 <= w.end);
}
