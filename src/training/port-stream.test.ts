import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { receiveStream, sendStream } from './port-stream.js';

test('a stream crosses a port whole and in order, never more than the window ahead of its reader', async () => {
  const { port1, port2 } = new MessageChannel();
  let produced = 0;
  const source = Readable.from(
    (function* () {
      for (let i = 0; i < 200; i++) {
        produced++;
        yield Buffer.alloc(1000, i % 256);
      }
    })(),
  );
  const sending = sendStream(port1, source);
  let got = 0;
  let ahead = 0;
  for await (const chunk of receiveStream(port2)) {
    assert.equal(chunk.length, 1000);
    assert.equal(chunk[0], got % 256);
    got++;
    ahead = Math.max(ahead, produced - got);
    await new Promise((r) => setImmediate(r)); // a slow reader
  }
  await sending;
  assert.equal(got, 200);
  assert.ok(ahead <= 20, `the sender ran ${ahead} chunks ahead`);
});

test('a reader that stops early ends the source; a failing source fails the reader', async () => {
  {
    const { port1, port2 } = new MessageChannel();
    const source = new Readable({
      read() {
        this.push(Buffer.alloc(10));
      },
    });
    const sending = sendStream(port1, source);
    for await (const _ of receiveStream(port2)) break;
    await sending;
    assert.ok(source.destroyed, 'the source was destroyed');
  }
  {
    const { port1, port2 } = new MessageChannel();
    const source = Readable.from(
      (async function* () {
        yield Buffer.from('a');
        throw new Error('disk on fire');
      })(),
    );
    void sendStream(port1, source);
    await assert.rejects(async () => {
      for await (const _ of receiveStream(port2));
    }, /disk on fire/);
  }
});
