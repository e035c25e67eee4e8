// BlobStore over the embedded object store: what Slipway writes here is what the S3 API serves.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/upload-objects.html
import { createHash } from 'node:crypto';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import {
  type BlobInfo,
  BlobNotFoundError,
  type BlobStore,
  type ByteRange,
  InvalidS3UriError,
  objectLocation,
  type PutBlobOptions,
  parseS3Uri,
} from './blob-store.js';
import type { LocalObjectStore, StoredObject } from './object-store.js';

/** Counts and MD5-hashes bytes on their way to disk (the object's ETag). */
class Md5Stream extends Transform {
  private readonly hash = createHash('md5');
  override _transform(chunk: Buffer, _e: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    done(null, chunk);
  }
  hex(): string {
    return this.hash.digest('hex');
  }
}

function info(o: StoredObject): BlobInfo {
  return {
    bucket: o.bucket,
    key: o.key,
    size: o.size,
    etag: o.etag,
    lastModified: new Date(o.lastModified),
    ...(o.headers['content-type'] !== undefined ? { contentType: o.headers['content-type'] } : {}),
    metadata: o.userMetadata,
  };
}

export class EmbeddedBlobStore implements BlobStore {
  readonly kind = 'embedded' as const;

  constructor(
    private readonly store: LocalObjectStore,
    /** Owner and region of buckets created through ensureBucket. */
    private readonly owner: { accountId: string; region: string },
  ) {}

  async put(uri: string, body: Readable | Uint8Array | string, options: PutBlobOptions = {}): Promise<BlobInfo> {
    const { bucket, key } = objectLocation(uri);
    // The same keys the S3 API refuses (see services/s3/common.ts assertWritableKey).
    if (key.includes('\u0000') || key.split(/[/\\]/).some((s) => s === '.' || s === '..')) {
      throw new InvalidS3UriError(`object key not allowed: ${JSON.stringify(key)}`);
    }
    if (!(await this.store.getBucket(bucket))) throw new BlobNotFoundError(uri, 'NoSuchBucket');
    const source =
      body instanceof Readable
        ? body
        : Readable.from([typeof body === 'string' ? Buffer.from(body) : Buffer.from(body)]);
    const md5 = new Md5Stream();
    source.on('error', (err) => md5.destroy(err));
    const blob = await this.store.writeBlob(source.pipe(md5));
    const object: StoredObject = {
      bucket,
      key,
      size: blob.size,
      etag: `"${md5.hex()}"`,
      lastModified: Date.now(),
      headers: { 'content-type': options.contentType ?? 'binary/octet-stream' },
      userMetadata: { ...(options.metadata ?? {}) },
      segments: [[blob.id, blob.size]],
    };
    if (!(await this.store.commitObject(object))) throw new BlobNotFoundError(uri, 'NoSuchBucket');
    return info(object);
  }

  async get(uri: string, range?: ByteRange): Promise<Readable> {
    const { bucket, key } = objectLocation(uri);
    const r = await this.store.readObject(bucket, key, (o) =>
      range ? { start: Math.min(range.start, o.size), end: Math.min(range.end ?? o.size - 1, o.size - 1) } : undefined,
    );
    if (!r) throw new BlobNotFoundError(uri, (await this.store.getBucket(bucket)) ? 'NoSuchKey' : 'NoSuchBucket');
    return r.stream;
  }

  async stat(uri: string): Promise<BlobInfo | undefined> {
    const { bucket, key } = objectLocation(uri);
    const o = await this.store.getObject(bucket, key);
    return o && info(o);
  }

  async *list(uriPrefix: string): AsyncIterable<BlobInfo> {
    const { bucket, key: prefix } = parseS3Uri(uriPrefix);
    if (!(await this.store.getBucket(bucket))) throw new BlobNotFoundError(uriPrefix, 'NoSuchBucket');
    let from: { after: string } | { atOrAfter: string } | undefined;
    for (;;) {
      const page = await this.store.listObjects(bucket, { prefix, maxKeys: 1000, ...(from ? { from } : {}) });
      for (const o of page.objects) yield info(o);
      if (!page.truncated || !page.next) return;
      from = page.next;
    }
  }

  async delete(uri: string): Promise<void> {
    const { bucket, key } = objectLocation(uri);
    await this.store.deleteObject(bucket, key);
  }

  async ensureBucket(bucket: string): Promise<boolean> {
    const { created } = await this.store.createBucket({
      name: bucket,
      account_id: this.owner.accountId,
      region: this.owner.region,
      created_at: Date.now(),
    });
    return created;
  }
}
