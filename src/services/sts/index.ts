// AWS STS: GetCallerIdentity, AssumeRole, GetSessionToken and GetAccessKeyInfo. Temporary
// credentials are stored as sessions (src/auth/sessions.ts) that the authorizer then verifies and
// authorizes with the role's policy from the credentials file (or the user's, for GetSessionToken).
// https://docs.aws.amazon.com/STS/latest/APIReference/welcome.html
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Authorizer } from '../../auth/authorizer.js';
import { compilePolicies } from '../../auth/policy.js';
import {
  assumedRoleArn,
  isTemporaryAccessKeyId,
  newNonce,
  newSessionToken,
  newTemporaryAccessKeyId,
  parseAssumedRole,
  type SessionRecord,
  type SessionStore,
  tokenHash,
  uniqueId,
} from '../../auth/sessions.js';
import { accountTrust, evaluateTrust } from '../../auth/trust-policy.js';
import { MalformedPolicyDocumentException, PackedPolicyTooLargeException } from '../../generated/sts/errors.js';
import type { StsHandlers } from '../../generated/sts/handlers.js';
import type { Credentials, GetCallerIdentityResponse } from '../../generated/sts/shapes.js';
import type { CallerIdentity, RequestContext } from '../../protocol/context.js';
import { ServiceError } from '../../protocol/service-error.js';

/** Plain-text session policies are limited to 2,048 characters. */
const MAX_SESSION_POLICY = 2048;
/** A role assumed with role-chained credentials gets at most one hour. */
const CHAINED_MAX_SECONDS = 3600;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::(\d{12}):role\/(?:[\w+=,.@-]+\/)*[\w+=,.@-]+$/;

export interface StsOptions {
  readonly authorizer: Authorizer;
  readonly sessions: SessionStore;
}

const validationError = (message: string) => new ServiceError('ValidationError', message, 400);
const accessDenied = (message: string) => new ServiceError('AccessDenied', message, 403);
const accountOf = (arn: string) => /^arn:aws[a-z-]*:(?:iam|sts)::(\d{12}):/.exec(arn)?.[1];

/** What GetCallerIdentity says about an identity given by its ARN. */
export function callerIdentity(arn: string, sessionRoleArn?: string | null): GetCallerIdentityResponse {
  const assumed = parseAssumedRole(arn);
  if (assumed) {
    const roleArn = sessionRoleArn ?? `arn:aws:iam::${assumed.account}:role/${assumed.role}`;
    return { UserId: `${uniqueId(roleArn)}:${assumed.session}`, Account: assumed.account, Arn: arn };
  }
  const account = accountOf(arn) ?? '';
  if (arn === `arn:aws:iam::${account}:root`) return { UserId: account, Account: account, Arn: arn };
  return { UserId: uniqueId(arn), Account: account, Arn: arn };
}

export function createStsHandlers(o: StsOptions): StsHandlers {
  const { authorizer, sessions } = o;

  /** The caller: authenticated (a credentials file), or, on an open server, what its key says. */
  async function callerOf(ctx: RequestContext): Promise<CallerIdentity> {
    if (ctx.gate?.caller) return ctx.gate.caller;
    const key = ctx.accessKeyId;
    if (key && isTemporaryAccessKeyId(key)) {
      const s = await sessions.get(key);
      if (s && s.expiresAt > ctx.receivedAt) {
        return {
          arn: s.arn,
          accessKeyId: key,
          session: { kind: s.kind, roleArn: s.roleArn, rootAccessKeyId: s.rootAccessKeyId },
        };
      }
    }
    // DEVIATION(aws): without a credentials file any key is accepted, and it acts as the account itself.
    return { arn: `arn:aws:iam::${ctx.accountId}:root`, accessKeyId: key ?? '' };
  }

  /** Issues temporary credentials: stored, remembered by this server, and returned once. */
  async function issue(
    ctx: RequestContext,
    caller: CallerIdentity,
    s: Pick<SessionRecord, 'kind' | 'arn' | 'roleArn' | 'sessionPolicy'> & { seconds: number },
  ): Promise<{ credentials: Credentials; record: SessionRecord }> {
    const accessKeyId = newTemporaryAccessKeyId();
    const nonce = newNonce();
    const token = newSessionToken();
    const root = authorizer.enabled ? (caller.session?.rootAccessKeyId ?? caller.accessKeyId) : null;
    const secret = root
      ? authorizer.sessionSecret(root, accessKeyId, nonce)
      : // Nothing verifies signatures on an open server: the secret need not be derivable.
        randomBytes(30).toString('base64');
    if (secret === undefined) throw accessDenied('The credentials this request was signed with are no longer valid.');
    const record: SessionRecord = {
      accessKeyId,
      accountId: accountOf(s.arn) ?? ctx.accountId,
      kind: s.kind,
      arn: s.arn,
      roleArn: s.roleArn,
      sourceArn: caller.arn,
      rootAccessKeyId: root,
      nonce,
      tokenHash: tokenHash(token),
      sessionPolicy: s.sessionPolicy,
      createdAt: ctx.receivedAt,
      // AWS returns expirations to the second.
      expiresAt: Math.floor(ctx.receivedAt / 1000) * 1000 + s.seconds * 1000,
    };
    await sessions.insert(record);
    authorizer.rememberSession(accessKeyId, record);
    return {
      record,
      credentials: {
        AccessKeyId: accessKeyId,
        SecretAccessKey: secret,
        SessionToken: token,
        Expiration: new Date(record.expiresAt),
      },
    };
  }

  return {
    async getCallerIdentity(_input, ctx) {
      const caller = await callerOf(ctx);
      return callerIdentity(caller.arn, caller.session?.roleArn);
    },

    async assumeRole(input, ctx) {
      const roleArn = input.RoleArn;
      if (!ROLE_ARN.test(roleArn)) throw validationError(`${roleArn} is invalid: RoleArn must be an IAM role ARN.`);
      if (input.PolicyArns?.length) {
        // DEVIATION(aws): there are no managed policies to attach; refused rather than ignored,
        // since ignoring one would grant more than the caller asked for.
        throw validationError('PolicyArns are not supported here: give the session policy inline with Policy.');
      }
      let sessionPolicy: string | null = null;
      if (input.Policy !== undefined) {
        if (input.Policy.length > MAX_SESSION_POLICY) {
          throw new PackedPolicyTooLargeException(
            'Packed policy consumes more than 100% of allotted space, please use smaller policy.',
          );
        }
        try {
          compilePolicies(JSON.parse(input.Policy));
        } catch (err) {
          throw new MalformedPolicyDocumentException(
            `The policy is not in the valid JSON format: ${(err as Error).message}`,
          );
        }
        sessionPolicy = input.Policy;
      }
      const caller = await callerOf(ctx);
      const seconds = input.DurationSeconds ?? 3600;
      const chained = caller.session?.kind === 'AssumeRole';
      if (authorizer.enabled) {
        const refused = `User: ${caller.arn} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`;
        const role = authorizer.role(roleArn);
        if (!role) throw accessDenied(refused);
        const trust = evaluateTrust(role.trust ?? accountTrust(accountOf(roleArn)!), {
          principalArn: caller.arn,
          roleArn: caller.session?.roleArn ?? undefined,
          externalId: input.ExternalId,
          sessionName: input.RoleSessionName,
        });
        if (trust.decision !== 'Allow') throw accessDenied(refused);
        // A trust policy that names the caller itself is enough within the account; one that trusts
        // the account leaves the decision to the caller's own policy.
        if (!trust.named) ctx.gate?.action('sts:AssumeRole', [roleArn]);
        const max = chained ? CHAINED_MAX_SECONDS : (role.maxSessionSeconds ?? 3600);
        if (seconds > max) {
          throw validationError(
            chained
              ? 'The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.'
              : 'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.',
          );
        }
      } else if (chained && seconds > CHAINED_MAX_SECONDS) {
        throw validationError(
          'The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.',
        );
      }
      const arn = assumedRoleArn(roleArn, input.RoleSessionName);
      const { credentials } = await issue(ctx, caller, { kind: 'AssumeRole', arn, roleArn, sessionPolicy, seconds });
      return {
        Credentials: credentials,
        AssumedRoleUser: { AssumedRoleId: `${uniqueId(roleArn)}:${input.RoleSessionName}`, Arn: arn },
        ...(sessionPolicy ? { PackedPolicySize: Math.ceil((sessionPolicy.length / MAX_SESSION_POLICY) * 100) } : {}),
        ...(input.SourceIdentity ? { SourceIdentity: input.SourceIdentity } : {}),
      };
    },

    async getSessionToken(input, ctx) {
      const caller = await callerOf(ctx);
      if (caller.session) throw accessDenied('Cannot call GetSessionToken with session credentials');
      const { credentials } = await issue(ctx, caller, {
        kind: 'GetSessionToken',
        arn: caller.arn,
        roleArn: null,
        sessionPolicy: null,
        seconds: input.DurationSeconds ?? 43_200,
      });
      return { Credentials: credentials };
    },

    async getAccessKeyInfo(input, ctx) {
      const id = input.AccessKeyId;
      const arn = authorizer.arnOfKey(id);
      if (arn) return { Account: accountOf(arn) };
      if (isTemporaryAccessKeyId(id)) {
        const s = await sessions.get(id);
        if (s) return { Account: s.accountId };
      }
      return { Account: ctx.accountId };
    },
  };
}

/** Forgets sessions a day after they expired, hourly. Returns the function that stops it. */
export function expireSessions(sessions: SessionStore, log: Logger, everyMs = 3_600_000): () => void {
  const timer = setInterval(() => {
    sessions.deleteExpired(Date.now() - 86_400_000).catch((err) => log.warn({ err }, 'expiring STS sessions failed'));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
