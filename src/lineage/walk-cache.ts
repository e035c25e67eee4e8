// A short-lived memory of QueryLineage walks, so that reading a lineage page by page does not walk
// the graph again for every page: the first page's walk (already filtered and ordered) is kept
// under an id its NextToken carries, and the next pages are sliced from it. A token whose walk is
// gone (expired, evicted, or answered by another replica) just walks again: the answer is the same.

export class WalkCache<T> {
  readonly #entries = new Map<string, { scope: string; value: T; expires: number }>();
  #seq = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keeps `value` for `scope`; returns the id to find it by. */
  remember(scope: string, value: T): string {
    this.#sweep();
    while (this.#entries.size >= this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
    const id = `${this.now().toString(36)}-${(this.#seq++).toString(36)}`;
    this.#entries.set(id, { scope, value, expires: this.now() + this.ttlMs });
    return id;
  }

  /** The value kept under `id` for the same scope, while it lives. */
  recall(scope: string, id: string): T | undefined {
    const e = this.#entries.get(id);
    if (!e || e.scope !== scope) return undefined;
    if (e.expires <= this.now()) {
      this.#entries.delete(id);
      return undefined;
    }
    return e.value;
  }

  get size(): number {
    return this.#entries.size;
  }

  #sweep(): void {
    const t = this.now();
    for (const [id, e] of this.#entries) if (e.expires <= t) this.#entries.delete(id);
  }
}
