// SigV4 and IAM policies on the embedded S3 API: the AWS SDK with good, wrong and unknown keys,
// presigned URLs (valid, tampered, expired), aws-chunked uploads (the SDK's unsigned-trailer
// stream, lib-storage, and per-chunk signatures), and S3's XML errors.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { HttpRequest } from '@smithy/protocol-http';
import { ALICE, BOB, sdkSigner, UNKNOWN, writeCredentialsFile } from '../support/credentials.js';
import { REGION, startServer, tempDir, type TestServer } from '../support/server.js';

type Creds = { accessKeyId: string; secretAccessKey: string };

async function failure(p: Promise<unknown>): Promise<{ name: string; status: number | undefined }> {
  try {
    await p;
  } catch (err) {
    const e = err as Error & { $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode };
  }
  assert.fail('expected the request to fail');
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const xmlField = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

describe('S3 API with a credentials file', () => {
  let server: TestServer;
  let host: string;
  const s3 = (c: Creds, extra: Record<string, unknown> = {}) =>
    new S3Client({
      endpoint: server.endpoint,
      region: REGION,
      credentials: c,
      forcePathStyle: true,
      maxAttempts: 1,
      ...extra,
    });

  before(async () => {
    server = await startServer(['--credentials-file', writeCredentialsFile(tempDir())]);
    host = new URL(server.endpoint).host;
    await s3(ALICE).send(new CreateBucketCommand({ Bucket: 'models' }));
    await s3(ALICE).send(new PutObjectCommand({ Bucket: 'models', Key: 'a/model.bin', Body: 'weights' }));
  });
  after(() => server.close());

  it('a policy scoped to one bucket: reads and lists it, may not write or list all buckets', async () => {
    const got = await s3(BOB).send(new GetObjectCommand({ Bucket: 'models', Key: 'a/model.bin' }));
    assert.equal(await got.Body!.transformToString(), 'weights');
    const listed = await s3(BOB).send(new ListObjectsV2Command({ Bucket: 'models' }));
    assert.equal(listed.KeyCount, 1);
    assert.deepEqual(await failure(s3(BOB).send(new PutObjectCommand({ Bucket: 'models', Key: 'b', Body: 'x' }))), {
      name: 'AccessDenied',
      status: 403,
    });
    assert.equal((await failure(s3(BOB).send(new ListBucketsCommand({})))).name, 'AccessDenied');
  });

  it('unknown key: InvalidAccessKeyId; wrong secret: SignatureDoesNotMatch; skewed clock: RequestTimeTooSkewed', async () => {
    assert.deepEqual(await failure(s3(UNKNOWN).send(new ListBucketsCommand({}))), {
      name: 'InvalidAccessKeyId',
      status: 403,
    });
    assert.deepEqual(
      await failure(s3({ ...ALICE, secretAccessKey: 'wrong-secret' }).send(new ListBucketsCommand({}))),
      {
        name: 'SignatureDoesNotMatch',
        status: 403,
      },
    );
    const skewed = s3(ALICE, { systemClockOffset: 16 * 60_000 });
    assert.deepEqual(await failure(skewed.send(new ListBucketsCommand({}))), {
      name: 'RequestTimeTooSkewed',
      status: 403,
    });
  });

  it('unsigned requests are refused with AccessDenied in S3 XML', async () => {
    const res = await fetch(`${server.endpoint}/models/a/model.bin`);
    assert.equal(res.status, 403);
    const xml = await res.text();
    assert.equal(xmlField(xml, 'Code'), 'AccessDenied');
    assert.equal(xmlField(xml, 'Message'), 'Access Denied');
  });

  describe('presigned URLs', () => {
    // As @aws-sdk/s3-request-presigner does it: payload declared UNSIGNED-PAYLOAD, then presigned.
    const presign = async (path: string, expiresIn: number, signingDate?: Date) => {
      const req = new HttpRequest({
        method: 'GET',
        protocol: 'http:',
        hostname: '127.0.0.1',
        port: Number(host.split(':')[1]),
        path,
        headers: { host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      });
      const signed = await sdkSigner(ALICE, 's3', REGION).presign(req, {
        expiresIn,
        ...(signingDate ? { signingDate } : {}),
      });
      const q = new URLSearchParams(signed.query as Record<string, string>).toString();
      return `${server.endpoint}${signed.path}?${q}`;
    };

    it('a valid URL downloads', async () => {
      const res = await fetch(await presign('/models/a/model.bin', 300));
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'weights');
    });

    it('a tampered URL: SignatureDoesNotMatch with the string to sign', async () => {
      const url = (await presign('/models/a/model.bin', 300)).replace('X-Amz-Expires=300', 'X-Amz-Expires=3000');
      const res = await fetch(url);
      assert.equal(res.status, 403);
      const xml = await res.text();
      assert.equal(xmlField(xml, 'Code'), 'SignatureDoesNotMatch');
      assert.equal(xmlField(xml, 'AWSAccessKeyId'), ALICE.accessKeyId);
      assert.match(xmlField(xml, 'StringToSign') ?? '', /^AWS4-HMAC-SHA256\n/);
    });

    it('an expired URL: AccessDenied, Request has expired', async () => {
      const res = await fetch(await presign('/models/a/model.bin', 60, new Date(Date.now() - 120_000)));
      assert.equal(res.status, 403);
      const xml = await res.text();
      assert.equal(xmlField(xml, 'Code'), 'AccessDenied');
      assert.equal(xmlField(xml, 'Message'), 'Request has expired');
      assert.equal(xmlField(xml, 'X-Amz-Expires'), '60');
    });
  });

  describe('aws-chunked uploads', () => {
    it('PutObject with a stream (STREAMING-UNSIGNED-PAYLOAD-TRAILER) and lib-storage multipart', async () => {
      const data = Buffer.alloc(300_000, 'z');
      await s3(ALICE).send(
        new PutObjectCommand({
          Bucket: 'models',
          Key: 'streamed',
          Body: Readable.from([data]),
          ContentLength: data.length,
        }),
      );
      const back = await s3(ALICE).send(new GetObjectCommand({ Bucket: 'models', Key: 'streamed' }));
      assert.equal(Buffer.from(await back.Body!.transformToByteArray()).equals(data), true);
      const big = Buffer.alloc(6 * 1024 * 1024, 'q');
      await new Upload({
        client: s3(ALICE),
        params: { Bucket: 'models', Key: 'multi', Body: Readable.from([big]) },
      }).done();
      const m = await s3(ALICE).send(new GetObjectCommand({ Bucket: 'models', Key: 'multi' }));
      assert.equal((await m.Body!.transformToByteArray()).length, big.length);
    });

    /** A STREAMING-AWS4-HMAC-SHA256-PAYLOAD upload: each chunk signed, chained from the seed signature. */
    const signedChunkedPut = async (
      key: string,
      chunks: Buffer[],
      tamper?: (i: number, c: Buffer) => Buffer,
      trailer?: { name: string; value: string; forge?: boolean; unsigned?: boolean },
    ) => {
      const signer = sdkSigner(ALICE, 's3', REGION);
      const length = chunks.reduce((n, c) => n + c.length, 0);
      const date = new Date();
      const seed = await signer.sign(
        new HttpRequest({
          method: 'PUT',
          hostname: '127.0.0.1',
          path: `/models/${key}`,
          headers: {
            host,
            'x-amz-content-sha256': trailer
              ? 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER'
              : 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
            'content-encoding': 'aws-chunked',
            'x-amz-decoded-content-length': String(length),
            ...(trailer ? { 'x-amz-trailer': trailer.name } : {}),
          },
        }),
        { signingDate: date },
      );
      const amzDate = seed.headers['x-amz-date']!;
      const scope = `${amzDate.slice(0, 8)}/${REGION}/s3/aws4_request`;
      let previous = /Signature=([0-9a-f]{64})/.exec(seed.headers.authorization!)![1]!;
      const parts: Buffer[] = [];
      for (const [i, chunk] of [...chunks, Buffer.alloc(0)].entries()) {
        const toSign = `AWS4-HMAC-SHA256-PAYLOAD\n${amzDate}\n${scope}\n${previous}\n${sha('')}\n${sha(chunk)}`;
        previous = await signer.sign(toSign, { signingDate: date, signingRegion: REGION, signingService: 's3' });
        const sent = tamper ? tamper(i, chunk) : chunk;
        const last = i === chunks.length;
        parts.push(Buffer.from(`${sent.length.toString(16)};chunk-signature=${previous}\r\n`), sent);
        if (!last || !trailer) parts.push(Buffer.from('\r\n'));
      }
      if (trailer) {
        // The trailing checksum is signed too, chained from the final chunk's signature.
        const line = `${trailer.name}:${trailer.value}\n`;
        const toSign = `AWS4-HMAC-SHA256-TRAILER\n${amzDate}\n${scope}\n${previous}\n${sha(line)}`;
        const sig = await signer.sign(toSign, { signingDate: date, signingRegion: REGION, signingService: 's3' });
        const sent = trailer.forge ? `${trailer.name}:AAAAAA==\r\n` : `${trailer.name}:${trailer.value}\r\n`;
        parts.push(Buffer.from(trailer.unsigned ? `${sent}\r\n` : `${sent}x-amz-trailer-signature:${sig}\r\n\r\n`));
      }
      const body = Buffer.concat(parts);
      const { host: _h, ...headers } = seed.headers;
      return fetch(`${server.endpoint}/models/${key}`, {
        method: 'PUT',
        headers: { ...headers, 'content-length': String(body.length) },
        body,
      });
    };

    it('per-chunk signatures verified: a good stream is stored, an altered chunk is refused', async () => {
      const chunks = [Buffer.alloc(65_536, 'a'), Buffer.alloc(65_536, 'b'), Buffer.from('tail')];
      const good = await signedChunkedPut('signed-chunks', chunks);
      assert.equal(good.status, 200, await good.text());
      const back = await s3(ALICE).send(new GetObjectCommand({ Bucket: 'models', Key: 'signed-chunks' }));
      assert.equal(Buffer.from(await back.Body!.transformToByteArray()).equals(Buffer.concat(chunks)), true);
      const bad = await signedChunkedPut('tampered', chunks, (i, c) => (i === 1 ? Buffer.alloc(c.length, 'X') : c));
      assert.equal(bad.status, 403);
      assert.equal(xmlField(await bad.text(), 'Code'), 'SignatureDoesNotMatch');
      assert.equal(
        (await failure(s3(ALICE).send(new GetObjectCommand({ Bucket: 'models', Key: 'tampered' })))).name,
        'NoSuchKey',
      );
    });

    it('STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER: the signed trailer is checked', async () => {
      const chunks = [Buffer.alloc(70_000, 'c'), Buffer.from('end')];
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(crc32(Buffer.concat(chunks)));
      const trailer = { name: 'x-amz-checksum-crc32', value: crc.toString('base64') };
      const good = await signedChunkedPut('signed-trailer', chunks, undefined, trailer);
      assert.equal(good.status, 200, await good.text());
      const forged = await signedChunkedPut('forged-trailer', chunks, undefined, { ...trailer, forge: true });
      assert.equal(forged.status, 403);
      assert.equal(xmlField(await forged.text(), 'Code'), 'SignatureDoesNotMatch');
      const unsigned = await signedChunkedPut('unsigned-trailer', chunks, undefined, { ...trailer, unsigned: true });
      assert.equal(unsigned.status, 403);
      assert.equal(xmlField(await unsigned.text(), 'Code'), 'SignatureDoesNotMatch');
    });

    it('x-amz-content-sha256 is checked against the body', async () => {
      const signed = await sdkSigner(ALICE, 's3', REGION).sign(
        new HttpRequest({
          method: 'PUT',
          hostname: '127.0.0.1',
          path: '/models/declared',
          headers: { host, 'x-amz-content-sha256': sha('what was signed') },
        }),
      );
      const { host: _h, ...headers } = signed.headers;
      const res = await fetch(`${server.endpoint}/models/declared`, { method: 'PUT', headers, body: 'what was sent' });
      assert.equal(res.status, 400);
      assert.equal(xmlField(await res.text(), 'Code'), 'XAmzContentSHA256Mismatch');
    });
  });
});
