// The services Slipway authenticates and authorizes, one entry each: how a refusal is written and
// where an operation's action and resource come from. Adding the CloudWatch Logs API is its entry
// here (already present) and a call to `gateFor('logs', ...)` where its protocol is routed.
import type { RequestGate } from '../protocol/context.js';
import type { ServiceError } from '../protocol/service-error.js';
import { S3Error } from '../protocol/rest-xml/s3-errors.js';
import { logsActions } from './actions/logs.js';
import { s3Actions } from './actions/s3.js';
import { sagemakerActions } from './actions/sagemaker.js';
import type { ActionTable, Partition } from './actions/types.js';
import type { Authenticated, Authorizer, Denial } from './authorizer.js';
import { jsonAccessDenied } from './errors.js';

export interface AuthService {
  /** IAM actions of the service's operations. */
  readonly actions: ActionTable;
  /** The error a denied request gets. */
  readonly denied: (d: Denial) => ServiceError;
}

export const SERVICES = {
  sagemaker: { actions: sagemakerActions, denied: (d) => jsonAccessDenied(d.message) },
  'sagemaker-runtime': { actions: sagemakerActions, denied: (d) => jsonAccessDenied(d.message) },
  // S3 says no more than "Access Denied" to a denied caller.
  s3: { actions: s3Actions, denied: () => new S3Error('AccessDenied') },
  logs: { actions: logsActions, denied: (d) => jsonAccessDenied(d.message) },
} satisfies Record<string, AuthService>;

export type ServiceName = keyof typeof SERVICES;

/** The per-request gate handed to the protocol in the RequestContext. */
export function gateFor(
  service: ServiceName,
  authorizer: Authorizer,
  auth: Authenticated,
  partition: Partition,
  sourceIp: string | undefined,
): RequestGate {
  const svc: AuthService = SERVICES[service];
  const facts = { region: partition.region, now: new Date(), ...(sourceIp ? { sourceIp } : {}) };
  const check = (action: string, resources: readonly string[]) => {
    const denial = authorizer.authorize(auth.principal, action, resources, facts);
    if (denial) throw svc.denied(denial);
  };
  return {
    principalArn: auth.principal.arn,
    operation(operation, input) {
      const a = svc.actions(operation, input, partition);
      check(a.action, a.resources);
    },
    action: check,
  };
}
