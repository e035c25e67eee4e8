// Keeps the server's event loop polling, instead of sleeping in epoll_wait, for the short while a
// model worker's answer is due (--invoke-poll-us). On virtual machines whose idle vCPUs halt at
// once, a sleeping server is woken by an interrupt through the hypervisor for every answer, and its
// vCPU goes cold; a loop that keeps turning (epoll_wait with no timeout, everything else served as
// usual) finds the answer on its next turn. It is what the kernel's haltpoll governor does for an
// idle vCPU, for this process alone and only while an answer is due:
//   - a worker's request is polled for only when the worker's last answer came within the window
//     (a model slower than that is waited for asleep, as before);
//   - polling stops when no polled-for answer is due, or the window after the last request ends;
//   - nothing is polled for while the cores are contended: when the server's thread waited for a
//     CPU more than CONTENDED of the last SAMPLE_MS (its run delay, from the kernel's schedstat),
//     other tasks want the cores, a sleeping vCPU would not halt, and polling would only take the
//     time the workers and the clients need.
// On 2 vCPUs it served 40–55 % more requests a second (docs/benchmarks.md, issue 30).

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** The default window (µs): a scikit-learn model answers in 100–150 µs on 2 vCPUs, 200–400 µs when four workers share them. */
export const DEFAULT_INVOKE_POLL_US = 400;

/** How often the contention is sampled (ms), and above what share of it the cores are contended. */
const SAMPLE_MS = 50;
export const CONTENDED = 0.15;

/** The time (ns) this thread has spent runnable but waiting for a CPU, or undefined where unknown. */
export type RunDelay = () => number | undefined;

/**
 * The calling thread's run delay, from /proc/thread-self/schedstat (Linux with schedstats;
 * undefined elsewhere): "<ns on a CPU> <ns waiting for one> <time slices>".
 */
export function threadRunDelay(): number | undefined {
  try {
    const delay = Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[1]);
    return Number.isFinite(delay) ? delay : undefined;
  } catch {
    return undefined;
  }
}

export class AnswerPoller {
  private readonly windowMs: number;
  private sampledAt = 0;
  private delayAt: number | undefined;
  private contended = false;
  private due = 0;
  private until = 0;
  private turning = false;
  private readonly turn = (): void => {
    if (this.due > 0 && performance.now() < this.until) setImmediate(this.turn);
    else this.turning = false;
  };

  /** `runDelay` is read on the event loop's thread (default: threadRunDelay). */
  constructor(
    windowMicros: number,
    private readonly runDelay: RunDelay = threadRunDelay,
  ) {
    this.windowMs = windowMicros / 1000;
  }

  /** Whether an answer that took `ms` last time is worth polling for. */
  worth(ms: number): boolean {
    return this.windowMs > 0 && ms <= this.windowMs && !this.coresContended();
  }

  /** Whether this thread waited for a CPU more than CONTENDED of the last sample's time. */
  private coresContended(): boolean {
    const t = performance.now();
    if (t - this.sampledAt < SAMPLE_MS) return this.contended;
    const delay = this.runDelay();
    if (delay !== undefined && this.delayAt !== undefined) {
      this.contended = (delay - this.delayAt) / 1e6 > CONTENDED * (t - this.sampledAt);
    }
    this.sampledAt = t;
    this.delayAt = delay;
    return this.contended;
  }

  /** A request went out whose answer is expected within the window: keep the loop turning. */
  expect(): void {
    this.due++;
    this.until = performance.now() + this.windowMs;
    if (!this.turning) {
      this.turning = true;
      setImmediate(this.turn);
    }
  }

  /** The answer to an expect()ed request came (or never will): once per expect(). */
  settled(): void {
    if (this.due > 0) this.due--;
  }
}
