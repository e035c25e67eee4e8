// Start steps: V() and E() (by id, or a keyset scan that limit() can stop early), inject(), and
// the root scan that takes hasLabel()/has(key, literal) and count() into the store's SQL.
// https://tinkerpop.apache.org/docs/3.7.2/reference/#graph-step
import { MalformedQueryException } from '../../../generated/neptunedata/errors.js';
import { type Arg, Pred } from '../steps.js';
import type { VertexFilter } from '../store-access.js';
import { Edge, Num, show, type Value, Vertex } from '../values.js';
import type { QueryContext } from './context.js';
import { flatMapBatch } from './pipes.js';
import type { Op, StepTable } from './step-api.js';
import { type Batch, extend, fresh, type Pipe } from './traverser.js';

/**
 * A keyset scan from each input traverser: pages of rows after the last key read, small first
 * pages so V().limit(1) reads little, larger ones after (limit() stops pulling, ending the scan).
 */
function scan<R>(
  ctx: QueryContext,
  read: (after: string | number | null, n: number) => Promise<R[]>,
  keyOf: (r: R) => string | number,
  objOf: (r: R) => Value,
): Pipe {
  return async function* (input) {
    for await (const b of input) {
      for (const t of b) {
        let after: string | number | null = null;
        let page = 64;
        for (;;) {
          await ctx.tick();
          const rows = await read(after, page);
          if (rows.length === 0) break;
          yield rows.map((r) => extend(t, objOf(r)));
          if (rows.length < page) break;
          after = keyOf(rows[rows.length - 1]!);
          page = Math.min(page * 4, 2048);
        }
      }
    }
  };
}

function vertexScan(ctx: QueryContext, f: VertexFilter): Pipe {
  const single = f.labels?.length === 1 ? f.labels[0] : undefined;
  return scan(
    ctx,
    (after, n) => ctx.store.vertexPage(f, after, n),
    (r) => r.key,
    (r) => ctx.vertex(r.id, single),
  );
}

function edgeScan(ctx: QueryContext, labels: readonly string[] | undefined): Pipe {
  return scan(
    ctx,
    (after, n) => ctx.store.edgePage(labels, after as string | null, n),
    (r) => r.id,
    (r) => ctx.edge(r),
  );
}

function countSource(ctx: QueryContext, isV: boolean, f: VertexFilter): Pipe {
  return async function* (input) {
    for await (const b of input) {
      const out: Batch = [];
      for (const t of b) {
        const n = isV ? await ctx.store.countVertices(f) : await ctx.store.countEdges(f.labels);
        out.push(fresh(Num.long(n), t.tag));
      }
      yield out;
    }
  };
}

/**
 * A root traversal starting with V() or E(): the hasLabel()/has(key, literal) steps after it go
 * into the scan, and a count() right after them into SQL. Returns the scan and the index of the
 * first op it did not take, or undefined when the traversal does not start with a full scan.
 */
export function rootScan(ctx: QueryContext, ops: readonly Op[]): { pipe: Pipe; next: number } | undefined {
  const start = ops[0];
  if (!start || (start.name !== 'V' && start.name !== 'E') || start.args.length > 0) return undefined;
  const isV = start.name === 'V';
  const filter: { labels?: string[]; props: { name: string; type: string; value: string }[] } = { props: [] };
  let i = 1;
  for (; i < ops.length; i++) {
    const o = ops[i]!;
    if (o.name === 'hasLabel' && o.args.length > 0 && o.args.every((x) => typeof x === 'string') && !filter.labels) {
      filter.labels = o.args as string[];
      continue;
    }
    if (isV && o.name === 'has' && o.args.length === 2 && typeof o.args[0] === 'string') {
      const v = o.args[1] instanceof Pred && o.args[1].op === 'eq' ? o.args[1].value : o.args[1];
      if (typeof v === 'string' || typeof v === 'boolean') {
        filter.props.push({ name: o.args[0], type: typeof v === 'string' ? 'string' : 'bool', value: String(v) });
        continue;
      }
    }
    break;
  }
  const next = ops[i];
  if (next?.name === 'count' && next.args.length === 0) return { pipe: countSource(ctx, isV, filter), next: i + 1 };
  return { pipe: isV ? vertexScan(ctx, filter) : edgeScan(ctx, filter.labels), next: i };
}

function byIds(ctx: QueryContext, kind: 'V' | 'E', args: readonly Arg[]): Pipe {
  const ids = args
    .flatMap((x) => (Array.isArray(x) ? x : [x]))
    .map((x) => {
      if (x instanceof Vertex || x instanceof Edge) return x.id;
      if (typeof x === 'string') return x;
      if (x instanceof Num) return String(x.v);
      throw new MalformedQueryException(`${kind}() takes ids, not ${show(x as Value)}`);
    });
  if (ids.length === 0) return kind === 'V' ? vertexScan(ctx, {}) : edgeScan(ctx, undefined);
  return flatMapBatch(ctx, async (b) => {
    let found: Value[];
    if (kind === 'V') found = (await ctx.store.existingVertices(ids)).map((id) => ctx.vertex(id));
    else {
      const rows = await ctx.store.edgesById(ids);
      found = ids.filter((id) => rows.has(id)).map((id) => ctx.edge(rows.get(id)!));
    }
    return b.map(() => found);
  });
}

export const SOURCE_STEPS: StepTable = {
  V: (c, o) => byIds(c.ctx, 'V', o.args),
  E: (c, o) => byIds(c.ctx, 'E', o.args),
  inject: (_c, o, first) => {
    const values = o.args as Value[];
    return async function* (input) {
      // At the start of a traversal the injected values are the traversers; later they are
      // added in front of the stream.
      let injected = false;
      for await (const b of input) {
        if (!injected) {
          injected = true;
          const base = b[0]!;
          const inj = values.map((v) => fresh(v, base.tag));
          yield first ? inj : [...inj, ...b];
          continue;
        }
        if (!first) yield b;
      }
    };
  },
};
