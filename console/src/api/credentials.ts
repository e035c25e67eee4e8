// The credentials the console signs its requests with, kept for this browser tab only
// (sessionStorage): closing the tab forgets them. Kept with them: who they belong to, as the server
// said when they were checked (STS GetCallerIdentity).

export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** The principal the saved credentials sign as. */
export interface SignedInAs {
  readonly arn?: string;
  readonly account?: string;
}

const KEY = 'slipway.credentials';
const WHO = 'slipway.identity';

/**
 * A server started without credentials accepts any signature, so until the user enters theirs
 * the console signs with these: the signing path is exercised either way.
 */
export const ANONYMOUS: Credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

export function loadCredentials(): Credentials | undefined {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Credentials) : undefined;
  } catch {
    return undefined;
  }
}

export function loadIdentity(): SignedInAs | undefined {
  try {
    const raw = sessionStorage.getItem(WHO);
    return raw ? (JSON.parse(raw) as SignedInAs) : undefined;
  } catch {
    return undefined;
  }
}

export function saveCredentials(c: Credentials | undefined, who?: SignedInAs): void {
  if (c) {
    sessionStorage.setItem(KEY, JSON.stringify(c));
    sessionStorage.setItem(WHO, JSON.stringify(who ?? {}));
  } else {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(WHO);
  }
}

/** A principal's short name: `alice` for arn:aws:iam::1:user/alice, `role/session` for an assumed role. */
export function principalName(arn: string | undefined): string | undefined {
  if (!arn) return undefined;
  const m = /:(?:user|role)\/(?:.*\/)?([^/]+)$/.exec(arn) ?? /:assumed-role\/(.+)$/.exec(arn);
  if (m) return m[1];
  if (/:root$/.test(arn)) return 'root';
  return arn;
}
