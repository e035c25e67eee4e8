// Keeps the server's event loop polling, instead of sleeping in epoll_wait, for the short while a
// model worker's answer is due (--invoke-poll-us). On virtual machines whose idle vCPUs halt at
// once, a sleeping server is woken by an interrupt through the hypervisor for every answer, and its
// vCPU goes cold; a loop that keeps turning (epoll_wait with no timeout, everything else served as
// usual) finds the answer on its next turn. It is what the kernel's haltpoll governor does for an
// idle vCPU, for this process alone and only while an answer is due:
//   - a worker's request is polled for only when the worker's last answer came within the window
//     (a model slower than that is waited for asleep, as before);
//   - polling stops when no polled-for answer is due, or the window after the last request ends.
// On 2 vCPUs it served 40–55 % more requests a second (docs/benchmarks.md, issue 30).

import { performance } from 'node:perf_hooks';

/** The default window (µs): a scikit-learn model answers in 100–150 µs on 2 vCPUs, 200–400 µs when four workers share them. */
export const DEFAULT_INVOKE_POLL_US = 400;

export class AnswerPoller {
  private readonly windowMs: number;
  private due = 0;
  private until = 0;
  private turning = false;
  private readonly turn = (): void => {
    if (this.due > 0 && performance.now() < this.until) setImmediate(this.turn);
    else this.turning = false;
  };

  constructor(windowMicros: number) {
    this.windowMs = windowMicros / 1000;
  }

  /** Whether an answer that took `ms` last time is worth polling for. */
  worth(ms: number): boolean {
    return this.windowMs > 0 && ms <= this.windowMs;
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
