// The services Slipway authenticates and authorizes, one entry each: how a refusal is written and
// where an operation's action and resource come from. Adding the CloudWatch Logs API is its entry
// here (already present) and a call to `gateFor('logs', ...)` where its protocol is routed.
import type { CallerIdentity, RequestGate } from '../protocol/context.js';
import { S3Error } from '../protocol/rest-xml/s3-errors.js';
import { ServiceError } from '../protocol/service-error.js';
import { cloudwatchActions } from './actions/cloudwatch.js';
import { logsActions } from './actions/logs.js';
import { sagemakerMetricsActions } from './actions/sagemaker-metrics.js';
import { stsActions } from './actions/sts.js';
import { s3Actions } from './actions/s3.js';
import { sagemakerActions, sagemakerNamedMember, sagemakerPassedRoles } from './actions/sagemaker.js';
import { ValidationException } from '../protocol/common-errors.js';
import type { ActionTable, Partition } from './actions/types.js';
import type { AuthFailure, Authenticated, Authorizer, Denial, FactsSource } from './authorizer.js';
import { jsonAccessDenied, queryAuthError } from './errors.js';

export interface AuthService {
  /** IAM actions of the service's operations. */
  readonly actions: ActionTable;
  /** The error a denied request gets. */
  readonly denied: (d: Denial) => ServiceError;
  /**
   * For an operation whose one resource is named by one input member, that member: `actions`
   * gives the same resources for the same value of it (and partition).
   */
  readonly named?: (operation: string) => string | undefined;
  /** How a failed authentication is answered (default: the JSON services' errors). */
  readonly authError?: (f: AuthFailure) => ServiceError;
  /** The roles an operation's input passes to the service (each needs iam:PassRole and must exist). */
  readonly passedRoles?: (operation: string, input: Record<string, unknown>) => readonly string[];
  /** The error for a passed role the credentials file does not hold. */
  readonly unknownRole?: (roleArn: string) => ServiceError;
}

/** STS and CloudWatch answer a denied caller with 403 AccessDenied (the query code on every wire form). */
const queryDenied = (d: Denial) => new ServiceError('AccessDenied', d.message, 403);

/** SageMaker's answer to a role it cannot assume. */
const cannotAssume = (roleArn: string) =>
  new ValidationException(
    `Could not assume role ${roleArn}. Please ensure that the role exists and allows principal 'sagemaker.amazonaws.com' to assume the role.`,
  );

export const SERVICES = {
  sagemaker: {
    actions: sagemakerActions,
    denied: (d) => jsonAccessDenied(d.message),
    named: sagemakerNamedMember,
    passedRoles: sagemakerPassedRoles,
    unknownRole: cannotAssume,
  },
  'sagemaker-runtime': {
    actions: sagemakerActions,
    denied: (d) => jsonAccessDenied(d.message),
    named: sagemakerNamedMember,
  },
  // S3 says no more than "Access Denied" to a denied caller.
  s3: { actions: s3Actions, denied: () => new S3Error('AccessDenied') },
  logs: { actions: logsActions, denied: (d) => jsonAccessDenied(d.message) },
  sts: { actions: stsActions, denied: queryDenied, authError: queryAuthError },
  cloudwatch: { actions: cloudwatchActions, denied: queryDenied, authError: queryAuthError },
  'sagemaker-metrics': { actions: sagemakerMetricsActions, denied: (d) => jsonAccessDenied(d.message) },
} satisfies Record<string, AuthService>;

export type ServiceName = keyof typeof SERVICES;

/**
 * The per-request gate handed to the protocol in the RequestContext: one small object per request
 * (no closures), the request facts built only if a policy needs them.
 */
class Gate implements RequestGate, FactsSource {
  constructor(
    private readonly svc: AuthService,
    private readonly authorizer: Authorizer,
    private readonly auth: Authenticated,
    private readonly partition: Partition,
    private readonly socket: { readonly remoteAddress?: string | undefined },
  ) {}

  get principalArn(): string {
    return this.auth.principal.arn;
  }

  get caller(): CallerIdentity {
    const { principal } = this.auth;
    const r = principal.session?.record;
    return {
      arn: principal.arn,
      accessKeyId: principal.accessKeyId,
      ...(r ? { session: { kind: r.kind, roleArn: r.roleArn, rootAccessKeyId: r.rootAccessKeyId } } : {}),
    };
  }

  operation(operation: string, input: Record<string, unknown>): void {
    this.#operation(operation, input);
    // Checked on every request (never skipped by the remembered decision below): the roles passed.
    for (const role of this.svc.passedRoles?.(operation, input) ?? []) this.passRole(role);
  }

  passRole(roleArn: string): void {
    this.action('iam:PassRole', [roleArn]);
    if (!this.authorizer.hasRole(roleArn)) throw (this.svc.unknownRole ?? cannotAssume)(roleArn);
  }

  #operation(operation: string, input: Record<string, unknown>): void {
    const member = this.svc.named?.(operation);
    const name = member === undefined ? undefined : input[member];
    const { principal } = this.auth;
    const table = this.svc.actions;
    // The same operation on the same name as an earlier request this principal was allowed:
    // the same action on the same resource, so the same decision (see Authorizer.allowedByName).
    if (typeof name === 'string' && this.authorizer.allowedByName(principal, table, operation, name, this.partition))
      return;
    const a = table(operation, input, this.partition);
    this.action(a.action, a.resources);
    if (typeof name === 'string')
      this.authorizer.rememberAllowedByName(principal, table, operation, name, this.partition);
  }

  action(action: string, resources: readonly string[]): void {
    const denial = this.authorizer.authorize(this.auth.principal, action, resources, this);
    if (denial) throw this.svc.denied(denial);
  }

  /** What a policy's conditions may read: built only for a decision not already remembered. */
  facts() {
    const sourceIp = this.socket.remoteAddress;
    return { region: this.partition.region, now: new Date(), ...(sourceIp ? { sourceIp } : {}) };
  }
}

/** The gate of one authenticated request; `socket` gives the caller's address when a policy asks. */
export function gateFor(
  service: ServiceName,
  authorizer: Authorizer,
  auth: Authenticated,
  partition: Partition,
  socket: { readonly remoteAddress?: string | undefined },
): RequestGate {
  return new Gate(SERVICES[service], authorizer, auth, partition, socket);
}
