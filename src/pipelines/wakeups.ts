// Wakes an execution's run on this replica as soon as something it waits for happened here: a job
// of one of its steps recorded a transition, a callback arrived, a stop or retry was asked. Only a
// shortcut: the run also polls, so what happens on another replica reaches it within a poll.
export class Wakeups {
  readonly #waiting = new Map<string, () => void>();
  /** Executions whose run is on this replica. */
  readonly #active = new Set<string>();
  readonly #pending = new Set<string>();
  /** Job ARN → execution ARN, for the jobs the executions on this replica wait on. */
  readonly #jobs = new Map<string, string>();
  /** Jobs that recorded a transition since their execution last looked. */
  readonly #moved = new Set<string>();

  /** Resolves at `ms`, on `wake(executionArn)`, or when `signal` aborts, whichever comes first. */
  wait(executionArn: string, ms: number, signal: AbortSignal): Promise<void> {
    if (this.#pending.delete(executionArn) || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (this.#waiting.get(executionArn) === done) this.#waiting.delete(executionArn);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal.addEventListener('abort', done, { once: true });
      this.#waiting.set(executionArn, done);
    });
  }

  wake(executionArn: string): void {
    const w = this.#waiting.get(executionArn);
    if (w) w();
    else if (this.#active.has(executionArn)) this.#pending.add(executionArn);
  }

  /** An execution's run starts on this replica. */
  enter(executionArn: string): void {
    this.#active.add(executionArn);
  }

  /** The execution waits on this job's transitions. */
  watchJob(jobArn: string, executionArn: string): void {
    this.#jobs.set(jobArn, executionArn);
  }

  unwatchJob(jobArn: string): void {
    this.#jobs.delete(jobArn);
    this.#moved.delete(jobArn);
  }

  /** A job recorded a transition (the runner's subscriber, inside the job's transaction). */
  jobMoved(jobArn: string): void {
    const execution = this.#jobs.get(jobArn);
    if (execution === undefined) return;
    this.#moved.add(jobArn);
    // The job's transaction has not committed yet: the run reads the job behind its row lock.
    this.wake(execution);
  }

  /** Whether the job moved since the last call (and forgets it). */
  takeMoved(jobArn: string): boolean {
    return this.#moved.delete(jobArn);
  }

  /** Forgets an execution that finished here. */
  forget(executionArn: string): void {
    this.#active.delete(executionArn);
    this.#pending.delete(executionArn);
    for (const [job, ex] of this.#jobs) if (ex === executionArn) this.unwatchJob(job);
  }
}
