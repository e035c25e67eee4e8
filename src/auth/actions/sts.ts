// The IAM actions of STS operations. GetCallerIdentity and GetSessionToken need no permission (an
// explicit deny cannot stop them either); AssumeRole is decided by its handler, which weighs the
// role's trust policy with the caller's own (src/services/sts): the table names no resource for it.
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssecuritytokenservice.html
import type { ActionRequest, ActionTable } from './types.js';

const DECIDED_ELSEWHERE = new Set(['GetCallerIdentity', 'GetSessionToken', 'AssumeRole']);

export const stsActions: ActionTable = (operation): ActionRequest => ({
  action: `sts:${operation}`,
  resources: DECIDED_ELSEWHERE.has(operation) ? [] : ['*'],
});
