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
