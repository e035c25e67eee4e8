import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { checksumOf } from './checksums.js';
import { PayloadStream, storedContentEncoding } from './payload.js';
import { S3Error } from './s3-errors.js';

/** Feeds `body` in pieces of `step` bytes, as the network may. */
async function read(body: Buffer, headers: IncomingHttpHeaders, step = 1, maxSize = 1 << 20) {
  const pieces: Buffer[] = [];
  for (let i = 0; i < body.length; i += step) pieces.push(body.subarray(i, i + step));
  const p = new PayloadStream(Readable.from(pieces), headers, { maxSize });
  const out: Buffer[] = [];
  for await (const c of p) out.push(c as Buffer);
  return { data: Buffer.concat(out), digest: p.digest() };
}

async function code(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof S3Error, String(err));
    return err.code;
  }
  return 'no error';
}

const data = Buffer.from('The quick brown fox jumps over the lazy dog');
const md5 = createHash('md5').update(data).digest('hex');

function chunked(trailer?: string, signed = false): Buffer {
  const ext = signed ? `;chunk-signature=${'0'.repeat(64)}` : '';
  const parts = [data.subarray(0, 10), data.subarray(10)].map((c) =>
    Buffer.concat([Buffer.from(`${c.length.toString(16)}${ext}\r\n`), c, Buffer.from('\r\n')]),
  );
  return Buffer.concat([...parts, Buffer.from(`0${ext}\r\n${trailer ? `${trailer}\r\n` : ''}\r\n`)]);
}

test('aws-chunked with signed chunks decodes byte by byte', async () => {
  const r = await read(chunked(undefined, true), {
    'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
    'x-amz-decoded-content-length': String(data.length),
  });
  assert.ok(r.data.equals(data));
  assert.equal(r.digest.md5, md5);
});

test('unsigned trailer: verified checksum, mismatch is BadDigest, missing trailer is InvalidRequest', async () => {
  const headers = {
    'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
    'content-encoding': 'aws-chunked',
    'x-amz-trailer': 'x-amz-checksum-crc32c',
    'x-amz-decoded-content-length': String(data.length),
  };
  const good = await read(chunked(`x-amz-checksum-crc32c:${checksumOf('CRC32C', data)}`), headers, 3);
  assert.deepEqual(good.digest.checksum, { algorithm: 'CRC32C', value: checksumOf('CRC32C', data) });
  assert.equal(await code(() => read(chunked('x-amz-checksum-crc32c:AAAAAA=='), headers)), 'BadDigest');
  assert.equal(await code(() => read(chunked(), headers)), 'InvalidRequest');
  assert.equal(await code(() => read(chunked().subarray(0, 20), headers)), 'IncompleteBody');
});

test('plain bodies: Content-MD5, x-amz-checksum-*, x-amz-content-sha256 and sizes', async () => {
  const b64md5 = Buffer.from(md5, 'hex').toString('base64');
  assert.equal(
    (await read(data, { 'content-md5': b64md5, 'content-length': String(data.length) }, 8)).digest.size,
    data.length,
  );
  assert.equal(await code(() => read(Buffer.from('other'), { 'content-md5': b64md5 })), 'BadDigest');
  assert.equal(await code(() => read(data, { 'content-md5': 'abc' })), 'InvalidDigest');
  assert.equal(
    await code(() => read(data, { 'x-amz-checksum-sha256': checksumOf('SHA256', Buffer.from('x')) })),
    'BadDigest',
  );
  assert.equal(
    await code(() => read(data, { 'x-amz-checksum-crc32': 'AAAAAA==', 'x-amz-checksum-sha1': 'AAAAAA==' })),
    'InvalidRequest',
  );
  assert.equal(await code(() => read(data, { 'x-amz-content-sha256': 'a'.repeat(64) })), 'XAmzContentSHA256Mismatch');
  assert.equal(await code(() => read(data, { 'content-length': '99999999' }, 8, 1000)), 'EntityTooLarge');
  assert.equal(await code(() => read(data, {}, 8, 10)), 'EntityTooLarge');
  assert.equal(storedContentEncoding('aws-chunked'), undefined);
  assert.equal(storedContentEncoding('aws-chunked,gzip'), 'gzip');
});
