// Worker threads kept between uses: a thread that ran once has its code compiled and skips V8's
// warm-up next time (trainer threads, run-builtin.ts; histogram threads, xgboost/hist-team.ts).
// Idle threads do not keep the process alive; one that dies while it waits is forgotten.
import { Worker } from 'node:worker_threads';

export class IdleWorkers {
  private readonly idle: Worker[] = [];

  /** Threads of `entry`; at most `max` wait, the others end when given back. */
  constructor(
    private readonly entry: URL,
    private readonly max: number,
  ) {}

  /** A waiting thread, else a new one. */
  take(): Worker {
    const w = this.idle.pop() ?? new Worker(this.entry);
    w.ref();
    return w;
  }

  /**
   * Starts threads until `n` wait (at most `max`): each is sent `hello` when given, and kept once
   * its first message passes `ready` (any message without it: an entry can post one when its code
   * is loaded). A thread that fails, exits or answers otherwise ends. Resolves when every new
   * thread has answered; never rejects (a caller that needs threads gets new ones from `take`).
   * `background`: the starting threads do not keep the process alive.
   */
  async prestart<M>(
    n: number,
    opts: { hello?: unknown; ready?: (m: M) => boolean; background?: boolean } = {},
  ): Promise<void> {
    const starting: Promise<void>[] = [];
    for (let k = this.idle.length; k < Math.min(n, this.max); k++) {
      const w = new Worker(this.entry);
      if (opts.background) w.unref();
      starting.push(
        new Promise<void>((resolve) => {
          let settled = false;
          const done = (keep: boolean) => {
            if (settled) return;
            settled = true;
            if (keep) this.give(w);
            else {
              for (const e of ['message', 'error', 'exit']) w.removeAllListeners(e);
              void w.terminate();
            }
            resolve();
          };
          w.once('message', (m: M) => done(opts.ready?.(m) ?? true));
          w.once('error', () => done(false));
          w.once('exit', () => done(false));
        }),
      );
      if (opts.hello !== undefined) w.postMessage(opts.hello);
    }
    await Promise.all(starting);
  }

  /**
   * A thread that finished its work and waits for the next. Its user's listeners go by name:
   * removeAllListeners() would also drop the Worker's own newListener hook, after which a 'message'
   * listener never starts the port and the next user waits forever.
   */
  give(w: Worker): void {
    for (const e of ['message', 'error', 'exit']) w.removeAllListeners(e);
    if (this.idle.length >= this.max) {
      void w.terminate();
      return;
    }
    w.unref();
    w.once('exit', () => {
      const at = this.idle.indexOf(w);
      if (at >= 0) this.idle.splice(at, 1);
    });
    this.idle.push(w);
  }

  get size(): number {
    return this.idle.length;
  }
}
