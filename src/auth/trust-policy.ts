// A role's trust policy (AssumeRolePolicyDocument): who may assume it. Statements name principals
// by `{"AWS": ...}`: an account id or `arn:aws:iam::ACCT:root` (anyone in that account whose own
// policy allows sts:AssumeRole on the role), a user or role ARN, or `*`; actions sts:AssumeRole or
// wildcards; conditions on sts:ExternalId, sts:RoleSessionName and aws:PrincipalArn.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_manage-assume.html
import { PolicyError } from './policy.js';

export interface TrustRequest {
  /** The caller: a user's ARN or an assumed-role ARN. */
  readonly principalArn: string;
  /** For an assumed-role caller, the role it is a session of. */
  readonly roleArn?: string;
  readonly externalId?: string;
  readonly sessionName: string;
}

export type TrustDecision = 'Allow' | 'ExplicitDeny' | 'ImplicitDeny';

interface TrustStatement {
  readonly effect: 'Allow' | 'Deny';
  /** Matches the caller; `named` when the statement names this very identity (not just its account). */
  readonly principal: (r: TrustRequest) => 'named' | 'account' | false;
  readonly action: (a: string) => boolean;
  /** true, false, or undefined when a condition cannot be evaluated. */
  readonly condition: (r: TrustRequest) => boolean | undefined;
}

export interface TrustPolicy {
  readonly statements: readonly TrustStatement[];
}

const list = (v: unknown, what: string): string[] => {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new PolicyError(`${what} must be a string or a list of strings`);
};

const wildcard = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );

function principalMatcher(spec: unknown, i: number): TrustStatement['principal'] {
  if (spec === '*') return () => 'account';
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
    throw new PolicyError(`Statement ${i}: Principal must be "*" or {"AWS": ...}`);
  }
  const aws = (spec as Record<string, unknown>).AWS;
  if (aws === undefined) throw new PolicyError(`Statement ${i}: only AWS principals can assume a role here`);
  const names = list(aws, `Statement ${i}: Principal.AWS`);
  return (r) => {
    const account = /^arn:aws[a-z-]*:(?:iam|sts)::(\d{12}):/.exec(r.principalArn)?.[1];
    let best: 'named' | 'account' | false = false;
    for (const n of names) {
      if (n === '*') best ||= 'account';
      else if (/^\d{12}$/.test(n) || /^arn:aws[a-z-]*:iam::\d{12}:root$/.test(n)) {
        if (n.includes(account ?? '-') && account !== undefined) best ||= 'account';
      } else if (n === r.principalArn || (r.roleArn !== undefined && n === r.roleArn)) return 'named';
    }
    return best;
  };
}

function conditionOf(block: unknown, i: number): TrustStatement['condition'] {
  if (block === undefined) return () => true;
  if (block === null || typeof block !== 'object') throw new PolicyError(`Statement ${i}: Condition must be an object`);
  const tests: Array<(r: TrustRequest) => boolean | undefined> = [];
  for (const [op, keys] of Object.entries(block as Record<string, unknown>)) {
    if (keys === null || typeof keys !== 'object')
      throw new PolicyError(`Statement ${i}: Condition ${op} must be an object`);
    for (const [key, raw] of Object.entries(keys as Record<string, unknown>)) {
      const values = (Array.isArray(raw) ? raw : [raw]).map(String);
      const actualOf = (r: TrustRequest): string | undefined =>
        key.toLowerCase() === 'sts:externalid'
          ? r.externalId
          : key.toLowerCase() === 'sts:rolesessionname'
            ? r.sessionName
            : key.toLowerCase() === 'aws:principalarn'
              ? (r.roleArn ?? r.principalArn)
              : undefined;
      const known = ['sts:externalid', 'sts:rolesessionname', 'aws:principalarn'].includes(key.toLowerCase());
      const o = op.toLowerCase();
      const cmp =
        o === 'stringequals' || o === 'arnequals'
          ? (a: string, e: string) => a === e
          : o === 'stringlike' || o === 'arnlike'
            ? (a: string, e: string) => wildcard(e).test(a)
            : undefined;
      tests.push((r) => {
        if (!known || !cmp) return undefined;
        const a = actualOf(r);
        return a !== undefined && values.some((e) => cmp(a, e));
      });
    }
  }
  return (r) => {
    let result: boolean | undefined = true;
    for (const t of tests) {
      const v = t(r);
      if (v === false) return false;
      if (v === undefined) result = undefined;
    }
    return result;
  };
}

export function compileTrustPolicy(doc: unknown): TrustPolicy {
  const p = typeof doc === 'string' ? (JSON.parse(doc) as unknown) : doc;
  if (p === null || typeof p !== 'object' || Array.isArray(p))
    throw new PolicyError('A trust policy must be a JSON object');
  const st = (p as Record<string, unknown>).Statement;
  if (st === undefined) throw new PolicyError('A trust policy needs a Statement');
  const statements = (Array.isArray(st) ? st : [st]).map((s, i): TrustStatement => {
    if (s === null || typeof s !== 'object') throw new PolicyError(`Statement ${i} must be an object`);
    const e = s as Record<string, unknown>;
    if (e.Effect !== 'Allow' && e.Effect !== 'Deny')
      throw new PolicyError(`Statement ${i}: Effect must be Allow or Deny`);
    if (e.Principal === undefined) throw new PolicyError(`Statement ${i}: a trust policy statement needs a Principal`);
    const actions = list(e.Action ?? 'sts:AssumeRole', `Statement ${i}: Action`).map((a) => wildcard(a.toLowerCase()));
    return {
      effect: e.Effect,
      principal: principalMatcher(e.Principal, i),
      action: (a) => actions.some((re) => re.test(a.toLowerCase())),
      condition: conditionOf(e.Condition, i),
    };
  });
  return { statements };
}

/**
 * Whether the role's trust policy lets `r` assume it, and whether it names the caller itself (then,
 * within the account, the caller's own policy need not allow sts:AssumeRole).
 */
export function evaluateTrust(policy: TrustPolicy, r: TrustRequest): { decision: TrustDecision; named: boolean } {
  let allowed = false;
  let named = false;
  for (const s of policy.statements) {
    if (!s.action('sts:AssumeRole')) continue;
    const who = s.principal(r);
    if (!who) continue;
    const c = s.condition(r);
    if (s.effect === 'Deny') {
      // A Deny whose condition cannot be evaluated applies.
      if (c !== false) return { decision: 'ExplicitDeny', named: false };
      continue;
    }
    if (c === true) {
      allowed = true;
      if (who === 'named') named = true;
    }
  }
  return { decision: allowed ? 'Allow' : 'ImplicitDeny', named };
}

/** The trust a role without a trust policy has: its own account (the caller's policy then decides). */
export function accountTrust(accountId: string): TrustPolicy {
  return compileTrustPolicy({
    Statement: { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${accountId}:root` }, Action: 'sts:AssumeRole' },
  });
}
