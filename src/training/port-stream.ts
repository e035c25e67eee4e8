// A byte stream carried over a MessagePort between threads, with flow control: the sending side
// (the server's main thread, reading an S3 object) keeps at most WINDOW chunks unread by the
// receiving side (the trainer thread, parsing them), so a large channel is never held in memory;
// chunks travel transferred, not copied, when they own their buffer. Either side may end early:
// the receiver closes its port (the sender then destroys its source), the sender sends an error.

import type { Readable } from 'node:stream';
import type { MessagePort } from 'node:worker_threads';

/** chunks sent and not yet taken by the reader */
const WINDOW = 16;

type Message = { chunk: Uint8Array } | { end: true } | { error: string };

/** Sends `source` over `port` until it ends, fails or the reader closes its side. */
export async function sendStream(port: MessagePort, source: Readable | AsyncIterable<Uint8Array>): Promise<void> {
  let credit = WINDOW;
  let wake: (() => void) | undefined;
  let closed = false;
  port.on('message', () => {
    credit++;
    wake?.();
  });
  port.once('close', () => {
    closed = true;
    wake?.();
  });
  const post = (m: Message, transfer: ArrayBuffer[] = []) => {
    if (!closed) port.postMessage(m, transfer);
  };
  try {
    for await (const c of source) {
      if (closed) break;
      const chunk = c as Uint8Array;
      if (chunk.length === 0) continue;
      // a chunk that owns its whole buffer travels as it is; a slice of a larger one is copied
      const own =
        chunk.byteOffset === 0 &&
        chunk.buffer.byteLength === chunk.length &&
        !(chunk.buffer instanceof SharedArrayBuffer);
      const sent = own ? chunk : chunk.slice();
      post({ chunk: sent }, [sent.buffer as ArrayBuffer]);
      credit--;
      while (credit <= 0 && !closed) await new Promise<void>((r) => (wake = r));
      wake = undefined;
    }
    post({ end: true });
  } catch (e) {
    post({ error: e instanceof Error ? e.message : String(e) });
  } finally {
    if ('destroy' in source && typeof source.destroy === 'function') source.destroy();
    port.close();
  }
}

/** The chunks `sendStream` sends over `port`; the port is closed when the reader stops. */
export async function* receiveStream(port: MessagePort): AsyncGenerator<Uint8Array> {
  const queue: Message[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  port.on('message', (m: Message) => {
    queue.push(m);
    wake?.();
  });
  port.once('close', () => {
    closed = true;
    wake?.();
  });
  try {
    for (;;) {
      while (queue.length === 0) {
        if (closed) throw new Error('the stream ended before its end');
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
      const m = queue.shift() as Message;
      if ('end' in m) return;
      if ('error' in m) throw new Error(m.error);
      port.postMessage(1); // one more chunk may come
      yield m.chunk;
    }
  } finally {
    port.close();
  }
}
