// The IAM actions of CloudWatch metric operations: none of them names a resource (`*`).
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatch.html
import type { ActionRequest, ActionTable } from './types.js';

export const cloudwatchActions: ActionTable = (operation): ActionRequest => ({
  action: `cloudwatch:${operation}`,
  resources: ['*'],
});
