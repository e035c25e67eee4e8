// The IAM action and resource of CloudWatch Logs operations, ready for the Logs API: wiring it is
// one entry in SERVICES (src/auth/services.ts) and this table.
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatchlogs.html
import type { ActionRequest, ActionTable } from './types.js';

/** Operations on a log stream (the group's ARN plus `:log-stream:<name>`); others act on the group. */
const ON_STREAM = new Set(['GetLogEvents', 'PutLogEvents', 'CreateLogStream', 'DeleteLogStream']);
const ON_ALL = new Set(['DescribeLogGroups']);

export const logsActions: ActionTable = (operation, input, p): ActionRequest => {
  const action = `logs:${operation}`;
  const group = typeof input.logGroupName === 'string' ? input.logGroupName : undefined;
  if (ON_ALL.has(operation) || group === undefined) return { action, resources: ['*'] };
  const groupArn = `arn:aws:logs:${p.region}:${p.accountId}:log-group:${group}`;
  if (ON_STREAM.has(operation) && typeof input.logStreamName === 'string')
    return { action, resources: [`${groupArn}:log-stream:${input.logStreamName}`] };
  // DescribeLogStreams, FilterLogEvents...: the group's ARN as IAM writes it, with `:*`.
  return { action, resources: [`${groupArn}:*`] };
};
