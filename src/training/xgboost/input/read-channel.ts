// Reads one training channel (an ordered list of files) into the trainer's DMatrix, streaming: each
// file is read chunk by chunk (gunzipped when it is gzip), split into lines across chunk
// boundaries and parsed straight into float32 rows; the text is never held whole.
//
// What is accepted and refused follows the SageMaker XGBoost container (data_utils.py,
// algorithm_mode/train.py): the ContentType rules, the CSV delimiter sniffed on the first line of
// the first file (and every CSV file's first line must give one), "No data in ... channel", "Got
// input data without labels", and xgboost's rule that a validation matrix may not have more
// features than the training matrix (it may have fewer: the rest are missing).

import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { DMatrix } from '../types.js';
import { inputFormatOf } from './content-type.js';
import { CsvRowParser, csvDelimiterFor, sniffDelimiter } from './csv.js';
import { TrainingInputError } from './errors.js';
import { LibsvmRowParser } from './libsvm.js';
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
}

const NO_LABELS =
  'Got input data without labels. Please check the input data set. If training job is running on multiple instances, please switch to using single instance if number of records in the data set is less than number of workers (16 * number of instance) in the cluster.';

interface LineSink {
  line(buf: Uint8Array, start: number, end: number, lineNo: number): void;
}

/** Read a channel's files, in the order given, into one matrix. Throws TrainingInputError. */
export async function readChannel(files: readonly ChannelFile[], options: ReadChannelOptions = {}): Promise<DMatrix> {
  const format = inputFormatOf(options.contentType);
  const channel = options.channel ?? 'train';
  const dense = format === 'csv' ? new DenseBuilder() : undefined;
  const sparse = format === 'libsvm' ? new SparseBuilder() : undefined;
  const libsvm = sparse ? new LibsvmRowParser(sparse) : undefined;
  let csv: CsvRowParser | undefined;
  let totalBytes = 0;

  let emptyCsvFile: string | undefined;
  for (const file of files) {
    let first = true;
    const sink: LineSink = {
      line(buf, start, end, lineNo) {
        if (dense) {
          if (first) {
            // The container sniffs every CSV file's first line (an empty one fails); the first
            // file's delimiter is the one xgboost reads the whole channel with.
            const text = new TextDecoder().decode(buf.subarray(start, end));
            if (!csv) csv = new CsvRowParser(dense, csvDelimiterFor(text, file.name), options.csvWeights === true);
            else if (sniffDelimiter(text) === undefined) csvDelimiterFor(text, file.name);
            first = false;
          }
          if (!isBlankLine(buf, start, end)) csv?.parseLine(buf, start, end, file.name, lineNo);
        } else libsvm?.parseLine(buf, start, end, file.name, lineNo);
      },
    };
    const bytes = await readLines(file, options.compression, sink);
    totalBytes += bytes;
    if (dense && bytes === 0) emptyCsvFile ??= file.name;
  }
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

function isBlankLine(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

/** Stream a file's lines (without terminators; "\r\n" and "\n" end a line) to the sink. */
async function readLines(file: ChannelFile, compression: string | undefined, sink: LineSink): Promise<number> {
  const source = await file.open();
  const chunks = await maybeGunzip(source, file.name, compression);
  let carry = new Uint8Array(0);
  let carryLen = 0;
  let lineNo = 1;
  let total = 0;
  const emit = (buf: Uint8Array, start: number, end: number): void => {
    let s = start;
    // a UTF-8 byte order mark before the first line is skipped, as dmlc's CSV reader does
    if (lineNo === 1 && end - s >= 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) s += 3;
    const e = end > s && buf[end - 1] === 0x0d ? end - 1 : end;
    sink.line(buf, s, e, lineNo++);
  };
  try {
    for await (const chunk of chunks) {
      const buf = chunk;
      let start = 0;
      total += chunk.length;
      let nl = buf.indexOf(0x0a, start);
      if (nl >= 0 && carryLen > 0) {
        // finish the line begun in earlier chunks
        const joined = concat(carry.subarray(0, carryLen), buf.subarray(start, nl));
        emit(joined, 0, joined.length);
        carryLen = 0;
        start = nl + 1;
        nl = buf.indexOf(0x0a, start);
      }
      while (nl >= 0) {
        emit(buf, start, nl);
        start = nl + 1;
        nl = buf.indexOf(0x0a, start);
      }
      if (start < buf.length) {
        // keep the unfinished line, in a buffer that doubles (a line may span many chunks)
        const rest = buf.length - start;
        if (carryLen + rest > carry.length) {
          const next = new Uint8Array(Math.max(2 * carry.length, carryLen + rest, 4096));
          next.set(carry.subarray(0, carryLen));
          carry = next;
        }
        carry.set(buf.subarray(start), carryLen);
        carryLen += rest;
      }
    }
  } catch (e) {
    if (e instanceof TrainingInputError) throw e;
    throw new TrainingInputError(
      `${file.name}: could not be read: ${e instanceof Error ? e.message : String(e)}`,
      file.name,
    );
  }
  if (carryLen > 0) emit(carry, 0, carryLen);
  return total;
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
