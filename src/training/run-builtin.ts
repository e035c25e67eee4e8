// The built-in XGBoost algorithm as a job step: the TypeScript trainer in a worker thread (the event
// loop keeps serving while it trains), its evaluation lines into the job's log as they come.
import { Worker } from 'node:worker_threads';
import { JobFailure } from '../jobs/job-failure.js';
import type { JobLog } from './job-output.js';
import type { XGBoostChannelInput, XGBoostWorkerInput, XGBoostWorkerMessage } from './xgboost-worker.js';

const ENTRY = new URL('./xgboost-worker.js', import.meta.url);

export interface BuiltinRun {
  readonly image: string;
  readonly hyperparameters: Readonly<Record<string, string>>;
  readonly channels: Readonly<Record<string, XGBoostChannelInput>>;
  readonly modelDir: string;
  readonly threads: number;
  readonly log: JobLog;
  readonly onLine: (line: string) => void;
  readonly signal: AbortSignal;
}

/** Trains; resolves when `xgboost-model` is in modelDir, throws JobFailure otherwise. */
export function runBuiltinXGBoost(r: BuiltinRun): Promise<void> {
  const input: XGBoostWorkerInput = {
    image: r.image,
    hyperparameters: r.hyperparameters,
    channels: r.channels,
    modelDir: r.modelDir,
    threads: r.threads,
  };
  return new Promise((resolve, reject) => {
    const worker = new Worker(ENTRY, { workerData: input });
    let settled = false;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      r.signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      if (err) reject(err);
      else resolve();
    };
    const onAbort = () => settle(r.signal.reason instanceof Error ? r.signal.reason : new Error('stopped'));
    r.signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: XGBoostWorkerMessage) => {
      if (m.t === 'line') {
        r.log.write(m.line);
        r.onLine(m.line);
      } else if (m.t === 'done') settle();
      else {
        r.log.write(`${m.kind === 'client' ? 'ClientError' : 'AlgorithmError'}: ${m.message}`);
        settle(new JobFailure(`${m.kind === 'client' ? 'ClientError' : 'AlgorithmError'}: ${m.message}`));
      }
    });
    worker.on('error', (e) => settle(new JobFailure(`AlgorithmError: ${e.message}`)));
    worker.on('exit', (code) => settle(new JobFailure(`AlgorithmError: the training worker exited with code ${code}`)));
    if (r.signal.aborted) onAbort();
  });
}
