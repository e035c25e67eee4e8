// --s3-endpoint: the S3 BlobStore against a real S3 API (here another Slipway's embedded one), and
// the embedded API switched off with a clear error. https://docs.aws.amazon.com/AmazonS3/latest/API/Welcome.html
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { ListBucketsCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { BlobNotFoundError } from '../../src/storage/blobs/blob-store.js';
import { S3BlobStore } from '../../src/storage/blobs/s3-blob-store.js';
import { CREDENTIALS, REGION, startServer, type TestServer } from '../support/server.js';

let backend: TestServer;
let front: TestServer;
before(async () => {
  backend = await startServer();
  front = await startServer(['--s3-endpoint', backend.endpoint]);
});
after(async () => {
  await front?.close();
  await backend?.close();
});

test('with --s3-endpoint the embedded S3 API answers with an error naming the endpoint', async () => {
  const s3 = new S3Client({
    endpoint: front.endpoint,
    region: REGION,
    credentials: CREDENTIALS,
    forcePathStyle: true,
    maxAttempts: 1,
  });
  try {
    await s3.send(new ListBucketsCommand({}));
    assert.fail('expected an error');
  } catch (err) {
    assert.ok(err instanceof S3ServiceException);
    assert.equal(err.name, 'NotImplemented');
    assert.equal(err.$metadata.httpStatusCode, 501);
    assert.ok(err.message.includes(backend.endpoint), err.message);
  } finally {
    s3.destroy();
  }
});

test('S3BlobStore reads and writes s3:// URIs through a real S3 API, streaming large objects in parts', async () => {
  const blobs = new S3BlobStore({ endpoint: backend.endpoint, region: REGION, credentials: CREDENTIALS });
  try {
    await blobs.ensureBucket('artifacts');
    await blobs.ensureBucket('artifacts');
    const small = await blobs.put('s3://artifacts/a/model.tar.gz', Buffer.from('weights'), {
      contentType: 'application/gzip',
      metadata: { k: 'v' },
    });
    assert.equal(small.size, 7);
    const stat = await blobs.stat('s3://artifacts/a/model.tar.gz');
    assert.equal(stat?.contentType, 'application/gzip');
    assert.deepEqual(stat?.metadata, { k: 'v' });

    // 20 MiB from a stream of unknown length: a multipart upload of 8 MiB parts.
    const big = randomBytes(20 * 1024 * 1024);
    const info = await blobs.put(
      's3://artifacts/a/big.bin',
      Readable.from(
        (function* () {
          for (let i = 0; i < big.length; i += 1 << 20) yield big.subarray(i, i + (1 << 20));
        })(),
      ),
    );
    assert.equal(info.size, big.length);
    assert.match(info.etag, /-3"$/);
    const got = createHash('md5');
    for await (const c of await blobs.get('s3://artifacts/a/big.bin')) got.update(c as Buffer);
    assert.equal(got.digest('hex'), createHash('md5').update(big).digest('hex'));
    const part: Buffer[] = [];
    for await (const c of await blobs.get('s3://artifacts/a/big.bin', { start: 10, end: 19 })) part.push(c as Buffer);
    assert.ok(Buffer.concat(part).equals(big.subarray(10, 20)));

    const keys: string[] = [];
    for await (const b of blobs.list('s3://artifacts/a/')) keys.push(b.key);
    assert.deepEqual(keys, ['a/big.bin', 'a/model.tar.gz']);
    await blobs.delete('s3://artifacts/a/big.bin');
    assert.equal(await blobs.stat('s3://artifacts/a/big.bin'), undefined);
    await assert.rejects(
      blobs.get('s3://artifacts/a/big.bin'),
      (e) => e instanceof BlobNotFoundError && e.reason === 'NoSuchKey',
    );
    await assert.rejects(
      blobs.put('s3://missing-bucket/x', 'x'),
      (e) => e instanceof BlobNotFoundError && e.reason === 'NoSuchBucket',
    );
  } finally {
    blobs.close();
  }
});
