// Per-query state of a traversal: the store, the vertex objects by id (labels read once), the
// deadline and the memory guard of barriers (Neptune's query timeout and limits).
// https://docs.aws.amazon.com/neptune/latest/userguide/access-graph-gremlin-differences.html
import { MemoryLimitExceededException, TimeLimitExceededException } from '../../../generated/neptunedata/errors.js';
import type { Queryable } from '../../../storage/db/types.js';
import { type EdgeRow, StoreAccess } from '../store-access.js';
import { Edge, Vertex } from '../values.js';

export interface EngineLimits {
  /** Wall-clock budget of one query (Neptune's neptune_query_timeout defaults to 120 s). */
  readonly timeoutMs: number;
  /** Most results one query may return. */
  readonly maxResults: number;
  /** Most traversers a barrier (order, group, fold, tail, ...) may hold. */
  readonly maxBarrier: number;
}

export const DEFAULT_LIMITS: EngineLimits = { timeoutMs: 120_000, maxResults: 1_000_000, maxBarrier: 2_000_000 };

export class QueryContext {
  readonly store: StoreAccess;
  readonly #vertices = new Map<string, Vertex>();
  #nextTag = 1;
  readonly #deadline: number;
  #lastYield = performance.now();

  constructor(
    q: Queryable,
    readonly limits: EngineLimits,
  ) {
    this.store = new StoreAccess(q);
    this.#deadline = performance.now() + limits.timeoutMs;
  }

  /** `n` fresh tags for the starts of a child traversal run; returns the first. */
  tags(n: number): number {
    const base = this.#nextTag;
    this.#nextTag += n;
    return base;
  }

  vertex(id: string, label?: string): Vertex {
    let v = this.#vertices.get(id);
    if (!v) {
      // Bounded: past 100k the map starts over (traversers keep their own objects).
      if (this.#vertices.size >= 100_000) this.#vertices.clear();
      v = new Vertex(id, label);
      this.#vertices.set(id, v);
    } else if (label !== undefined && v.label === undefined) v.label = label;
    return v;
  }

  edge(r: EdgeRow): Edge {
    return new Edge(r.id, r.label, this.vertex(r.from_id), this.vertex(r.to_id));
  }

  /** Reads the labels of the vertices that do not have theirs yet (Neptune joins several with ::). */
  async resolveLabels(vs: Iterable<Vertex>): Promise<void> {
    const missing = new Map<string, Vertex[]>();
    for (const v of vs) {
      if (v.label !== undefined) continue;
      const list = missing.get(v.id);
      if (list) list.push(v);
      else missing.set(v.id, [v]);
    }
    if (missing.size === 0) return;
    const labels = await this.store.labels([...missing.keys()]);
    for (const [id, list] of missing) {
      const l = (labels.get(id) ?? ['vertex']).join('::');
      for (const v of list) v.label = l;
    }
  }

  /** Deadline check between batches; also lets other requests run every 20 ms. */
  async tick(): Promise<void> {
    const now = performance.now();
    if (now > this.#deadline) {
      throw new TimeLimitExceededException(
        `A timeout occurred within the query engine. The query ran longer than ${this.limits.timeoutMs} ms.`,
      );
    }
    if (now - this.#lastYield > 20) {
      await new Promise((r) => setImmediate(r));
      this.#lastYield = performance.now();
    }
  }

  guardBarrier(n: number): void {
    if (n > this.limits.maxBarrier)
      throw new MemoryLimitExceededException(
        `The query holds more than ${this.limits.maxBarrier} traversers in one barrier step (order, group, fold, tail, ...); narrow it with has() or limit().`,
      );
  }
}
