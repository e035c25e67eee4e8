// GetMetricStatistics and GetMetricData: statistics of one series per period, from the metrics
// store, with CloudWatch's checks (period 1, 5, 10, 30 or a multiple of 60; at most 1,440
// datapoints for GetMetricStatistics; Statistics or ExtendedStatistics; Ids starting lower-case).
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_GetMetricStatistics.html
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_GetMetricData.html
import type { Partition } from '../../domain/arn.js';
import type { PageTokens } from '../../domain/page-token.js';
import {
  InvalidNextToken,
  InvalidParameterCombinationException,
  InvalidParameterValueException,
  MissingRequiredParameterException,
} from '../../generated/cloudwatch/errors.js';
import type {
  Datapoint,
  Dimension,
  GetMetricDataInput,
  GetMetricDataOutput,
  GetMetricStatisticsInput,
  GetMetricStatisticsOutput,
  MetricDataResult,
  StandardUnit,
} from '../../generated/cloudwatch/shapes.js';
import type { Metrics } from '../../metrics/index.js';
import { mergeAggregates } from '../../metrics/series.js';
import { basic, percentileOf, periods, roundStart, statistic, type PeriodDatapoint } from '../../metrics/statistics.js';

export const MAX_STATISTICS_DATAPOINTS = 1440;
export const MAX_QUERIES = 500;
const DEFAULT_MAX_DATAPOINTS = 100_800;
const HIGH_RESOLUTION_PERIODS = new Set([1, 5, 10, 30]);

export function checkPeriod(period: number, path: string): void {
  if (!(HIGH_RESOLUTION_PERIODS.has(period) || (period >= 60 && period % 60 === 0))) {
    throw new InvalidParameterValueException(`The parameter ${path} must be 1, 5, 10, 30, or a multiple of 60.`);
  }
}

export function checkRange(start: Date, end: Date): void {
  if (start.getTime() === end.getTime()) {
    throw new InvalidParameterValueException('The parameter StartTime must not equal parameter EndTime.');
  }
  if (start.getTime() > end.getTime()) {
    throw new InvalidParameterValueException('The parameter StartTime must be less than the parameter EndTime.');
  }
}

/** The periods of one series in [start, end): what both operations read. */
async function readPeriods(
  metrics: Metrics,
  p: Partition,
  q: { namespace: string; metricName: string; dimensions: readonly Dimension[]; unit?: string },
  start: number,
  end: number,
  periodSeconds: number,
  withDist: boolean,
): Promise<PeriodDatapoint[]> {
  const id = await metrics.store.findSeries(metrics.db, p, q);
  if (id === undefined) return [];
  const points = await metrics.store.read(metrics.db, id, { from: start, to: end, unit: q.unit, withDist });
  return periods(points, start, end, periodSeconds * 1000, q.unit === undefined);
}

const formatCount = (n: number) => n.toLocaleString('en-US');

export async function getMetricStatistics(
  metrics: Metrics,
  input: GetMetricStatisticsInput,
  p: Partition,
  now: number,
): Promise<GetMetricStatisticsOutput> {
  checkRange(input.StartTime, input.EndTime);
  checkPeriod(input.Period, 'Period');
  const stats = input.Statistics ?? [];
  const extended = input.ExtendedStatistics ?? [];
  if (stats.length > 0 && extended.length > 0) {
    throw new InvalidParameterCombinationException(
      'The parameters Statistics and ExtendedStatistics are mutually exclusive and you have specified both.',
    );
  }
  if (stats.length === 0 && extended.length === 0) {
    throw new MissingRequiredParameterException('Either the parameter Statistics or ExtendedStatistics is required.');
  }
  for (const [i, e] of extended.entries()) {
    if (percentileOf(e) === undefined) {
      throw new InvalidParameterValueException(
        `The value ${e} for parameter ExtendedStatistics.member.${i + 1} is not supported.`,
      );
    }
  }
  const start = roundStart(input.StartTime.getTime(), input.Period, now);
  const end = input.EndTime.getTime();
  const requested = Math.ceil((end - start) / (input.Period * 1000));
  if (requested > MAX_STATISTICS_DATAPOINTS) {
    throw new InvalidParameterCombinationException(
      `You have requested up to ${formatCount(requested)} datapoints, which exceeds the limit of ${formatCount(MAX_STATISTICS_DATAPOINTS)}. You may reduce the datapoints requested by increasing Period, or decreasing the time range.`,
    );
  }
  const dps = await readPeriods(
    metrics,
    p,
    { namespace: input.Namespace, metricName: input.MetricName, dimensions: input.Dimensions ?? [], unit: input.Unit },
    start,
    end,
    input.Period,
    extended.length > 0,
  );
  return {
    Label: input.MetricName,
    Datapoints: dps.map((d) => {
      const out: Datapoint = { Timestamp: new Date(d.timestamp) };
      for (const s of stats) out[s] = basic(d.agg, s);
      if (extended.length > 0) {
        const values: Record<string, number> = {};
        for (const e of extended) {
          const v = statistic(d.agg, e);
          if (v !== undefined) values[e] = v;
        }
        out.ExtendedStatistics = values;
      }
      out.Unit = d.unit as StandardUnit;
      return out;
    }),
  };
}

const METRIC_ID = /^[a-z][a-zA-Z0-9_]*$/;

export async function getMetricData(
  metrics: Metrics,
  tokens: PageTokens,
  input: GetMetricDataInput,
  p: Partition,
  now: number,
): Promise<GetMetricDataOutput> {
  checkRange(input.StartTime, input.EndTime);
  const queries = input.MetricDataQueries;
  if (queries.length === 0) throw new MissingRequiredParameterException('The parameter MetricDataQueries is required.');
  if (queries.length > MAX_QUERIES) {
    throw new InvalidParameterValueException(
      `The collection MetricDataQueries must not have a size greater than ${MAX_QUERIES}.`,
    );
  }
  const ids = new Set<string>();
  for (const [i, q] of queries.entries()) {
    const path = `MetricDataQueries.member.${i + 1}`;
    if (!METRIC_ID.test(q.Id))
      throw new InvalidParameterValueException(`The value ${q.Id} for parameter ${path}.Id is invalid.`);
    if (ids.has(q.Id))
      throw new InvalidParameterValueException(`The value ${q.Id} for parameter ${path}.Id is not unique.`);
    ids.add(q.Id);
    if ((q.MetricStat === undefined) === (q.Expression === undefined)) {
      throw new InvalidParameterCombinationException(
        `Exactly one of ${path}.MetricStat and ${path}.Expression must be specified.`,
      );
    }
    if (q.Expression !== undefined) {
      // DEVIATION(aws): metric math and Metrics Insights queries are not evaluated.
      throw new InvalidParameterValueException(
        `The parameter ${path}.Expression is not supported by this server; query each metric with MetricStat.`,
      );
    }
    checkPeriod(q.MetricStat!.Period, `${path}.MetricStat.Period`);
    const stat = q.MetricStat!.Stat;
    if (!(['SampleCount', 'Average', 'Sum', 'Minimum', 'Maximum'].includes(stat) || percentileOf(stat) !== undefined)) {
      throw new InvalidParameterValueException(
        `The value ${stat} for parameter ${path}.MetricStat.Stat is not supported.`,
      );
    }
  }
  const scope = `GetMetricData|${p.accountId}|${p.region}|${JSON.stringify([queries, input.StartTime, input.EndTime, input.ScanBy])}`;
  let skip = 0;
  if (input.NextToken !== undefined) {
    try {
      skip = tokens.decode<number>(scope, input.NextToken);
    } catch {
      throw new InvalidNextToken('The service couldn’t process the NextToken: it is not one this query returned.');
    }
  }
  const descending = (input.ScanBy ?? 'TimestampDescending') === 'TimestampDescending';
  const results: MetricDataResult[] = [];
  for (const q of queries) {
    const ms = q.MetricStat!;
    const start = roundStart(input.StartTime.getTime(), ms.Period, now);
    const dps = await readPeriods(
      metrics,
      p,
      {
        namespace: ms.Metric.Namespace ?? '',
        metricName: ms.Metric.MetricName ?? '',
        dimensions: ms.Metric.Dimensions ?? [],
        unit: ms.Unit,
      },
      start,
      input.EndTime.getTime(),
      ms.Period,
      percentileOf(ms.Stat) !== undefined,
    );
    // One value per period: units published side by side are combined here, as GetMetricData does.
    const byTime = new Map<number, PeriodDatapoint[]>();
    for (const d of dps) byTime.set(d.timestamp, [...(byTime.get(d.timestamp) ?? []), d]);
    const pairs: Array<[number, number]> = [];
    for (const [t, ds] of byTime) {
      const agg = ds.length === 1 ? ds[0]!.agg : mergeAggregates(ds.map((d) => d.agg));
      const v = statistic(agg, ms.Stat);
      if (v !== undefined) pairs.push([t, v]);
    }
    pairs.sort((a, b) => (descending ? b[0] - a[0] : a[0] - b[0]));
    if (q.ReturnData === false) continue;
    results.push({
      Id: q.Id,
      Label: q.Label ?? ms.Metric.MetricName,
      Timestamps: pairs.map(([t]) => new Date(t)),
      Values: pairs.map(([, v]) => v),
      StatusCode: 'Complete',
    });
  }
  // Pages of MaxDatapoints values across the results, in order.
  const max = input.MaxDatapoints ?? DEFAULT_MAX_DATAPOINTS;
  if (max <= 0) throw new InvalidParameterValueException('The parameter MaxDatapoints must be greater than 0.');
  let offset = 0;
  let budget = max;
  let truncated = false;
  for (const r of results) {
    const n = r.Timestamps!.length;
    const from = Math.min(n, Math.max(0, skip - offset));
    offset += n;
    const take = Math.min(n - from, budget);
    if (from + take < n) {
      r.StatusCode = 'PartialData';
      truncated = true;
    }
    r.Timestamps = r.Timestamps!.slice(from, from + take);
    r.Values = r.Values!.slice(from, from + take);
    budget -= take;
  }
  return {
    MetricDataResults: results,
    NextToken: truncated ? tokens.encode(scope, skip + max) : undefined,
    Messages: [],
  };
}
