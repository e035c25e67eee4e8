// End-to-end: the embedded S3 API driven by @aws-sdk/client-s3 and lib-storage, as users upload
// model artifacts to Slipway. https://docs.aws.amazon.com/AmazonS3/latest/API/Welcome.html
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  ListObjectsCommand,
  type ListObjectsCommandOutput,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { CREDENTIALS, REGION, startServer, type TestServer } from '../support/server.js';

const MiB = 1024 * 1024;
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

async function rejects(p: Promise<unknown>, name: string | undefined, status: number): Promise<S3ServiceException> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof S3ServiceException, `expected an S3 error, got ${err}`);
    if (name !== undefined) assert.equal(err.name, name, err.message);
    assert.equal(err.$metadata.httpStatusCode, status);
    return err;
  }
  assert.fail(`expected ${name}`);
}

/** A raw HTTP exchange, for what the SDK will not send (bad framing, virtual hosts, wrong checksums). */
function raw(
  endpoint: string,
  opts: { method: string; path: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method: opts.method, path: opts.path, headers: opts.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Files under the server's blob directory (anything left behind by a refused upload shows here). */
function blobFiles(dataDir: string): string[] {
  const root = join(dataDir, 's3');
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(join(d, e.name));
    }
  };
  if (existsSync(root)) walk(root);
  return out.sort();
}

describe('S3 API with the JS SDK', () => {
  let server: TestServer;
  let s3: S3Client;

  before(async () => {
    server = await startServer();
    s3 = new S3Client({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS, forcePathStyle: true });
  });
  after(async () => {
    s3?.destroy();
    await server?.close();
  });

  test('buckets: create, head, list, already owned, invalid name, not empty, delete', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'artifacts' }));
    const head = await s3.send(new HeadBucketCommand({ Bucket: 'artifacts' }));
    assert.equal(head.BucketRegion, REGION);
    const err = await rejects(
      s3.send(new CreateBucketCommand({ Bucket: 'artifacts' })),
      'BucketAlreadyOwnedByYou',
      409,
    );
    assert.match(err.message, /already own it/);
    await rejects(s3.send(new CreateBucketCommand({ Bucket: 'Bad_Name' })), 'InvalidBucketName', 400);
    await rejects(s3.send(new HeadBucketCommand({ Bucket: 'no-such-bucket' })), 'NotFound', 404);
    const list = await s3.send(new ListBucketsCommand({}));
    assert.deepEqual(
      list.Buckets?.map((b) => b.Name),
      ['artifacts'],
    );
    await s3.send(new PutObjectCommand({ Bucket: 'artifacts', Key: 'x', Body: 'x' }));
    await rejects(s3.send(new DeleteBucketCommand({ Bucket: 'artifacts' })), 'BucketNotEmpty', 409);
    await s3.send(new DeleteObjectCommand({ Bucket: 'artifacts', Key: 'x' }));
    await s3.send(new DeleteBucketCommand({ Bucket: 'artifacts' }));
    await rejects(s3.send(new DeleteBucketCommand({ Bucket: 'artifacts' })), 'NoSuchBucket', 404);
  });

  test('PutObject with the SDK default checksums; content type, metadata and ETag round trip', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'models' }));
    const body = randomBytes(300_000);
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: 'models',
        Key: 'xgb/model.tar.gz',
        Body: body,
        ContentType: 'application/gzip',
        Metadata: { framework: 'xgboost' },
      }),
    );
    assert.equal(put.ETag, `"${md5(body)}"`);
    assert.ok(put.ChecksumCRC32, 'the SDK sent a CRC32 and the server confirmed it');
    const got = await s3.send(new GetObjectCommand({ Bucket: 'models', Key: 'xgb/model.tar.gz' }));
    assert.equal(got.ContentType, 'application/gzip');
    assert.deepEqual(got.Metadata, { framework: 'xgboost' });
    assert.equal(got.ContentLength, body.length);
    assert.equal(got.ETag, put.ETag);
    assert.equal(got.ChecksumCRC32, put.ChecksumCRC32);
    assert.ok(Buffer.from(await got.Body!.transformToByteArray()).equals(body));

    // A stream of known length goes as aws-chunked with a checksum trailer.
    const streamed = randomBytes(200_000);
    await s3.send(
      new PutObjectCommand({
        Bucket: 'models',
        Key: 'streamed.bin',
        Body: Readable.from([streamed.subarray(0, 70_000), streamed.subarray(70_000)]),
        ContentLength: streamed.length,
      }),
    );
    const back = await s3.send(new GetObjectCommand({ Bucket: 'models', Key: 'streamed.bin' }));
    assert.ok(Buffer.from(await back.Body!.transformToByteArray()).equals(streamed));
    const headed = await s3.send(new HeadObjectCommand({ Bucket: 'models', Key: 'streamed.bin' }));
    assert.equal(headed.ETag, `"${md5(streamed)}"`);
  });

  test('GetObject ranges, InvalidRange, NoSuchKey and conditional reads', async () => {
    const body = Buffer.from('0123456789abcdefghij');
    await s3.send(new PutObjectCommand({ Bucket: 'models', Key: 'range.txt', Body: body }));
    const read = async (Range: string) => {
      const r = await s3.send(new GetObjectCommand({ Bucket: 'models', Key: 'range.txt', Range }));
      return {
        text: await r.Body!.transformToString(),
        range: r.ContentRange,
        length: r.ContentLength,
        status: r.$metadata.httpStatusCode,
      };
    };
    assert.deepEqual(await read('bytes=0-3'), { text: '0123', range: 'bytes 0-3/20', length: 4, status: 206 });
    assert.deepEqual(await read('bytes=-5'), { text: 'fghij', range: 'bytes 15-19/20', length: 5, status: 206 });
    assert.deepEqual(await read('bytes=18-'), { text: 'ij', range: 'bytes 18-19/20', length: 2, status: 206 });
    assert.deepEqual(await read('bytes=15-100'), { text: 'fghij', range: 'bytes 15-19/20', length: 5, status: 206 });
    await rejects(read('bytes=20-30'), 'InvalidRange', 416);
    const missing = await rejects(s3.send(new GetObjectCommand({ Bucket: 'models', Key: 'nope' })), 'NoSuchKey', 404);
    assert.equal((missing as unknown as { Key?: string }).Key, 'nope');
    await rejects(s3.send(new GetObjectCommand({ Bucket: 'nobucket', Key: 'nope' })), 'NoSuchBucket', 404);
    const etag = `"${md5(body)}"`;
    await rejects(
      s3.send(new GetObjectCommand({ Bucket: 'models', Key: 'range.txt', IfMatch: '"0000"' })),
      'PreconditionFailed',
      412,
    );
    await rejects(
      s3.send(new HeadObjectCommand({ Bucket: 'models', Key: 'range.txt', IfNoneMatch: etag })),
      undefined,
      304,
    );
  });

  test('S3 error documents: XML with Code, Message, Key/BucketName and RequestId; HEAD has no body', async () => {
    const r = await raw(server.endpoint, { method: 'GET', path: '/models/does/not/exist' });
    assert.equal(r.status, 404);
    assert.equal(r.headers['content-type'], 'application/xml');
    assert.match(
      r.body,
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<Error><Code>NoSuchKey<\/Code><Message>The specified key does not exist.<\/Message><Key>does\/not\/exist<\/Key><RequestId>[^<]+<\/RequestId><HostId>[^<]+<\/HostId><\/Error>$/,
    );
    assert.equal(r.headers['x-amz-request-id'], /<RequestId>([^<]+)</.exec(r.body)![1]);
    const b = await raw(server.endpoint, { method: 'GET', path: '/nobucket?list-type=2' });
    assert.match(b.body, /<Code>NoSuchBucket<\/Code>.*<BucketName>nobucket<\/BucketName>/);
    const h = await raw(server.endpoint, { method: 'HEAD', path: '/models/does-not-exist' });
    assert.equal(h.status, 404);
    assert.equal(h.body, '');
    const sub = await raw(server.endpoint, { method: 'GET', path: '/models?versioning' });
    assert.equal(sub.status, 501);
    assert.match(sub.body, /<Code>NotImplemented<\/Code>/);
  });

  test('ListObjectsV2 pages through keys and common prefixes in UTF-8 byte order', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'listing' }));
    const keys = [
      'a/1',
      'a/2',
      'a/b/3',
      'b',
      'c/x',
      'c/y',
      'd',
      'e/',
      'e/f',
      'z\u00e9',
      'z\uffff',
      'z\u{1f600}',
      'z+plus',
      'z space',
    ];
    for (const Key of keys) await s3.send(new PutObjectCommand({ Bucket: 'listing', Key, Body: Key }));
    const utf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

    // Without a delimiter: every key, in byte order (U+FFFF sorts before U+1F600 in UTF-8, not in UTF-16).
    const all: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page: ListObjectsV2CommandOutput = await s3.send(
        new ListObjectsV2Command({ Bucket: 'listing', MaxKeys: 3, ContinuationToken: token }),
      );
      all.push(...(page.Contents ?? []).map((o) => o.Key!));
      assert.equal(page.KeyCount, page.Contents?.length ?? 0);
      token = page.NextContinuationToken;
      assert.equal(page.IsTruncated, token !== undefined);
      pages++;
    } while (token);
    assert.deepEqual(all, [...keys].sort(utf8));
    assert.equal(pages, Math.ceil(keys.length / 3));

    // With a delimiter, one entry per common prefix, paged with MaxKeys 2.
    const seen: string[] = [];
    token = undefined;
    do {
      const page: ListObjectsV2CommandOutput = await s3.send(
        new ListObjectsV2Command({ Bucket: 'listing', Delimiter: '/', MaxKeys: 2, ContinuationToken: token }),
      );
      const entries = [
        ...(page.Contents ?? []).map((o) => o.Key!),
        ...(page.CommonPrefixes ?? []).map((p) => `${p.Prefix}`),
      ];
      assert.ok(entries.length <= 2);
      seen.push(...entries);
      token = page.NextContinuationToken;
    } while (token);
    assert.deepEqual(
      seen.sort(utf8),
      ['a/', 'b', 'c/', 'd', 'e/', 'z space', 'z+plus', 'z\u00e9', 'z\uffff', 'z\u{1f600}'].sort(utf8),
    );

    // Prefix + delimiter, StartAfter, and url encoding.
    const a = await s3.send(new ListObjectsV2Command({ Bucket: 'listing', Prefix: 'a/', Delimiter: '/' }));
    assert.deepEqual(
      a.Contents?.map((o) => o.Key),
      ['a/1', 'a/2'],
    );
    assert.deepEqual(
      a.CommonPrefixes?.map((p) => p.Prefix),
      ['a/b/'],
    );
    const after = await s3.send(new ListObjectsV2Command({ Bucket: 'listing', StartAfter: 'c/x' }));
    assert.equal(after.Contents?.[0]?.Key, 'c/y');
    const enc = await s3.send(new ListObjectsV2Command({ Bucket: 'listing', Prefix: 'z', EncodingType: 'url' }));
    assert.ok(enc.Contents?.some((o) => o.Key === 'z%20space' || o.Key === 'z+space'));

    // ListObjects v1 with Marker / NextMarker.
    const v1: string[] = [];
    let marker: string | undefined;
    for (;;) {
      const page: ListObjectsCommandOutput = await s3.send(
        new ListObjectsCommand({ Bucket: 'listing', Delimiter: '/', MaxKeys: 3, Marker: marker }),
      );
      v1.push(...(page.Contents ?? []).map((o) => o.Key!), ...(page.CommonPrefixes ?? []).map((p) => p.Prefix!));
      if (!page.IsTruncated) break;
      marker = page.NextMarker;
      assert.ok(marker);
    }
    assert.deepEqual(v1.sort(utf8), seen);
  });

  test('lib-storage Upload: multipart with checksums, md5-of-md5s ETag, full and ranged reads', async () => {
    const body = randomBytes(12 * MiB + 12345);
    const up = new Upload({
      client: s3,
      params: { Bucket: 'models', Key: 'big/model.tar.gz', Body: Readable.from(chunks(body, 64 * 1024)) },
      partSize: 5 * MiB,
      queueSize: 3,
    });
    const done = await up.done();
    const partMd5s = [0, 1, 2].map((i) =>
      createHash('md5')
        .update(body.subarray(i * 5 * MiB, (i + 1) * 5 * MiB))
        .digest(),
    );
    const expected = `"${createHash('md5').update(Buffer.concat(partMd5s)).digest('hex')}-3"`;
    assert.equal(done.ETag, expected);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'models', Key: 'big/model.tar.gz' }));
    assert.equal(got.ContentLength, body.length);
    assert.equal(got.PartsCount, 3);
    const data = Buffer.from(await got.Body!.transformToByteArray());
    assert.equal(md5(data), md5(body));
    // A range across the part boundary.
    const r = await s3.send(
      new GetObjectCommand({
        Bucket: 'models',
        Key: 'big/model.tar.gz',
        Range: `bytes=${5 * MiB - 10}-${5 * MiB + 9}`,
      }),
    );
    assert.ok(Buffer.from(await r.Body!.transformToByteArray()).equals(body.subarray(5 * MiB - 10, 5 * MiB + 10)));
    // One part by number.
    const p2 = await s3.send(new GetObjectCommand({ Bucket: 'models', Key: 'big/model.tar.gz', PartNumber: 2 }));
    assert.equal(p2.ContentLength, 5 * MiB);
    assert.equal(p2.ContentRange, `bytes ${5 * MiB}-${10 * MiB - 1}/${body.length}`);
    await p2.Body!.transformToByteArray();
  });

  test('multipart errors: NoSuchUpload, InvalidPart, InvalidPartOrder, EntityTooSmall; list parts and uploads; abort', async () => {
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'models', Key: 'mp.bin' }));
    assert.ok(UploadId);
    const p1 = await s3.send(
      new UploadPartCommand({ Bucket: 'models', Key: 'mp.bin', UploadId, PartNumber: 1, Body: Buffer.alloc(1024, 1) }),
    );
    const p2 = await s3.send(
      new UploadPartCommand({ Bucket: 'models', Key: 'mp.bin', UploadId, PartNumber: 2, Body: Buffer.alloc(1024, 2) }),
    );
    const parts = await s3.send(new ListPartsCommand({ Bucket: 'models', Key: 'mp.bin', UploadId }));
    assert.deepEqual(
      parts.Parts?.map((p) => [p.PartNumber, p.Size, p.ETag]),
      [
        [1, 1024, p1.ETag],
        [2, 1024, p2.ETag],
      ],
    );
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: 'models' }));
    assert.ok(uploads.Uploads?.some((u) => u.UploadId === UploadId && u.Key === 'mp.bin'));

    const complete = (Parts: { PartNumber: number; ETag: string }[]) =>
      s3.send(
        new CompleteMultipartUploadCommand({ Bucket: 'models', Key: 'mp.bin', UploadId, MultipartUpload: { Parts } }),
      );
    await rejects(complete([{ PartNumber: 1, ETag: '"00000000000000000000000000000000"' }]), 'InvalidPart', 400);
    await rejects(complete([{ PartNumber: 3, ETag: p1.ETag! }]), 'InvalidPart', 400);
    await rejects(
      complete([
        { PartNumber: 2, ETag: p2.ETag! },
        { PartNumber: 1, ETag: p1.ETag! },
      ]),
      'InvalidPartOrder',
      400,
    );
    await rejects(
      complete([
        { PartNumber: 1, ETag: p1.ETag! },
        { PartNumber: 2, ETag: p2.ETag! },
      ]),
      'EntityTooSmall',
      400,
    );
    // The last part may be small: completing with part 1 alone works.
    const done = await complete([{ PartNumber: 1, ETag: p1.ETag! }]);
    assert.match(done.ETag!, /-1"$/);
    await rejects(complete([{ PartNumber: 1, ETag: p1.ETag! }]), 'NoSuchUpload', 404);
    await rejects(
      s3.send(new UploadPartCommand({ Bucket: 'models', Key: 'mp.bin', UploadId: 'nope', PartNumber: 1, Body: 'x' })),
      'NoSuchUpload',
      404,
    );
    const second = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'models', Key: 'aborted.bin' }));
    await s3.send(
      new UploadPartCommand({
        Bucket: 'models',
        Key: 'aborted.bin',
        UploadId: second.UploadId,
        PartNumber: 1,
        Body: 'abc',
      }),
    );
    await s3.send(new AbortMultipartUploadCommand({ Bucket: 'models', Key: 'aborted.bin', UploadId: second.UploadId }));
    await rejects(
      s3.send(new AbortMultipartUploadCommand({ Bucket: 'models', Key: 'aborted.bin', UploadId: second.UploadId })),
      'NoSuchUpload',
      404,
    );
  });

  test('CopyObject, DeleteObjects and DeleteObject', async () => {
    await s3.send(
      new PutObjectCommand({
        Bucket: 'models',
        Key: 'src.txt',
        Body: 'copy me',
        ContentType: 'text/plain',
        Metadata: { a: '1' },
      }),
    );
    const copy = await s3.send(
      new CopyObjectCommand({ Bucket: 'models', Key: 'dst.txt', CopySource: 'models/src.txt' }),
    );
    assert.equal(copy.CopyObjectResult?.ETag, `"${md5(Buffer.from('copy me'))}"`);
    const dst = await s3.send(new GetObjectCommand({ Bucket: 'models', Key: 'dst.txt' }));
    assert.equal(await dst.Body!.transformToString(), 'copy me');
    assert.equal(dst.ContentType, 'text/plain');
    assert.deepEqual(dst.Metadata, { a: '1' });
    const replaced = await s3.send(
      new CopyObjectCommand({
        Bucket: 'models',
        Key: 'src.txt',
        CopySource: '/models/src.txt',
        MetadataDirective: 'REPLACE',
        ContentType: 'text/csv',
      }),
    );
    assert.ok(replaced.CopyObjectResult?.ETag);
    assert.equal((await s3.send(new HeadObjectCommand({ Bucket: 'models', Key: 'src.txt' }))).ContentType, 'text/csv');
    await rejects(
      s3.send(new CopyObjectCommand({ Bucket: 'models', Key: 'src.txt', CopySource: 'models/src.txt' })),
      'InvalidRequest',
      400,
    );
    await rejects(
      s3.send(new CopyObjectCommand({ Bucket: 'models', Key: 'x', CopySource: 'models/missing' })),
      'NoSuchKey',
      404,
    );

    const del = await s3.send(
      new DeleteObjectsCommand({
        Bucket: 'models',
        Delete: { Objects: [{ Key: 'src.txt' }, { Key: 'dst.txt' }, { Key: 'never-existed' }] },
      }),
    );
    assert.deepEqual(del.Deleted?.map((d) => d.Key).sort(), ['dst.txt', 'never-existed', 'src.txt']);
    await rejects(s3.send(new HeadObjectCommand({ Bucket: 'models', Key: 'src.txt' })), 'NotFound', 404);
    await s3.send(new DeleteObjectCommand({ Bucket: 'models', Key: 'never-existed' }));
  });

  test('a checksum mismatch or a path-traversal key is refused and leaves nothing behind', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'guarded' }));
    const before = blobFiles(server.dataDir);
    const body = Buffer.from('the real bytes');
    await rejects(
      s3.send(new PutObjectCommand({ Bucket: 'guarded', Key: 'crc.bin', Body: body, ChecksumCRC32: 'AAAAAA==' })),
      'BadDigest',
      400,
    );
    await rejects(
      s3.send(
        new PutObjectCommand({
          Bucket: 'guarded',
          Key: 'md5.bin',
          Body: body,
          ContentMD5: createHash('md5').update('other').digest('base64'),
        }),
      ),
      'BadDigest',
      400,
    );
    await rejects(
      s3.send(new PutObjectCommand({ Bucket: 'guarded', Key: 'md5.bin', Body: body, ContentMD5: 'not-base64' })),
      'InvalidDigest',
      400,
    );
    await rejects(
      s3.send(new PutObjectCommand({ Bucket: 'guarded', Key: 'sha.bin', Body: body, ChecksumSHA256: 'short' })),
      'InvalidRequest',
      400,
    );
    for (const Key of ['../../etc/passwd', 'a/../../../etc/passwd', 'x/./y', 'nul\u0000byte']) {
      await rejects(s3.send(new PutObjectCommand({ Bucket: 'guarded', Key, Body: body })), 'InvalidArgument', 400);
    }
    await rejects(
      s3.send(new CreateMultipartUploadCommand({ Bucket: 'guarded', Key: '../escape' })),
      'InvalidArgument',
      400,
    );
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'guarded' }));
    assert.equal(listed.KeyCount, 0);
    assert.deepEqual(blobFiles(server.dataDir), before, 'no blob or temporary file was left');
    assert.ok(!existsSync(join(server.dataDir, '..', 'etc', 'passwd')));
  });

  test('aws-chunked bodies (signed chunks, unsigned trailer) are decoded and verified; virtual-hosted addressing', async () => {
    const sig = 'a'.repeat(64);
    const data = Buffer.from('hello aws-chunked world');
    const signed = Buffer.concat([
      Buffer.from(`10;chunk-signature=${sig}\r\n`),
      data.subarray(0, 16),
      Buffer.from(`\r\n${(data.length - 16).toString(16)};chunk-signature=${sig}\r\n`),
      data.subarray(16),
      Buffer.from(`\r\n0;chunk-signature=${sig}\r\n\r\n`),
    ]);
    const auth = `AWS4-HMAC-SHA256 Credential=AKID/20260101/${REGION}/s3/aws4_request, SignedHeaders=host, Signature=${sig}`;
    const put = await raw(server.endpoint, {
      method: 'PUT',
      path: '/models/chunked-signed.txt',
      headers: {
        authorization: auth,
        'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
        'content-encoding': 'aws-chunked',
        'x-amz-decoded-content-length': String(data.length),
        'content-length': String(signed.length),
        'content-type': 'text/plain',
      },
      body: signed,
    });
    assert.equal(put.status, 200, put.body);
    assert.equal(put.headers.etag, `"${md5(data)}"`);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'models', Key: 'chunked-signed.txt' }));
    assert.equal(await got.Body!.transformToString(), data.toString());
    assert.equal(got.ContentEncoding, undefined, 'aws-chunked is framing, not stored');

    const trailer = (crc: string) =>
      Buffer.concat([
        Buffer.from(`${data.length.toString(16)}\r\n`),
        data,
        Buffer.from(`\r\n0\r\nx-amz-checksum-crc32:${crc}\r\n\r\n`),
      ]);
    const unsigned = (crc: string, key: string) =>
      raw(server.endpoint, {
        method: 'PUT',
        path: `/models/${key}`,
        headers: {
          authorization: auth,
          'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
          'content-encoding': 'aws-chunked',
          'x-amz-trailer': 'x-amz-checksum-crc32',
          'x-amz-decoded-content-length': String(data.length),
          'content-length': String(trailer(crc).length),
        },
        body: trailer(crc),
      });
    const { checksumOf } = await import('../../src/protocol/rest-xml/checksums.js');
    const ok = await unsigned(checksumOf('CRC32', data), 'trailer-ok.txt');
    assert.equal(ok.status, 200, ok.body);
    assert.equal(ok.headers['x-amz-checksum-crc32'], checksumOf('CRC32', data));
    const bad = await unsigned('AAAAAA==', 'trailer-bad.txt');
    assert.equal(bad.status, 400);
    assert.match(bad.body, /<Code>BadDigest<\/Code>/);
    await rejects(s3.send(new HeadObjectCommand({ Bucket: 'models', Key: 'trailer-bad.txt' })), 'NotFound', 404);

    // Virtual-hosted style: the bucket is in the Host header.
    const port = new URL(server.endpoint).port;
    const vh = await raw(server.endpoint, {
      method: 'GET',
      path: '/chunked-signed.txt',
      headers: { host: `models.localhost:${port}` },
    });
    assert.equal(vh.status, 200);
    assert.equal(vh.body, data.toString());
    const vhList = await raw(server.endpoint, {
      method: 'GET',
      path: '/?list-type=2&prefix=chunked',
      headers: { host: `models.localhost:${port}` },
    });
    assert.match(
      vhList.body,
      /<ListBucketResult xmlns="http:\/\/s3.amazonaws.com\/doc\/2006-03-01\/">.*<Key>chunked-signed.txt<\/Key>/,
    );
  });
});

function* chunks(b: Buffer, size: number): Generator<Buffer> {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}
