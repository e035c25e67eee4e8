// Group commit for a sync many callers need (a directory's entries, a WAL file): each caller waits
// for a run of the sync that started after it asked; callers asking while one runs share the next.

export class GroupSync {
  #waiters: Array<{ resolve(): void; reject(err: unknown): void }> = [];
  #running: Promise<void> | undefined;

  constructor(private readonly sync: () => Promise<void>) {}

  /** Resolves once a sync that started after this call has finished (rejects if it failed). */
  request(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
      this.#running ??= this.#run();
    });
  }

  /** Settles once no sync is running. */
  async idle(): Promise<void> {
    await this.#running;
  }

  async #run(): Promise<void> {
    while (this.#waiters.length > 0) {
      // Everyone in this group asked before the sync below starts, so it covers them all.
      const group = this.#waiters.splice(0);
      try {
        await this.sync();
        for (const w of group) w.resolve();
      } catch (err) {
        for (const w of group) w.reject(err);
      }
    }
    this.#running = undefined;
  }
}
