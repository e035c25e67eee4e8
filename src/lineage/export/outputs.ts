// Export destinations: a local directory, or an s3:// prefix written through a BlobStore (the
// embedded S3 of a Slipway server, or a real S3 / MinIO).
import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import type { BlobStore } from '../../storage/blobs/blob-store.js';
import { parseS3Uri } from '../../storage/blobs/blob-store.js';
import type { ExportOutput } from './exporter.js';

export function directoryOutput(dir: string): ExportOutput {
  const root = resolve(dir);
  mkdirSync(root, { recursive: true });
  return {
    location: root,
    async open(name) {
      const s = createWriteStream(join(root, name));
      return {
        async write(chunk) {
          if (!s.write(chunk)) await once(s, 'drain');
        },
        async close() {
          await new Promise<void>((res, rej) => s.end((err?: Error | null) => (err ? rej(err) : res())));
        },
      };
    },
  };
}

/**
 * Writes under `s3://bucket/prefix/`, creating the bucket when it does not exist (and telling
 * `onBucketCreated`, so that the user learns of a bucket they did not make).
 */
export function blobOutput(
  blobs: BlobStore,
  prefixUri: string,
  onBucketCreated: (bucket: string) => void = () => {},
): ExportOutput {
  const { bucket, key } = parseS3Uri(prefixUri);
  const prefix = key === '' || key.endsWith('/') ? key : `${key}/`;
  let bucketReady: Promise<void> | undefined;
  return {
    location: `s3://${bucket}/${prefix}`,
    async open(name) {
      bucketReady ??= blobs.ensureBucket(bucket).then((created) => {
        if (created) onBucketCreated(bucket);
      });
      await bucketReady;
      const body = new PassThrough();
      const done = blobs.put(`s3://${bucket}/${prefix}${name}`, body, { contentType: 'text/csv' });
      // Surface an upload failure at the next write instead of an unhandled rejection.
      let failed: unknown;
      done.catch((err) => {
        failed = err;
        body.destroy();
      });
      return {
        async write(chunk) {
          if (failed) throw failed;
          if (!body.write(chunk)) await Promise.race([once(body, 'drain'), done]);
        },
        async close() {
          body.end();
          await done;
        },
      };
    },
  };
}
