// PutMetricData: data points, statistic sets or value/count arrays for custom metrics, checked as
// CloudWatch checks them (at most 1,000 metrics, 30 dimensions and 150 values each; timestamps
// within the past two weeks and two hours ahead; finite values within ±2^360; no AWS/ namespace).
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricData.html
import {
  InvalidParameterCombinationException,
  InvalidParameterValueException,
  MissingRequiredParameterException,
} from '../../generated/cloudwatch/errors.js';
import type { MetricDatum, PutMetricDataInput } from '../../generated/cloudwatch/shapes.js';
import { fromValues } from '../../metrics/distribution.js';
import { type Aggregate, aggregateOf, statisticSet } from '../../metrics/series.js';
import type { PointInput } from '../../metrics/store.js';

export const MAX_METRIC_DATA = 1000;
export const MAX_DIMENSIONS = 30;
export const MAX_VALUES = 150;
const TWO_WEEKS_MS = 14 * 86_400_000;
const TWO_HOURS_MS = 2 * 3_600_000;
/** CloudWatch refuses values beyond ±2^360. */
const MAX_MAGNITUDE = 2 ** 360;

function checkValue(v: number, path: string): void {
  if (!Number.isFinite(v) || Math.abs(v) > MAX_MAGNITUDE) {
    throw new InvalidParameterValueException(`The value ${v} for parameter ${path} is invalid.`);
  }
}

/** The aggregate a datum carries, from exactly one of Value, StatisticValues and Values. */
function aggregateOfDatum(d: MetricDatum, path: string): Aggregate {
  const given = (['Value', 'StatisticValues', 'Values'] as const).filter((k) => d[k] !== undefined);
  if (given.length > 1) {
    throw new InvalidParameterCombinationException(
      `The parameters ${path}.${given[0]} and ${path}.${given[1]} are mutually exclusive and you have specified both.`,
    );
  }
  if (d.Counts !== undefined && d.Values === undefined) {
    throw new InvalidParameterCombinationException(`The parameter ${path}.Counts requires ${path}.Values.`);
  }
  if (d.Value !== undefined) {
    checkValue(d.Value, `${path}.Value`);
    return aggregateOf(d.Value);
  }
  if (d.StatisticValues) {
    const s = d.StatisticValues;
    for (const k of ['SampleCount', 'Sum', 'Minimum', 'Maximum'] as const)
      checkValue(s[k], `${path}.StatisticValues.${k}`);
    if (s.SampleCount <= 0) {
      throw new InvalidParameterValueException(
        `The parameter ${path}.StatisticValues.SampleCount must be greater than 0.`,
      );
    }
    if (s.Minimum > s.Maximum) {
      throw new InvalidParameterValueException(
        `The parameter ${path}.StatisticValues.Maximum must be greater than or equal to ${path}.StatisticValues.Minimum.`,
      );
    }
    return statisticSet(s.SampleCount, s.Sum, s.Minimum, s.Maximum);
  }
  if (d.Values) {
    if (d.Values.length > MAX_VALUES) {
      throw new InvalidParameterValueException(
        `The collection ${path}.Values must not have a size greater than ${MAX_VALUES}.`,
      );
    }
    if (d.Counts && d.Counts.length !== d.Values.length) {
      throw new InvalidParameterValueException(
        `The parameters ${path}.Values and ${path}.Counts must be of the same size.`,
      );
    }
    for (const [i, v] of d.Values.entries()) checkValue(v, `${path}.Values.member.${i + 1}`);
    for (const [i, c] of (d.Counts ?? []).entries()) {
      checkValue(c, `${path}.Counts.member.${i + 1}`);
      if (c < 0)
        throw new InvalidParameterValueException(
          `The value ${c} for parameter ${path}.Counts.member.${i + 1} is invalid.`,
        );
    }
    const dist = fromValues(d.Values, d.Counts);
    let count = 0;
    let sum = 0;
    for (let i = 0; i < dist.values.length; i++) {
      count += dist.counts[i]!;
      sum += dist.values[i]! * dist.counts[i]!;
    }
    if (count === 0)
      throw new InvalidParameterValueException(
        `The parameter ${path}.Values must hold at least one value with a count.`,
      );
    return { count, sum, min: dist.values[0]!, max: dist.values[dist.values.length - 1]!, dist };
  }
  throw new MissingRequiredParameterException(
    `One of the parameters ${path}.Value, ${path}.StatisticValues or ${path}.Values is required.`,
  );
}

/** The points a PutMetricData request writes, or the error CloudWatch answers it with. */
export function pointsOf(input: PutMetricDataInput, now: number): PointInput[] {
  if (input.Namespace.startsWith('AWS/')) {
    throw new InvalidParameterValueException(`The value ${input.Namespace} for parameter Namespace is invalid.`);
  }
  // EntityMetricData carries its data points the same way; the entity itself is not kept.
  const data: Array<[MetricDatum, string]> = (input.MetricData ?? []).map((d, i) => [d, `MetricData.member.${i + 1}`]);
  for (const [i, e] of (input.EntityMetricData ?? []).entries()) {
    for (const [j, d] of (e.MetricData ?? []).entries())
      data.push([d, `EntityMetricData.member.${i + 1}.MetricData.member.${j + 1}`]);
  }
  if (input.MetricData === undefined && input.EntityMetricData === undefined) {
    throw new MissingRequiredParameterException('The parameter MetricData is required.');
  }
  if (data.length > MAX_METRIC_DATA) {
    throw new InvalidParameterValueException(
      `The collection MetricData must not have a size greater than ${MAX_METRIC_DATA}.`,
    );
  }
  const timeErrors: string[] = [];
  const points: PointInput[] = [];
  for (const [d, path] of data) {
    const dims = d.Dimensions ?? [];
    if (dims.length > MAX_DIMENSIONS) {
      throw new InvalidParameterValueException(
        `The collection ${path}.Dimensions must not have a size greater than ${MAX_DIMENSIONS}.`,
      );
    }
    const names = new Set<string>();
    dims.forEach((x, i) => {
      if (names.has(x.Name)) {
        throw new InvalidParameterValueException(
          `The value ${x.Name} for parameter ${path}.Dimensions.member.${i + 1}.Name is a duplicate of another dimension name.`,
        );
      }
      names.add(x.Name);
    });
    const resolution = d.StorageResolution ?? 60;
    if (resolution !== 1 && resolution !== 60) {
      throw new InvalidParameterValueException(
        `The value ${resolution} for parameter ${path}.StorageResolution is invalid.`,
      );
    }
    const at = d.Timestamp?.getTime() ?? now;
    if (at < now - TWO_WEEKS_MS)
      timeErrors.push(`The parameter ${path}.Timestamp must specify a time within the past two weeks.`);
    else if (at > now + TWO_HOURS_MS) {
      timeErrors.push(`The parameter ${path}.Timestamp must specify a time no more than two hours in the future.`);
    }
    points.push({
      series: { namespace: input.Namespace, metricName: d.MetricName, dimensions: dims },
      timestamp: at,
      unit: d.Unit ?? 'None',
      resolution,
      agg: aggregateOfDatum(d, path),
    });
  }
  // CloudWatch lists every out-of-range timestamp, one line each.
  if (timeErrors.length > 0) throw new InvalidParameterValueException(timeErrors.join('\n'));
  return points;
}
