// Signature Version 4 as a server checks it: the canonical request, the string to sign, the
// derived signing key (cached per key, day, region and service) and the signature comparison.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
// https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html (S3's exceptions)
import { createHmac, hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const ALGORITHM = 'AWS4-HMAC-SHA256';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const STREAMING_SIGNED = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
export const STREAMING_SIGNED_TRAILER = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';
export const STREAMING_UNSIGNED_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** One-shot SHA-256 (crypto.hash: a third of createHash's cost for the short strings signed here). */
export const sha256Hex = (data: string | Buffer): string => hash('sha256', data, 'hex');

/**
 * What a signature says before the signature itself: the credential (key and scope) and the
 * signed headers. Every request a client signs with one key, on one day, for one service and one
 * set of headers says the same, so the header form is parsed once per such prefix (HeaderCredentials).
 */
export interface SignatureCredential {
  readonly accessKeyId: string;
  /** `yyyymmdd` of the credential scope. */
  readonly date: string;
  readonly region: string;
  readonly service: string;
  /** `<date>/<region>/<service>/aws4_request`. */
  readonly scope: string;
  readonly signedHeaders: readonly string[];
  /** The signed headers joined by `;`, as the canonical request ends its header part. */
  readonly signedHeaderList: string;
}

/** What a request says about its signature, from the Authorization header or the query (presigned). */
export interface SignedParts {
  readonly credential: SignatureCredential;
  readonly signature: string;
  /** `yyyymmddThhmmssZ` from X-Amz-Date (or Date). */
  readonly amzDate: string;
  /** Presigned URL: seconds from amzDate the URL stays valid. */
  readonly expires: number | undefined;
  readonly presigned: boolean;
}

export type ParseResult =
  | { kind: 'none' }
  | { kind: 'malformed'; message: string }
  /** `sdk`: read from a remembered SDK-layout prefix, the signature not yet checked (see parseSignature). */
  | ({ kind: 'ok'; sdk: boolean } & SignedParts);

const AUTH_HEADER = /^AWS4-HMAC-SHA256\s+(.*)$/;
/**
 * The layout every SDK writes, up to the signature (64 lower-case hex digits that follow): one
 * regex instead of splitting (the general parse handles the rest).
 */
const AUTH_HEADER_SDK_PREFIX = /^AWS4-HMAC-SHA256 Credential=([^,\s]+), ?SignedHeaders=([^,\s]+), ?Signature=$/;
const CREDENTIAL = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/;
const AMZ_DATE = /^\d{8}T\d{6}Z$/;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

const SIGNATURE_LENGTH = 64;

/** Whether a signature is written as the SDKs write it: 64 lower-case hex digits. */
export function isSdkSignature(s: string): boolean {
  if (s.length !== SIGNATURE_LENGTH) return false;
  for (let i = 0; i < SIGNATURE_LENGTH; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

function credentialOf(credential: string, signedHeaders: readonly string[]): SignatureCredential | undefined {
  const c = CREDENTIAL.exec(credential);
  if (!c) return undefined;
  return {
    accessKeyId: c[1]!,
    date: c[2]!,
    region: c[3]!,
    service: c[4]!,
    scope: `${c[2]}/${c[3]}/${c[4]}/aws4_request`,
    signedHeaders,
    signedHeaderList: signedHeaders.join(';'),
  };
}

/**
 * Credentials of Authorization headers in the SDK layout, by the text before the signature (the
 * last 64 characters, read as the signature whatever they are: see `parseSignature`). The value is
 * what parsing that text gives, nothing else (no key, no verdict), so a hit answers exactly as
 * parsing would. Bounded: past `limit` distinct prefixes (made-up keys, say) it starts afresh,
 * which costs parsing and nothing more.
 */
export class HeaderCredentials {
  private readonly byPrefix = new Map<string, SignatureCredential>();
  /** The last prefix found, compared first (cheaper than hashing it): a client's requests come in runs. */
  private lastPrefix = '';
  private last: SignatureCredential | undefined;

  constructor(private readonly limit = 1024) {}

  /** The credential of an SDK-layout Authorization header; undefined for any other text. */
  of(authorization: string): SignatureCredential | undefined {
    const cut = authorization.length - SIGNATURE_LENGTH;
    if (cut < 1 || authorization.charCodeAt(cut - 1) !== 0x3d /* = */) return undefined;
    const prefix = authorization.slice(0, cut);
    if (prefix === this.lastPrefix) return this.last;
    let credential = this.byPrefix.get(prefix);
    if (!credential) {
      const m = AUTH_HEADER_SDK_PREFIX.exec(prefix);
      // The SDKs write the signed headers lower-case and without spaces: used as they are.
      credential = m ? credentialOf(m[1]!, m[2]!.split(';')) : undefined;
      if (!credential) return undefined;
      if (this.byPrefix.size >= this.limit) this.byPrefix.clear();
      this.byPrefix.set(prefix, credential);
    }
    this.lastPrefix = prefix;
    this.last = credential;
    return credential;
  }

  get size(): number {
    return this.byPrefix.size;
  }
}

/**
 * Reads the SigV4 fields of a request; `none` when it carries no signature at all.
 *
 * With `known`, an Authorization header in the SDK layout is read from its remembered prefix and
 * its last 64 characters are the signature, not checked here (`sdk: true`). The caller compares
 * such a signature exactly as written, so only the 64 lower-case hex digits the SDKs write can
 * match, and reads a header whose signature is anything else again without `known`: the general
 * parse, which splits the header at its commas and compares in either case, answers it as before.
 */
export function parseSignature(headers: IncomingHttpHeaders, rawQuery: string, known?: HeaderCredentials): ParseResult {
  const auth = header(headers, 'authorization');
  const sdk = auth === undefined || known === undefined ? undefined : known.of(auth);
  if (sdk) {
    const amzDate = header(headers, 'x-amz-date') ?? isoBasic(header(headers, 'date'));
    if (!amzDate || !isAmzDate(amzDate)) return MISSING_DATE;
    return {
      kind: 'ok',
      sdk: true,
      credential: sdk,
      signature: auth!.slice(auth!.length - SIGNATURE_LENGTH),
      amzDate,
      presigned: false,
      expires: undefined,
    };
  }
  let credential: string | undefined;
  let signed: string | undefined;
  let signature: string | undefined;
  let amzDate: string | undefined;
  let expires: number | undefined;
  let presigned = false;
  if (auth !== undefined) {
    const m = AUTH_HEADER.exec(auth.trim());
    if (!m) return { kind: 'malformed', message: `Unsupported Authorization Type` };
    for (const part of m[1]!.split(',')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      const k = part.slice(0, eq).trim();
      const v = part.slice(eq + 1).trim();
      if (k === 'Credential') credential = v;
      else if (k === 'SignedHeaders') signed = v;
      else if (k === 'Signature') signature = v;
    }
    amzDate = header(headers, 'x-amz-date') ?? isoBasic(header(headers, 'date'));
  } else if (rawQuery.includes('X-Amz-Signature') || rawQuery.includes('X-Amz-Credential')) {
    // Parsed only for presigned URLs: header-signed requests (the hot path) never build it.
    const query = new URLSearchParams(rawQuery);
    presigned = true;
    if (query.get('X-Amz-Algorithm') !== ALGORITHM)
      return { kind: 'malformed', message: 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"' };
    credential = query.get('X-Amz-Credential') ?? undefined;
    signed = query.get('X-Amz-SignedHeaders') ?? undefined;
    signature = query.get('X-Amz-Signature') ?? undefined;
    amzDate = query.get('X-Amz-Date') ?? undefined;
    const e = query.get('X-Amz-Expires');
    expires = e === null ? undefined : Number(e);
    if (expires !== undefined && (!Number.isInteger(expires) || expires < 0))
      return { kind: 'malformed', message: 'X-Amz-Expires should be a number' };
  } else return { kind: 'none' };
  const missing = [
    credential === undefined && 'Credential',
    signed === undefined && 'SignedHeaders',
    signature === undefined && 'Signature',
  ].filter(Boolean);
  if (missing.length)
    return {
      kind: 'malformed',
      message: `Authorization header requires ${missing.map((m) => `'${m}'`).join(', ')} parameter.`,
    };
  const c = credentialOf(
    credential!,
    signed!.split(';').map((h) => h.trim().toLowerCase()),
  );
  if (!c) return { kind: 'malformed', message: `Credential should be scoped to a valid region.` };
  if (!amzDate || !isAmzDate(amzDate)) return MISSING_DATE;
  return { kind: 'ok', sdk: false, credential: c, signature: signature!, amzDate, presigned, expires };
}

/**
 * `f` remembering its last argument and answer. A client's requests repeat a path and, within a
 * second, a date, so the work runs once per run of them. Only for pure `f`: a hit answers exactly
 * as calling it would.
 */
export function lastOf<T>(f: (s: string) => T): (s: string) => T {
  let key: string | undefined;
  let value = undefined as T;
  return (s) => {
    if (s !== key) {
      value = f(s);
      key = s;
    }
    return value;
  };
}

/** Whether an X-Amz-Date is `yyyymmddThhmmssZ`. */
const isAmzDate = lastOf((s) => AMZ_DATE.test(s));

const MISSING_DATE: ParseResult = {
  kind: 'malformed',
  message: `Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.`,
};

/** `Tue, 24 Nov 2026 13:20:32 GMT` → `20261124T132032Z` (a Date header in place of X-Amz-Date). */
function isoBasic(httpDate: string | undefined): string | undefined {
  if (!httpDate) return undefined;
  const t = Date.parse(httpDate);
  return Number.isNaN(t)
    ? undefined
    : new Date(t)
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d{3}/, '');
}

/** `20261124T132032Z` → epoch ms. */
export function amzDateMs(amzDate: string): number {
  return Date.UTC(
    Number(amzDate.slice(0, 4)),
    Number(amzDate.slice(4, 6)) - 1,
    Number(amzDate.slice(6, 8)),
    Number(amzDate.slice(9, 11)),
    Number(amzDate.slice(11, 13)),
    Number(amzDate.slice(13, 15)),
  );
}

/** RFC 3986 percent-encoding, as SigV4 wants it (only A-Z a-z 0-9 - _ . ~ are left alone). */
export function uriEncode(s: string, keepSlash = false): string {
  const e = encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return keepSlash ? e.replace(/%2F/g, '/') : e;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A path that normalising and encoding leave as it is (the common case: `/`, `/endpoints/x/invocations`). */
const PLAIN_PATH = /^(\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*\/?$/;

/**
 * The canonical URI. Every service but S3 normalises the path (no empty, `.` or `..` segments) and
 * encodes the already-encoded path once more; S3 signs the path as sent.
 */
export function canonicalUri(rawPath: string, s3: boolean): string {
  if (s3) return rawPath === '' ? '/' : rawPath;
  return normalizedPath(rawPath);
}

const normalizedPath = lastOf((rawPath) => {
  if (PLAIN_PATH.test(rawPath) && !rawPath.includes('/.')) return rawPath || '/';
  const segments: string[] = [];
  for (const seg of rawPath.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') segments.pop();
    else segments.push(seg);
  }
  const path = `/${segments.join('/')}${segments.length > 0 && rawPath.endsWith('/') ? '/' : ''}`;
  return uriEncode(path, true);
});

/** Sorted, each key and value decoded then RFC 3986-encoded; the signature itself left out. */
export function canonicalQuery(rawQuery: string): string {
  if (rawQuery === '') return '';
  const pairs: Array<[string, string]> = [];
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const k = uriEncode(safeDecode(eq < 0 ? part : part.slice(0, eq)));
    if (k === 'X-Amz-Signature') continue;
    pairs.push([k, uriEncode(safeDecode(eq < 0 ? '' : part.slice(eq + 1)))]);
  }
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

export interface CanonicalInput {
  readonly method: string;
  readonly rawPath: string;
  readonly rawQuery: string;
  readonly headers: IncomingHttpHeaders;
  readonly signedHeaders: readonly string[];
  /** `signedHeaders` joined by `;`. */
  readonly signedHeaderList: string;
  readonly payloadHash: string;
  readonly s3: boolean;
}

/**
 * Whether SigV4's form of a header value (trimmed, each run of white space one space, as the SDKs
 * write it) is the value as it is: no white space but single spaces between other characters. Any
 * other white space, and any control character, says no (the general form then decides), so a
 * value passed as it is always equals the general form. Most values (dates, ids, host, content
 * type) pass: one loop instead of a trim and a regular expression each.
 */
function canonicalAsIs(v: string): boolean {
  let space = true; // a leading space is trimmed
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 0x20) {
      if (space) return false;
      space = true;
    } else if (c < 0x20 || c === 0xa0 || c >= 0x1680) return false;
    else space = false;
  }
  return !space || v.length === 0;
}

/** A header's value in the canonical request: trimmed, runs of white space folded. */
function canonicalValue(v: string | undefined): string {
  if (v === undefined) return '';
  return canonicalAsIs(v) ? v : v.trim().replace(/\s+/g, ' ');
}

/**
 * The canonical header lines of one set of signed headers for the values last seen. A client's
 * requests repeat most header values, so the lines are written again only when a value differs;
 * it is a function of the values alone (nothing about the signature or the verdict), so a hit
 * gives exactly what writing them would. Live SDK traffic signs a new amz-sdk-invocation-id on
 * every request, so there the lines are written each time.
 */
export class CanonicalHeaders {
  private readonly values: Array<string | string[] | undefined>;
  private written = false;
  private block = '';

  constructor(readonly names: readonly string[]) {
    this.values = names.map(() => undefined);
  }

  of(headers: IncomingHttpHeaders): string {
    const { names, values } = this;
    if (this.written) {
      let i = 0;
      while (i < names.length && headers[names[i]!] === values[i]) i++;
      if (i === names.length) return this.block;
    }
    let lines = '';
    for (let k = 0; k < names.length; k++) {
      const v = headers[names[k]!];
      values[k] = v;
      lines += headerLine(names[k]!, v);
    }
    this.written = true;
    this.block = lines;
    return lines;
  }
}

/** One canonical header line; a repeated header's values joined by commas. */
function headerLine(name: string, v: string | string[] | undefined): string {
  return `${name}:${canonicalValue(Array.isArray(v) ? v.join(',') : v)}\n`;
}

function headerLines(headers: IncomingHttpHeaders, names: readonly string[]): string {
  let lines = '';
  for (const name of names) lines += headerLine(name, headers[name]);
  return lines;
}

/** `lines`, when given, writes the header lines (its names must be `i.signedHeaders`). */
export function canonicalRequest(i: CanonicalInput, lines?: CanonicalHeaders): string {
  const headers = lines ? lines.of(i.headers) : headerLines(i.headers, i.signedHeaders);
  return `${i.method}\n${canonicalUri(i.rawPath, i.s3)}\n${canonicalQuery(i.rawQuery)}\n${headers}\n${i.signedHeaderList}\n${i.payloadHash}`;
}

/** The string to sign of a request whose canonical request hashes (SHA-256, hex) to `canonicalHash`. */
export function stringToSign(amzDate: string, scope: string, canonicalHash: string): string {
  return `${ALGORITHM}\n${amzDate}\n${scope}\n${canonicalHash}`;
}

const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();

const ASCII = /^[\x20-\x7e]*$/;

/**
 * A derived signing key, kept as its two HMAC pads (RFC 2104: H(K^opad || H(K^ipad || m))). With
 * them an HMAC is two one-shot `crypto.hash` calls, about a third of what a `createHmac` object
 * costs per request; Node offers no one-shot HMAC.
 *
 * A key belongs to one credential scope, so every request's string to sign has the same layout:
 * `AWS4-HMAC-SHA256\n<amzDate>\n<scope>\n<canonical request hash>`, where only the date (16
 * characters) and the hash (64) change. The key keeps both HMAC inputs as buffers with the pads and
 * the fixed text in place and writes only those two fields per request: no string or buffer is
 * built. (JavaScript runs one call at a time, so the buffers are never shared by two.)
 */
export class SigningKey {
  private readonly innerPad: string;
  private readonly outerPad: string;
  /** `ipad | AWS4-HMAC-SHA256\n | amzDate | \n<scope>\n | hash` and `opad | inner digest`. */
  private readonly request: { readonly inner: Buffer; readonly outer: Buffer } | undefined;
  /** The date now written in `request.inner` (a client's requests within a second share it). */
  private writtenDate = '';

  constructor(
    private readonly raw: Buffer,
    readonly scope?: string,
  ) {
    const inner = Buffer.alloc(64, 0x36);
    const outer = Buffer.alloc(64, 0x5c);
    for (let i = 0; i < raw.length; i++) {
      inner[i]! ^= raw[i]!;
      outer[i]! ^= raw[i]!;
    }
    this.innerPad = inner.toString('latin1');
    this.outerPad = outer.toString('latin1');
    this.request =
      scope !== undefined && ASCII.test(scope)
        ? {
            inner: Buffer.concat([inner, Buffer.from(`${ALGORITHM}\n${'0'.repeat(16)}\n${scope}\n${'0'.repeat(64)}`)]),
            outer: Buffer.concat([outer, Buffer.alloc(32)]),
          }
        : undefined;
  }

  /** HMAC-SHA256 of `data` with this key, hex. */
  sign(data: string): string {
    if (Buffer.byteLength(data) !== data.length) return createHmac('sha256', this.raw).update(data).digest('hex');
    const inner = hash('sha256', Buffer.from(this.innerPad + data, 'latin1'), 'binary');
    return hash('sha256', Buffer.from(this.outerPad + inner, 'latin1'), 'hex');
  }

  /**
   * The signature of a request: HMAC of stringToSign(amzDate, scope, canonicalHash), hex. `amzDate`
   * is a checked `yyyymmddThhmmssZ`, `canonicalHash` a SHA-256 hex digest.
   */
  signRequest(amzDate: string, scope: string, canonicalHash: string): string {
    const r = this.request;
    if (r === undefined || scope !== this.scope || amzDate.length !== 16 || canonicalHash.length !== 64)
      return this.sign(stringToSign(amzDate, scope, canonicalHash));
    const { inner, outer } = r;
    if (amzDate !== this.writtenDate) {
      inner.write(amzDate, 64 + ALGORITHM.length + 1, 'latin1');
      this.writtenDate = amzDate;
    }
    inner.write(canonicalHash, inner.length - 64, 'latin1');
    outer.write(hash('sha256', inner, 'binary'), 64, 'latin1');
    return hash('sha256', outer, 'hex');
  }
}

/**
 * Signing keys by access key, day, region and service: four HMACs saved per request. The cache
 * holds the secret it was derived from, so a key whose secret changed on reload is derived anew.
 */
export class SigningKeys {
  private readonly cache = new Map<string, { secret: string; key: SigningKey }>();

  get(accessKeyId: string, secret: string, date: string, region: string, service: string): SigningKey {
    const id = `${accessKeyId}/${date}/${region}/${service}`;
    const hit = this.cache.get(id);
    if (hit && hit.secret === secret) return hit.key;
    const key = new SigningKey(
      hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request'),
      `${date}/${region}/${service}/aws4_request`,
    );
    // Bounded: a client cycling regions or services (or an attacker with a valid key id) cannot grow it forever.
    if (this.cache.size >= 4096) this.cache.clear();
    this.cache.set(id, { secret, key });
    return key;
  }
}

/** Whether `provided` is exactly the hex signature `expected`, in time independent of where they differ. */
export function sameSignature(expected: string, provided: string): boolean {
  if (expected.length !== 64 || provided.length !== 64) return false;
  let diff = 0;
  for (let i = 0; i < 64; i++) diff |= expected.charCodeAt(i) ^ provided.charCodeAt(i);
  return diff === 0;
}

/** String to sign of one aws-chunked chunk (STREAMING-AWS4-HMAC-SHA256-PAYLOAD). */
export function chunkStringToSign(amzDate: string, scope: string, previous: string, chunkHash: string): string {
  return `AWS4-HMAC-SHA256-PAYLOAD\n${amzDate}\n${scope}\n${previous}\n${EMPTY_SHA256}\n${chunkHash}`;
}

/** String to sign of the trailing headers (STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER). */
export function trailerStringToSign(amzDate: string, scope: string, previous: string, trailerHash: string): string {
  return `AWS4-HMAC-SHA256-TRAILER\n${amzDate}\n${scope}\n${previous}\n${trailerHash}`;
}
