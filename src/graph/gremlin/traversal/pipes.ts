// The shapes of step a family builds on: per batch (map, flatMap, filter), reducing barrier
// (one result per tag) and collecting barrier (order, tail, group). Each checks the deadline
// between batches; barriers guard the number of traversers they hold.
import type { Value } from '../values.js';
import type { QueryContext } from './context.js';
import { type Batch, extend, fresh, type Pipe, type Trav } from './traverser.js';

/** A step that turns each batch into an output batch (an empty one is not passed on). */
export function perBatch(ctx: QueryContext, step: (b: Batch) => Promise<Batch>): Pipe {
  return async function* (input) {
    for await (const b of input) {
      await ctx.tick();
      const out = await step(b);
      if (out.length > 0) yield out;
    }
  };
}

/** A map step: f over each batch (async, batch-wide), dropping undefined results. */
export function mapBatch(ctx: QueryContext, f: (b: Batch) => Promise<(Value | undefined)[]>, extendPath = true): Pipe {
  return perBatch(ctx, async (b) => {
    const vals = await f(b);
    const out: Batch = [];
    for (let i = 0; i < b.length; i++) {
      const v = vals[i];
      if (v !== undefined) out.push(extendPath ? extend(b[i]!, v) : { ...b[i]!, obj: v });
    }
    return out;
  });
}

export function flatMapBatch(ctx: QueryContext, f: (b: Batch) => Promise<Value[][]>): Pipe {
  return perBatch(ctx, async (b) => {
    const vals = await f(b);
    const out: Batch = [];
    for (let i = 0; i < b.length; i++) for (const v of vals[i]!) out.push(extend(b[i]!, v));
    return out;
  });
}

export function filterBatch(ctx: QueryContext, f: (b: Batch) => Promise<boolean[]>): Pipe {
  return perBatch(ctx, async (b) => {
    const keep = await f(b);
    return b.filter((_, i) => keep[i]);
  });
}

/** Drains the input into a barrier, traverser by traverser, within the barrier limit. */
async function hold(ctx: QueryContext, input: AsyncIterable<Batch>, take: (t: Trav) => void): Promise<void> {
  let n = 0;
  for await (const b of input) {
    await ctx.tick();
    n += b.length;
    ctx.guardBarrier(n);
    for (const t of b) take(t);
  }
}

/** A reducing barrier: one accumulator per tag; emits one result per tag in scope. */
export function reduce<A>(
  ctx: QueryContext,
  init: () => A,
  add: (acc: A, t: Trav) => A,
  done: (acc: A, seen: boolean) => Value | undefined,
): Pipe {
  return async function* (input, scope) {
    const accs = new Map<number, A>();
    await hold(ctx, input, (t) => accs.set(t.tag, add(accs.get(t.tag) ?? init(), t)));
    const out: Batch = [];
    for (const tag of scope) {
      const acc = accs.get(tag);
      const v = done(acc ?? init(), acc !== undefined);
      if (v !== undefined) out.push(fresh(v, tag));
    }
    if (out.length > 0) yield out;
  };
}

/** A collecting barrier per tag (order, tail, group): f turns each tag's traversers into output. */
export function barrier(ctx: QueryContext, f: (travs: Trav[], tag: number) => Promise<Trav[]>): Pipe {
  return async function* (input, scope) {
    const groups = new Map<number, Trav[]>();
    await hold(ctx, input, (t) => {
      const g = groups.get(t.tag);
      if (g) g.push(t);
      else groups.set(t.tag, [t]);
    });
    for (const tag of scope) {
      const out = await f(groups.get(tag) ?? [], tag);
      if (out.length > 0) yield out;
    }
  };
}
