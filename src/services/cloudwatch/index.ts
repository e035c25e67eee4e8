// The CloudWatch metrics API over the metrics store (src/metrics): PutMetricData, GetMetricStatistics,
// GetMetricData and ListMetrics, on every wire form clients speak (query, JSON 1.0, RPC v2 CBOR).
// SageMaker's own namespaces (AWS/SageMaker, /aws/sagemaker/TrainingJobs) are written by Slipway.
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/Welcome.html
import type { PageTokens } from '../../domain/page-token.js';
import {
  InvalidParameterValueException,
  MissingRequiredParameterException,
} from '../../generated/cloudwatch/errors.js';
import type { CloudWatchHandlers } from '../../generated/cloudwatch/handlers.js';
import type { Metrics } from '../../metrics/index.js';
import type { ServiceError } from '../../protocol/service-error.js';
import { getMetricData, getMetricStatistics } from './get-metrics.js';
import { listMetrics } from './list-metrics.js';
import { pointsOf } from './put-metric-data.js';

export function createCloudWatchHandlers(metrics: Metrics, tokens: PageTokens): CloudWatchHandlers {
  return {
    async putMetricData(input, ctx) {
      const points = pointsOf(input, ctx.receivedAt);
      // A request of 1,000 values is a few milliseconds of work: requests that arrived meanwhile
      // (an InvokeEndpoint) are served between reading it and writing it, not after both.
      await new Promise((r) => setImmediate(r));
      await metrics.write(ctx, points, ctx.receivedAt);
    },
    getMetricStatistics: (input, ctx) => getMetricStatistics(metrics, input, ctx, ctx.receivedAt),
    getMetricData: (input, ctx) => getMetricData(metrics, tokens, input, ctx, ctx.receivedAt),
    listMetrics: (input, ctx) => listMetrics(metrics, tokens, input, ctx, ctx.receivedAt),
  };
}

/** `metricData.1.member.metricName` → `MetricData.member.1.MetricName`, as CloudWatch names parameters. */
export function queryParameterPath(path: string): string {
  const parts = path.split('.');
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const s = parts[i]!;
    if (/^\d+$/.test(s) && parts[i + 1] === 'member') {
      out.push('member', s);
      i++;
    } else out.push(s.charAt(0).toUpperCase() + s.slice(1));
  }
  return out.join('.');
}

const NULL_MEMBER =
  /^1 validation error detected: Value null at '([^']+)' failed to satisfy constraint: Member must not be null$/;

/**
 * CloudWatch answers a missing parameter with MissingParameter and any other bad value with
 * InvalidParameterValue (never the generic ValidationError of other query services).
 */
export function cloudWatchError(e: ServiceError): ServiceError {
  if (e.code !== 'ValidationException') return e;
  const missing = NULL_MEMBER.exec(e.message);
  if (missing)
    return new MissingRequiredParameterException(`The parameter ${queryParameterPath(missing[1]!)} is required.`);
  return new InvalidParameterValueException(e.message);
}
