// Statistics over periods, as CloudWatch computes them: points are grouped into periods that start
// at the (rounded) start time, one datapoint per period that has data (and per unit, when no unit
// is asked for), with SampleCount, Sum, Average, Minimum, Maximum and percentiles (pNN.NN).
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_GetMetricStatistics.html
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Statistics-definitions.html
import { MAX_EXACT_QUERY_VALUES, percentile } from './distribution.js';
import { type Aggregate, mergeAggregates } from './series.js';
import type { StoredPoint } from './store.js';

export const BASIC_STATISTICS = ['SampleCount', 'Average', 'Sum', 'Minimum', 'Maximum'] as const;
export type BasicStatistic = (typeof BASIC_STATISTICS)[number];

const PERCENTILE = /^p(\d{1,2}(\.\d{0,2})?|100(\.0{0,2})?)$/;

/** The percentile a `pNN.NN` statistic names, or undefined for anything else. */
export function percentileOf(stat: string): number | undefined {
  return PERCENTILE.test(stat) ? Number(stat.slice(1)) : undefined;
}

export const DAY_MS = 86_400_000;

/**
 * Where CloudWatch starts the periods of a query: the start time rounded down to the minute when
 * it is less than 15 days ago (to the second for high-resolution periods), to five minutes when
 * 15 to 63 days ago, to the hour beyond.
 */
export function roundStart(start: number, periodSeconds: number, now: number): number {
  const age = now - start;
  const unit = age > 63 * DAY_MS ? 3_600_000 : age > 15 * DAY_MS ? 300_000 : periodSeconds < 60 ? 1000 : 60_000;
  return start - (((start % unit) + unit) % unit);
}

export interface PeriodDatapoint {
  /** Start of the period, epoch ms. */
  readonly timestamp: number;
  readonly unit: string;
  readonly agg: Aggregate;
}

/**
 * One datapoint per period (and unit, when `byUnit`) holding data, in time order. Periods start at
 * `start` and last `periodMs`; points outside [start, end) are left out.
 */
export function periods(
  points: readonly StoredPoint[],
  start: number,
  end: number,
  periodMs: number,
  byUnit = true,
): PeriodDatapoint[] {
  // Keyed by period start (a number: cheaper than a string key); other units of the same period,
  // rare, in a small list beside it.
  const groups = new Map<number, Array<{ unit: string; parts: Aggregate[] }>>();
  for (const p of points) {
    if (p.ts < start || p.ts >= end) continue;
    const timestamp = start + Math.floor((p.ts - start) / periodMs) * periodMs;
    const list = groups.get(timestamp);
    if (!list) {
      groups.set(timestamp, [{ unit: p.unit, parts: [p.agg] }]);
      continue;
    }
    const g = byUnit ? list.find((x) => x.unit === p.unit) : list[0];
    if (g) g.parts.push(p.agg);
    else list.push({ unit: p.unit, parts: [p.agg] });
  }
  const out: PeriodDatapoint[] = [];
  for (const [timestamp, list] of groups) {
    for (const g of list) {
      out.push({
        timestamp,
        unit: g.unit,
        agg: g.parts.length === 1 ? g.parts[0]! : mergeAggregates(g.parts, MAX_EXACT_QUERY_VALUES),
      });
    }
  }
  return out.sort((a, b) => a.timestamp - b.timestamp || (a.unit < b.unit ? -1 : a.unit > b.unit ? 1 : 0));
}

/** A basic statistic of an aggregate. */
export function basic(agg: Aggregate, stat: BasicStatistic): number {
  switch (stat) {
    case 'SampleCount':
      return agg.count;
    case 'Sum':
      return agg.sum;
    case 'Average':
      return agg.count > 0 ? agg.sum / agg.count : 0;
    case 'Minimum':
      return agg.min;
    case 'Maximum':
      return agg.max;
  }
}

/**
 * Any statistic by name (GetMetricData's Stat): a basic one or pNN; undefined when it cannot be
 * computed (a percentile of statistic sets published without their values).
 */
export function statistic(agg: Aggregate, stat: string): number | undefined {
  if ((BASIC_STATISTICS as readonly string[]).includes(stat)) return basic(agg, stat as BasicStatistic);
  const p = percentileOf(stat);
  if (p === undefined || !agg.dist) return undefined;
  if (p === 0) return agg.min;
  if (p === 100) return agg.max;
  const v = percentile(agg.dist, p);
  // A folded distribution's bucket may reach past what was seen.
  return v === undefined ? undefined : Math.min(agg.max, Math.max(agg.min, v));
}
