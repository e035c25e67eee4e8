import assert from 'node:assert/strict';
import { test } from 'node:test';
import { algorithmOfHeader, checksumOf, compositeChecksum, createChecksum, isWellFormedChecksum } from './checksums.js';

const hex = (alg: Parameters<typeof checksumOf>[0], data: Buffer) =>
  Buffer.from(checksumOf(alg, data), 'base64').toString('hex');

test('check values of the CRC catalogue for "123456789"', () => {
  const data = Buffer.from('123456789');
  assert.equal(hex('CRC32', data), 'cbf43926');
  assert.equal(hex('CRC32C', data), 'e3069283');
  assert.equal(hex('CRC64NVME', data), 'ae8b14860a799888');
  assert.equal(hex('SHA1', data), 'f7c3bc1d808e04732adf679965ccc34ca7ae3441');
});

test('incremental updates in any split give the one-shot value', () => {
  const data = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 31) & 0xff));
  for (const alg of ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA256'] as const) {
    const c = createChecksum(alg);
    for (let i = 0; i < data.length; i += 7) c.update(data.subarray(i, i + 7));
    assert.equal(c.digest().toString('base64'), checksumOf(alg, data), alg);
  }
});

test('composite checksum of parts, header names and well-formedness', () => {
  const parts = [checksumOf('CRC32', Buffer.from('a')), checksumOf('CRC32', Buffer.from('b'))];
  const expected = checksumOf('CRC32', Buffer.concat(parts.map((p) => Buffer.from(p, 'base64'))));
  assert.equal(compositeChecksum('CRC32', parts), `${expected}-2`);
  assert.equal(algorithmOfHeader('x-amz-checksum-crc64nvme'), 'CRC64NVME');
  assert.equal(algorithmOfHeader('x-amz-checksum-xxhash3'), undefined);
  assert.ok(isWellFormedChecksum('CRC32', 'AAAAAA=='));
  assert.ok(!isWellFormedChecksum('CRC32', 'AAAAAAAA'));
  assert.ok(!isWellFormedChecksum('SHA256', 'AAAAAA=='));
});
