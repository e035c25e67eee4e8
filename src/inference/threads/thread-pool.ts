// Worker threads for in-process runtimes (XGBoost, ONNX). A thread's V8 heap is bounded by the
// variant's MemorySizeInMB (resourceLimits); going over kills that thread only. Threads whose
// model was unloaded at scale-in are kept for a while and reused, so most cold starts skip the
// ~30 ms it takes to start a thread and import a runtime.
// https://nodejs.org/docs/latest-v20.x/api/worker_threads.html#new-workerfilename-options

import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { ContainerFailure, type FailureKind } from '../failure.js';
import type { FromWorker, ToWorker } from './protocol.js';

const ENTRY = new URL('./worker-entry.js', import.meta.url);

type Pending = { resolve: (m: FromWorker & { t: 'ok' }) => void; reject: (e: ContainerFailure) => void };
type DeathListener = (kind: FailureKind, message: string) => void;

export class PooledThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private listeners: DeathListener[] = [];
  private deathKind: FailureKind | undefined;
  private deathMessage = '';
  dead = false;
  idleTimer: NodeJS.Timeout | undefined;
  readonly ready: Promise<void>;

  constructor(readonly memoryMB: number) {
    this.worker = new Worker(ENTRY, {
      resourceLimits: { maxOldGenerationSizeMb: memoryMB },
      stdout: false,
      stderr: false,
    });
    this.worker.unref();
    let onReady: () => void = () => {};
    let onFail: (e: Error) => void = () => {};
    this.ready = new Promise<void>((res, rej) => {
      onReady = res;
      onFail = rej;
    });
    this.worker.on('message', (m: FromWorker) => {
      if (m.t === 'ready') {
        onReady();
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) this.worker.unref();
      if (m.t === 'ok') p.resolve(m);
      else p.reject(new ContainerFailure(m.response ? 'response' : 'crash', m.status, m.message));
    });
    this.worker.on('error', (err: Error & { code?: string }) => {
      if (this.deathKind) return;
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        this.deathKind = 'memory';
        this.deathMessage = `The model worker exceeded its memory limit (MemorySizeInMB=${memoryMB}) and was restarted.`;
      } else {
        this.deathKind = 'crash';
        this.deathMessage = `The model worker crashed and was restarted: ${err.message}`;
      }
    });
    this.worker.on('exit', (code) => {
      this.dead = true;
      if (this.idleTimer) clearTimeout(this.idleTimer);
      const kind = this.deathKind ?? 'crash';
      const message = this.deathMessage || `The model worker exited with code ${code} and was restarted.`;
      onFail(new Error(message));
      const failure = new ContainerFailure(kind, 500, message);
      for (const p of this.pending.values()) p.reject(failure);
      this.pending.clear();
      const ls = this.listeners;
      this.listeners = [];
      for (const l of ls) l(kind, message);
    });
  }

  call(msg: DistributiveOmit<ToWorker, 'id'>): Promise<FromWorker & { t: 'ok' }> {
    if (this.dead)
      return Promise.reject(
        new ContainerFailure(this.deathKind ?? 'crash', 500, this.deathMessage || 'The model worker is gone.'),
      );
    const id = this.nextId++;
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...msg, id } as ToWorker);
    });
  }

  onDeath(l: DeathListener): void {
    this.listeners.push(l);
  }

  clearListeners(): void {
    this.listeners = [];
  }

  /** Ends the thread; pending calls fail with `kind`. */
  terminate(kind: FailureKind, message?: string): void {
    if (this.dead) return;
    if (!this.deathKind) {
      this.deathKind = kind;
      this.deathMessage = message ?? `The model worker was stopped (${kind}).`;
    }
    void this.worker.terminate();
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface ThreadPoolOptions {
  /** How long an unloaded thread is kept for reuse. */
  readonly idleMs: number;
  /** Most unloaded threads kept, per memory size. */
  readonly maxIdle: number;
  readonly log: Logger;
}

export class ThreadPool {
  private readonly idle = new Map<number, PooledThread[]>();
  private readonly all = new Set<PooledThread>();
  private closed = false;

  constructor(private readonly opts: ThreadPoolOptions) {}

  get threadCount(): number {
    return this.all.size;
  }

  /** A thread with no model loaded: a kept one, or a new one. */
  async acquire(memoryMB: number): Promise<PooledThread> {
    const kept = this.idle.get(memoryMB);
    while (kept && kept.length > 0) {
      const t = kept.pop()!;
      if (t.idleTimer) clearTimeout(t.idleTimer);
      t.idleTimer = undefined;
      if (!t.dead) return t;
    }
    if (this.closed) throw new ContainerFailure('startup', 500, 'The inference engine is shutting down.');
    const t = new PooledThread(memoryMB);
    this.all.add(t);
    t.onDeath(() => this.all.delete(t));
    await t.ready;
    t.clearListeners();
    t.onDeath(() => this.all.delete(t));
    return t;
  }

  /** Takes back a thread whose model was unloaded. */
  recycle(t: PooledThread): void {
    t.clearListeners();
    t.onDeath(() => this.all.delete(t));
    const kept = this.idle.get(t.memoryMB) ?? [];
    if (this.closed || t.dead || kept.length >= this.opts.maxIdle) {
      t.terminate('crash', 'recycled');
      return;
    }
    kept.push(t);
    this.idle.set(t.memoryMB, kept);
    t.idleTimer = setTimeout(() => {
      const i = kept.indexOf(t);
      if (i >= 0) kept.splice(i, 1);
      t.terminate('crash', 'idle');
    }, this.opts.idleMs);
    t.idleTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.all) t.terminate('crash', 'The inference engine is shutting down.');
    this.idle.clear();
  }
}
