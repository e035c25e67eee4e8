// A BlobStore held in memory, for inference tests (the real stores live in src/storage/blobs).

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  type BlobInfo,
  BlobNotFoundError,
  type BlobStore,
  type ByteRange,
  objectLocation,
  type PutBlobOptions,
} from '../../storage/blobs/blob-store.js';

export class MemoryBlobStore implements BlobStore {
  readonly kind = 'embedded' as const;
  readonly objects = new Map<string, { bytes: Buffer; info: BlobInfo }>();
  gets = 0;

  async put(uri: string, body: Readable | Uint8Array | string, options?: PutBlobOptions): Promise<BlobInfo> {
    const loc = objectLocation(uri);
    let bytes: Buffer;
    if (typeof body === 'string' || body instanceof Uint8Array) bytes = Buffer.from(body);
    else {
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(Buffer.from(c as Uint8Array));
      bytes = Buffer.concat(chunks);
    }
    const info: BlobInfo = {
      ...loc,
      size: bytes.length,
      etag: `"${createHash('md5').update(bytes).digest('hex')}"`,
      lastModified: new Date(),
      contentType: options?.contentType,
      metadata: options?.metadata ?? {},
    };
    this.objects.set(uri, { bytes, info });
    return info;
  }

  async get(uri: string, range?: ByteRange): Promise<Readable> {
    const o = this.objects.get(uri);
    if (!o) throw new BlobNotFoundError(uri, 'NoSuchKey');
    this.gets++;
    const b = range ? o.bytes.subarray(range.start, range.end === undefined ? undefined : range.end + 1) : o.bytes;
    // several chunks, as a network stream would deliver them
    const parts: Buffer[] = [];
    for (let i = 0; i < b.length; i += 16 * 1024) parts.push(b.subarray(i, i + 16 * 1024));
    return Readable.from(parts);
  }

  async stat(uri: string): Promise<BlobInfo | undefined> {
    return this.objects.get(uri)?.info;
  }

  async *list(uriPrefix: string): AsyncIterable<BlobInfo> {
    for (const [k, v] of [...this.objects].sort(([a], [b]) => (a < b ? -1 : 1)))
      if (k.startsWith(uriPrefix)) yield v.info;
  }

  async delete(uri: string): Promise<void> {
    this.objects.delete(uri);
  }

  async ensureBucket(): Promise<boolean> {
    return false;
  }
}
