// Lines from a child's pipe with backpressure: a handler that returns a promise pauses the pipe
// until it settles, so a program that prints faster than its log is written waits in write(2)
// instead of filling the server's memory. Lines longer than `maxLine` bytes are cut into pieces
// (CloudWatch Logs' event limit is 256 KB).
import type { Readable } from 'node:stream';
import { readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

export const MAX_LINE_BYTES = 256 * 1024 - 26;

export type LineHandler = (line: string) => void | Promise<void>;

/**
 * Once the consumer keeps no more lines (a job's log at its limit), output is only counted: no
 * string is made per line, so a program printing gigabytes costs the server little but the reading.
 */
export interface Skipping {
  readonly skipping: () => boolean;
  /** Lines (newlines) and bytes read since the last call, and the end of what was read (for a tail). */
  readonly onSkipped: (lines: number, bytes: number, end: string) => void;
}

function count(chunk: Buffer, length: number, skip: Skipping): void {
  let lines = 0;
  for (let at = chunk.indexOf(10); at >= 0 && at < length; at = chunk.indexOf(10, at + 1)) lines++;
  skip.onSkipped(lines, length, chunk.subarray(Math.max(0, length - 4096), length).toString('utf8'));
}

/** The descriptor under a child's pipe (libuv's Pipe handle exposes it), if there is one. */
function pipeFd(stream: Readable): number | undefined {
  const fd = (stream as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/**
 * Reads a non-blocking pipe to its end into one buffer, counting: as fast as it fills while data
 * comes (yielding to the event loop every 64 reads), polling ever more slowly (up to 50 ms)
 * while it is idle.
 */
async function drain(fd: number, skip: Skipping): Promise<void> {
  const buf = Buffer.allocUnsafe(64 * 1024);
  let idle = 1;
  for (;;) {
    let n = -1;
    for (let i = 0; i < 64; i++) {
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
          n = -1;
          break;
        }
        throw e;
      }
      if (n === 0) return;
      count(buf, n, skip);
      idle = 1;
    }
    if (n < 0) {
      await new Promise((r) => setTimeout(r, idle));
      idle = Math.min(50, idle * 2);
    } else await new Promise((r) => setImmediate(r));
  }
}

/** Resolves when the stream has ended and every line was handled. */
export function readLines(
  stream: Readable,
  onLine: LineHandler,
  skip?: Skipping,
  maxLine = MAX_LINE_BYTES,
): Promise<void> {
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
    let counting = false;
    stream.on('data', (chunk: Buffer) => {
      if (counting) return;
      if (skip?.skipping()) {
        count(chunk, chunk.length, skip);
        partial = '';
        // From here on the pipe is read into one reused buffer: no allocation per read.
        const fd = pipeFd(stream);
        if (fd !== undefined) {
          counting = true;
          stream.pause();
          drain(fd, skip).then(() => {
            stream.destroy();
            resolve();
          }, reject);
        }
        return;
      }
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
