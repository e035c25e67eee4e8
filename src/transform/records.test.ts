import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Batch, batches, lines, PayloadMemory, payloads } from './records.js';

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

test('payloads cut from the bytes are exactly the MultiRecord batches: bodies, numbers, records, errors', async () => {
  let seed = 16;
  const r = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 4294967296;
  };
  const uri = 's3://b/k.csv';
  const pieces = ['0.5', '1,2,3', 'abc', '', '\r', 'x'.repeat(30)];
  let compared = 0;
  let refused = 0;
  const memory = new PayloadMemory(); // shared by every trial, as by the objects of a job
  for (let trial = 0; trial < 400; trial++) {
    let text = '';
    const nLines = Math.floor(r() * 40);
    for (let i = 0; i < nLines; i++) {
      text += pieces[Math.floor(r() * pieces.length)]! + (r() < 0.15 ? '\r\n' : '\n');
    }
    if (r() < 0.5) text += pieces[Math.floor(r() * pieces.length)]!; // a last line without '\n'
    // Random chunking, down to single bytes.
    const parts: string[] = [];
    for (let at = 0; at < text.length; ) {
      const len = 1 + Math.floor(r() * 20);
      parts.push(text.slice(at, at + len));
      at += len;
    }
    const maxBytes = 8 + Math.floor(r() * 60);
    // Each batch is read, then released (its memory may then be reused for a later payload).
    const run = async (g: AsyncGenerator<Batch>) => {
      const out: { first: number; count: number; body: string; records: string[] }[] = [];
      try {
        for await (const b of g) {
          out.push({ first: b.first, count: b.count, body: b.body.toString(), records: b.records.map(String) });
          b.release?.();
        }
        return out;
      } catch (e) {
        return (e as Error).message;
      }
    };
    const want = await run(batches(chunks(...parts), { split: 'Line', multi: true, maxBytes, uri }));
    const got = await run(payloads(chunks(...parts), { maxBytes, uri, memory }));
    assert.deepEqual(got, want, JSON.stringify({ text, parts, maxBytes }));
    if (typeof want === 'string') refused++;
    else {
      for (const b of want) assert.equal(b.count, b.records.length);
      compared++;
    }
  }
  assert.ok(compared > 100 && refused > 50, `compared ${compared}, refused ${refused}`);
});

test('payload memory is reused once every payload cut from it is released, not before', async () => {
  const memory = new PayloadMemory();
  const uri = 's3://b/k';
  const a = [];
  for await (const b of payloads(chunks('a1\na2\n', 'a3\n'), { maxBytes: 6, uri, memory })) a.push(b);
  assert.deepEqual(
    a.map((b) => b.body.toString()),
    ['a1\na2\n', 'a3\n'],
  );
  // Not released: a second object gets other memory, and the first's payloads stay intact.
  const b1 = [];
  for await (const b of payloads(chunks('b1\nb2\nb3\n'), { maxBytes: 6, uri, memory })) b1.push(b);
  assert.equal(a[0]!.body.toString(), 'a1\na2\n');
  assert.notEqual(a[0]!.body.buffer, b1[0]!.body.buffer);
  // Released: the next object reuses it.
  for (const b of a) b.release?.();
  const c = [];
  for await (const b of payloads(chunks('c1\n'), { maxBytes: 6, uri, memory })) c.push(b);
  assert.equal(c[0]!.body.buffer, a[0]!.body.buffer);
  assert.equal(c[0]!.body.toString(), 'c1\n');
});
