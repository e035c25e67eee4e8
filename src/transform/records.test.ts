import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batches, lines } from './records.js';

async function* chunks(...parts: string[]) {
  for (const p of parts) yield Buffer.from(p);
}
const collect = async <T>(g: AsyncGenerator<T>) => {
  const out: T[] = [];
  for await (const x of g) out.push(x);
  return out;
};

test('lines split across chunks, CRLF, blank lines and a last line without a newline', async () => {
  const got = await collect(lines(chunks('a,1\r\nb,', '2\n\n', 'c,3')));
  assert.deepEqual(got.map(String), ['a,1', 'b,2', 'c,3']);
});

test('MultiRecord fills each request up to MaxPayloadInMB; SingleRecord sends one record each', async () => {
  const rows = Array.from({ length: 10 }, (_, i) => `row-${i}`); // 6 bytes each, 7 with '\n'
  const uri = 's3://b/k';
  const multi = await collect(
    batches(chunks(`${rows.join('\n')}\n`), { split: 'Line', multi: true, maxBytes: 21, uri }),
  );
  assert.deepEqual(
    multi.map((b) => [b.first, b.records.length]),
    [
      [1, 3],
      [4, 3],
      [7, 3],
      [10, 1],
    ],
  );
  assert.equal(multi[0]!.body.toString(), 'row-0\nrow-1\nrow-2\n');
  const single = await collect(batches(chunks(rows.join('\n')), { split: 'Line', multi: false, maxBytes: 100, uri }));
  assert.equal(single.length, 10);
  const none = await collect(batches(chunks('a\nb', '\nc'), { split: 'None', multi: true, maxBytes: 100, uri }));
  assert.deepEqual(
    none.map((b) => b.body.toString()),
    ['a\nb\nc'],
  );
});

test('a record larger than MaxPayloadInMB fails naming the object and record', async () => {
  await assert.rejects(
    collect(
      batches(chunks('ok\n', 'x'.repeat(50)), { split: 'Line', multi: true, maxBytes: 20, uri: 's3://b/big.csv' }),
    ),
    /Record 2 of s3:\/\/b\/big\.csv is 50 bytes/,
  );
});
