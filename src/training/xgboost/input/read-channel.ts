// Reads one training channel (an ordered list of files) into the trainer's DMatrix, streaming: each
// file is read chunk by chunk (gunzipped when it is gzip) and cut into blocks of whole lines; each
// block is parsed straight into float32 rows, here or, given ParseThreads, on the job's other
// threads while this one reads on (blocks.ts); the text is never held whole.
//
// What is accepted and refused follows the SageMaker XGBoost container (data_utils.py,
// algorithm_mode/train.py): the ContentType rules, the CSV delimiter sniffed on the first line of
// the first file (and every CSV file's first line must give one), "No data in ... channel", "Got
// input data without labels", and xgboost's rule that a validation matrix may not have more
// features than the training matrix (it may have fewer: the rest are missing). Errors name the
// file and line; with blocks parsed on several threads, the first in the channel's order is the
// one reported, as when one thread reads it all.

import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { DMatrix } from '../types.js';
import type { BlockResult, BlockSpec, ParseThreads } from './blocks.js';
import { inputFormatOf } from './content-type.js';
import { csvDelimiterFor, parseCsvLines, sniffDelimiter } from './csv.js';
import { TrainingInputError } from './errors.js';
import { parseLibsvmLines, weightMismatch } from './libsvm.js';
import { DenseBuilder, SparseBuilder } from './matrix-builder.js';

/** One object of the channel (an S3 object, a local file ...), opened on demand. */
export interface ChannelFile {
  name: string;
  open(): Promise<AsyncIterable<Uint8Array>>;
}

export interface ReadChannelOptions {
  /** the channel's ContentType (undefined: text/libsvm, the channels' default) */
  contentType?: string;
  /** csv_weights=1: the second CSV column is the instance weight */
  csvWeights?: boolean;
  /** the channel's CompressionType; gzip is also recognised by its magic bytes when unset */
  compression?: 'None' | 'Gzip';
  /** channel name for messages (default 'train') */
  channel?: string;
  /** the training matrix's column count, when reading the validation channel */
  trainColumns?: number;
  /** threads that parse blocks while this one reads (default: parse here) */
  threads?: ParseThreads;
  /** the size of a block (tests make it small) */
  blockBytes?: number;
}

const NO_LABELS =
  'Got input data without labels. Please check the input data set. If training job is running on multiple instances, please switch to using single instance if number of records in the data set is less than number of workers (16 * number of instance) in the cluster.';

/** 1 MiB of text: ~30,000 rows of 28 features; small enough that the last blocks balance the threads */
const BLOCK_BYTES = 1 << 20;

/** A block on a parsing thread, in the channel's order. */
interface Queued {
  file: string;
  spec: BlockSpec;
  start: number;
  end: number;
  /** the result, and the block's buffer back */
  done: Promise<{ result: BlockResult; buf: Uint8Array }>;
}

/** Lines in buf[start, end): its line feeds, and a last line without one. */
function countLines(buf: Uint8Array, start: number, end: number): number {
  let n = 0;
  for (let i = buf.indexOf(0x0a, start); i >= 0 && i < end; i = buf.indexOf(0x0a, i + 1)) n++;
  return end > start && buf[end - 1] !== 0x0a ? n + 1 : n;
}

/** Read a channel's files, in the order given, into one matrix. Throws TrainingInputError. */
export async function readChannel(files: readonly ChannelFile[], options: ReadChannelOptions = {}): Promise<DMatrix> {
  const format = inputFormatOf(options.contentType);
  const channel = options.channel ?? 'train';
  const csv = format === 'csv';
  const dense = csv ? new DenseBuilder() : undefined;
  const sparse = csv ? undefined : new SparseBuilder();
  const weights = options.csvWeights === true;
  const threads = options.threads !== undefined && options.threads.size > 0 ? options.threads : undefined;
  const blockBytes = Math.max(16, options.blockBytes ?? BLOCK_BYTES);
  let delimiter: number | undefined;
  /** libsvm: whether the channel's rows carry weights (its first row decides) */
  let weighted: boolean | undefined;
  /** blocks on the threads, in the channel's order */
  const queue: Queued[] = [];
  /** buffers the threads gave back */
  const spare: Uint8Array[] = [];
  /** lines before the next block to assemble, in its file */
  let lineBase = 0;
  /** CSV: rows of the matrix plus the windows of the blocks on the threads */
  let rowsAssigned = 0;

  /** Parses a block here, straight into the matrix. */
  const parseHere = (spec: BlockSpec, buf: Uint8Array, start: number, end: number): BlockResult =>
    csv
      ? parseCsvLines(dense as DenseBuilder, buf, start, end, spec.delimiter, weights, spec.fileStart)
      : parseLibsvmLines(sparse as SparseBuilder, buf, start, end, weighted);

  /** Takes a block's rows into the matrix (or throws its error, located in its file). */
  const assemble = (file: string, spec: BlockSpec, r: BlockResult): void => {
    if (spec.fileStart) lineBase = 0;
    // the block's first row may already differ from the rows of the blocks before it
    const e =
      r.weighted !== undefined && weighted !== undefined && r.weighted !== weighted
        ? weightMismatch(weighted, r.firstRowLine ?? 1)
        : r.error;
    if (e !== undefined) {
      queue.length = 0; // the blocks after this one do not matter
      const line = lineBase + e.line;
      throw new TrainingInputError(`${file}, line ${line}: ${e.what}`, file, line);
    }
    weighted ??= r.weighted;
    if (r.rows !== undefined) sparse?.append(r.rows);
    if (spec.window !== undefined) (dense as DenseBuilder).commitWindow(spec.window.rowStart, r.written ?? 0);
    lineBase += r.lines;
  };
  const assembleOldest = async (): Promise<void> => {
    const q = queue.shift() as Queued;
    const { result, buf } = await q.done;
    if (result.wider) {
      // A row wider than the matrix so far: this block and the ones after it are read again here,
      // once no thread writes into the matrix any more; blocks after them get windows as wide.
      const later = queue.splice(0);
      const all = [{ q, buf }];
      for (const l of later) all.push({ q: l, buf: (await l.done).buf });
      for (const b of all) {
        const spec = { ...b.q.spec, window: undefined };
        assemble(b.q.file, spec, parseHere(spec, b.buf, b.q.start, b.q.end));
        spare.push(b.buf);
      }
      rowsAssigned = (dense as DenseBuilder).numRows;
      return;
    }
    assemble(q.file, q.spec, result);
    spare.push(buf);
  };
  /** Blocks read before an error the reading thread found come first: theirs would be met first. */
  const drain = async (): Promise<void> => {
    while (queue.length > 0) await assembleOldest();
  };
  const buffer = (min: number): Uint8Array => {
    const b = spare.pop();
    return b !== undefined && b.length >= min ? b : new Uint8Array(min);
  };

  let totalBytes = 0;
  let emptyCsvFile: string | undefined;
  for (const file of files) {
    let first = true;
    // one spare byte after the block's end: the CSV reader looks one byte past a cell
    let buf = buffer(blockBytes + 1);
    let len = 0;
    /** Parses buf[0, cut) (whole lines) here or on a thread; keeps the rest for the next block. */
    const emit = async (cut: number): Promise<void> => {
      let start = 0;
      if (first) {
        // a UTF-8 byte order mark before the first line is skipped, as dmlc's CSV reader does
        if (cut >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) start = 3;
        if (csv) {
          // The container sniffs every CSV file's first line (an empty one fails); the first
          // file's delimiter is the one xgboost reads the whole channel with.
          let e = buf.indexOf(0x0a, start);
          if (e < 0 || e > cut) e = cut;
          if (e > start && buf[e - 1] === 0x0d) e--;
          const text = new TextDecoder().decode(buf.subarray(start, e));
          if (delimiter === undefined || sniffDelimiter(text) === undefined) {
            try {
              const d = csvDelimiterFor(text, file.name);
              delimiter ??= d;
            } catch (err) {
              await drain();
              throw err;
            }
          }
        }
      }
      let spec: BlockSpec = { format, delimiter: delimiter ?? 0, weights, fileStart: first };
      // CSV blocks go to the threads once the matrix has a width (the first rows give it)
      if (threads && (!csv || (dense as DenseBuilder).width > 0)) {
        while (queue.length >= 2 * threads.size) await assembleOldest();
        if (csv) {
          const lines = countLines(buf, start, cut);
          spec = { ...spec, window: (dense as DenseBuilder).window(rowsAssigned, lines, weights) };
          rowsAssigned += lines;
        }
        const next = buffer(Math.max(blockBytes + 1, len - cut + 1));
        next.set(buf.subarray(cut, len));
        const done = threads.parse(spec, buf, start, cut);
        done.catch(() => {}); // awaited in order; one that fails after an earlier error is dropped
        queue.push({ file: file.name, spec, start, end: cut, done });
        buf = next;
      } else {
        await drain();
        assemble(file.name, spec, parseHere(spec, buf, start, cut));
        if (csv) rowsAssigned = (dense as DenseBuilder).numRows;
        buf.copyWithin(0, cut, len);
      }
      len -= cut;
      first = false;
    };
    let bytes = 0;
    try {
      const chunks = await maybeGunzip(await file.open(), file.name, options.compression);
      for await (const chunk of chunks) {
        bytes += chunk.length;
        for (let off = 0; off < chunk.length; ) {
          if (len === buf.length - 1) {
            const nl = buf.lastIndexOf(0x0a, len - 1);
            if (nl >= 0) await emit(nl + 1);
            else {
              // a line longer than the block: the block grows until the line ends
              const bigger = new Uint8Array(2 * buf.length);
              bigger.set(buf.subarray(0, len));
              buf = bigger;
            }
            continue;
          }
          const n = Math.min(chunk.length - off, buf.length - 1 - len);
          buf.set(chunk.subarray(off, off + n), len);
          len += n;
          off += n;
        }
      }
      if (len > 0) await emit(len);
    } catch (e) {
      await drain();
      if (e instanceof TrainingInputError) throw e;
      throw new TrainingInputError(
        `${file.name}: could not be read: ${e instanceof Error ? e.message : String(e)}`,
        file.name,
      );
    }
    totalBytes += bytes;
    if (csv && bytes === 0) emptyCsvFile ??= file.name;
  }
  await drain();
  if (totalBytes > 0 && emptyCsvFile !== undefined) csvDelimiterFor('', emptyCsvFile);
  if (totalBytes === 0)
    throw new TrainingInputError(`No data in ${channel === 'train' ? 'training' : channel} channel path`);
  const builder = dense ?? (sparse as SparseBuilder);
  if (builder.numRows === 0) throw new TrainingInputError(NO_LABELS);
  const trainColumns = options.trainColumns;
  const m = builder.build(trainColumns ?? 0);
  if (trainColumns !== undefined && m.numCols > trainColumns) {
    throw new TrainingInputError(
      `Feature count mismatch: the ${channel} channel has ${m.numCols} features and the training channel ${trainColumns}. Number of columns does not match number of features in booster.`,
    );
  }
  return m;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Gunzip when the file starts with gzip's magic bytes (1f 8b); CompressionType Gzip requires them. */
async function maybeGunzip(
  source: AsyncIterable<Uint8Array>,
  name: string,
  compression: string | undefined,
): Promise<AsyncIterable<Uint8Array>> {
  const it = source[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let have = 0;
  let done = false;
  while (have < 2) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    if (r.value.length === 0) continue;
    head.push(r.value);
    have += r.value.length;
  }
  const first = head.length === 0 ? new Uint8Array(0) : head.length === 1 ? head[0] : concat(head[0], head[1]);
  const gzip = first.length >= 2 && first[0] === 0x1f && first[1] === 0x8b;
  if (compression?.toLowerCase() === 'gzip' && !gzip && have > 0) {
    throw new TrainingInputError(
      `${name}: the channel's CompressionType is Gzip but the file is not gzip-compressed`,
      name,
    );
  }
  async function* replay(): AsyncGenerator<Uint8Array> {
    yield* head;
    if (done) return;
    for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
  }
  if (!gzip) return replay();
  // DEVIATION(aws): in File mode the container hands compressed bytes to xgboost's text parser
  // (CompressionType only applies to Pipe mode); we decompress gzip files wherever they appear.
  const gunzip = createGunzip();
  const src = Readable.from(replay(), { objectMode: false });
  src.on('error', (e) => gunzip.destroy(e));
  src.pipe(gunzip);
  return (async function* () {
    try {
      for await (const c of gunzip) yield c as Uint8Array;
    } catch (e) {
      throw new TrainingInputError(
        `${name}: gzip data is corrupt: ${e instanceof Error ? e.message : String(e)}`,
        name,
      );
    }
  })();
}
