// An input object streamed into the batches a transform job sends: SplitType None (the object is one
// record) or Line (one record a line), SingleRecord (one record a request) or MultiRecord (as many
// records as fit in MaxPayloadInMB). Records are views into the chunks read, never the whole object.
// https://docs.aws.amazon.com/sagemaker/latest/dg/batch-transform.html
import { JobFailure } from '../jobs/job-failure.js';

export interface Batch {
  /** The records, without their line ends. */
  readonly records: Buffer[];
  /** 1-based number of the first record in its object. */
  readonly first: number;
  /** How many records the batch holds (records.length). */
  readonly count: number;
  /** Called once the batch's request has settled: its memory may be reused (payloads()). */
  release?(): void;
  /** The request body: the records joined by '\n', newline-terminated for Line. */
  readonly body: Buffer;
}

export interface BatchOptions {
  readonly split: 'None' | 'Line';
  readonly multi: boolean;
  /** MaxPayloadInMB in bytes (Infinity for 0). */
  readonly maxBytes: number;
  readonly uri: string;
}

const NL = Buffer.from('\n');

/** The object's lines; a last line without '\n' counts; '\r\n' ends a line too; empty lines are skipped. */
export async function* lines(body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let carry: Buffer | undefined;
  for await (const chunk of body) {
    let buf = carry ? Buffer.concat([carry, chunk]) : chunk;
    let start = 0;
    for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
      const end = nl > start && buf[nl - 1] === 13 ? nl - 1 : nl;
      if (end > start) yield buf.subarray(start, end);
      start = nl + 1;
    }
    carry = start < buf.length ? buf.subarray(start) : undefined;
    buf = Buffer.alloc(0);
  }
  if (carry && carry.length > 0) {
    const last = carry[carry.length - 1] === 13 ? carry.subarray(0, -1) : carry;
    if (last.length > 0) yield last; // a last line of just "\r" is a blank line too
  }
}

const tooBigError = (o: { maxBytes: number; uri: string }, n: number, size: number) =>
  new JobFailure(
    `ClientError: Record ${n} of ${o.uri} is ${size} bytes, larger than MaxPayloadInMB (${o.maxBytes / 1048576} MB) allows.`,
  );

/** The object's batches, in order. */
export async function* batches(body: AsyncIterable<Buffer>, o: BatchOptions): AsyncGenerator<Batch> {
  const tooBig = (n: number, size: number) => tooBigError(o, n, size);
  if (o.split === 'None') {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of body) {
      size += c.length;
      if (size > o.maxBytes) throw tooBig(1, size);
      chunks.push(c);
    }
    const whole = Buffer.concat(chunks);
    yield { records: [whole], first: 1, count: 1, body: whole };
    return;
  }
  let pending: Buffer[] = [];
  let bytes = 0;
  let n = 0;
  let first = 1;
  const cut = (): Batch => {
    const parts: Buffer[] = [];
    for (const r of pending) parts.push(r, NL);
    const b = { records: pending, first, count: pending.length, body: Buffer.concat(parts, bytes) };
    pending = [];
    bytes = 0;
    return b;
  };
  for await (const line of lines(body)) {
    n++;
    const size = line.length + 1;
    if (size > o.maxBytes) throw tooBig(n, line.length);
    if (pending.length > 0 && (!o.multi || bytes + size > o.maxBytes)) yield cut();
    if (pending.length === 0) first = n;
    pending.push(line);
    bytes += size;
  }
  if (pending.length > 0) yield cut();
}

const CRLF = Buffer.from('\r\n');
const NLNL = Buffer.from('\n\n');
const EMPTY = Buffer.alloc(0);

/**
 * SplitType Line, MultiRecord: the same batches as `batches` (the same bodies, records and numbers),
 * cut from the bytes with a few native searches a payload instead of a Buffer and a generator step
 * a record — a 6 MB payload of 130,000 rows costs a copy and a count. `records` is split only when
 * asked (to find a refused record). Memory: at most about two payloads and a read chunk.
 */
export async function* payloads(
  body: AsyncIterable<Buffer>,
  o: { readonly maxBytes: number; readonly uri: string; readonly memory?: PayloadMemory },
): AsyncGenerator<Batch> {
  const memory = o.memory ?? new PayloadMemory();
  const iter = body[Symbol.asyncIterator]();
  let carry: Buffer[] = []; // whole records not sent yet (normalized), then the start of the next line
  let done = 0; // carry's normalized part (normalizing again would drop a record "\r")
  let n = 0; // records yielded so far
  let ended = false;
  let lease: Lease | undefined; // the memory carry is a view of
  while (!ended) {
    // Read at least one chunk, and until more than a payload is held.
    const chunks: Buffer[] = [...carry];
    let size = 0;
    for (const c of carry) size += c.length;
    do {
      const r = await iter.next();
      if (r.done) ended = true;
      else {
        chunks.push(r.value);
        size += r.value.length;
      }
    } while (!ended && size <= o.maxBytes);
    const held = lease;
    lease = memory.take(size);
    const buf = lease.fill(chunks, size);
    held?.drop(); // the carry is copied
    const whole = Math.max(done, buf.lastIndexOf(10) + 1);
    const fresh = buf.subarray(done, whole);
    const normal = normalize(fresh);
    let region = normal === fresh ? buf.subarray(0, whole) : Buffer.concat([buf.subarray(0, done), normal]);
    let tail = buf.subarray(whole);
    if (ended) {
      // A last line without '\n' is a record too.
      if (tail.length > 0 && tail[tail.length - 1] === 13) tail = tail.subarray(0, -1);
      if (tail.length > 0) region = Buffer.concat([region, tail, NL]);
      tail = EMPTY;
    }
    let pos = 0;
    while (region.length - pos > o.maxBytes || (ended && pos < region.length)) {
      const cut = region.length - pos <= o.maxBytes ? region.length - 1 : region.lastIndexOf(10, pos + o.maxBytes - 1);
      if (cut < pos) throw tooBigError(o, n + 1, region.indexOf(10, pos) - pos);
      const b = region.subarray(pos, cut + 1);
      const count = countLines(b);
      const mine = lease;
      mine.hold();
      let released = false;
      yield {
        body: b,
        first: n + 1,
        count,
        get records() {
          return splitLines(b);
        },
        release() {
          if (released) return;
          released = true;
          mine.drop();
        },
      };
      n += count;
      pos = cut + 1;
    }
    if (ended) {
      lease.drop();
      return;
    }
    if (tail.length > o.maxBytes) {
      // An unfinished line already longer than a payload: read on to its end (without keeping it).
      const before = countLines(region.subarray(pos));
      let len = tail.length;
      let last = tail[tail.length - 1];
      for (;;) {
        const r = await iter.next();
        if (r.done) break;
        const nl = r.value.indexOf(10);
        if (nl >= 0) {
          if (nl > 0) last = r.value[nl - 1];
          len += nl;
          break;
        }
        len += r.value.length;
        if (r.value.length > 0) last = r.value[r.value.length - 1];
      }
      throw tooBigError(o, n + before + 1, last === 13 ? len - 1 : len);
    }
    carry = [region.subarray(pos), tail];
    done = region.length - pos;
  }
}

/** '\n'-ended lines as batches() reads them: blank lines dropped, a '\r' before '\n' dropped. */
function normalize(b: Buffer): Buffer {
  if (b.length === 0 || (b[0] !== 10 && b.indexOf(CRLF) < 0 && b.indexOf(NLNL) < 0)) return b;
  const parts: Buffer[] = [];
  for (let start = 0; start < b.length; ) {
    const nl = b.indexOf(10, start);
    const e = nl > start && b[nl - 1] === 13 ? nl - 1 : nl;
    if (e > start) parts.push(b.subarray(start, e), NL);
    start = nl + 1;
  }
  return Buffer.concat(parts);
}

const MB = 1048576;

/**
 * Shared memory for payloads, reused across the objects of a job. Shared, because a worker thread
 * reads a payload in place where postMessage would copy (slowly) an ordinary Buffer (see
 * src/inference/runtimes/thread-runtime.ts); reused, because fresh memory costs a page fault every
 * 4 KB (~4 ms a MB on this class of machine), as much as the rest of the main thread's work on it.
 */
export class PayloadMemory {
  private readonly free: SharedArrayBuffer[] = [];
  private freeBytes = 0;

  /** Keeps at most `keepBytes` of released memory. */
  constructor(private readonly keepBytes = 256 * MB) {}

  take(size: number): Lease {
    const i = this.free.findIndex((b) => b.byteLength >= size);
    let sab: SharedArrayBuffer;
    if (i >= 0) {
      sab = this.free.splice(i, 1)[0]!;
      this.freeBytes -= sab.byteLength;
    } else sab = new SharedArrayBuffer(Math.max(1, Math.ceil((size * 1.25) / MB)) * MB);
    return new Lease(this, sab);
  }

  give(sab: SharedArrayBuffer): void {
    if (this.freeBytes + sab.byteLength > this.keepBytes) return;
    this.free.push(sab);
    this.freeBytes += sab.byteLength;
  }
}

/** One use of a PayloadMemory buffer: back to the pool when the reader and every payload cut from it let go. */
class Lease {
  private refs = 1;

  constructor(
    private readonly memory: PayloadMemory,
    private readonly sab: SharedArrayBuffer,
  ) {}

  /** The chunks joined at the start of the buffer. */
  fill(chunks: readonly Buffer[], size: number): Buffer {
    const out = Buffer.from(this.sab, 0, size);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }

  hold(): void {
    this.refs++;
  }

  drop(): void {
    if (--this.refs === 0) this.memory.give(this.sab);
  }
}

function countLines(b: Buffer): number {
  let c = 0;
  for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) c++; // native search: ~4x a byte loop
  return c;
}

function splitLines(b: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let start = 0; start < b.length; ) {
    const nl = b.indexOf(10, start);
    out.push(b.subarray(start, nl));
    start = nl + 1;
  }
  return out;
}
