// The credentials the console signs its requests with, kept for this browser tab only
// (sessionStorage): closing the tab forgets them.

export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

const KEY = 'slipway.credentials';

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

export function saveCredentials(c: Credentials | undefined): void {
  if (c) sessionStorage.setItem(KEY, JSON.stringify(c));
  else sessionStorage.removeItem(KEY);
}
