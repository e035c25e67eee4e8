// The one interface the rest of Slipway uses to read and write `s3://bucket/key` objects (model
// artifacts, lineage exports, graph loads), whether they live in the embedded store or a real S3.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/access-bucket-intro.html (s3:// URIs)
import type { Readable } from 'node:stream';

export interface S3Location {
  readonly bucket: string;
  readonly key: string;
}

export interface BlobInfo extends S3Location {
  readonly size: number;
  /** Quoted, as S3 sends it. */
  readonly etag: string;
  readonly lastModified: Date;
  readonly contentType?: string;
  /** x-amz-meta-* values (names lower-case, without the prefix). */
  readonly metadata: Readonly<Record<string, string>>;
}

export interface PutBlobOptions {
  readonly contentType?: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** Inclusive byte range; `end` absent means to the end of the object. */
export interface ByteRange {
  readonly start: number;
  readonly end?: number;
}

/** The bucket or key of a read does not exist. Callers turn it into their own service's error. */
export class BlobNotFoundError extends Error {
  override readonly name = 'BlobNotFoundError';
  constructor(
    readonly uri: string,
    readonly reason: 'NoSuchBucket' | 'NoSuchKey',
  ) {
    super(`${reason === 'NoSuchBucket' ? 'no such bucket' : 'no such object'}: ${uri}`);
  }
}

export class InvalidS3UriError extends Error {
  override readonly name = 'InvalidS3UriError';
}

export interface BlobStore {
  /** 'embedded' (bytes under the data dir) or 'external' (--s3-endpoint). */
  readonly kind: 'embedded' | 'external';
  /** Writes an object from a stream or bytes; the object appears only once completely stored. */
  put(uri: string, body: Readable | Uint8Array | string, options?: PutBlobOptions): Promise<BlobInfo>;
  /** Streams an object (or a range of it). Throws BlobNotFoundError. */
  get(uri: string, range?: ByteRange): Promise<Readable>;
  /** Size, ETag and metadata of an object, or undefined when it (or its bucket) does not exist. */
  stat(uri: string): Promise<BlobInfo | undefined>;
  /** Every object whose key starts with the URI's key (`s3://bucket/prefix`), in key order. */
  list(uriPrefix: string): AsyncIterable<BlobInfo>;
  /** Deletes an object; deleting one that does not exist is not an error. */
  delete(uri: string): Promise<void>;
  /**
   * Creates the bucket when it does not exist (exports write to a bucket of the user's choice);
   * true when this call created it.
   */
  ensureBucket(bucket: string): Promise<boolean>;
}

/** Splits `s3://bucket/key` (the key may be empty for a bucket or prefix URI). */
export function parseS3Uri(uri: string): S3Location {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/s.exec(uri);
  if (!m) throw new InvalidS3UriError(`not an s3:// URI: ${JSON.stringify(uri)}`);
  return { bucket: m[1]!, key: m[2] ?? '' };
}

export function formatS3Uri(loc: S3Location): string {
  return `s3://${loc.bucket}/${loc.key}`;
}

/** parseS3Uri for reads and writes of one object: the key must not be empty. */
export function objectLocation(uri: string): S3Location {
  const loc = parseS3Uri(uri);
  if (loc.key === '') throw new InvalidS3UriError(`s3:// URI names no object: ${JSON.stringify(uri)}`);
  return loc;
}
