// FIFO async mutex: serialises work on the single SQLite writer connection across await points.
// better-sqlite3 is synchronous, but a transaction callback awaits between statements, so other
// writers must queue until it commits or rolls back.

export class AsyncMutex {
  #tail: Promise<void> = Promise.resolve();

  /** Runs fn once every previously queued fn has settled; the lock is released whatever fn does. */
  run<T>(fn: () => T | Promise<T>): Promise<T> {
    const result = this.#tail.then(fn);
    // The next waiter must start after this one settles, but must not inherit its rejection.
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
