// What identifies a time series (CloudWatch's metric): a namespace, a metric name and a set of
// dimensions, compared as a set (order does not matter, names are unique). And what a stored
// point holds: a statistic set over its interval and, when known, the values behind it.
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_concepts.html#Metric
import { type Distribution, merge as mergeDist, single } from './distribution.js';

export interface Dimension {
  readonly Name: string;
  readonly Value: string;
}

export interface SeriesKey {
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: readonly Dimension[];
}

/** The canonical text of a dimension set: JSON pairs sorted by name (compared and stored as is). */
export function dimensionsKey(dims: readonly Dimension[]): string {
  if (dims.length === 0) return '[]';
  const pairs = dims.map((d) => [d.Name, d.Value] as const);
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return JSON.stringify(pairs);
}

export function parseDimensions(key: string): Dimension[] {
  return (JSON.parse(key) as Array<[string, string]>).map(([Name, Value]) => ({ Name, Value }));
}

/** A statistic set; `dist` holds the values behind it, or null when only the set is known. */
export interface Aggregate {
  count: number;
  sum: number;
  min: number;
  max: number;
  dist: Distribution | null;
}

export function aggregateOf(value: number, count = 1): Aggregate {
  return { count, sum: value * count, min: value, max: value, dist: single(value, count) };
}

/**
 * A statistic set given without its values: percentiles are known only when every sample had the
 * same value (SampleCount 1, or Minimum equal to Maximum), as CloudWatch says.
 */
export function statisticSet(count: number, sum: number, min: number, max: number): Aggregate {
  return { count, sum, min, max, dist: count > 0 && min === max ? single(min, count) : null };
}

/**
 * Merges statistic sets; their distributions stay exact up to `maxExact` distinct values. Parts
 * holding one value each (single data points, the bulk of what is written) are sorted together
 * in one typed array instead of being merged one by one.
 */
export function mergeAggregates(parts: readonly Aggregate[], maxExact?: number): Aggregate {
  let count = 0;
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let withDist = true;
  let singles = 0;
  for (const p of parts) {
    count += p.count;
    sum += p.sum;
    if (p.min < min) min = p.min;
    if (p.max > max) max = p.max;
    if (!p.dist) withDist = false;
    else if (p.dist.values.length === 1) singles++;
  }
  if (!withDist) return { count, sum, min, max, dist: null };
  const dists: Distribution[] = [];
  if (singles > 1) {
    const values = new Float64Array(singles);
    const counts = new Float64Array(singles);
    let k = 0;
    let ones = true;
    for (const p of parts) {
      if (p.dist!.values.length !== 1) {
        dists.push(p.dist!);
        continue;
      }
      values[k] = p.dist!.values[0]!;
      counts[k] = p.dist!.counts[0]!;
      if (counts[k] !== 1) ones = false;
      k++;
    }
    dists.push(ones ? runs(values.sort()) : sortedPairs(values, counts));
  } else for (const p of parts) dists.push(p.dist!);
  return { count, sum, min, max, dist: mergeDist(dists, maxExact) };
}

/** Sorted values, each seen once → the distinct values and how often each was seen. */
function runs(sorted: Float64Array): Distribution {
  const values = new Float64Array(sorted.length);
  const counts = new Float64Array(sorted.length);
  let n = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (n > 0 && values[n - 1] === sorted[i]) counts[n - 1]!++;
    else {
      values[n] = sorted[i]!;
      counts[n++] = 1;
    }
  }
  return { values: values.subarray(0, n), counts: counts.subarray(0, n) };
}

function sortedPairs(values: Float64Array, counts: Float64Array): Distribution {
  const order = Uint32Array.from(values.keys()).sort((a, b) => values[a]! - values[b]!);
  const v = new Float64Array(values.length);
  const c = new Float64Array(values.length);
  let n = 0;
  for (const i of order) {
    if (n > 0 && v[n - 1] === values[i]) c[n - 1]! += counts[i]!;
    else {
      v[n] = values[i]!;
      c[n++] = counts[i]!;
    }
  }
  return { values: v.subarray(0, n), counts: c.subarray(0, n) };
}

/** Namespaces Slipway keeps for itself start with `:`, which CloudWatch's Namespace pattern (`[^:].*`) refuses. */
export const SAGEMAKER_METRICS_NAMESPACE = ':sagemaker-metrics';
export const isInternalNamespace = (ns: string) => ns.startsWith(':');
