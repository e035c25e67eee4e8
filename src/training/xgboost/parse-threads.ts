// Blocks of a channel's text parsed on the training's own histogram threads (hist-team.ts keeps
// them between trainings) before the training they serve starts: the threads a job is granted
// parse its data, then train on it. Each block goes to the thread with the fewest blocks waiting;
// its buffer travels there and back (transferred, not copied), and its rows come back the same way.

import type { Worker } from 'node:worker_threads';
import { borrowWorkers, returnWorkers } from './hist-team.js';
import type { ParseMessage } from './hist-worker.js';
import type { BlockResult, BlockSpec, ParseThreads } from './input/blocks.js';

interface Waiting {
  resolve(r: { result: BlockResult; buf: Uint8Array }): void;
  reject(e: Error): void;
  thread: number;
}

interface Reply {
  parsed?: number;
  result?: BlockResult;
  failure?: string;
  buf?: Uint8Array;
}

/**
 * `n` parsing threads, until `close()` gives them back to the histogram threads' pool. They are
 * borrowed at the first block sent: a channel of one block (a small job's) is read where it is.
 */
export function parseThreads(n: number): ParseThreads & { close(): void } {
  let workers: Worker[] = [];
  const load = new Array<number>(n).fill(0);
  const dead = new Array<Error | undefined>(n).fill(undefined);
  const waiting = new Map<number, Waiting>();
  let nextId = 0;
  const failThread = (k: number, e: Error): void => {
    dead[k] ??= e;
    for (const [id, w] of waiting) {
      if (w.thread !== k) continue;
      waiting.delete(id);
      w.reject(e);
    }
  };
  const borrow = () => {
    workers = borrowWorkers(n);
    workers.forEach(listen);
  };
  const listen = (w: Worker, k: number) => {
    w.on('message', (m: Reply) => {
      if (m.parsed === undefined) return;
      const entry = waiting.get(m.parsed);
      if (entry === undefined) return;
      waiting.delete(m.parsed);
      load[k]--;
      if (m.failure !== undefined || m.result === undefined) entry.reject(new Error(m.failure ?? 'no result'));
      else entry.resolve({ result: m.result, buf: m.buf as Uint8Array });
    });
    w.on('error', (e) => failThread(k, e));
    w.on('exit', (code) => failThread(k, new Error(`a parsing thread exited (code ${code})`)));
  };
  return {
    size: n,
    parse(spec: BlockSpec, buf: Uint8Array, start: number, end: number) {
      if (workers.length === 0) borrow();
      let k = -1;
      for (let i = 0; i < n; i++) if (dead[i] === undefined && (k < 0 || load[i] < load[k])) k = i;
      if (k < 0) return Promise.reject(dead[0] as Error);
      const id = nextId++;
      load[k]++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject, thread: k });
        const message: ParseMessage = { parse: { id, spec, buf, start, end } };
        workers[k].postMessage(message, [buf.buffer as ArrayBuffer]);
      });
    },
    close() {
      // A thread still parsing a block (the read failed early) finishes it before its next team's
      // setup; its reply goes to no one.
      returnWorkers(workers.filter((_, k) => dead[k] === undefined));
      for (const [id, w] of waiting) {
        waiting.delete(id);
        w.reject(new Error('the parsing threads were closed'));
      }
    },
  };
}
