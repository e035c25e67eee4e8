// PutMetricData's checks, worded as CloudWatch words them, and the points it writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PutMetricDataInput } from '../../generated/cloudwatch/shapes.js';
import { percentile } from '../../metrics/distribution.js';
import { cloudWatchError, queryParameterPath } from './index.js';
import { pointsOf } from './put-metric-data.js';
import { ValidationException } from '../../protocol/common-errors.js';

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const put = (MetricData: PutMetricDataInput['MetricData'], Namespace = 'App') =>
  pointsOf({ Namespace, MetricData }, NOW);
const refused = (fn: () => unknown, code: string, message: string | RegExp) =>
  assert.throws(fn, (e: { code: string; message: string }) => {
    assert.equal(e.code, code);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });

test('values, statistic sets and value/count arrays become points', () => {
  const [a, b, c] = put([
    { MetricName: 'A', Value: 2, Dimensions: [{ Name: 'H', Value: 'x' }] },
    {
      MetricName: 'B',
      StatisticValues: { SampleCount: 4, Sum: 10, Minimum: 1, Maximum: 4 },
      Unit: 'Seconds',
      StorageResolution: 1,
    },
    { MetricName: 'C', Values: [3, 1, 2], Counts: [1, 2, 0], Timestamp: new Date(NOW - 3600_000) },
  ]);
  assert.deepEqual([a!.agg.count, a!.agg.sum, a!.unit, a!.resolution, a!.timestamp], [1, 2, 'None', 60, NOW]);
  assert.deepEqual([b!.agg.count, b!.agg.sum, b!.agg.dist, b!.unit, b!.resolution], [4, 10, null, 'Seconds', 1]);
  assert.deepEqual([c!.agg.count, c!.agg.sum, c!.agg.min, c!.agg.max], [3, 3 + 1 * 2, 1, 3]);
  assert.equal(percentile(c!.agg.dist!, 50), 1);
});

test('refusals, as CloudWatch words them', () => {
  refused(
    () => put([{ MetricName: 'A', Value: 1 }], 'AWS/EC2'),
    'InvalidParameterValueException',
    'The value AWS/EC2 for parameter Namespace is invalid.',
  );
  refused(
    () => pointsOf({ Namespace: 'App' }, NOW),
    'MissingRequiredParameterException',
    'The parameter MetricData is required.',
  );
  refused(
    () => put(Array.from({ length: 1001 }, () => ({ MetricName: 'A', Value: 1 }))),
    'InvalidParameterValueException',
    'The collection MetricData must not have a size greater than 1000.',
  );
  refused(
    () => put([{ MetricName: 'A', Value: 1, Values: [1] }]),
    'InvalidParameterCombinationException',
    'The parameters MetricData.member.1.Value and MetricData.member.1.Values are mutually exclusive and you have specified both.',
  );
  refused(
    () => put([{ MetricName: 'A', Value: Number.NaN }]),
    'InvalidParameterValueException',
    'The value NaN for parameter MetricData.member.1.Value is invalid.',
  );
  refused(
    () => put([{ MetricName: 'A', Value: 2 ** 361 }]),
    'InvalidParameterValueException',
    /parameter MetricData.member.1.Value is invalid/,
  );
  refused(
    () => put([{ MetricName: 'A', Values: [1, 2], Counts: [1] }]),
    'InvalidParameterValueException',
    'The parameters MetricData.member.1.Values and MetricData.member.1.Counts must be of the same size.',
  );
  refused(
    () => put([{ MetricName: 'A', Values: Array.from({ length: 151 }, (_, i) => i) }]),
    'InvalidParameterValueException',
    'The collection MetricData.member.1.Values must not have a size greater than 150.',
  );
  refused(
    () =>
      put([
        {
          MetricName: 'A',
          Value: 1,
          Dimensions: Array.from({ length: 31 }, (_, i) => ({ Name: `d${i}`, Value: 'v' })),
        },
      ]),
    'InvalidParameterValueException',
    'The collection MetricData.member.1.Dimensions must not have a size greater than 30.',
  );
  refused(
    () => put([{ MetricName: 'A', Value: 1, StorageResolution: 5 }]),
    'InvalidParameterValueException',
    'The value 5 for parameter MetricData.member.1.StorageResolution is invalid.',
  );
  refused(
    () =>
      put([
        { MetricName: 'A', Value: 1, Timestamp: new Date(NOW - 15 * 86_400_000) },
        { MetricName: 'A', Value: 1 },
        { MetricName: 'A', Value: 1, Timestamp: new Date(NOW + 3 * 3_600_000) },
      ]),
    'InvalidParameterValueException',
    'The parameter MetricData.member.1.Timestamp must specify a time within the past two weeks.\nThe parameter MetricData.member.3.Timestamp must specify a time no more than two hours in the future.',
  );
  refused(() => put([{ MetricName: 'A' }]), 'MissingRequiredParameterException', /MetricData.member.1.Value/);
});

test("the model's generic validation answers in CloudWatch's codes", () => {
  assert.equal(
    queryParameterPath('metricData.1.member.dimensions.2.member.name'),
    'MetricData.member.1.Dimensions.member.2.Name',
  );
  const missing = cloudWatchError(
    new ValidationException(
      "1 validation error detected: Value null at 'metricData.1.member.metricName' failed to satisfy constraint: Member must not be null",
    ),
  );
  assert.equal(missing.code, 'MissingRequiredParameterException');
  assert.equal(missing.message, 'The parameter MetricData.member.1.MetricName is required.');
  assert.equal(
    cloudWatchError(new ValidationException('1 validation error detected: x')).code,
    'InvalidParameterValueException',
  );
});
