// The one seam between the HTTP ports and IAM: who signed this request (SigV4 against the
// credentials file) and may they do this action on this resource (their identity policy).
// Without a credentials file every request is anonymous and allowed (local, loopback-only use).
import type { IncomingHttpHeaders } from 'node:http';
import type { ActionTable, Partition } from './actions/types.js';
import { type Credentials, loadCredentialsFile, type Principal, type Role } from './credentials.js';
import { type CompiledPolicy, compilePolicies, type Decision, evaluate, type RequestFacts } from './policy.js';
import { deriveSecret, isTemporaryAccessKeyId, type SessionRecord, tokenMatches } from './sessions.js';
import {
  amzDateMs,
  CanonicalHeaders,
  canonicalRequest,
  chunkStringToSign,
  HeaderCredentials,
  isSdkSignature,
  lastOf,
  type ParseResult,
  parseSignature,
  type SignatureCredential,
  type SignedParts,
  type SigningKey,
  SigningKeys,
  sameSignature,
  sha256Hex,
  stringToSign,
  trailerStringToSign,
  UNSIGNED_PAYLOAD,
} from './sigv4.js';
import { isSigV2Query, parseSigV2Query, sameSigV2, sigV2Signature, sigV2StringToSign } from './sigv2.js';

/** AWS's clock-skew window for signed requests. */
export const MAX_SKEW_MS = 15 * 60 * 1000;
/** The longest a presigned URL may live (seven days). */
export const MAX_PRESIGNED_SECONDS = 604_800;

export type AuthFailure =
  | { readonly reason: 'missing' }
  | { readonly reason: 'malformed'; readonly message: string }
  | { readonly reason: 'unknown-key'; readonly accessKeyId: string }
  | {
      readonly reason: 'signature';
      readonly accessKeyId: string;
      /** SigV4 only: SigV2 signs a string, not a canonical request. */
      readonly canonicalRequest?: string;
      readonly stringToSign: string;
      readonly signatureProvided: string;
    }
  | { readonly reason: 'skewed'; readonly requestTime: string; readonly serverTime: Date; readonly future: boolean }
  | {
      readonly reason: 'expired';
      readonly expiresAt: Date;
      readonly serverTime: Date;
      /** X-Amz-Expires of a SigV4 URL; absent for SigV2, whose Expires is the time itself. */
      readonly seconds?: number;
    }
  | { readonly reason: 'expires-too-long' }
  | { readonly reason: 'missing-content-sha256' }
  /** Temporary credentials whose session has expired. */
  | { readonly reason: 'expired-token' };

export interface SigV4Authenticated {
  readonly version: 4;
  readonly principal: Principal;
  readonly parts: SignedParts;
  readonly signingKey: SigningKey;
  /** The payload hash the signature covers (a hex digest, UNSIGNED-PAYLOAD or a STREAMING-* literal). */
  readonly payloadHash: string;
}

/** An S3 SigV2 presigned URL: it names the principal and signs no payload. */
export interface SigV2Authenticated {
  readonly version: 2;
  readonly principal: Principal;
  readonly parts?: undefined;
  readonly payloadHash: typeof UNSIGNED_PAYLOAD;
}

export type Authenticated = SigV4Authenticated | SigV2Authenticated;

export interface SignedRequest {
  readonly method: string;
  /** Request target as sent: raw path and raw query. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

export interface AuthenticateOptions {
  /** S3's canonicalization: path not re-encoded, x-amz-content-sha256 required with header auth. */
  readonly s3?: boolean;
  /** The whole body, when the protocol has read it (JSON APIs): its SHA-256 is the payload hash. */
  readonly body?: Buffer;
  readonly now?: number;
}

/** Where the facts a policy's conditions read come from (the request gate). */
export interface FactsSource {
  facts(): Omit<RequestFacts, 'principalArn' | 'accountId'>;
}

export interface Denial {
  readonly decision: Exclude<Decision, 'Allow'>;
  readonly action: string;
  readonly resource: string;
  /** AWS's sentence: "User: <arn> is not authorized to perform: <action> on resource: <arn> because ...". */
  readonly message: string;
}

export function deniedMessage(
  principalArn: string,
  action: string,
  resource: string,
  decision: Denial['decision'],
  policyKind: 'identity-based' | 'session' = 'identity-based',
): string {
  const on = resource === '*' ? '' : ` on resource: ${resource}`;
  const why =
    decision === 'ExplicitDeny'
      ? `with an explicit deny in ${policyKind === 'session' ? 'a session' : 'an identity-based'} policy`
      : `because no ${policyKind} policy allows the ${action} action`;
  return `User: ${principalArn} is not authorized to perform: ${action}${on} ${why}`;
}

/** Where temporary credentials are looked up (the sts_sessions table). */
export interface SessionSource {
  get(accessKeyId: string): Promise<SessionRecord | undefined>;
}

/** Sessions (and keys found to be none) kept in memory at most: past this the cache starts afresh. */
const MAX_CACHED_SESSIONS = 10_000;

/** The facts a condition-free policy is evaluated with: it reads none of them. */
const NO_FACTS = { region: '', now: new Date(0) };

interface AllowedByName {
  readonly principal: Principal;
  readonly table: ActionTable;
  readonly name: string;
  readonly region: string;
  readonly accountId: string;
}

/** Who a credential names in one credentials file, and the key their signatures are made with. */
interface Signer {
  readonly credentials: Credentials;
  readonly principal: Principal | undefined;
  readonly key: SigningKey | undefined;
  /** The credential's canonical header lines for the header values last seen. */
  readonly lines: CanonicalHeaders;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

/**
 * Whether a body is what its declared x-amz-content-sha256 says: a hex digest must be the body's
 * own; any other value (UNSIGNED-PAYLOAD) declares nothing to check.
 */
function declaredHashHolds(body: Buffer, declared: string): boolean {
  if (declared.length !== 64) return true;
  const actual = sha256Hex(body);
  return actual === declared || !HEX_SHA256.test(declared) || actual === declared.toLowerCase();
}

export class Authorizer {
  private readonly keys = new SigningKeys();
  /** SDK-layout Authorization headers parsed once per credential and signed headers. */
  private readonly headerCredentials = new HeaderCredentials();
  /**
   * Principal and signing key per credential (the header ones are shared by a client's requests),
   * worked out again when the credentials file was reloaded.
   */
  private readonly signers = new WeakMap<SignatureCredential, Signer>();
  /** Epoch ms of a checked X-Amz-Date (a client's requests within one second share it). */
  private readonly timeOf = lastOf(amzDateMs);
  /** Temporary credentials: where they are found, and those found (null: a key that is none). */
  private sessionSource: SessionSource | undefined;
  private readonly sessions = new Map<string, SessionRecord | null>();
  /** The principal a session signs as, worked out again when the credentials file was reloaded. */
  private readonly sessionPrincipals = new WeakMap<
    SessionRecord,
    { credentials: Credentials; principal: Principal | undefined }
  >();

  private constructor(
    private credentials: Credentials | undefined,
    private readonly path: string | undefined,
  ) {}

  /** No credentials file: every request is accepted, unsigned or signed with any key. */
  static anonymous(): Authorizer {
    return new Authorizer(undefined, undefined);
  }

  static fromFile(path: string): Authorizer {
    return new Authorizer(loadCredentialsFile(path), path);
  }

  static fromCredentials(credentials: Credentials): Authorizer {
    return new Authorizer(credentials, undefined);
  }

  /** Whether requests must be signed by a principal of the credentials file. */
  get enabled(): boolean {
    return this.credentials !== undefined;
  }

  /** Lets temporary credentials (STS sessions) sign requests, found through `source`. */
  useSessions(source: SessionSource): void {
    this.sessionSource = source;
  }

  /**
   * Whether a request signed with `accessKeyId` must wait for loadSession() before it can be
   * authenticated: a temporary key this server has not looked up yet. Anything else is decided
   * without the database.
   */
  needsSession(accessKeyId: string): boolean {
    return (
      this.credentials !== undefined &&
      this.sessionSource !== undefined &&
      !this.sessions.has(accessKeyId) &&
      isTemporaryAccessKeyId(accessKeyId) &&
      !this.credentials.byAccessKey.has(accessKeyId)
    );
  }

  /** A role (or principal) of the credentials file by ARN; undefined without a file or when it is not listed. */
  role(arn: string): Role | undefined {
    return this.credentials?.byArn.get(arn);
  }

  /** The ARN a long-term access key of the credentials file belongs to. */
  arnOfKey(accessKeyId: string): string | undefined {
    return this.credentials?.byAccessKey.get(accessKeyId)?.arn;
  }

  /**
   * The secret of temporary credentials issued under the long-term key `rootAccessKeyId` (see
   * sessions.ts); undefined when that key is not in the credentials file.
   */
  sessionSecret(rootAccessKeyId: string, accessKeyId: string, nonce: string): string | undefined {
    const root = this.credentials?.byAccessKey.get(rootAccessKeyId);
    return root ? deriveSecret(root.secretAccessKey, accessKeyId, nonce) : undefined;
  }

  /** Looks a temporary key up (once: found or not, the answer is kept). */
  async loadSession(accessKeyId: string): Promise<void> {
    const found = await this.sessionSource?.get(accessKeyId);
    this.rememberSession(accessKeyId, found ?? null);
  }

  /** Keeps a session this server just issued (or found), so its first use needs no lookup. */
  rememberSession(accessKeyId: string, record: SessionRecord | null): void {
    if (this.sessions.size >= MAX_CACHED_SESSIONS) this.sessions.clear();
    this.sessions.set(accessKeyId, record);
  }

  /**
   * The principal temporary credentials sign as: the session's ARN with its role's policy (or, for
   * GetSessionToken, its user's), the secret derived from the long-term key it was issued under.
   * Undefined once that key or that role is no longer in the credentials file.
   */
  private sessionPrincipal(creds: Credentials, accessKeyId: string): Principal | undefined {
    const record = this.sessions.get(accessKeyId);
    if (!record) return undefined;
    const known = this.sessionPrincipals.get(record);
    if (known && known.credentials === creds) return known.principal;
    let principal: Principal | undefined;
    const root = record.rootAccessKeyId ? creds.byAccessKey.get(record.rootAccessKeyId) : undefined;
    const policy = record.kind === 'AssumeRole' ? creds.byArn.get(record.roleArn ?? '')?.policy : root?.policy;
    if (root && policy) {
      let sessionPolicy: CompiledPolicy | undefined;
      try {
        sessionPolicy = record.sessionPolicy ? compilePolicies(record.sessionPolicy) : undefined;
      } catch {
        // Checked when the session was issued; a stored one that no longer parses grants nothing.
        sessionPolicy = compilePolicies([]);
      }
      const p: Principal = {
        accessKeyId,
        secretAccessKey: deriveSecret(root.secretAccessKey, accessKeyId, record.nonce),
        arn: record.arn,
        policy,
        session: { record, conditionArn: record.roleArn ?? record.arn, ...(sessionPolicy ? { sessionPolicy } : {}) },
      };
      Object.defineProperty(p, 'toJSON', { value: () => ({ accessKeyId, arn: record.arn }) });
      principal = p;
    }
    this.sessionPrincipals.set(record, { credentials: creds, principal });
    return principal;
  }

  /**
   * Re-reads the credentials file (SIGHUP). On error the previous principals stay in force and
   * the error is thrown for the caller to log. Returns the number of principals and roles.
   */
  reload(): { principals: number; roles: number } {
    if (!this.path) return { principals: 0, roles: 0 };
    const next = loadCredentialsFile(this.path);
    this.credentials = next;
    return { principals: next.byAccessKey.size, roles: next.byArn.size };
  }

  /**
   * The credential an Authorization header in the SDK layout names, parsed once per such prefix
   * (the parse `authenticate` then reuses): routing reads its service and region from it instead
   * of matching the header again. Undefined for any other request.
   */
  headerScope(headers: IncomingHttpHeaders): SignatureCredential | undefined {
    const auth = headers.authorization;
    return typeof auth === 'string' ? this.headerCredentials.of(auth) : undefined;
  }

  /** Verifies the request's SigV4 signature (header or presigned query) and names its principal. */
  authenticate(req: SignedRequest, opts: AuthenticateOptions = {}): Authenticated | AuthFailure {
    const creds = this.credentials;
    if (!creds) throw new Error('authenticate() without a credentials file');
    const url = req.url;
    const q = url.indexOf('?');
    const rawPath = q < 0 ? url : url.slice(0, q);
    const rawQuery = q < 0 ? '' : url.slice(q + 1);
    // S3 also takes the legacy SigV2 query form that pinned SDKs still presign with.
    if (opts.s3 && req.headers.authorization === undefined && isSigV2Query(rawQuery))
      return this.verifySigV2(req, rawPath, rawQuery, creds, opts.now ?? Date.now());
    const parsed = parseSignature(req.headers, rawQuery, this.headerCredentials);
    const r = this.verify(req, opts, rawPath, rawQuery, creds, parsed);
    // An SDK-layout header whose signature is not as the SDKs write it: read as it always was.
    if ('reason' in r && parsed.kind === 'ok' && parsed.sdk && !isSdkSignature(parsed.signature))
      return this.verify(req, opts, rawPath, rawQuery, creds, parseSignature(req.headers, rawQuery));
    return r;
  }

  private verify(
    req: SignedRequest,
    opts: AuthenticateOptions,
    rawPath: string,
    rawQuery: string,
    creds: Credentials,
    parsed: ParseResult,
  ): Authenticated | AuthFailure {
    if (parsed.kind === 'none') return { reason: 'missing' };
    if (parsed.kind === 'malformed') return { reason: 'malformed', message: parsed.message };
    const now = opts.now ?? Date.now();
    const credential = parsed.credential;
    const { principal, key, lines } = this.signerOf(creds, credential);
    if (!principal || !key) return { reason: 'unknown-key', accessKeyId: credential.accessKeyId };
    if (principal.session) {
      // Temporary credentials sign with their session token alongside: it must be the session's own.
      let token = req.headers['x-amz-security-token'];
      if (token === undefined && parsed.presigned) token = queryValue(rawQuery, 'x-amz-security-token');
      if (!tokenMatches(principal.session.record, Array.isArray(token) ? token[0] : token))
        return { reason: 'unknown-key', accessKeyId: credential.accessKeyId };
      if (now >= principal.session.record.expiresAt) return { reason: 'expired-token' };
    }
    const signedAt = this.timeOf(parsed.amzDate);
    if (parsed.presigned) {
      const seconds = parsed.expires ?? MAX_PRESIGNED_SECONDS;
      if (seconds > MAX_PRESIGNED_SECONDS) return { reason: 'expires-too-long' };
      if (signedAt - now > MAX_SKEW_MS)
        return { reason: 'skewed', requestTime: parsed.amzDate, serverTime: new Date(now), future: true };
      if (now > signedAt + seconds * 1000)
        return {
          reason: 'expired',
          expiresAt: new Date(signedAt + seconds * 1000),
          serverTime: new Date(now),
          seconds,
        };
    } else if (Math.abs(now - signedAt) > MAX_SKEW_MS) {
      return { reason: 'skewed', requestTime: parsed.amzDate, serverTime: new Date(now), future: signedAt > now };
    }
    let declared = req.headers['x-amz-content-sha256'];
    // The JS SDK's S3 presigner hoists x-amz-content-sha256 (UNSIGNED-PAYLOAD) into the query.
    if (declared === undefined && parsed.presigned) declared = queryValue(rawQuery, 'x-amz-content-sha256');
    let payloadHash: string;
    if (typeof declared === 'string') payloadHash = declared;
    else if (opts.s3) {
      if (!parsed.presigned) return { reason: 'missing-content-sha256' };
      payloadHash = UNSIGNED_PAYLOAD;
    } else payloadHash = sha256Hex(opts.body ?? '');
    const canonical = canonicalRequest(
      {
        method: req.method,
        rawPath,
        rawQuery,
        headers: req.headers,
        signedHeaders: credential.signedHeaders,
        signedHeaderList: credential.signedHeaderList,
        payloadHash,
        s3: opts.s3 === true,
      },
      lines,
    );
    const canonicalHash = sha256Hex(canonical);
    const expected = key.signRequest(parsed.amzDate, credential.scope, canonicalHash);
    if (
      // The SDK layout's signature as written (see parseSignature), any other in either case.
      !sameSignature(expected, parsed.sdk ? parsed.signature : parsed.signature.toLowerCase()) ||
      !credential.signedHeaders.includes('host') ||
      // A JSON body whose declared hash is not its own was not what was signed.
      (opts.body !== undefined && typeof declared === 'string' && !declaredHashHolds(opts.body, declared))
    ) {
      return {
        reason: 'signature',
        accessKeyId: credential.accessKeyId,
        canonicalRequest: canonical,
        stringToSign: stringToSign(parsed.amzDate, credential.scope, canonicalHash),
        signatureProvided: parsed.signature,
      };
    }
    return { version: 4, principal, parts: parsed, signingKey: key, payloadHash };
  }

  /**
   * A SigV2 presigned URL, with SigV4's rules for a tampered or expired one: any change to what
   * was signed is SignatureDoesNotMatch, and past Expires the URL is refused. (S3 puts no week
   * limit on SigV2 URLs: Expires is the signer's choice.)
   */
  private verifySigV2(
    req: SignedRequest,
    rawPath: string,
    rawQuery: string,
    creds: Credentials,
    now: number,
  ): SigV2Authenticated | AuthFailure {
    const parsed = parseSigV2Query(rawQuery);
    if (parsed.kind === 'malformed') return { reason: 'malformed', message: parsed.message };
    const { accessKeyId, signature, expires } = parsed.query;
    const principal = creds.byAccessKey.get(accessKeyId);
    if (!principal) return { reason: 'unknown-key', accessKeyId };
    const stringToSign = sigV2StringToSign(req.method, rawPath, rawQuery, req.headers, expires);
    if (!sameSigV2(sigV2Signature(principal.secretAccessKey, stringToSign), signature)) {
      return { reason: 'signature', accessKeyId, stringToSign, signatureProvided: signature };
    }
    if (now > expires * 1000)
      return { reason: 'expired', expiresAt: new Date(expires * 1000), serverTime: new Date(now) };
    return { version: 2, principal, payloadHash: UNSIGNED_PAYLOAD };
  }

  private signerOf(creds: Credentials, credential: SignatureCredential): Signer {
    let s = this.signers.get(credential);
    if (
      s === undefined ||
      s.credentials !== creds ||
      (s.principal === undefined && this.sessions.get(credential.accessKeyId))
    ) {
      const principal =
        creds.byAccessKey.get(credential.accessKeyId) ?? this.sessionPrincipal(creds, credential.accessKeyId);
      const key = principal
        ? this.keys.get(
            principal.accessKeyId,
            principal.secretAccessKey,
            credential.date,
            credential.region,
            credential.service,
          )
        : undefined;
      s = { credentials: creds, principal, key, lines: new CanonicalHeaders(credential.signedHeaders) };
      this.signers.set(credential, s);
    }
    return s;
  }

  /**
   * The decision for every resource: the first one refused, or undefined when all are allowed.
   * `source` is asked for the request's facts only when a decision is not remembered (the hot
   * path builds none).
   */
  authorize(
    principal: Principal,
    action: string,
    resources: readonly string[],
    source: FactsSource,
  ): Denial | undefined {
    // A policy without conditions or variables decides by action and resource alone: its
    // decisions are remembered per principal object (a reload makes new ones, starting afresh).
    const sessionPolicy = principal.session?.sessionPolicy;
    const cache =
      principal.policy.contextFree && (sessionPolicy?.contextFree ?? true)
        ? this.decisionsOf(principal, action)
        : undefined;
    let ctx: RequestFacts | undefined;
    for (const resource of resources) {
      let decision = cache?.get(resource);
      if (decision === undefined) {
        ctx ??= {
          ...(cache ? NO_FACTS : source.facts()),
          // An assumed-role session's aws:PrincipalArn is its role's ARN.
          principalArn: principal.session?.conditionArn ?? principal.arn,
          accountId: accountOf(principal.arn),
        };
        decision = evaluate(principal.policy, action, resource, ctx);
        // A session policy limits what the role's policy allows, never adds to it.
        if (decision === 'Allow' && sessionPolicy) decision = evaluate(sessionPolicy, action, resource, ctx);
        if (cache) {
          if (cache.size >= 10_000) cache.clear();
          cache.set(resource, decision);
        }
      }
      if (decision !== 'Allow') {
        const bySession =
          sessionPolicy !== undefined &&
          evaluate(principal.policy, action, resource, {
            ...(ctx ?? source.facts()),
            principalArn: principal.session?.conditionArn ?? principal.arn,
            accountId: accountOf(principal.arn),
          }) === 'Allow';
        return {
          decision,
          action,
          resource,
          message: deniedMessage(principal.arn, action, resource, decision, bySession ? 'session' : 'identity-based'),
        };
      }
    }
    return undefined;
  }

  /**
   * The last allowed request of each operation named by one input member (see AuthService.named):
   * who, through which action table, on which name, in which partition. A request that says the
   * same asks the same action on the same resource, and a condition-free policy decides that by
   * action and resource alone, so it is allowed again without writing its ARN. Holds decisions
   * only, never anything about a signature; a reload makes new principals, so nothing carries over.
   */
  private readonly allowedNames = new Map<string, AllowedByName>();

  allowedByName(principal: Principal, table: ActionTable, operation: string, name: string, p: Partition): boolean {
    const a = this.allowedNames.get(operation);
    return (
      a !== undefined &&
      a.principal === principal &&
      a.name === name &&
      a.table === table &&
      a.region === p.region &&
      a.accountId === p.accountId
    );
  }

  /** Called once `operation` on `name` was allowed (by `authorize`, for `principal`). */
  rememberAllowedByName(principal: Principal, table: ActionTable, operation: string, name: string, p: Partition): void {
    if (!principal.policy.contextFree) return;
    // Operations come from the services' tables, a closed set: this map stays small.
    this.allowedNames.set(operation, { principal, table, name, region: p.region, accountId: p.accountId });
  }

  /** Decisions by principal, then action, then resource. */
  private readonly decisions = new WeakMap<Principal, Map<string, Map<string, Decision>>>();

  private decisionsOf(principal: Principal, action: string): Map<string, Decision> {
    let byAction = this.decisions.get(principal);
    if (!byAction) {
      byAction = new Map();
      this.decisions.set(principal, byAction);
    }
    let m = byAction.get(action);
    if (!m) {
      // Actions come from the operation tables, a closed set: this map stays small.
      m = new Map();
      byAction.set(action, m);
    }
    return m;
  }

  /** Whether the credentials file names `roleArn` (a role, or a principal's ARN). */
  hasRole(roleArn: string): boolean {
    return this.credentials?.byArn.has(roleArn) ?? true;
  }

  /**
   * Whether Slipway, acting for a user, may do `action` on `resource` as the role (or principal)
   * `roleArn` names: the bulk loader reading its source, a job reading its channels. Always true
   * without a credentials file; false for a role the file does not list.
   */
  roleMay(roleArn: string, action: string, resource: string, region = 'us-east-1'): boolean {
    const creds = this.credentials;
    if (!creds) return true;
    const role = creds.byArn.get(roleArn);
    if (!role) return false;
    const ctx: RequestFacts = { principalArn: role.arn, accountId: accountOf(role.arn), region, now: new Date() };
    return evaluate(role.policy, action, resource, ctx) === 'Allow';
  }

  /**
   * The checker of an aws-chunked body's chunk signatures (STREAMING-AWS4-HMAC-SHA256-PAYLOAD):
   * each chunk's signature chains from the previous one, the first from the request's.
   */
  chunkVerifier(auth: SigV4Authenticated): ChunkVerifier {
    let previous = auth.parts.signature.toLowerCase();
    const { amzDate } = auth.parts;
    const { scope } = auth.parts.credential;
    return {
      chunk(signature, chunkHash) {
        const expected = auth.signingKey.sign(chunkStringToSign(amzDate, scope, previous, chunkHash));
        if (!sameSignature(expected, signature.toLowerCase())) return false;
        previous = expected;
        return true;
      },
      trailer(signature, trailerHash) {
        const expected = auth.signingKey.sign(trailerStringToSign(amzDate, scope, previous, trailerHash));
        return sameSignature(expected, signature.toLowerCase());
      },
    };
  }
}

export interface ChunkVerifier {
  /** Checks one chunk's `chunk-signature` against the SHA-256 (hex) of its data. */
  chunk(signature: string, chunkHash: string): boolean;
  /** Checks `x-amz-trailer-signature` against the SHA-256 of the trailing header lines. */
  trailer(signature: string, trailerHash: string): boolean;
}

function queryValue(rawQuery: string, name: string): string | undefined {
  for (const part of rawQuery.split('&')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).toLowerCase() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function accountOf(arn: string): string {
  return arn.split(':')[4] ?? '';
}
