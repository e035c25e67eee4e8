// Channel resolution as SageMaker does it: prefixes, manifests, order, and the errors a user acts on.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { Channel } from '../generated/sagemaker/shapes.js';
import { MemoryBlobStore } from '../inference/testing/memory-blob-store.js';
import { ChannelError, downloadChannel, resolveChannel } from './channels.js';

const ROLE = 'arn:aws:iam::000000000000:role/sm';
const channel = (S3DataType: 'S3Prefix' | 'ManifestFile', S3Uri: string): Channel => ({
  ChannelName: 'train',
  DataSource: { S3DataSource: { S3DataType, S3Uri } },
});

test('an S3 prefix gives every object under it in key order, folder markers left out', async () => {
  const blobs = new MemoryBlobStore();
  await blobs.put('s3://b/data/train/part-2.csv', '2\n');
  await blobs.put('s3://b/data/train/part-1.csv', '1\n');
  await blobs.put('s3://b/data/train/', '');
  await blobs.put('s3://b/data/trainer.csv', 'x\n');
  await blobs.put('s3://b/data/validation/v.csv', 'v\n');
  const dir = await resolveChannel(blobs, channel('S3Prefix', 's3://b/data/train/'), 'us-east-1', ROLE);
  assert.deepEqual(
    dir.map((o) => o.relative),
    ['part-1.csv', 'part-2.csv'],
  );
  // Without the trailing slash the prefix also matches trainer.csv, as in S3.
  const loose = await resolveChannel(blobs, channel('S3Prefix', 's3://b/data/train'), 'us-east-1', ROLE);
  assert.deepEqual(
    loose.map((o) => o.relative),
    ['train/part-1.csv', 'train/part-2.csv', 'trainer.csv'],
  );
});

test('a manifest lists keys relative to its prefix', async () => {
  const blobs = new MemoryBlobStore();
  await blobs.put('s3://b/d/a.csv', 'a\n');
  await blobs.put('s3://b/d/sub/b.csv', 'b\n');
  await blobs.put('s3://b/m.json', JSON.stringify([{ prefix: 's3://b/d/' }, 'sub/b.csv', 'a.csv']));
  const objs = await resolveChannel(blobs, channel('ManifestFile', 's3://b/m.json'), 'us-east-1', ROLE);
  assert.deepEqual(
    objs.map((o) => o.uri),
    ['s3://b/d/sub/b.csv', 's3://b/d/a.csv'],
  );
  await blobs.put('s3://b/bad.json', JSON.stringify([{ prefix: 's3://b/d/' }, 'missing.csv']));
  await assert.rejects(
    resolveChannel(blobs, channel('ManifestFile', 's3://b/bad.json'), 'us-east-1', ROLE),
    /Object "s3:\/\/b\/d\/missing.csv" listed in manifest/,
  );
});

test('an empty prefix fails with the message SageMaker gives', async () => {
  await assert.rejects(
    resolveChannel(new MemoryBlobStore(), channel('S3Prefix', 's3://nobucket/none/'), 'eu-west-1', ROLE),
    (e: Error) =>
      e instanceof ChannelError &&
      e.message ===
        `ClientError: No S3 objects found under S3 URL "s3://nobucket/none/" given in input data source. Please ensure that the bucket exists in the selected region (eu-west-1), that objects exist under that S3 prefix, and that the role "${ROLE}" has "s3:ListBucket" permissions on bucket "nobucket".`,
  );
});

test('File mode copies the objects into the channel directory, decompressing Gzip channels', async () => {
  const blobs = new MemoryBlobStore();
  await blobs.put('s3://b/z/x.csv.gz', gzipSync('1,2\n'));
  const dir = mkdtempSync(join(tmpdir(), 'slipway-channel-'));
  try {
    const objs = await resolveChannel(blobs, channel('S3Prefix', 's3://b/z/'), 'us-east-1', ROLE);
    await downloadChannel(blobs, objs, dir, true);
    assert.equal(readFileSync(join(dir, 'x.csv'), 'utf8'), '1,2\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
