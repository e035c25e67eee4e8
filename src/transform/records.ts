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
  if (carry && carry.length > 0) yield carry[carry.length - 1] === 13 ? carry.subarray(0, -1) : carry;
}

/** The object's batches, in order. */
export async function* batches(body: AsyncIterable<Buffer>, o: BatchOptions): AsyncGenerator<Batch> {
  const tooBig = (n: number, size: number) =>
    new JobFailure(
      `ClientError: Record ${n} of ${o.uri} is ${size} bytes, larger than MaxPayloadInMB (${o.maxBytes / 1048576} MB) allows.`,
    );
  if (o.split === 'None') {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of body) {
      size += c.length;
      if (size > o.maxBytes) throw tooBig(1, size);
      chunks.push(c);
    }
    const whole = Buffer.concat(chunks);
    yield { records: [whole], first: 1, body: whole };
    return;
  }
  let pending: Buffer[] = [];
  let bytes = 0;
  let n = 0;
  let first = 1;
  const cut = (): Batch => {
    const parts: Buffer[] = [];
    for (const r of pending) parts.push(r, NL);
    const b = { records: pending, first, body: Buffer.concat(parts, bytes) };
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
