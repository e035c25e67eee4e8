// Lines from a child's pipe with backpressure: a handler that returns a promise pauses the pipe
// until it settles, so a program that prints faster than its log is written waits in write(2)
// instead of filling the server's memory. Lines longer than `maxLine` bytes are cut into pieces
// (CloudWatch Logs' event limit is 256 KB).
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

export const MAX_LINE_BYTES = 256 * 1024 - 26;

export type LineHandler = (line: string) => void | Promise<void>;

/** Resolves when the stream has ended and every line was handled. */
export function readLines(stream: Readable, onLine: LineHandler, maxLine = MAX_LINE_BYTES): Promise<void> {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  let waiting: Promise<void> | undefined;
  const emit = (line: string) => {
    const r = onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    if (r) waiting = waiting ? waiting.then(() => r) : r;
  };
  const take = (text: string) => {
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      if (nl < 0) break;
      emit(partial + text.slice(from, nl));
      partial = '';
      from = nl + 1;
    }
    partial += text.slice(from);
    // A line without an end: cut it at the limit (counted in UTF-16 units, bounded in bytes by 3x).
    while (partial.length > maxLine / 3) {
      emit(partial.slice(0, Math.floor(maxLine / 3)));
      partial = partial.slice(Math.floor(maxLine / 3));
    }
  };
  return new Promise((resolve, reject) => {
    stream.on('data', (chunk: Buffer) => {
      take(decoder.write(chunk));
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        stream.pause();
        w.then(
          () => stream.resume(),
          (e) => {
            stream.destroy();
            reject(e);
          },
        );
      }
    });
    stream.once('error', reject);
    stream.resume();
    stream.once('end', () => {
      take(decoder.end());
      if (partial) emit(partial);
      partial = '';
      Promise.resolve(waiting).then(() => resolve(), reject);
    });
  });
}
