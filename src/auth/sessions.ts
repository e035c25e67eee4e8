// Temporary credentials (STS AssumeRole, GetSessionToken): an `ASIA…` access key, a secret, a
// session token and an expiry, kept in the database so they outlive restarts and work on every
// replica. No secret is stored: a session's secret is derived (HMAC-SHA256) from the secret of the
// long-term key it was issued under, found in the credentials file, and a per-session nonce; the
// session token is kept as its SHA-256. A copy of the database alone signs nothing.
// DEVIATION(aws): removing a key (or a role) from the credentials file ends the sessions issued
// under it; AWS lets them run to their expiry.
// https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_use-resources.html
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database, Queryable } from '../storage/db/types.js';

export type SessionKind = 'AssumeRole' | 'GetSessionToken';

export interface SessionRecord {
  readonly accessKeyId: string;
  readonly accountId: string;
  readonly kind: SessionKind;
  /** The identity the session acts as: `arn:aws:sts::ACCT:assumed-role/ROLE/SESSION`, or the user's ARN. */
  readonly arn: string;
  /** AssumeRole: the role whose policy the session has. */
  readonly roleArn: string | null;
  /** Who asked for the session. */
  readonly sourceArn: string;
  /** The long-term access key the secret derives from (null without a credentials file). */
  readonly rootAccessKeyId: string | null;
  readonly nonce: string;
  readonly tokenHash: string;
  /** AssumeRole's inline session policy (JSON), which further limits the role's. */
  readonly sessionPolicy: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32(bytes: Buffer, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE32[bytes[i]! & 31];
  return out;
}

/** `ASIA` and 16 more characters, as AWS writes temporary access key ids. */
export function newTemporaryAccessKeyId(): string {
  return `ASIA${base32(randomBytes(16), 16)}`;
}

export function isTemporaryAccessKeyId(id: string): boolean {
  return /^ASIA[A-Z2-7]{16}$/.test(id);
}

export function newSessionToken(): string {
  return randomBytes(144).toString('base64');
}

export function newNonce(): string {
  return randomBytes(18).toString('base64url');
}

export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Whether `token` is the session's own (compared in constant time). */
export function tokenMatches(record: Pick<SessionRecord, 'tokenHash'>, token: string | undefined): boolean {
  if (token === undefined) return false;
  const a = Buffer.from(tokenHash(token), 'hex');
  const b = Buffer.from(record.tokenHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The session's secret access key: 40 characters, as AWS's are. */
export function deriveSecret(rootSecret: string, accessKeyId: string, nonce: string): string {
  return createHmac('sha256', rootSecret)
    .update(`slipway-sts-v1\u0000${accessKeyId}\u0000${nonce}`)
    .digest('base64')
    .slice(0, 40);
}

/** A stable unique id for an IAM identity (`AIDA…` for users, `AROA…` for roles), as GetCallerIdentity shows it. */
export function uniqueId(arn: string): string {
  const prefix = /:role\//.test(arn) ? 'AROA' : 'AIDA';
  return prefix + base32(createHash('sha256').update(arn).digest(), 17);
}

/** `arn:aws:sts::ACCT:assumed-role/NAME/SESSION` for role `arn:aws:iam::ACCT:role/PATH/NAME`. */
export function assumedRoleArn(roleArn: string, sessionName: string): string {
  const m = /^arn:(aws[a-z-]*):iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(roleArn);
  if (!m) throw new Error(`not a role ARN: ${roleArn}`);
  return `arn:${m[1]}:sts::${m[2]}:assumed-role/${m[3]}/${sessionName}`;
}

/** The role ARN an assumed-role ARN was made from, when the role has no path (which the ARN does not keep). */
export function parseAssumedRole(arn: string): { account: string; role: string; session: string } | undefined {
  const m = /^arn:aws[a-z-]*:sts::(\d{12}):assumed-role\/([^/]+)\/(.+)$/.exec(arn);
  return m ? { account: m[1]!, role: m[2]!, session: m[3]! } : undefined;
}

const COLUMNS =
  'access_key_id, account_id, kind, arn, role_arn, source_arn, root_access_key_id, nonce, token_hash, session_policy, created_at, expires_at';

function toRecord(r: Record<string, unknown>): SessionRecord {
  return {
    accessKeyId: r.access_key_id as string,
    accountId: r.account_id as string,
    kind: r.kind as SessionKind,
    arn: r.arn as string,
    roleArn: (r.role_arn as string | null) ?? null,
    sourceArn: r.source_arn as string,
    rootAccessKeyId: (r.root_access_key_id as string | null) ?? null,
    nonce: r.nonce as string,
    tokenHash: r.token_hash as string,
    sessionPolicy: (r.session_policy as string | null) ?? null,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
  };
}

/** The sessions table (migration 0060). */
export class SessionStore {
  constructor(private readonly db: Database) {}

  async insert(s: SessionRecord, q: Queryable = this.db): Promise<void> {
    await q.run(`INSERT INTO sts_sessions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      s.accessKeyId,
      s.accountId,
      s.kind,
      s.arn,
      s.roleArn,
      s.sourceArn,
      s.rootAccessKeyId,
      s.nonce,
      s.tokenHash,
      s.sessionPolicy,
      s.createdAt,
      s.expiresAt,
    ]);
  }

  async get(accessKeyId: string): Promise<SessionRecord | undefined> {
    const r = await this.db.get(`SELECT ${COLUMNS} FROM sts_sessions WHERE access_key_id = ?`, [accessKeyId]);
    return r ? toRecord(r) : undefined;
  }

  /** Forgets sessions that expired before `before`; returns how many. */
  async deleteExpired(before: number): Promise<number> {
    return (await this.db.run(`DELETE FROM sts_sessions WHERE expires_at < ?`, [before])).changes;
  }
}
