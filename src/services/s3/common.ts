// Rules shared by the S3 operations: names, keys, stored headers, ETags, ranges, preconditions,
// continuation tokens. https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
import { createHash } from 'node:crypto';
import type { ChecksumAlgorithm } from '../../protocol/rest-xml/checksums.js';
import { CHECKSUM_ALGORITHMS } from '../../protocol/rest-xml/checksums.js';
import { storedContentEncoding } from '../../protocol/rest-xml/payload.js';
import { S3Error, s3Error } from '../../protocol/rest-xml/s3-errors.js';
import type { BlobRange, ListFrom, LocalObjectStore, StoredObject } from '../../storage/blobs/object-store.js';

export interface S3Deps {
  readonly store: LocalObjectStore;
  readonly accountId: string;
}

const GiB = 1024 * 1024 * 1024;
/** Largest single PutObject / UploadPart body, and smallest part other than the last. */
export const MAX_PUT_SIZE = 5 * GiB;
export const MIN_PART_SIZE = 5 * 1024 * 1024;
export const MAX_PART_NUMBER = 10_000;
export const MAX_KEY_BYTES = 1024;
/** S3 limits user metadata (names and values of x-amz-meta-*) to 2 KB. */
export const MAX_USER_METADATA_BYTES = 2048;

/** Owner shown in listings: S3's canonical user id is 64 hex digits; derive a stable one from the account. */
export function ownerOf(accountId: string): { ID: string; DisplayName: string } {
  return { ID: createHash('sha256').update(`slipway:${accountId}`).digest('hex'), DisplayName: 'slipway' };
}

/** S3's rules for new general purpose bucket names (the 63-character DNS-compatible subset). */
export function assertValidBucketName(name: string): void {
  const ok =
    name.length >= 3 &&
    name.length <= 63 &&
    /^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(name) &&
    !name.includes('..') &&
    !/^\d+\.\d+\.\d+\.\d+$/.test(name) &&
    !/^(xn--|sthree-|amzn-s3-demo-)/.test(name) &&
    !/(-s3alias|--ol-s3|\.mrap|--x-s3|--table-s3)$/.test(name);
  if (!ok) throw s3Error('InvalidBucketName', { BucketName: name });
}

/**
 * Checks a key that is about to be written.
 * DEVIATION(aws): S3 stores keys with `.`/`..` path segments and control characters; Slipway refuses
 * `.`/`..` segments (so an s3:// URI can never act as a relative path in exports or `aws s3 sync`
 * downloads) and NUL (PostgreSQL text cannot hold it, and no file name can).
 */
export function assertWritableKey(key: string): void {
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) {
    throw s3Error('KeyTooLongError', { Size: Buffer.byteLength(key, 'utf8'), MaxSizeAllowed: MAX_KEY_BYTES });
  }
  if (key.includes('\u0000'))
    throw new S3Error('InvalidArgument', 'Object keys must not contain NUL characters.', { ArgumentName: 'key' });
  if (key.split(/[/\\]/).some((seg) => seg === '.' || seg === '..')) {
    throw new S3Error('InvalidArgument', "Object keys must not contain '.' or '..' path segments.", {
      ArgumentName: 'key',
    });
  }
}

/** The standard headers S3 stores with an object and returns on GET/HEAD. */
export interface ContentHeaders {
  readonly ContentType?: string;
  readonly CacheControl?: string;
  readonly ContentDisposition?: string;
  readonly ContentEncoding?: string;
  readonly ContentLanguage?: string;
  readonly Expires?: Date;
  readonly WebsiteRedirectLocation?: string;
  readonly StorageClass?: string;
}

export function storedHeaders(input: ContentHeaders): Record<string, string> {
  const h: Record<string, string> = {};
  // S3's default when a client sends no Content-Type.
  h['content-type'] = input.ContentType ?? 'binary/octet-stream';
  if (input.CacheControl !== undefined) h['cache-control'] = input.CacheControl;
  if (input.ContentDisposition !== undefined) h['content-disposition'] = input.ContentDisposition;
  const encoding = storedContentEncoding(input.ContentEncoding);
  if (encoding !== undefined) h['content-encoding'] = encoding;
  if (input.ContentLanguage !== undefined) h['content-language'] = input.ContentLanguage;
  if (input.Expires !== undefined) h.expires = input.Expires.toUTCString();
  if (input.WebsiteRedirectLocation !== undefined) h['website-redirect-location'] = input.WebsiteRedirectLocation;
  if (input.StorageClass !== undefined && input.StorageClass !== 'STANDARD') h['storage-class'] = input.StorageClass;
  return h;
}

/** Stored headers back into output members. */
export function contentHeadersOf(o: { headers: Readonly<Record<string, string>> }): ContentHeaders {
  const h = o.headers;
  const expires = h.expires !== undefined ? new Date(h.expires) : undefined;
  return {
    ContentType: h['content-type'],
    ...(h['cache-control'] !== undefined ? { CacheControl: h['cache-control'] } : {}),
    ...(h['content-disposition'] !== undefined ? { ContentDisposition: h['content-disposition'] } : {}),
    ...(h['content-encoding'] !== undefined ? { ContentEncoding: h['content-encoding'] } : {}),
    ...(h['content-language'] !== undefined ? { ContentLanguage: h['content-language'] } : {}),
    ...(expires && !Number.isNaN(expires.getTime()) ? { Expires: expires } : {}),
    ...(h['website-redirect-location'] !== undefined
      ? { WebsiteRedirectLocation: h['website-redirect-location'] }
      : {}),
    ...(h['storage-class'] !== undefined ? { StorageClass: h['storage-class'] } : {}),
  };
}

export function checkUserMetadata(meta: Record<string, string> | undefined): Record<string, string> {
  const m = meta ?? {};
  let size = 0;
  for (const [k, v] of Object.entries(m)) size += Buffer.byteLength(k) + Buffer.byteLength(v);
  if (size > MAX_USER_METADATA_BYTES)
    throw s3Error('MetadataTooLarge', { Size: size, MaxSizeAllowed: MAX_USER_METADATA_BYTES });
  return m;
}

export const quoteEtag = (hex: string): string => `"${hex}"`;
const bareEtag = (e: string) =>
  e
    .trim()
    .replace(/^W\//, '')
    .replace(/^"(.*)"$/, '$1');
export const sameEtag = (a: string, b: string): boolean => bareEtag(a) === bareEtag(b);

/** The checksum algorithm named by a request (x-amz-checksum-algorithm / x-amz-sdk-checksum-algorithm). */
export function checksumAlgorithmOf(name: string | undefined): ChecksumAlgorithm | undefined {
  if (name === undefined) return undefined;
  const alg = name.toUpperCase();
  if (!(CHECKSUM_ALGORITHMS as readonly string[]).includes(alg)) {
    throw new S3Error('InvalidRequest', `Checksum algorithm ${name} is not supported.`);
  }
  return alg as ChecksumAlgorithm;
}

/** Output member carrying a checksum: 'CRC32' → ChecksumCRC32. */
export const checksumMember = (alg: string): string => `Checksum${alg.toUpperCase()}`;

/** Conditional GET/HEAD, RFC 7232 as S3 applies it: If-Match/If-Unmodified-Since → 412, If-None-Match/If-Modified-Since → 304. */
export function checkPreconditions(
  o: StoredObject,
  c: { IfMatch?: string; IfNoneMatch?: string; IfModifiedSince?: Date; IfUnmodifiedSince?: Date },
): void {
  const modified = Math.floor(o.lastModified / 1000) * 1000;
  const matches = (list: string) => list.split(',').some((e) => e.trim() === '*' || sameEtag(e, o.etag));
  if (c.IfMatch !== undefined) {
    if (!matches(c.IfMatch)) throw s3Error('PreconditionFailed', { Condition: 'If-Match' });
  } else if (c.IfUnmodifiedSince !== undefined && modified > c.IfUnmodifiedSince.getTime()) {
    throw s3Error('PreconditionFailed', { Condition: 'If-Unmodified-Since' });
  }
  const notModified = new S3Error(
    'NotModified',
    undefined,
    {},
    { etag: o.etag, 'last-modified': new Date(o.lastModified).toUTCString() },
  );
  if (c.IfNoneMatch !== undefined) {
    if (matches(c.IfNoneMatch)) throw notModified;
  } else if (c.IfModifiedSince !== undefined && modified <= c.IfModifiedSince.getTime()) {
    throw notModified;
  }
}

/**
 * The byte range a Range header asks for, or undefined for the whole object (no header, a form S3
 * ignores such as several ranges, or a malformed value). Unsatisfiable ranges are InvalidRange (416).
 */
export function parseRange(header: string | undefined, size: number): BlobRange | undefined {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  const invalid = () =>
    new S3Error(
      'InvalidRange',
      undefined,
      { RangeRequested: header, ActualObjectSize: size },
      { 'content-range': `bytes */${size}` },
    );
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) throw invalid();
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Number(m[2]);
  if (end < start) return undefined;
  if (start >= size) throw invalid();
  return { start, end: Math.min(end, size - 1) };
}

/** NextContinuationToken: opaque to clients, here the listing position. */
export function encodeToken(from: ListFrom): string {
  return Buffer.from('after' in from ? `a${from.after}` : `b${from.atOrAfter}`, 'utf8').toString('base64url');
}

export function decodeToken(token: string): ListFrom {
  const s = /^[A-Za-z0-9_-]+$/.test(token) ? Buffer.from(token, 'base64url').toString('utf8') : '';
  if (s.startsWith('a')) return { after: s.slice(1) };
  if (s.startsWith('b') && s.length > 1) return { atOrAfter: s.slice(1) };
  throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect', {
    ArgumentName: 'continuation-token',
  });
}

/** `encoding-type=url`: S3 percent-encodes keys and prefixes in listings (keeping `/`), for keys XML cannot carry. */
export function listingEncoder(encodingType: string | undefined): (s: string) => string {
  if (encodingType === undefined) return (s) => s;
  if (encodingType !== 'url') {
    throw new S3Error('InvalidArgument', 'Invalid Encoding Method specified in Request', {
      ArgumentName: 'encoding-type',
      ArgumentValue: encodingType,
    });
  }
  return (s) => encodeURIComponent(s).replace(/%2F/g, '/');
}

export function maxKeysOf(v: number | undefined, name: string, dflt = 1000): number {
  if (v === undefined) return dflt;
  if (v < 0)
    throw new S3Error('InvalidArgument', `Argument ${name} must be an integer between 0 and 2147483647`, {
      ArgumentName: name,
      ArgumentValue: v,
    });
  return Math.min(v, dflt);
}

export async function requireBucket(deps: S3Deps, bucket: string) {
  const b = await deps.store.getBucket(bucket);
  if (!b) throw s3Error('NoSuchBucket', { BucketName: bucket });
  return b;
}
