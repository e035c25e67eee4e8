// A job's input channels as SageMaker resolves them: S3Prefix (every object under the key prefix, in
// key order) or ManifestFile (a JSON list: {"prefix": "s3://..."} then keys relative to it), read
// straight from S3 or copied into /opt/ml/input/data/<channel>/ for a container (File mode).
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_S3DataSource.html
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Channel } from '../generated/sagemaker/shapes.js';
import { type BlobStore, parseS3Uri } from '../storage/blobs/blob-store.js';

/** An input a user can act on: the job fails with this as its FailureReason. */
export class ChannelError extends Error {
  override readonly name = 'ChannelError';
}

export interface ChannelObject {
  readonly uri: string;
  /** Path relative to the channel directory. */
  readonly relative: string;
  readonly size: number;
}

/** Largest manifest read into memory. */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** The objects of one channel, in the order SageMaker hands them to the algorithm. */
export async function resolveChannel(
  blobs: BlobStore,
  channel: Channel,
  region: string,
  roleArn: string,
): Promise<ChannelObject[]> {
  const src = channel.DataSource.S3DataSource;
  if (!src) {
    throw new ChannelError(
      `ClientError: Channel "${channel.ChannelName}" has no S3DataSource; only S3 data sources are supported.`,
    );
  }
  const noObjects = (uri: string) =>
    new ChannelError(
      `ClientError: No S3 objects found under S3 URL "${uri}" given in input data source. Please ensure that the bucket exists in the selected region (${region}), that objects exist under that S3 prefix, and that the role "${roleArn}" has "s3:ListBucket" permissions on bucket "${parseS3Uri(uri).bucket}".`,
    );
  if (src.S3DataType === 'S3Prefix') {
    const { key: prefix } = parseS3Uri(src.S3Uri);
    // The part of the prefix after its last '/' is part of each file's name (as SageMaker copies).
    const base = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    const out: ChannelObject[] = [];
    for await (const o of blobs.list(src.S3Uri)) {
      if (o.key.endsWith('/')) continue; // "folder" placeholder objects hold no data
      out.push({
        uri: `s3://${o.bucket}/${o.key}`,
        relative: safeRelative(o.key.slice(base.length), o.key),
        size: o.size,
      });
    }
    if (out.length === 0) throw noObjects(src.S3Uri);
    return out;
  }
  if (src.S3DataType === 'ManifestFile') {
    const entries = await readManifest(blobs, src.S3Uri);
    const out: ChannelObject[] = [];
    for (const rel of entries.keys) {
      const uri = `${entries.prefix}${rel}`;
      const info = await blobs.stat(uri);
      if (!info)
        throw new ChannelError(`ClientError: Object "${uri}" listed in manifest "${src.S3Uri}" does not exist.`);
      out.push({ uri, relative: safeRelative(rel, rel), size: info.size });
    }
    if (out.length === 0) throw noObjects(src.S3Uri);
    return out;
  }
  throw new ChannelError(
    `ClientError: S3DataType ${src.S3DataType} of channel "${channel.ChannelName}" is not supported; use S3Prefix or ManifestFile.`,
  );
}

async function readManifest(blobs: BlobStore, uri: string): Promise<{ prefix: string; keys: string[] }> {
  const info = await blobs.stat(uri);
  if (!info) throw new ChannelError(`ClientError: Manifest file "${uri}" does not exist.`);
  if (info.size > MAX_MANIFEST_BYTES)
    throw new ChannelError(`ClientError: Manifest file "${uri}" is larger than 64 MiB.`);
  const chunks: Buffer[] = [];
  for await (const c of await blobs.get(uri)) chunks.push(c as Buffer);
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (e) {
    throw new ChannelError(`ClientError: Manifest file "${uri}" is not valid JSON: ${(e as Error).message}`);
  }
  const [head, ...rest] = Array.isArray(doc) ? doc : [];
  const prefix = (head as { prefix?: unknown } | undefined)?.prefix;
  if (typeof prefix !== 'string' || !prefix.startsWith('s3://') || !rest.every((k) => typeof k === 'string')) {
    throw new ChannelError(
      `ClientError: Manifest file "${uri}" must be a JSON array: [{"prefix": "s3://bucket/prefix/"}, "relative/key", ...].`,
    );
  }
  return { prefix, keys: rest as string[] };
}

/** A relative path that stays inside the channel directory. */
function safeRelative(rel: string, key: string): string {
  const n = normalize(rel || key.slice(key.lastIndexOf('/') + 1));
  if (n.startsWith('..') || n.startsWith('/') || n === '.') {
    throw new ChannelError(`ClientError: S3 key "${key}" cannot be placed inside the channel directory.`);
  }
  return n;
}

/**
 * Copies a channel's objects into `dir` (File mode), decompressing when the channel says Gzip.
 * DEVIATION(aws): Pipe and FastFile input modes are served as File mode.
 */
export async function downloadChannel(blobs: BlobStore, objects: readonly ChannelObject[], dir: string, gzip: boolean) {
  for (const o of objects) {
    const target = join(dir, gzip ? o.relative.replace(/\.gz$/, '') : o.relative);
    await mkdir(dirname(target), { recursive: true });
    const body = await blobs.get(o.uri);
    try {
      if (gzip) await pipeline(body, createGunzip(), createWriteStream(target));
      else await pipeline(body, createWriteStream(target));
    } catch (e) {
      throw new ChannelError(`ClientError: Could not read "${o.uri}": ${(e as Error).message}`);
    }
  }
}
