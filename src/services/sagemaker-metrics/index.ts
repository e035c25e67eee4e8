// SageMaker Metrics: BatchPutMetrics (what the SageMaker Python SDK's Run.log_metric sends) writes
// a run's values to the metrics store, each with its time and step, and keeps the trial
// component's metric summaries (Min, Max, Avg, StdDev, Last, Count) in step, in one transaction;
// BatchGetMetrics reads them back per step or per period, for trial components and training jobs.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_metrics_BatchPutMetrics.html
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_metrics_BatchGetMetrics.html
import { entityArn } from '../../lineage/entities.js';
import type { StoredMetricSummary } from '../../lineage/job-recorder.js';
import type { SageMakerMetricsHandlers } from '../../generated/sagemaker-metrics/handlers.js';
import type {
  BatchPutMetricsError,
  MetricQuery,
  MetricQueryResult,
  RawMetricData,
} from '../../generated/sagemaker-metrics/shapes.js';
import type { Metrics } from '../../metrics/index.js';
import { type Aggregate, aggregateOf, mergeAggregates, SAGEMAKER_METRICS_NAMESPACE } from '../../metrics/series.js';
import type { FreshSeries, PointInput, StoredPoint } from '../../metrics/store.js';
import type { ServiceDeps } from '../common/deps.js';
import { entityKind } from '../sagemaker/lineage-common.js';

const TWO_WEEKS_MS = 14 * 86_400_000;
const TWO_HOURS_MS = 2 * 3_600_000;
/** Points a BatchGetMetrics query returns at most (then its Status is Truncated). */
const MAX_QUERY_POINTS = 10_000;
const PERIOD_MS = { OneMinute: 60_000, FiveMinute: 300_000, OneHour: 3_600_000 } as const;

/** The series a resource's metric is kept in (a trial component's or a training job's). */
export const runSeries = (resourceArn: string, metricName: string) => ({
  namespace: SAGEMAKER_METRICS_NAMESPACE,
  metricName,
  dimensions: [{ Name: 'ResourceArn', Value: resourceArn }],
});

/** A trial component's metric summary as its document keeps it, with what updating it needs. */
export type RunMetricSummary = StoredMetricSummary & { SumOfSquares?: number };

/** Folds new values into a trial component's summaries (Last is the value with the latest timestamp). */
export function updateSummaries(
  summaries: RunMetricSummary[] | undefined,
  values: ReadonlyArray<{ name: string; value: number; at: number }>,
): RunMetricSummary[] {
  const byName = new Map((summaries ?? []).map((s) => [s.MetricName!, { ...s }]));
  for (const { name, value, at } of values) {
    const s = byName.get(name);
    if (!s) {
      byName.set(name, {
        MetricName: name,
        TimeStamp: at,
        Min: value,
        Max: value,
        Last: value,
        Count: 1,
        Avg: value,
        StdDev: 0,
        SumOfSquares: value * value,
      });
      continue;
    }
    const n = (s.Count ?? 0) + 1;
    const sum = (s.Avg ?? 0) * (n - 1) + value;
    const sumSq = (s.SumOfSquares ?? (s.Avg ?? 0) ** 2 * (n - 1)) + value * value;
    s.Count = n;
    s.Avg = sum / n;
    s.SumOfSquares = sumSq;
    // Sample standard deviation, as the summaries of training-job metrics have it.
    s.StdDev = n > 1 ? Math.sqrt(Math.max(0, (sumSq - (sum * sum) / n) / (n - 1))) : 0;
    s.Min = Math.min(s.Min ?? value, value);
    s.Max = Math.max(s.Max ?? value, value);
    if (at >= (s.TimeStamp ?? 0)) {
      s.TimeStamp = at;
      s.Last = value;
    }
  }
  return [...byName.values()];
}

/** Why a value is refused (its Errors entry), or undefined when it is accepted. */
function refusal(d: RawMetricData, now: number): BatchPutMetricsError['Code'] | undefined {
  const at = d.Timestamp.getTime();
  if (!Number.isFinite(d.Value) || Number.isNaN(at)) return 'VALIDATION_ERROR';
  // The SDK says it too: "Timestamps must be between two weeks before and two hours from now."
  if (at < now - TWO_WEEKS_MS || at > now + TWO_HOURS_MS) return 'VALIDATION_ERROR';
  return undefined;
}

function standardDeviation(a: Aggregate): number {
  if (a.count <= 1 || !a.dist) return 0;
  const mean = a.sum / a.count;
  let sq = 0;
  for (let i = 0; i < a.dist.values.length; i++) sq += a.dist.counts[i]! * (a.dist.values[i]! - mean) ** 2;
  return Math.sqrt(sq / (a.count - 1));
}

/** The values of one query over a series' points: by step, or by period of time. */
export function queryValues(points: readonly StoredPoint[], q: MetricQuery): MetricQueryResult {
  const byStep = q.XAxisType === 'IterationNumber';
  if (!byStep && q.Period === 'IterationNumber') {
    return {
      Status: 'ValidationError',
      Message: 'Period IterationNumber needs XAxisType IterationNumber.',
      XAxisValues: [],
      MetricValues: [],
    };
  }
  const periodMs = byStep ? 0 : PERIOD_MS[q.Period as keyof typeof PERIOD_MS];
  const groups = new Map<number, { parts: Aggregate[]; lastAt: number; last: number }>();
  for (const p of points) {
    if (byStep && p.step < 0) continue;
    const x = byStep ? p.step : Math.floor(p.ts / periodMs) * (periodMs / 1000);
    if ((q.Start !== undefined && x < q.Start) || (q.End !== undefined && x > q.End)) continue;
    const avg = p.agg.sum / p.agg.count;
    const g = groups.get(x);
    if (!g) groups.set(x, { parts: [p.agg], lastAt: p.ts, last: avg });
    else {
      g.parts.push(p.agg);
      if (p.ts >= g.lastAt) {
        g.lastAt = p.ts;
        g.last = avg;
      }
    }
  }
  const xs = [...groups.keys()].sort((a, b) => a - b);
  const truncated = xs.length > MAX_QUERY_POINTS;
  const XAxisValues = xs.slice(0, MAX_QUERY_POINTS);
  const MetricValues = XAxisValues.map((x): number => {
    const g = groups.get(x)!;
    const a = g.parts.length === 1 ? g.parts[0]! : mergeAggregates(g.parts);
    switch (q.MetricStat) {
      case 'Min':
        return a.min;
      case 'Max':
        return a.max;
      case 'Avg':
        return a.sum / a.count;
      case 'Count':
        return a.count;
      case 'StdDev':
        return standardDeviation(a);
      default:
        return g.last;
    }
  });
  return { Status: truncated ? 'Truncated' : 'Complete', XAxisValues, MetricValues };
}

export function createSageMakerMetricsHandlers(deps: ServiceDeps, metrics: Metrics): SageMakerMetricsHandlers {
  const components = entityKind<{ Metrics?: RunMetricSummary[] }>(deps, 'experiment-trial-component', 'name');
  return {
    async batchPutMetrics(input, ctx) {
      const errors: BatchPutMetricsError[] = [];
      const accepted: RawMetricData[] = [];
      input.MetricData.forEach((d, i) => {
        const code = refusal(d, ctx.receivedAt);
        if (code) errors.push({ Code: code, MetricIndex: i });
        else accepted.push(d);
      });
      if (accepted.length > 0) {
        const arn = entityArn(ctx, 'experiment-trial-component', input.TrialComponentName);
        const fresh: FreshSeries = new Map();
        await components.update(ctx, input.TrialComponentName, async (doc, row, tx) => {
          const points: PointInput[] = accepted.map((d) => ({
            series: runSeries(row.arn ?? arn, d.MetricName),
            timestamp: d.Timestamp.getTime(),
            unit: 'None',
            resolution: 1,
            step: d.Step ?? -1,
            agg: aggregateOf(d.Value),
          }));
          await metrics.store.append(tx, ctx, points, ctx.receivedAt, fresh);
          doc.Metrics = updateSummaries(
            doc.Metrics,
            accepted.map((d) => ({ name: d.MetricName, value: d.Value, at: d.Timestamp.getTime() })),
          );
        });
        metrics.store.remember(fresh);
      }
      return errors.length > 0 ? { Errors: errors } : {};
    },

    async batchGetMetrics(input, ctx) {
      const MetricQueryResults: MetricQueryResult[] = [];
      for (const q of input.MetricQueries) {
        const id = await metrics.store.findSeries(metrics.db, ctx, runSeries(q.ResourceArn, q.MetricName));
        const points =
          id === undefined
            ? []
            : await metrics.store.read(metrics.db, id, {
                from: 0,
                to: Number.MAX_SAFE_INTEGER,
                withDist: q.MetricStat === 'StdDev',
              });
        MetricQueryResults.push(queryValues(points, q));
      }
      return { MetricQueryResults };
    },
  };
}
