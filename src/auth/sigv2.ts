// S3's legacy query-string authentication (Signature Version 2: AWSAccessKeyId, Signature,
// Expires), as S3 verifies it: HMAC-SHA1 over the verb, Content-MD5, Content-Type, Expires, the
// x-amz-* headers and the canonicalized resource (bucket, key and the sub-resources).
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/RESTAuthentication.html#RESTAuthenticationQueryStringAuth
// Pinned SDKs still presign S3 URLs this way by default (botocore before 1.31's `s3v4` default).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { virtualHostBucket } from '../domain/s3-host.js';

/**
 * Query parameters that are part of the resource signed (S3's sub-resources and the response-*
 * header overrides), as S3 and the SDKs that sign for it list them.
 */
const SUB_RESOURCES = new Set([
  'accelerate',
  'acl',
  'analytics',
  'cors',
  'defaultObjectAcl',
  'delete',
  'inventory',
  'lifecycle',
  'location',
  'logging',
  'metrics',
  'notification',
  'object-lock',
  'partNumber',
  'policy',
  'replication',
  'requestPayment',
  'response-cache-control',
  'response-content-disposition',
  'response-content-encoding',
  'response-content-language',
  'response-content-type',
  'response-expires',
  'restore',
  'select',
  'select-type',
  'storageClass',
  'tagging',
  'torrent',
  'uploadId',
  'uploads',
  'versionId',
  'versioning',
  'versions',
  'website',
]);

export interface SigV2Query {
  readonly accessKeyId: string;
  readonly signature: string;
  /** Epoch seconds after which the URL is refused. */
  readonly expires: number;
}

type Param = readonly [name: string, value: string | undefined];

function decode(s: string): string | undefined {
  try {
    // Not URLSearchParams: a `+` a client left unencoded in a base64 signature stays a `+`.
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** The query's parameters in order: raw name, decoded value (undefined for a bare `name`). */
function params(rawQuery: string): Param[] {
  const out: Param[] = [];
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    out.push(eq < 0 ? [part, undefined] : [part.slice(0, eq), decode(part.slice(eq + 1)) ?? '']);
  }
  return out;
}

/** Whether a query is SigV2 query authentication (and not SigV4's X-Amz-* parameters). */
export function isSigV2Query(rawQuery: string): boolean {
  return (
    rawQuery.includes('AWSAccessKeyId=') && rawQuery.includes('Signature=') && !rawQuery.includes('X-Amz-Credential')
  );
}

export type SigV2Parse = { kind: 'ok'; query: SigV2Query } | { kind: 'malformed'; message: string };

export function parseSigV2Query(rawQuery: string): SigV2Parse {
  const p = new Map(params(rawQuery));
  const accessKeyId = p.get('AWSAccessKeyId');
  const signature = p.get('Signature');
  const expires = p.get('Expires');
  if (!accessKeyId || !signature) {
    return {
      kind: 'malformed',
      message: 'Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters',
    };
  }
  if (expires === undefined || !/^\d{1,12}$/.test(expires)) {
    return {
      kind: 'malformed',
      message: 'Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters',
    };
  }
  return { kind: 'ok', query: { accessKeyId, signature, expires: Number(expires) } };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

/**
 * The string a SigV2 presigned URL's signature covers. Content-MD5, Content-Type and x-amz-*
 * values are the request's headers or, where the signer moved them into the query (botocore
 * does), those query parameters.
 */
export function sigV2StringToSign(
  method: string,
  rawPath: string,
  rawQuery: string,
  headers: IncomingHttpHeaders,
  expires: number,
): string {
  const query = params(rawQuery);
  const fromQuery = new Map<string, string>();
  for (const [name, value] of query) {
    const lower = name.toLowerCase();
    if (value !== undefined && (lower === 'content-md5' || lower === 'content-type' || lower.startsWith('x-amz-')))
      fromQuery.set(lower, value);
  }
  const standard = (name: string) => (header(headers, name) ?? fromQuery.get(name) ?? '').trim();
  const amz = new Map<string, string>();
  for (const [name, value] of fromQuery) if (name.startsWith('x-amz-')) amz.set(name, value.trim());
  for (const name of Object.keys(headers)) {
    if (!name.startsWith('x-amz-')) continue;
    const v = headers[name];
    amz.set(name, (Array.isArray(v) ? v : [v ?? '']).map((x) => x.trim().replace(/\s+/g, ' ')).join(','));
  }
  const amzLines = [...amz.keys()].sort().map((k) => `${k}:${amz.get(k)}\n`);
  return `${method.toUpperCase()}\n${standard('content-md5')}\n${standard('content-type')}\n${expires}\n${amzLines.join('')}${canonicalResource(rawPath, query, headers)}`;
}

/** `/bucket/key` as sent (a virtual-hosted bucket put in front), then the sub-resources, sorted. */
function canonicalResource(rawPath: string, query: readonly Param[], headers: IncomingHttpHeaders): string {
  const bucket = virtualHostBucket(header(headers, 'host'));
  let resource = bucket === undefined ? rawPath : `/${bucket}${rawPath}`;
  const subs = query.filter(([name]) => SUB_RESOURCES.has(name)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (subs.length) resource += `?${subs.map(([n, v]) => (v === undefined ? n : `${n}=${v}`)).join('&')}`;
  return resource;
}

/** Base64 HMAC-SHA1 of the string to sign with the secret key. */
export function sigV2Signature(secretAccessKey: string, stringToSign: string): string {
  return createHmac('sha1', secretAccessKey).update(stringToSign, 'utf8').digest('base64');
}

/** Constant-time comparison of two base64 signatures. */
export function sameSigV2(expected: string, provided: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(provided);
  return a.length === b.length && timingSafeEqual(a, b);
}
