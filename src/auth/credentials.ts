// The credentials file (--credentials-file): principals with their access keys and identity
// policies, and roles Slipway may act as on a user's behalf. Parsed and compiled once per (re)load.
import { readFileSync } from 'node:fs';
import { type CompiledPolicy, compilePolicies, PolicyError } from './policy.js';
import type { SessionRecord } from './sessions.js';
import { compileTrustPolicy, type TrustPolicy } from './trust-policy.js';

export interface Principal {
  readonly accessKeyId: string;
  /** Never logged: Principal objects are not passed to the logger (see toJSON). */
  readonly secretAccessKey: string;
  readonly arn: string;
  readonly policy: CompiledPolicy;
  /** Temporary credentials (src/auth/sessions.ts): the session they belong to. */
  readonly session?: SessionPrincipalFacts;
}

/** What a principal made from temporary credentials carries beyond a long-term one. */
export interface SessionPrincipalFacts {
  readonly record: SessionRecord;
  /** aws:PrincipalArn of an assumed-role session is the role's ARN, as IAM evaluates it. */
  readonly conditionArn: string;
  /** AssumeRole's inline session policy: the role's policy applies only as far as this one allows. */
  readonly sessionPolicy?: CompiledPolicy;
}

export interface Role {
  readonly arn: string;
  readonly policy: CompiledPolicy;
  /** Who may assume the role (absent: its own account, the caller's policy deciding). */
  readonly trust?: TrustPolicy;
  /** Longest session AssumeRole grants, in seconds (IAM's MaxSessionDuration, default 3600). */
  readonly maxSessionSeconds?: number;
}

export interface Credentials {
  readonly byAccessKey: ReadonlyMap<string, Principal>;
  /** Roles and principals by ARN: whom a load or a job may name as the identity it acts as. */
  readonly byArn: ReadonlyMap<string, Role>;
}

export class CredentialsError extends Error {}

const ARN = /^arn:aws[a-z-]*:(iam|sts)::\d{12}:[a-z-]+\/.+$/;

function policyOf(raw: unknown, where: string): CompiledPolicy {
  try {
    return compilePolicies(raw ?? []);
  } catch (err) {
    if (err instanceof PolicyError || err instanceof SyntaxError)
      throw new CredentialsError(`${where}: ${err.message}`);
    throw err;
  }
}

/** Validates and compiles a credentials document; errors name the entry, never a secret. */
export function parseCredentials(doc: unknown): Credentials {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new CredentialsError('the credentials file must hold a JSON object');
  const { principals, roles } = doc as Record<string, unknown>;
  if (!Array.isArray(principals)) throw new CredentialsError(`"principals" must be a list`);
  if (roles !== undefined && !Array.isArray(roles)) throw new CredentialsError(`"roles" must be a list`);
  const byAccessKey = new Map<string, Principal>();
  const byArn = new Map<string, Role>();
  principals.forEach((p: unknown, i) => {
    const where = `principals[${i}]`;
    if (p === null || typeof p !== 'object') throw new CredentialsError(`${where} must be an object`);
    const e = p as Record<string, unknown>;
    if (typeof e.accessKeyId !== 'string' || !/^[A-Z0-9]{16,128}$/.test(e.accessKeyId))
      throw new CredentialsError(`${where}.accessKeyId must be 16-128 upper-case letters and digits`);
    if (typeof e.secretAccessKey !== 'string' || e.secretAccessKey.length < 8)
      throw new CredentialsError(`${where}.secretAccessKey must be a string of at least 8 characters`);
    if (typeof e.arn !== 'string' || !ARN.test(e.arn))
      throw new CredentialsError(`${where}.arn must be an IAM ARN (arn:aws:iam::<account>:user/<name>)`);
    if (byAccessKey.has(e.accessKeyId))
      throw new CredentialsError(`${where}: access key ${e.accessKeyId} is listed twice`);
    const principal: Principal = {
      accessKeyId: e.accessKeyId,
      secretAccessKey: e.secretAccessKey,
      arn: e.arn,
      policy: policyOf(e.policy, where),
    };
    // A stray log of the object must not print the secret.
    Object.defineProperty(principal, 'toJSON', {
      value: () => ({ accessKeyId: principal.accessKeyId, arn: principal.arn }),
    });
    byAccessKey.set(e.accessKeyId, principal);
    if (!byArn.has(e.arn)) byArn.set(e.arn, principal);
  });
  (roles ?? []).forEach((r: unknown, i) => {
    const where = `roles[${i}]`;
    if (r === null || typeof r !== 'object') throw new CredentialsError(`${where} must be an object`);
    const e = r as Record<string, unknown>;
    if (typeof e.arn !== 'string' || !ARN.test(e.arn))
      throw new CredentialsError(`${where}.arn must be an IAM role ARN (arn:aws:iam::<account>:role/<name>)`);
    let trust: TrustPolicy | undefined;
    if (e.trustPolicy !== undefined) {
      try {
        trust = compileTrustPolicy(e.trustPolicy);
      } catch (err) {
        if (err instanceof PolicyError || err instanceof SyntaxError)
          throw new CredentialsError(`${where}.trustPolicy: ${err.message}`);
        throw err;
      }
    }
    const max = e.maxSessionDuration;
    if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 3600 && (max as number) <= 43_200))
      throw new CredentialsError(`${where}.maxSessionDuration must be a whole number of seconds from 3600 to 43200`);
    byArn.set(e.arn, {
      arn: e.arn,
      policy: policyOf(e.policy, where),
      ...(trust ? { trust } : {}),
      ...(max !== undefined ? { maxSessionSeconds: max as number } : {}),
    });
  });
  return { byAccessKey, byArn };
}

export function loadCredentialsFile(path: string): Credentials {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CredentialsError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    // V8 quotes a piece of the text in its message: it could be a secret, so only the position is kept.
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    throw new CredentialsError(`${path} is not valid JSON${at ? ` (at position ${at})` : ''}`);
  }
  try {
    return parseCredentials(doc);
  } catch (err) {
    if (err instanceof CredentialsError) throw new CredentialsError(`${path}: ${err.message}`);
    throw err;
  }
}
