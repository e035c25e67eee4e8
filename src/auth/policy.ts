// IAM identity-based policy evaluation: Allow/Deny statements, Action/NotAction and
// Resource/NotResource with `*` and `?` wildcards, explicit deny wins, default deny, and the
// condition operators on the global keys Slipway knows. A condition it cannot evaluate never grants.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html

import { BlockList, isIPv4, isIPv6 } from 'node:net';

export class PolicyError extends Error {}

type Matcher = (s: string) => boolean;

interface CompiledCondition {
  /** `undefined`: the condition cannot be evaluated here (unknown operator or key). */
  readonly test: (ctx: RequestFacts) => boolean | undefined;
}

interface CompiledStatement {
  readonly sid?: string;
  readonly effect: 'Allow' | 'Deny';
  readonly action: Matcher;
  readonly resource: (resource: string, ctx: RequestFacts) => boolean | undefined;
  readonly conditions: readonly CompiledCondition[];
  readonly templated: boolean;
}

export interface CompiledPolicy {
  readonly statements: readonly CompiledStatement[];
  /** No conditions and no policy variables: the decision depends on action and resource only. */
  readonly contextFree: boolean;
}

/** What a condition may look at: the caller and the request. */
export interface RequestFacts {
  readonly principalArn: string;
  readonly accountId: string;
  readonly region: string;
  readonly now: Date;
  readonly sourceIp?: string;
}

export type Decision = 'Allow' | 'ExplicitDeny' | 'ImplicitDeny';

const wildcardCache = new Map<string, RegExp>();

/** `*` matches any run of characters, `?` any one; everything else is literal. */
function wildcard(pattern: string, ignoreCase: boolean): RegExp {
  const id = `${ignoreCase ? 'i' : 's'}${pattern}`;
  let re = wildcardCache.get(id);
  if (!re) {
    const body = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    re = new RegExp(`^${body}$`, ignoreCase ? 'is' : 's');
    if (wildcardCache.size > 10_000) wildcardCache.clear();
    wildcardCache.set(id, re);
  }
  return re;
}

function strings(v: unknown, what: string): string[] {
  const list = Array.isArray(v) ? v : [v];
  if (list.length === 0 || !list.every((s) => typeof s === 'string'))
    throw new PolicyError(`${what} must be a string or a list of strings`);
  return list as string[];
}

function actionMatcher(patterns: string[]): Matcher {
  const res = patterns.map((p) => (p === '*' ? null : wildcard(p, true)));
  if (res.includes(null)) return () => true;
  return (s) => res.some((re) => re!.test(s));
}

const VARIABLE = /\$\{([^}]*)\}/g;

/** Policy variables in resources: `${aws:username}` and the like, plus the `${*}`, `${?}`, `${$}` escapes. */
function substitute(pattern: string, ctx: RequestFacts): string | undefined {
  let unknown = false;
  const out = pattern.replace(VARIABLE, (_, name: string) => {
    if (name === '*' || name === '?' || name === '$') return `\uE000${name}`;
    const v = contextKey(name, ctx);
    if (v === undefined) unknown = true;
    return v?.[0] ?? '';
  });
  return unknown ? undefined : out;
}

function resourceMatcher(patterns: string[]): (r: string, ctx: RequestFacts) => boolean | undefined {
  const plain = patterns.filter((p) => !p.includes('${'));
  const templated = patterns.filter((p) => p.includes('${'));
  const fixed = plain.map((p) => (p === '*' ? null : wildcard(p, false)));
  const any = fixed.includes(null);
  return (r, ctx) => {
    if (any || fixed.some((re) => re!.test(r))) return true;
    let unknown = false;
    for (const t of templated) {
      const p = substitute(t, ctx);
      if (p === undefined) {
        unknown = true;
        continue;
      }
      // Escaped `${*}` stands for a literal `*`: match it as a plain character.
      const re = new RegExp(
        `^${p
          .split(/(\uE000[*?$])/)
          .map((part) =>
            part.startsWith('\uE000')
              ? `\\${part[1]}`
              : part
                  .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                  .replace(/\*/g, '.*')
                  .replace(/\?/g, '.'),
          )
          .join('')}$`,
        's',
      );
      if (re.test(r)) return true;
    }
    return unknown ? undefined : false;
  };
}

/** Global condition keys Slipway can answer; anything else is unknown (undefined). */
function contextKey(name: string, ctx: RequestFacts): string[] | undefined {
  switch (name.toLowerCase()) {
    case 'aws:principalarn':
      return [ctx.principalArn];
    case 'aws:username': {
      const m = /:user\/(?:.*\/)?([^/]+)$/.exec(ctx.principalArn);
      return m ? [m[1]!] : undefined;
    }
    case 'aws:principalaccount':
      return [ctx.accountId];
    case 'aws:requestedregion':
      return [ctx.region];
    case 'aws:currenttime':
      return [ctx.now.toISOString()];
    case 'aws:epochtime':
      return [String(Math.floor(ctx.now.getTime() / 1000))];
    case 'aws:securetransport':
      // Slipway serves plain HTTP.
      return ['false'];
    case 'aws:sourceip':
      return ctx.sourceIp ? [ctx.sourceIp] : undefined;
    default:
      return undefined;
  }
}

type Compare = (actual: string, expected: string) => boolean;

const cidrs = new Map<string, BlockList | null>();

/** IpAddress: the caller's address inside `expected` (a CIDR block or one address, v4 or v6). */
function inCidr(actual: string, expected: string): boolean {
  let list = cidrs.get(expected);
  if (list === undefined) {
    const [net, bits] = expected.trim().split('/');
    const type = isIPv4(net ?? '') ? 'ipv4' : isIPv6(net ?? '') ? 'ipv6' : undefined;
    const prefix = bits === undefined ? (type === 'ipv4' ? 32 : 128) : Number(bits);
    list = null;
    if (type && Number.isInteger(prefix) && prefix >= 0 && prefix <= (type === 'ipv4' ? 32 : 128)) {
      list = new BlockList();
      list.addSubnet(net!, prefix, type);
    }
    if (cidrs.size >= 1000) cidrs.clear();
    cidrs.set(expected, list);
  }
  if (!list) return false;
  // A v4 client on a dual-stack socket shows as ::ffff:a.b.c.d.
  const ip = actual.startsWith('::ffff:') && isIPv4(actual.slice(7)) ? actual.slice(7) : actual;
  return isIPv4(ip) ? list.check(ip, 'ipv4') : isIPv6(ip) ? list.check(ip, 'ipv6') : false;
}

const STRING_OPS: Record<string, { cmp: Compare; negate: boolean }> = {
  stringequals: { cmp: (a, e) => a === e, negate: false },
  stringnotequals: { cmp: (a, e) => a === e, negate: true },
  stringequalsignorecase: { cmp: (a, e) => a.toLowerCase() === e.toLowerCase(), negate: false },
  stringnotequalsignorecase: { cmp: (a, e) => a.toLowerCase() === e.toLowerCase(), negate: true },
  stringlike: { cmp: (a, e) => wildcard(e, false).test(a), negate: false },
  stringnotlike: { cmp: (a, e) => wildcard(e, false).test(a), negate: true },
  arnequals: { cmp: (a, e) => a === e, negate: false },
  arnlike: { cmp: (a, e) => wildcard(e, false).test(a), negate: false },
  arnnotequals: { cmp: (a, e) => a === e, negate: true },
  arnnotlike: { cmp: (a, e) => wildcard(e, false).test(a), negate: true },
  bool: { cmp: (a, e) => a.toLowerCase() === e.toLowerCase(), negate: false },
  datelessthan: { cmp: (a, e) => Date.parse(a) < Date.parse(e), negate: false },
  datelessthanequals: { cmp: (a, e) => Date.parse(a) <= Date.parse(e), negate: false },
  dategreaterthan: { cmp: (a, e) => Date.parse(a) > Date.parse(e), negate: false },
  dategreaterthanequals: { cmp: (a, e) => Date.parse(a) >= Date.parse(e), negate: false },
  ipaddress: { cmp: inCidr, negate: false },
  notipaddress: { cmp: inCidr, negate: true },
  numericequals: { cmp: (a, e) => Number(a) === Number(e), negate: false },
  numericlessthan: { cmp: (a, e) => Number(a) < Number(e), negate: false },
  numericgreaterthan: { cmp: (a, e) => Number(a) > Number(e), negate: false },
};

function compileCondition(operator: string, key: string, values: string[]): CompiledCondition {
  let op = operator.toLowerCase();
  const ifExists = op.endsWith('ifexists');
  if (ifExists) op = op.slice(0, -'ifexists'.length);
  if (op === 'null') {
    return {
      test: (ctx) => {
        if (!isKnownKey(key)) return undefined;
        const present = contextKey(key, ctx) !== undefined;
        return values.some((v) => (v.toLowerCase() === 'true' ? !present : present));
      },
    };
  }
  const spec = STRING_OPS[op];
  if (!spec || op.includes(':')) return { test: () => undefined };
  return {
    test: (ctx) => {
      if (!isKnownKey(key)) return undefined;
      const actual = contextKey(key, ctx);
      if (actual === undefined) return ifExists || spec.negate;
      const hit = actual.some((a) => values.some((e) => spec.cmp(a, e)));
      return spec.negate ? !hit : hit;
    },
  };
}

const KNOWN_KEYS = new Set([
  'aws:principalarn',
  'aws:username',
  'aws:principalaccount',
  'aws:requestedregion',
  'aws:currenttime',
  'aws:epochtime',
  'aws:securetransport',
  'aws:sourceip',
]);
const isKnownKey = (k: string): boolean => KNOWN_KEYS.has(k.toLowerCase());

function compileStatement(s: unknown, i: number): CompiledStatement {
  if (s === null || typeof s !== 'object' || Array.isArray(s))
    throw new PolicyError(`Statement ${i} must be an object`);
  const st = s as Record<string, unknown>;
  if (st.Effect !== 'Allow' && st.Effect !== 'Deny')
    throw new PolicyError(`Statement ${i}: Effect must be Allow or Deny`);
  if ((st.Action === undefined) === (st.NotAction === undefined))
    throw new PolicyError(`Statement ${i}: exactly one of Action and NotAction is required`);
  if ((st.Resource === undefined) === (st.NotResource === undefined))
    throw new PolicyError(`Statement ${i}: exactly one of Resource and NotResource is required`);
  if (st.Principal !== undefined || st.NotPrincipal !== undefined)
    throw new PolicyError(`Statement ${i}: an identity-based policy has no Principal element`);
  const action = actionMatcher(strings(st.Action ?? st.NotAction, `Statement ${i}: Action`));
  const notAction = st.NotAction !== undefined;
  const resourcePatterns = strings(st.Resource ?? st.NotResource, `Statement ${i}: Resource`);
  const res = resourceMatcher(resourcePatterns);
  const notResource = st.NotResource !== undefined;
  const conditions: CompiledCondition[] = [];
  if (st.Condition !== undefined) {
    if (st.Condition === null || typeof st.Condition !== 'object')
      throw new PolicyError(`Statement ${i}: Condition must be an object`);
    for (const [operator, block] of Object.entries(st.Condition as Record<string, unknown>)) {
      if (block === null || typeof block !== 'object')
        throw new PolicyError(`Statement ${i}: Condition ${operator} must be an object`);
      for (const [key, v] of Object.entries(block as Record<string, unknown>)) {
        const values = (Array.isArray(v) ? v : [v]).map(String);
        conditions.push(compileCondition(operator, key, values));
      }
    }
  }
  return {
    ...(typeof st.Sid === 'string' ? { sid: st.Sid } : {}),
    effect: st.Effect,
    action: notAction ? (a) => !action(a) : action,
    resource: notResource
      ? (r, ctx) => {
          const m = res(r, ctx);
          return m === undefined ? undefined : !m;
        }
      : res,
    conditions,
    templated: resourcePatterns.some((p) => p.includes('${')),
  };
}

/** Parses one policy document or a list of them (as the credentials file holds them). */
export function compilePolicies(doc: unknown): CompiledPolicy {
  const docs = Array.isArray(doc) ? doc : doc === undefined ? [] : [doc];
  const statements: CompiledStatement[] = [];
  for (const d of docs) {
    const p = typeof d === 'string' ? (JSON.parse(d) as unknown) : d;
    if (p === null || typeof p !== 'object' || Array.isArray(p))
      throw new PolicyError('A policy must be a JSON object');
    const st = (p as Record<string, unknown>).Statement;
    if (st === undefined) throw new PolicyError('A policy needs a Statement');
    const list = Array.isArray(st) ? st : [st];
    list.forEach((s, i) => {
      statements.push(compileStatement(s, i));
    });
  }
  return { statements, contextFree: statements.every((s) => s.conditions.length === 0 && !s.templated) };
}

/**
 * The identity-policy decision for one action on one resource. A statement whose condition (or
 * policy variable) cannot be evaluated never allows, and a Deny statement in that state denies:
 * uncertainty always falls on the side of refusing.
 */
export function evaluate(policy: CompiledPolicy, action: string, resource: string, ctx: RequestFacts): Decision {
  let allowed = false;
  for (const s of policy.statements) {
    if (!s.action(action)) continue;
    const r = s.resource(resource, ctx);
    if (r === false) continue;
    let cond: boolean | undefined = true;
    for (const c of s.conditions) {
      const t = c.test(ctx);
      if (t === false) {
        cond = false;
        break;
      }
      if (t === undefined) cond = undefined;
    }
    if (cond === false) continue;
    const certain = r === true && cond === true;
    if (s.effect === 'Deny') return 'ExplicitDeny';
    if (certain) allowed = true;
  }
  return allowed ? 'Allow' : 'ImplicitDeny';
}
