// The IAM actions of SageMaker Metrics: BatchPutMetrics on the trial component it writes to,
// BatchGetMetrics on every resource its queries read.
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsagemaker.html
import { sagemakerArn } from '../../domain/arn.js';
import type { ActionRequest, ActionTable } from './types.js';

export const sagemakerMetricsActions: ActionTable = (operation, input, p): ActionRequest => {
  const action = `sagemaker:${operation}`;
  if (operation === 'BatchPutMetrics' && typeof input.TrialComponentName === 'string')
    return { action, resources: [sagemakerArn(p, 'experiment-trial-component', input.TrialComponentName)] };
  if (operation === 'BatchGetMetrics' && Array.isArray(input.MetricQueries)) {
    const arns = new Set((input.MetricQueries as Array<{ ResourceArn?: string }>).map((q) => q.ResourceArn ?? '*'));
    return { action, resources: [...arns] };
  }
  return { action, resources: ['*'] };
};
