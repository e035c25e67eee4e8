import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { checksumOf } from './checksums.js';
import { createDigester, OFFLOAD_MIN_BYTES } from './digests.js';

const body = Buffer.from(Array.from({ length: 3 * 1024 * 1024 + 17 }, (_, i) => (i * 131 + (i >> 9)) & 0xff));

test('inline (small) and offloaded (large or unknown length) bodies give the same digests as one-shot hashing', async () => {
  for (const size of [0, 1000, OFFLOAD_MIN_BYTES, body.length]) {
    const data = body.subarray(0, size);
    for (const declared of [size, undefined]) {
      const d = createDigester({ sha256: true, checksum: 'CRC32C' }, declared);
      // Uneven chunks, across batch boundaries; the caller's buffers may be reused at once.
      for (let at = 0; at < data.length; at += 65_537) {
        const chunk = Buffer.from(data.subarray(at, at + 65_537));
        d.update(chunk);
        chunk.fill(0);
      }
      const got = await d.finish();
      assert.deepEqual(
        got,
        {
          md5: createHash('md5').update(data).digest('hex'),
          sha256: createHash('sha256').update(data).digest('hex'),
          checksum: checksumOf('CRC32C', data),
        },
        `size ${size}, declared ${declared}`,
      );
    }
  }
});

test('an offloaded body reports congestion while far behind and drains; concurrent bodies stay apart', async () => {
  const a = createDigester({ sha256: false }, undefined);
  const b = createDigester({ sha256: false, checksum: 'SHA1' }, undefined);
  let drained = 0;
  a.onDrain = () => drained++;
  for (let i = 0; i < 8; i++) {
    a.update(body.subarray(0, 1024 * 1024));
    b.update(body.subarray(1024 * 1024, 2 * 1024 * 1024));
  }
  assert.equal(a.congested, true);
  const [da, db] = await Promise.all([a.finish(), b.finish()]);
  assert.equal(a.congested, false);
  assert.ok(drained >= 1);
  const first = body.subarray(0, 1024 * 1024);
  const second = body.subarray(1024 * 1024, 2 * 1024 * 1024);
  const many = (part: Buffer, alg: string) => {
    const h = createHash(alg);
    for (let i = 0; i < 8; i++) h.update(part);
    return h;
  };
  assert.equal(da.md5, many(first, 'md5').digest('hex'));
  assert.equal(db.md5, many(second, 'md5').digest('hex'));
  assert.equal(db.checksum, many(second, 'sha1').digest('base64'));
  // An aborted body is forgotten, and the thread keeps serving others.
  const c = createDigester({ sha256: false }, undefined);
  c.update(first);
  c.abort();
  const d = createDigester({ sha256: false }, undefined);
  d.update(first);
  assert.equal((await d.finish()).md5, createHash('md5').update(first).digest('hex'));
});
