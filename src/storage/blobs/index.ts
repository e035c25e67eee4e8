// Opens object storage for the server: the embedded store under <data-dir>/s3, or a real S3 when
// --s3-endpoint is given (then the embedded store is not opened at all).
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Database } from '../db/types.js';
import { BlobCollector, type BlobGcOptions } from './blob-gc.js';
import type { BlobStore } from './blob-store.js';
import { EmbeddedBlobStore } from './embedded-blob-store.js';
import { LocalObjectStore } from './object-store.js';
import { S3BlobStore } from './s3-blob-store.js';

export * from './blob-store.js';

export interface BlobStorage {
  /** What the rest of Slipway reads and writes s3:// URIs through. */
  readonly blobs: BlobStore;
  /** The embedded store behind the S3 API; absent when an external endpoint is used. */
  readonly objects?: LocalObjectStore;
  /** The external endpoint, when there is one. */
  readonly endpoint?: string;
  /** Orphan blob collection and multipart upload expiry of the embedded store (start() it once serving). */
  readonly collector?: BlobCollector;
  close(): void;
}

export interface BlobStorageOptions {
  readonly db: Database;
  readonly dataDir: string;
  readonly s3Endpoint: string | undefined;
  readonly accountId: string;
  readonly region: string;
  /** Storage hygiene of the embedded store; absent: none. */
  readonly gc?: Omit<BlobGcOptions, 'log'> & { readonly log: Logger };
}

export async function openBlobStorage(o: BlobStorageOptions): Promise<BlobStorage> {
  if (o.s3Endpoint) {
    const external = new S3BlobStore({ endpoint: o.s3Endpoint, region: process.env.AWS_REGION ?? o.region });
    return { blobs: external, endpoint: o.s3Endpoint, close: () => external.close() };
  }
  const objects = await LocalObjectStore.open(o.db, join(o.dataDir, 's3'));
  return {
    blobs: new EmbeddedBlobStore(objects, { accountId: o.accountId, region: o.region }),
    objects,
    collector: o.gc ? new BlobCollector(objects, o.gc) : undefined,
    close: () => objects.files.close(),
  };
}
