// BlobStore over a real S3 or MinIO (--s3-endpoint), through the AWS SDK; credentials come from the
// SDK's usual chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, instance roles).
// https://docs.aws.amazon.com/AWSJavaScriptSDK/v3/latest/client/s3/
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import {
  type BlobInfo,
  BlobNotFoundError,
  type BlobStore,
  type ByteRange,
  objectLocation,
  type PutBlobOptions,
  parseS3Uri,
} from './blob-store.js';

/** Streams are uploaded in parts of this size: memory stays bounded whatever the object's size. */
const PART_SIZE = 8 * 1024 * 1024;

export interface S3BlobStoreOptions {
  readonly endpoint: string;
  readonly region: string;
  /** Path-style URLs (MinIO's default; virtual-hosted needs wildcard DNS). Default true. */
  readonly forcePathStyle?: boolean;
  /** For tests: explicit credentials instead of the SDK's chain. */
  readonly credentials?: { accessKeyId: string; secretAccessKey: string };
}

const notFound = (err: unknown): 'NoSuchBucket' | 'NoSuchKey' | undefined => {
  if (!(err instanceof S3ServiceException)) return undefined;
  if (err.name === 'NoSuchBucket') return 'NoSuchBucket';
  if (err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata.httpStatusCode === 404) return 'NoSuchKey';
  return undefined;
};

/** Reads up to `size` bytes from an async iterator of chunks, keeping the remainder for the next call. */
async function fill(
  it: AsyncIterator<Buffer>,
  carry: Buffer[],
  size: number,
): Promise<{ data: Buffer; done: boolean }> {
  const parts = carry.splice(0);
  let n = parts.reduce((a, b) => a + b.length, 0);
  let done = false;
  while (n < size) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    const chunk = Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value);
    parts.push(chunk);
    n += chunk.length;
  }
  const all = Buffer.concat(parts, n);
  if (all.length > size) carry.push(all.subarray(size));
  return { data: all.subarray(0, Math.min(size, all.length)), done: done && carry.length === 0 };
}

export class S3BlobStore implements BlobStore {
  readonly kind = 'external' as const;
  readonly client: S3Client;

  constructor(options: S3BlobStoreOptions) {
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: options.forcePathStyle ?? true,
      ...(options.credentials ? { credentials: options.credentials } : {}),
    });
  }

  private info(
    bucket: string,
    key: string,
    o: {
      ContentLength?: number;
      ETag?: string;
      LastModified?: Date;
      ContentType?: string;
      Metadata?: Record<string, string>;
    },
  ): BlobInfo {
    return {
      bucket,
      key,
      size: o.ContentLength ?? 0,
      etag: o.ETag ?? '',
      lastModified: o.LastModified ?? new Date(0),
      ...(o.ContentType !== undefined ? { contentType: o.ContentType } : {}),
      metadata: o.Metadata ?? {},
    };
  }

  async put(uri: string, body: Readable | Uint8Array | string, options: PutBlobOptions = {}): Promise<BlobInfo> {
    const { bucket, key } = objectLocation(uri);
    const common = {
      Bucket: bucket,
      Key: key,
      ContentType: options.contentType,
      Metadata: options.metadata ? { ...options.metadata } : undefined,
    };
    try {
      if (!(body instanceof Readable)) {
        const data = typeof body === 'string' ? Buffer.from(body) : body;
        await this.client.send(new PutObjectCommand({ ...common, Body: data, ContentLength: data.length }));
      } else {
        // A stream's length is unknown: one PutObject when it fits a part, else a multipart upload.
        const it = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
        const carry: Buffer[] = [];
        const first = await fill(it, carry, PART_SIZE);
        if (first.done) {
          await this.client.send(
            new PutObjectCommand({ ...common, Body: first.data, ContentLength: first.data.length }),
          );
        } else {
          const { UploadId } = await this.client.send(new CreateMultipartUploadCommand(common));
          try {
            const parts: { PartNumber: number; ETag: string }[] = [];
            let chunk = first;
            for (let n = 1; ; n++) {
              const r = await this.client.send(
                new UploadPartCommand({
                  Bucket: bucket,
                  Key: key,
                  UploadId,
                  PartNumber: n,
                  Body: chunk.data,
                  ContentLength: chunk.data.length,
                }),
              );
              parts.push({ PartNumber: n, ETag: r.ETag! });
              if (chunk.done) break;
              chunk = await fill(it, carry, PART_SIZE);
              if (chunk.data.length === 0) break;
            }
            await this.client.send(
              new CompleteMultipartUploadCommand({
                Bucket: bucket,
                Key: key,
                UploadId,
                MultipartUpload: { Parts: parts },
              }),
            );
          } catch (err) {
            await this.client
              .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId }))
              .catch(() => {});
            throw err;
          }
        }
      }
    } catch (err) {
      if (notFound(err) === 'NoSuchBucket') throw new BlobNotFoundError(uri, 'NoSuchBucket');
      throw err;
    }
    const stat = await this.stat(uri);
    if (!stat) throw new BlobNotFoundError(uri, 'NoSuchKey');
    return stat;
  }

  async get(uri: string, range?: ByteRange): Promise<Readable> {
    const { bucket, key } = objectLocation(uri);
    try {
      const r = await this.client.send(
        new GetObjectCommand({
          Bucket: bucket,
          Key: key,
          ...(range ? { Range: `bytes=${range.start}-${range.end ?? ''}` } : {}),
        }),
      );
      return r.Body as Readable;
    } catch (err) {
      const reason = notFound(err);
      if (reason) throw new BlobNotFoundError(uri, reason);
      throw err;
    }
  }

  async stat(uri: string): Promise<BlobInfo | undefined> {
    const { bucket, key } = objectLocation(uri);
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return this.info(bucket, key, r);
    } catch (err) {
      if (notFound(err)) return undefined;
      throw err;
    }
  }

  async *list(uriPrefix: string): AsyncIterable<BlobInfo> {
    const { bucket, key: prefix } = parseS3Uri(uriPrefix);
    let token: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix || undefined, ContinuationToken: token }),
        );
      } catch (err) {
        if (notFound(err) === 'NoSuchBucket') throw new BlobNotFoundError(uriPrefix, 'NoSuchBucket');
        throw err;
      }
      for (const o of page.Contents ?? []) {
        yield {
          bucket,
          key: o.Key!,
          size: o.Size ?? 0,
          etag: o.ETag ?? '',
          lastModified: o.LastModified ?? new Date(0),
          metadata: {},
        };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(uri: string): Promise<void> {
    const { bucket, key } = objectLocation(uri);
    await this.client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  }

  async ensureBucket(bucket: string): Promise<boolean> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: bucket }));
      return false;
    } catch (err) {
      if (!notFound(err)) throw err;
    }
    try {
      await this.client.send(new CreateBucketCommand({ Bucket: bucket }));
      return true;
    } catch (err) {
      if (err instanceof S3ServiceException && err.name === 'BucketAlreadyOwnedByYou') return false;
      throw err;
    }
  }

  close(): void {
    this.client.destroy();
  }
}
