// The threads of one hist/approx training (nthread, the main thread included) and the shared
// arena they work in: one WebAssembly memory (./hist-kernels.ts reads it) holding the quantized
// matrix, the rows, the gradients, the histograms and the tasks. The main thread writes a task
// (./hist-tasks.ts) into the arena, releases the workers through a generation counter, does its own
// part and waits for theirs.
//
// A thread waiting for the others (a worker for the next task, the main thread for the workers'
// parts) spins for SPIN_MS before it sleeps (Atomics.wait, woken by Atomics.notify): a sleeping
// thread can take about a millisecond to wake on a virtual machine, longer than most tasks (a tree
// level at 200k rows is ~2 ms), so with futex or postMessage hand-offs only, two threads were no
// faster than one; but spinning longer turns a busy machine into a disaster (when the two threads
// share one CPU, each spins its whole time slice away while the other waits to run: a 2 s training
// took 18 s, and xgboost's OpenMP threads do the same).
// https://nodejs.org/docs/latest-v20.x/api/worker_threads.html

import type { Worker } from 'node:worker_threads';
import { IdleWorkers } from '../idle-workers.js';
import { jsKernels, kernelModule, WASM_MAX_PAGES, wasmKernels } from './hist-kernels.js';
import { D, runTask, Task, type TeamThread } from './hist-tasks.js';
import type { ObjectiveImpl } from './objectives.js';
import type { TrainParams } from './types.js';

const ENTRY = new URL('./hist-worker.js', import.meta.url);

/** ctrl (Int32Array) layout: hot counters a cache line apart */
export const C = {
  GEN: 0,
  TASK: 1,
  TASK_LEN: 2,
  ERR: 3,
  /** the arena's size in 64 KiB pages when the task was posted */
  PAGES: 4,
  /** work-stealing counters (NEXT, NEXT + 1) */
  NEXT: 16,
  /** the barrier inside tasks: threads arrived, the sense of the last crossing */
  BAR: 32,
  BAR_SENSE: 33,
  /** set when a thread failed inside a task: the others leave its barriers */
  ABORT: 34,
  /** worker w (1..) acknowledges generation g at ACK + 16 w */
  ACK: 48,
  LINE: 16,
} as const;

/** how long a worker spins for the next task before it sleeps, and the main thread for the workers */
export const SPIN_MS = Number(process.env.SLIPWAY_SPIN_MS ?? 0.1);

export const PAGE = 65536;

/** a growable SharedArrayBuffer (ES2024; Node 20 has it, the project's ES2023 library does not declare it) */
type GrowableSab = new (bytes: number, options: { maxByteLength: number }) => SharedArrayBuffer;

/** What a worker serves a team with (the setup message hist-team.ts posts it). */
export interface WorkerSetup {
  index: number;
  size: number;
  ctrl: Int32Array;
  memory?: WebAssembly.Memory;
  module?: WebAssembly.Module;
  /** without WebAssembly: a growable SharedArrayBuffer and JavaScript kernels */
  sab?: SharedArrayBuffer;
  data?: Float32Array;
  weights?: Float32Array;
  /** the training's parameters, for the objective of Task.Gradients */
  params?: TrainParams;
}

/**
 * A sense-reversing barrier of `size` threads over ctrl, for one thread (each thread makes its
 * own): the last to arrive resets the count and flips the sense; the others spin, then sleep.
 */
export function barrier(ctrl: Int32Array, size: number): () => void {
  let sense = 0;
  return () => {
    if (size === 1) return;
    sense ^= 1;
    if (Atomics.add(ctrl, C.BAR, 1) === size - 1) {
      Atomics.store(ctrl, C.BAR, 0);
      Atomics.store(ctrl, C.BAR_SENSE, sense);
      Atomics.notify(ctrl, C.BAR_SENSE);
      return;
    }
    const t0 = performance.now();
    for (let spins = 1; Atomics.load(ctrl, C.BAR_SENSE) !== sense; spins++) {
      if (Atomics.load(ctrl, C.ABORT) !== 0) throw new Error('another histogram thread failed');
      if ((spins & 63) === 0 && performance.now() - t0 > SPIN_MS) Atomics.wait(ctrl, C.BAR_SENSE, sense ^ 1, 50);
    }
  };
}

function shared(a: Float32Array | undefined): Float32Array | undefined {
  if (a === undefined || a.buffer instanceof SharedArrayBuffer) return a;
  const copy = new Float32Array(new SharedArrayBuffer(a.byteLength));
  copy.set(a);
  return copy;
}

export class Team {
  /** the main thread's part (index 0) */
  readonly thread: TeamThread;
  /** the descriptor every task points to (hist-tasks.ts D) */
  readonly desc: number;
  private readonly workers: Worker[] = [];
  private readonly ctrl: Int32Array;
  private readonly memory: WebAssembly.Memory | undefined;
  private readonly sab: SharedArrayBuffer | undefined;
  private top = 0;
  /** below this byte, a reused arena may hold an earlier team's data (alloc zeroes it) */
  private readonly dirty: number;
  private taskOffset = 0;
  private taskLength = 0;
  private failure: Error | undefined;
  /** the messages of the errors workers hit in the last task, by thread index */
  private readonly workerErrors = new Map<number, string>();

  /**
   * `threads` threads (at most the number of features); `data` (row-major) and `weights` are what the
   * sketch and binning read, `objective` (made from `params` on the workers) what gives gradients;
   * `js` forces the JavaScript kernels (tests).
   */
  constructor(
    readonly size: number,
    numRows: number,
    numCols: number,
    data: Float32Array,
    weights: Float32Array | undefined,
    objective: ObjectiveImpl,
    params: TrainParams,
    js = false,
  ) {
    const module = js ? null : kernelModule();
    this.ctrl = new Int32Array(new SharedArrayBuffer((C.ACK + C.LINE * size) * 4));
    const reused = takeSpareArena(module !== null);
    this.dirty = reused?.used ?? 0;
    if (module)
      this.memory = reused?.memory ?? new WebAssembly.Memory({ initial: 1, maximum: WASM_MAX_PAGES, shared: true });
    else
      this.sab = reused?.sab ?? new (SharedArrayBuffer as GrowableSab)(PAGE, { maxByteLength: WASM_MAX_PAGES * PAGE });
    const memory = this.memory;
    const sab = this.sab;
    const buffer = memory ? () => memory.buffer : () => sab as SharedArrayBuffer;
    const sharedData = size > 1 ? shared(data) : data;
    const sharedWeights = size > 1 ? shared(weights) : weights;
    this.thread = {
      index: 0,
      size,
      buffer,
      kernels: module && memory ? wasmKernels(module, memory) : jsKernels(buffer),
      ctrl: this.ctrl,
      next: C.NEXT,
      data,
      weights,
      scratch: new Map(),
      objective: () => objective,
      barrier: barrier(this.ctrl, size),
    };
    this.top = 64;
    this.desc = this.alloc(D.SIZE * 8);
    const d = new Float64Array(buffer(), this.desc, D.SIZE);
    d[D.numRows] = numRows;
    d[D.numCols] = numCols;
    for (let i = 1; i < size; i++) {
      const setup: WorkerSetup = {
        index: i,
        size,
        ctrl: this.ctrl,
        memory,
        module: module ?? undefined,
        sab,
        data: sharedData,
        weights: sharedWeights,
        params,
      };
      const w = idle.take();
      w.on('message', (m: { error?: string; index: number }) => {
        if (m.error !== undefined) this.workerErrors.set(m.index, m.error);
      });
      w.on('error', (err) => {
        this.failure = err;
      });
      w.on('exit', (code) => {
        this.failure ??= new Error(`a histogram thread exited (code ${code})`);
      });
      w.postMessage({ setup });
      this.workers.push(w);
    }
  }

  buffer(): ArrayBufferLike {
    return this.thread.buffer();
  }

  /** `bytes` of the arena, 64-byte aligned, zeroed (the arena only grows). */
  alloc(bytes: number): number {
    const at = this.top;
    const end = at + Math.ceil(bytes / 64) * 64;
    const have = this.buffer().byteLength;
    if (end > have) {
      const pages = Math.ceil((end - have) / PAGE);
      // 4 GiB: what WebAssembly addresses (and V8's largest growable SharedArrayBuffer)
      if (have / PAGE + pages > WASM_MAX_PAGES) {
        throw new Error(
          `tree_method hist/approx: the quantized matrix, gradients and histograms need more than 4 GiB; use fewer rows, features or max_bin`,
        );
      }
      if (this.memory) this.memory.grow(pages);
      else (this.sab as unknown as { grow(bytes: number): void }).grow(have + pages * PAGE);
    }
    this.top = end;
    if (at < this.dirty) new Uint8Array(this.buffer(), at, Math.min(end, this.dirty) - at).fill(0);
    return at;
  }

  /** The task block, at least `doubles` long (a new one when the last is too short). */
  task(doubles: number): Float64Array {
    if (doubles > this.taskLength) {
      this.taskLength = Math.max(doubles, 1024);
      this.taskOffset = this.alloc(this.taskLength * 8);
    }
    return new Float64Array(this.buffer(), this.taskOffset, this.taskLength);
  }

  /** Runs the task block on every thread; resolves when all are done. */
  async run(): Promise<void> {
    const ctrl = this.ctrl;
    Atomics.store(ctrl, C.NEXT, 0);
    Atomics.store(ctrl, C.NEXT + 1, 0);
    if (this.workers.length === 0) {
      runTask(this.thread, this.taskOffset, this.taskLength);
      return;
    }
    if (this.failure) throw this.failure;
    ctrl[C.TASK] = this.taskOffset;
    ctrl[C.TASK_LEN] = this.taskLength;
    ctrl[C.PAGES] = this.buffer().byteLength / PAGE;
    ctrl[C.ERR] = 0;
    this.workerErrors.clear();
    const gen = Atomics.add(ctrl, C.GEN, 1) + 1;
    Atomics.notify(ctrl, C.GEN);
    let own: unknown;
    try {
      runTask(this.thread, this.taskOffset, this.taskLength);
    } catch (e) {
      own = e;
      // the workers may be waiting for this thread at a barrier
      Atomics.store(ctrl, C.ABORT, 1);
      Atomics.notify(ctrl, C.BAR_SENSE);
    }
    await this.waitFor(gen);
    if (own !== undefined) throw own;
    const failed = Atomics.load(ctrl, C.ERR);
    if (failed !== 0) {
      // each failed worker posted its error before acknowledging: they arrive with the next turns of
      // the loop. The first thread's error is the one a single thread would have met first (the
      // objective's check of the first bad label).
      for (let i = 0; i < 1000 && this.workerErrors.size < failed; i++) await new Promise((r) => setTimeout(r, 1));
      const first = [...this.workerErrors.keys()].sort((a, b) => a - b)[0];
      throw new Error(this.workerErrors.get(first) ?? 'a histogram thread failed');
    }
  }

  private async waitFor(gen: number): Promise<void> {
    const ctrl = this.ctrl;
    const t0 = performance.now();
    for (let w = 1; w < this.size; w++) {
      const at = C.ACK + C.LINE * w;
      let spins = 0;
      for (;;) {
        const seen = Atomics.load(ctrl, at);
        if (seen === gen) break;
        if ((++spins & 63) !== 0 || performance.now() - t0 < SPIN_MS) continue;
        // a slow (or dead) worker: sleep until it acknowledges, and let the event loop report an exit
        if (Atomics.wait(ctrl, at, seen, 50) === 'timed-out') await new Promise((r) => setImmediate(r));
        if (this.failure) throw this.failure;
      }
    }
  }

  async close(): Promise<void> {
    let reusable = this.failure === undefined;
    if (reusable && this.workers.length > 0) {
      const P = this.task(1);
      P[0] = Task.Exit;
      reusable = await this.run().then(
        () => this.failure === undefined,
        () => false,
      );
    }
    this.failure ??= new Error('closed');
    // threads that finished the Exit task wait for the next team's setup; others end
    if (reusable) for (const w of this.workers) idle.give(w);
    else await Promise.all(this.workers.map((w) => w.terminate()));
    // the arena too, once no thread of this team uses it
    if (reusable) keepSpareArena({ memory: this.memory, sab: this.sab, used: Math.max(this.top, this.dirty) });
  }
}

/**
 * The arena of the last team that closed cleanly, for the next team: its pages are the process's
 * already, where a fresh arena's first touch costs a page fault per 4 KiB (~16 µs each on the
 * 2-vCPU VM: ~150 ms of a 200k-row training on two threads). Let go after ARENA_KEEP_MS without a
 * team, so an idle trainer gives its memory back.
 */
interface SpareArena {
  memory: WebAssembly.Memory | undefined;
  sab: SharedArrayBuffer | undefined;
  /** bytes the teams that used it wrote */
  used: number;
}
const ARENA_KEEP_MS = 60_000;
let spare: SpareArena | undefined;
let spareTimer: ReturnType<typeof setTimeout> | undefined;

function keepSpareArena(a: SpareArena): void {
  spare = a;
  clearTimeout(spareTimer);
  spareTimer = setTimeout(() => {
    spare = undefined;
  }, ARENA_KEEP_MS);
  spareTimer.unref();
}

/** The spare arena if it is of the kind wanted (WebAssembly memory or SharedArrayBuffer); it is then no longer spare. */
function takeSpareArena(wasm: boolean): SpareArena | undefined {
  const a = spare;
  if (a === undefined || (a.memory !== undefined) !== wasm) return undefined;
  spare = undefined;
  clearTimeout(spareTimer);
  return a;
}

// Idle worker threads, kept between trainings: a thread costs ~50–200 ms to start and its first
// tasks run unoptimized code, which a team of a large set otherwise pays at every training (the
// sketch, its first task, is then mostly the main thread's). A training job's trainer thread keeps
// its workers as it keeps itself warm for the next job.
const idle = new IdleWorkers(ENTRY, 16);

/**
 * `n` of the histogram threads for other work between teams (parse-threads.ts): idle ones first.
 * Each must be given back with `returnWorkers` once its work is done (or terminated).
 */
export function borrowWorkers(n: number): Worker[] {
  return Array.from({ length: n }, () => idle.take());
}

/** Threads borrowed with borrowWorkers, idle again. */
export function returnWorkers(workers: readonly Worker[]): void {
  for (const w of workers) idle.give(w);
}

/** Starts `n` histogram threads ahead of a team that will use them (the trainer's warm-up). */
export function prestartWorkers(n: number): Promise<void> {
  return idle.prestart(n);
}

/** Bytes of the spare arena the next team will start from, 0 without one (tests). */
export function spareArenaBytes(): number {
  return spare === undefined ? 0 : (spare.memory?.buffer ?? (spare.sab as SharedArrayBuffer)).byteLength;
}

/** The idle worker threads (tests). */
export function idleWorkers(): number {
  return idle.size;
}
