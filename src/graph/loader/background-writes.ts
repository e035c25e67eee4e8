// The writes of a load whose answers only count (rows inserted): sent without waiting, so the
// loader parses on while the load's connection works (see Database.threadTransaction), and
// counted when answered. One list for the whole load, so the connection's thread may still be
// writing one file while the next one is parsed; a limit keeps what waits (its parameters) small.

export class BackgroundWrites {
  readonly #pending: Promise<void>[] = [];

  /** `limit`: writes allowed to wait at a time (settle() waits beyond it). */
  constructor(readonly limit: number) {}

  get size(): number {
    return this.#pending.length;
  }

  /** Adds a write; `done` gets its answer (it may throw: the failure comes out of settle). */
  add<T>(writing: Promise<T>, done: (result: T) => void): void {
    const counted = writing.then(done);
    // Seen by settle(), or dropped by drain().
    counted.catch(() => {});
    this.#pending.push(counted);
  }

  /** Waits, oldest first, until at most `max` writes wait; throws the first failure. */
  async settle(max = this.limit): Promise<void> {
    while (this.#pending.length > max) await this.#pending.shift();
  }

  /** After a failure: waits for every write to end, whatever its outcome. */
  async drain(): Promise<void> {
    for (const w of this.#pending.splice(0)) await w.catch(() => {});
  }
}
