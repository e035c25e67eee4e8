// Worker-thread entry of the built-in XGBoost algorithm: what the SageMaker XGBoost container's
// `train` does, off the event loop. A worker trains one job at a time and is kept for the next
// (its compiled code stays warm); each job arrives as a message. Validates the hyperparameters,
// reads the train (and validation) channel as the main thread streams it from S3 (its blocks
// parsed on the job's threads, xgboost/input/read-channel.ts), trains, and gives back
// `xgboost-model` as the container of the image's version writes it. Posts each round's
// evaluation line as it is printed.
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { MessageChannel, type MessagePort, parentPort } from 'node:worker_threads';
import { receiveStream } from './port-stream.js';
import { HyperparameterError, validateHyperparameters } from './xgboost/hyperparameters/index.js';
import { readChannel, TrainingInputError } from './xgboost/input/index.js';
import { ModelWriteError, modelFileFor } from './xgboost/output/index.js';
import { parseThreads } from './xgboost/parse-threads.js';
import { train } from './xgboost/train.js';
import { warmUpTrainer } from './xgboost/warm-up.js';
import type { DMatrix } from './xgboost/types.js';

export interface XGBoostChannelInput {
  /** the channel's objects, in order, by the names errors give them (/opt/ml/input/data/train/...) */
  readonly files: readonly string[];
  readonly contentType?: string;
  readonly compression?: 'None' | 'Gzip';
}

export interface XGBoostWorkerInput {
  readonly image: string;
  readonly hyperparameters: Readonly<Record<string, string>>;
  readonly channels: Readonly<Record<string, XGBoostChannelInput>>;
  /** The job's `nthread` default: what the runner grants one job. */
  readonly threads: number;
  /**
   * Set to 1 by the job's side to stop training at the next round (a stop, a tuning job's early
   * stop): the thread answers `stopped` and stays warm for the next job.
   */
  readonly stop?: SharedArrayBuffer;
}

export type XGBoostWorkerMessage =
  | { readonly t: 'line'; readonly line: string }
  /** asks the main thread to stream file `index` of `channel` into `port` (port-stream.ts) */
  | { readonly t: 'open'; readonly channel: string; readonly index: number; readonly port: MessagePort }
  | {
      readonly t: 'done';
      readonly fileName: string;
      readonly bytes: Uint8Array;
      readonly bestIteration?: number;
    }
  /** The warm-up training finished: the thread's code is compiled. */
  | { readonly t: 'warm' }
  /** Training stopped at a round boundary as asked (`stop`). */
  | { readonly t: 'stopped' }
  /** client: the user's input is wrong (ClientError); algorithm: training itself failed (AlgorithmError). */
  | { readonly t: 'error'; readonly kind: 'client' | 'algorithm'; readonly message: string };

const post = (m: XGBoostWorkerMessage) => parentPort!.postMessage(m);

// Training yields the CPU to serving: on Linux a thread's nice value and scheduling policy are its
// own (setpriority on the calling thread), and the histogram threads this one starts inherit them.
// Nice 19 still takes a slice from a waking request; SCHED_IDLE (set with util-linux's chrt, as
// Node has no sched_setscheduler) is preempted at once by any normal thread that wants the core,
// so InvokeEndpoint on the main thread runs first whenever both want one.
try {
  setPriority(19);
} catch {
  // not permitted here: train at normal priority
}
try {
  const tid = readlinkSync('/proc/thread-self').split('/').pop()!;
  execFileSync('chrt', ['--idle', '--pid', '0', tid], { stdio: 'ignore', timeout: 2000 });
} catch {
  // no chrt or no /proc: nice 19 alone
}

/** File `index` of `channel`, as the main thread streams it. */
function openFile(channel: string, index: number): AsyncIterable<Uint8Array> {
  const { port1, port2 } = new MessageChannel();
  parentPort!.postMessage({ t: 'open', channel, index, port: port2 } satisfies XGBoostWorkerMessage, [port2]);
  return receiveStream(port1);
}

async function readFiles(
  name: string,
  c: XGBoostChannelInput,
  csvWeights: boolean,
  threads: ReturnType<typeof parseThreads> | undefined,
  trainColumns?: number,
): Promise<DMatrix> {
  const files = c.files.map((f, i) => ({ name: f, open: async () => openFile(name, i) }));
  return readChannel(files, {
    contentType: c.contentType,
    compression: c.compression,
    channel: name,
    csvWeights,
    trainColumns,
    threads,
  });
}

/** Thrown inside the worker when its job's side asked it to stop. */
class StopRequested extends Error {
  override readonly name = 'StopRequested';
}

/** An AbortSignal-shaped view of the shared stop flag: train() looks at `aborted` every round. */
function stopSignal(buffer: SharedArrayBuffer | undefined): AbortSignal | undefined {
  if (!buffer) return undefined;
  const flag = new Int32Array(buffer);
  return {
    get aborted() {
      return Atomics.load(flag, 0) === 1;
    },
    reason: new StopRequested('stop requested'),
  } as AbortSignal;
}

async function run(input: XGBoostWorkerInput): Promise<void> {
  const signal = stopSignal(input.stop);
  const hp = validateHyperparameters(input.hyperparameters);
  const trainChannel = input.channels.train;
  if (!trainChannel) throw new TrainingInputError('Channel train is required for the XGBoost algorithm.');
  const params = { ...hp.params, nthread: hp.params.nthread || input.threads };
  // the job's threads parse its data, then train on it (one thread: this one parses)
  const threads = params.nthread > 1 ? parseThreads(params.nthread) : undefined;
  let dtrain: DMatrix;
  const evals: { name: string; data: DMatrix }[] = [];
  const validation = input.channels.validation;
  try {
    dtrain = await readFiles('train', trainChannel, hp.csvWeights, threads);
    evals.push({ name: 'train', data: dtrain });
    if (validation)
      evals.push({
        name: 'validation',
        data: await readFiles('validation', validation, hp.csvWeights, threads, dtrain.numCols),
      });
  } finally {
    threads?.close();
  }
  // The container stops early only with a validation set to watch.
  const early = hp.earlyStopping && validation ? hp.earlyStopping : undefined;
  if (signal?.aborted) throw signal.reason;
  const result = await train({ ...params, early_stopping_rounds: early?.rounds }, dtrain, evals, {
    onRound: (_round, _results, line) => post({ t: 'line', line }),
    signal,
    // "validation:auc" → the validation set's auc
    earlyStopping: early && { metric: early.metric.replace(/^[^:]*:/, ''), maximize: early.maximize },
  });
  const file = modelFileFor(input.image, result.model);
  const bytes = new Uint8Array(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  parentPort!.postMessage(
    { t: 'done', fileName: file.fileName, bytes, bestIteration: result.bestIteration } satisfies XGBoostWorkerMessage,
    bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length ? [bytes.buffer as ArrayBuffer] : [],
  );
}

parentPort!.on('message', (input: XGBoostWorkerInput | { readonly t: 'warm-up' }) => {
  if ('t' in input) {
    warmUpTrainer().then(
      () => post({ t: 'warm' }),
      (e: unknown) => post({ t: 'error', kind: 'algorithm', message: e instanceof Error ? e.message : String(e) }),
    );
    return;
  }
  run(input).catch((e: unknown) => {
    if (e instanceof StopRequested) return post({ t: 'stopped' });
    const client = e instanceof HyperparameterError || e instanceof TrainingInputError || e instanceof ModelWriteError;
    post({ t: 'error', kind: client ? 'client' : 'algorithm', message: e instanceof Error ? e.message : String(e) });
  });
});
