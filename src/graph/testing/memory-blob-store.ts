// A BlobStore held in memory, for unit tests of the loader and the exporter (no S3 needed).
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import {
  type BlobInfo,
  type BlobStore,
  BlobNotFoundError,
  objectLocation,
  parseS3Uri,
} from '../../storage/blobs/blob-store.js';

export class MemoryBlobStore implements BlobStore {
  readonly kind = 'embedded' as const;
  readonly objects = new Map<string, Buffer>();
  /** ETags computed once, when an object is put (as a real store keeps them). */
  readonly #etags = new Map<string, string>();
  readonly buckets = new Set<string>();
  /** Small by default, so parsers see records split across chunk boundaries. */
  readonly #chunkSize: number;

  constructor(o: { chunkSize?: number } = {}) {
    this.#chunkSize = o.chunkSize ?? 7;
  }

  async put(uri: string, body: Readable | Uint8Array | string): Promise<BlobInfo> {
    const { bucket, key } = objectLocation(uri);
    this.buckets.add(bucket);
    let bytes: Buffer;
    if (typeof body === 'string') bytes = Buffer.from(body);
    else if (body instanceof Uint8Array) bytes = Buffer.from(body);
    else {
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(Buffer.from(c));
      bytes = Buffer.concat(chunks);
    }
    this.objects.set(`${bucket}/${key}`, bytes);
    this.#etags.set(`${bucket}/${key}`, `"${createHash('md5').update(bytes).digest('hex')}"`);
    return this.#info(bucket, key, bytes);
  }

  #info(bucket: string, key: string, bytes: Buffer): BlobInfo {
    return {
      bucket,
      key,
      size: bytes.length,
      etag: this.#etags.get(`${bucket}/${key}`) ?? '',
      lastModified: new Date(),
      metadata: {},
    };
  }

  async get(uri: string): Promise<Readable> {
    const { bucket, key } = objectLocation(uri);
    const b = this.objects.get(`${bucket}/${key}`);
    if (!b) throw new BlobNotFoundError(uri, this.buckets.has(bucket) ? 'NoSuchKey' : 'NoSuchBucket');
    const parts: Buffer[] = [];
    for (let i = 0; i < b.length; i += this.#chunkSize) parts.push(b.subarray(i, i + this.#chunkSize));
    return Readable.from(parts);
  }

  async stat(uri: string): Promise<BlobInfo | undefined> {
    const { bucket, key } = objectLocation(uri);
    const b = this.objects.get(`${bucket}/${key}`);
    return b ? this.#info(bucket, key, b) : undefined;
  }

  async *list(uriPrefix: string): AsyncIterable<BlobInfo> {
    const { bucket, key } = parseS3Uri(uriPrefix);
    if (!this.buckets.has(bucket)) throw new BlobNotFoundError(uriPrefix, 'NoSuchBucket');
    const keys = [...this.objects.keys()].filter((k) => k.startsWith(`${bucket}/${key}`)).sort();
    for (const k of keys) yield this.#info(bucket, k.slice(bucket.length + 1), this.objects.get(k)!);
  }

  async delete(uri: string): Promise<void> {
    const { bucket, key } = objectLocation(uri);
    this.objects.delete(`${bucket}/${key}`);
    this.#etags.delete(`${bucket}/${key}`);
  }

  async ensureBucket(bucket: string): Promise<boolean> {
    if (this.buckets.has(bucket)) return false;
    this.buckets.add(bucket);
    return true;
  }
}
