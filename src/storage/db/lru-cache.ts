// Small bounded LRU map used to cache prepared statements and placeholder rewrites by SQL text.
// A Map keeps insertion order, so re-inserting on hit makes the first key the least recently used.

export class LruCache<K, V> {
  readonly #max: number;
  readonly #map = new Map<K, V>();

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`LRU size must be a positive integer, got ${max}`);
    this.#max = max;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.#max) {
      const oldest = this.#map.keys().next();
      if (!oldest.done) this.#map.delete(oldest.value);
    }
  }

  /** Returns the cached value, computing and caching it on a miss. */
  getOrCreate(key: K, create: (key: K) => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = create(key);
    this.set(key, value);
    return value;
  }

  clear(): void {
    this.#map.clear();
  }
}
