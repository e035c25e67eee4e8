// The built-in XGBoost algorithm as a job step: the TypeScript trainer in a worker thread (the event
// loop keeps serving while it trains), its channels streamed to it from S3 as it asks for them,
// its evaluation lines into the job's log as they come, its model file back as bytes.
import type { Readable } from 'node:stream';
import { JobFailure } from '../jobs/job-failure.js';
import { IdleWorkers } from './idle-workers.js';
import type { JobLog } from './job-output.js';
import { sendStream } from './port-stream.js';
import type { XGBoostWorkerInput, XGBoostWorkerMessage } from './xgboost-worker.js';

const ENTRY = new URL('./xgboost-worker.js', import.meta.url);

/**
 * Trainer threads waiting for their next job: a thread that trained once has its code compiled, so
 * the next job skips V8's warm-up (the notebook's job trains about twice as fast warm). At most two
 * wait.
 */
const trainers = new IdleWorkers(ENTRY, 2);

let warming = false;

/**
 * Readies one trainer thread before any job asks for it (at nice 19, like training): the server's
 * first training job then runs as fast as the later ones. Does nothing if a thread already waits.
 */
export function prewarmTrainer(): void {
  if (warming || trainers.size > 0) return;
  warming = true;
  void trainers
    .prestart(1, {
      hello: { t: 'warm-up' },
      ready: (m: XGBoostWorkerMessage) => m.t === 'warm',
      background: true,
    })
    .finally(() => {
      warming = false;
    });
}

/** Threads waiting for a job (for tests). */
export const idleTrainers = (): number => trainers.size;

/**
 * A job for the trainer thread (what it is sent), and what stays on this side: its log, its stop
 * signal, and how to read its channels' files (S3 objects) when the trainer asks for them.
 */
export interface BuiltinRun extends XGBoostWorkerInput {
  readonly log: JobLog;
  readonly onLine: (line: string) => void;
  readonly signal: AbortSignal;
  readonly open: (channel: string, index: number) => Promise<Readable | AsyncIterable<Uint8Array>>;
}

/** The model file the trainer wrote (`xgboost-model`, as the image's container writes it). */
export interface BuiltinModel {
  readonly fileName: string;
  readonly bytes: Uint8Array;
}

/** How long a stopped trainer thread has to reach a round boundary before it is ended instead. */
const STOP_GRACE_MS = 2000;

/**
 * Trains; resolves with the model file, throws JobFailure otherwise. When the signal aborts (a
 * stop), the thread stops at its next round and is kept warm for the next job; one that does not
 * answer within STOP_GRACE_MS (still reading its channels, say) is ended.
 */
export function runBuiltinXGBoost(r: BuiltinRun): Promise<BuiltinModel> {
  const { log: _log, onLine: _onLine, signal: _signal, open: _open, ...rest } = r;
  const stop = new SharedArrayBuffer(4);
  const input = { ...rest, stop };
  return new Promise((resolve, reject) => {
    const worker = trainers.take();
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    let model: BuiltinModel | undefined;
    /** `keep`: the thread finished its job cleanly and can train the next one. */
    const settle = (err?: Error, keep = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(grace);
      r.signal.removeEventListener('abort', onAbort);
      if (keep) trainers.give(worker);
      else void worker.terminate();
      if (err) reject(err);
      else resolve(model as BuiltinModel);
    };
    const reason = () => (r.signal.reason instanceof Error ? r.signal.reason : new Error('stopped'));
    const onAbort = () => {
      Atomics.store(new Int32Array(stop), 0, 1);
      grace = setTimeout(() => settle(reason()), STOP_GRACE_MS);
      grace.unref();
    };
    r.signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: XGBoostWorkerMessage) => {
      // After a stop the job is over: later lines are not its output.
      if (m.t === 'line' && !r.signal.aborted) {
        r.log.write(m.line);
        r.onLine(m.line);
      } else if (m.t === 'open') {
        const port = m.port;
        r.open(m.channel, m.index).then(
          (source) => sendStream(port, source),
          (e: unknown) => {
            port.postMessage({ error: e instanceof Error ? e.message : String(e) });
            port.close();
          },
        );
      } else if (m.t === 'stopped') settle(reason(), true);
      else if (m.t === 'done') {
        model = { fileName: m.fileName, bytes: m.bytes };
        settle(r.signal.aborted ? reason() : undefined, true);
      } else if (m.t === 'error') {
        r.log.write(`${m.kind === 'client' ? 'ClientError' : 'AlgorithmError'}: ${m.message}`);
        settle(new JobFailure(`${m.kind === 'client' ? 'ClientError' : 'AlgorithmError'}: ${m.message}`), true);
      }
    });
    worker.on('error', (e) => settle(new JobFailure(`AlgorithmError: ${e.message}`)));
    worker.on('exit', (code) => settle(new JobFailure(`AlgorithmError: the training worker exited with code ${code}`)));
    if (r.signal.aborted) settle(reason(), true);
    else worker.postMessage(input);
  });
}
