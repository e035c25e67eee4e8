// A worker thread of hist/approx teams (./hist-team.ts): receives a team's setup, then waits for
// each task generation, does its part of the task (./hist-tasks.ts) and acknowledges it; an Exit
// task ends its service of that team, and the thread waits for the next team. Between teams it
// parses blocks of a channel's text for the training to come (./parse-threads.ts).

import { parentPort } from 'node:worker_threads';
import { type BlockSpec, parseBlock, resultBuffers } from './input/blocks.js';
import { jsKernels, wasmKernels } from './hist-kernels.js';
import { runTask, Task, type TeamThread } from './hist-tasks.js';
import { barrier, C, PAGE, SPIN_MS, type WorkerSetup } from './hist-team.js';
import { makeObjective, type ObjectiveImpl } from './objectives.js';
import type { TrainParams } from './types.js';

/**
 * Serves one team: waits for each task generation, spinning for SPIN_MS before it sleeps, does its
 * part and acknowledges it, until the Exit task. The thread then waits for the next team's setup
 * (hist-team.ts keeps idle threads between trainings); nothing of this team is kept.
 */
function serve(setup: WorkerSetup): void {
  let objective: ObjectiveImpl | undefined;
  const { memory, sab, ctrl } = setup;
  // A memory the main thread grew reaches this thread's buffer (and its WebAssembly instance) through
  // an interrupt V8 may not have handled yet when the task arrives; growing by nothing refreshes both.
  const buffer = memory
    ? () => {
        if (memory.buffer.byteLength < ctrl[C.PAGES] * PAGE) memory.grow(0);
        return memory.buffer;
      }
    : () => sab as SharedArrayBuffer;
  const th: TeamThread = {
    index: setup.index,
    size: setup.size,
    buffer,
    kernels: setup.module && memory ? wasmKernels(setup.module, memory) : jsKernels(buffer),
    ctrl,
    next: C.NEXT,
    data: setup.data,
    weights: setup.weights,
    scratch: new Map(),
    barrier: barrier(ctrl, setup.size),
    objective: () => {
      objective ??= makeObjective(setup.params as TrainParams);
      return objective;
    },
  };
  const ack = C.ACK + C.LINE * setup.index;
  // a new team's generation counter starts at 0 (its first task may already be posted)
  let seen = 0;
  for (;;) {
    let gen = Atomics.load(ctrl, C.GEN);
    const t0 = performance.now();
    for (let spins = 1; gen === seen; spins++) {
      if ((spins & 63) === 0 && performance.now() - t0 > SPIN_MS) Atomics.wait(ctrl, C.GEN, seen);
      gen = Atomics.load(ctrl, C.GEN);
    }
    seen = gen;
    const offset = ctrl[C.TASK];
    const length = ctrl[C.TASK_LEN];
    const kind = new Float64Array(buffer(), offset, 1)[0];
    if (kind !== Task.Exit) {
      try {
        runTask(th, offset, length);
      } catch (e) {
        parentPort?.postMessage({ index: setup.index, error: e instanceof Error ? e.message : String(e) });
        Atomics.add(ctrl, C.ERR, 1);
        // the others may be waiting for this thread at a barrier
        Atomics.store(ctrl, C.ABORT, 1);
        Atomics.notify(ctrl, C.BAR_SENSE);
      }
    }
    Atomics.store(ctrl, ack, gen);
    Atomics.notify(ctrl, ack);
    if (kind === Task.Exit) return;
  }
}

/** A block to parse: its spec, the buffer that holds it (transferred) and its bounds. */
export interface ParseMessage {
  parse: { id: number; spec: BlockSpec; buf: Uint8Array; start: number; end: number };
}

parentPort?.on('message', (m: { setup?: WorkerSetup } & Partial<ParseMessage>) => {
  if (m.setup !== undefined) serve(m.setup);
  else if (m.parse !== undefined) {
    const { id, spec, buf, start, end } = m.parse;
    let result: ReturnType<typeof parseBlock>;
    try {
      result = parseBlock(spec, buf, start, end);
    } catch (e) {
      parentPort?.postMessage({ parsed: id, failure: e instanceof Error ? e.message : String(e), buf }, [
        buf.buffer as ArrayBuffer,
      ]);
      return;
    }
    parentPort?.postMessage({ parsed: id, result, buf }, [...resultBuffers(result), buf.buffer as ArrayBuffer]);
  }
});
// Loaded: IdleWorkers.prestart waits for this (a team's own listener ignores it).
parentPort?.postMessage({ ready: true });
