// The output lines of training jobs running on this replica, for whoever watches a job as it trains
// (a tuning job reading its children's objective round by round to stop them early). Lines are
// handed over synchronously as the job writes them; the same lines reach the job's CloudWatch log,
// which is what a watcher on another replica reads.
export type LineListener = (line: string) => void;

export class TrainingProgress {
  readonly #watchers = new Map<string, Set<LineListener>>();

  /** Calls `listener` with each line the training job `jobArn` writes from now on; returns the unsubscribe. */
  watch(jobArn: string, listener: LineListener): () => void {
    let set = this.#watchers.get(jobArn);
    if (!set) {
      set = new Set();
      this.#watchers.set(jobArn, set);
    }
    set.add(listener);
    return () => {
      const s = this.#watchers.get(jobArn);
      if (!s) return;
      s.delete(listener);
      if (s.size === 0) this.#watchers.delete(jobArn);
    };
  }

  /** Whether anyone watches the job (so a job nobody watches pays nothing). */
  watched(jobArn: string): boolean {
    return this.#watchers.has(jobArn);
  }

  /** A line the job wrote. A listener that throws does not disturb the job or the others. */
  line(jobArn: string, line: string): void {
    const set = this.#watchers.get(jobArn);
    if (!set) return;
    for (const l of [...set]) {
      try {
        l(line);
      } catch {
        // A watcher's mistake is its own.
      }
    }
  }
}
