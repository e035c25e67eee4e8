// Barrier steps that aggregate: count, sum, min, max, mean, fold (global per tag, or local over
// a list or map), group/groupCount, order. https://tinkerpop.apache.org/docs/3.7.2/reference/#count-step
import { MalformedQueryException } from '../../../generated/neptunedata/errors.js';
import { GMap, keyOf, Num, orderValues, show, Token, type Value } from '../values.js';
import { barrier, mapBatch, reduce } from './pipes.js';
import type { ByMod, StepImpl, StepTable } from './step-api.js';
import { fresh, once, type Trav } from './traverser.js';

function numericReduce(name: string, items: readonly Value[]): Value | undefined {
  const nums = items.filter((x): x is Num => x instanceof Num);
  if (name === 'min' || name === 'max') {
    if (items.length === 0) return undefined;
    let best: Value = items[0]!;
    for (const x of items) {
      const c = orderValues(x, best);
      if ((name === 'min' && c < 0) || (name === 'max' && c > 0)) best = x;
    }
    return best;
  }
  if (nums.length !== items.length)
    throw new MalformedQueryException(`${name}() needs numbers, found ${show(items.find((x) => !(x instanceof Num)))}`);
  if (nums.length === 0) return undefined;
  const total = nums.reduce((s, x) => s + x.v, 0);
  if (name === 'mean') return Num.double(total / nums.length);
  // sum keeps the widest input type: Integer + Integer stays Integer unless it overflows.
  const wide = nums.some((x) => x.t === 'double' || x.t === 'float')
    ? 'double'
    : nums.some((x) => x.t === 'long') || total > 2147483647 || total < -2147483648
      ? 'long'
      : 'int';
  return new Num(total, wide);
}

const isLocal = (a: unknown): boolean => a instanceof Token && a.type === 'Scope' && a.name === 'local';

/** count, sum, min, max, mean, fold: of each tag's traversers, or with `local` of each object. */
const reducing: StepImpl = (c, o) => {
  if (isLocal(o.args[0])) {
    return mapBatch(c.ctx, async (b) =>
      b.map((t) => {
        const items = Array.isArray(t.obj)
          ? t.obj
          : t.obj instanceof GMap
            ? [...t.obj.entries()].map(([, v]) => v)
            : [t.obj];
        if (o.name === 'count') return Num.long(t.obj instanceof GMap ? t.obj.size : items.length);
        if (o.name === 'fold') return items;
        return numericReduce(o.name, items);
      }),
    );
  }
  if (o.name === 'count')
    return reduce(
      c.ctx,
      () => 0,
      (n) => n + 1,
      (n) => Num.long(n),
    );
  const push = (acc: Value[], t: Trav) => {
    acc.push(t.obj);
    return acc;
  };
  if (o.name === 'fold')
    return reduce<Value[]>(
      c.ctx,
      () => [],
      push,
      (acc) => acc,
    );
  return reduce<Value[]>(
    c.ctx,
    () => [],
    push,
    (acc, seen) => (seen ? numericReduce(o.name, acc) : undefined),
  );
};

const group: StepImpl = (c, o) => {
  const keyBy = o.by[0];
  const valBy = o.name === 'group' ? o.by[1] : undefined;
  return barrier(c.ctx, async (ts, tag) => {
    const keys = await c.byValues(keyBy, ts);
    const groups = new Map<string, { key: Value; members: Trav[] }>();
    ts.forEach((t, i) => {
      const k = keys[i];
      if (k === undefined) return;
      const kk = keyOf(k);
      let g = groups.get(kk);
      if (!g) {
        g = { key: k, members: [] };
        groups.set(kk, g);
      }
      g.members.push(t);
    });
    const m = new GMap();
    if (o.name === 'groupCount') {
      for (const g of groups.values()) m.set(g.key, Num.long(g.members.length));
      return [fresh(m, tag)];
    }
    const gs = [...groups.values()];
    if (valBy?.kind !== 'trav') {
      for (const g of gs) {
        const vals = await c.byValues(valBy, g.members);
        m.set(
          g.key,
          vals.filter((v): v is Value => v !== undefined),
        );
      }
      return [fresh(m, tag)];
    }
    // A value traversal runs over each group's members together (one tag per group): it
    // reduces them when it ends in a reducing step, else its results are folded.
    const base = c.ctx.tags(gs.length);
    const input = gs.flatMap((g, i) => g.members.map((t) => ({ ...t, tag: base + i })));
    const res: Value[][] = gs.map(() => []);
    for await (const b of valBy.pipe(
      once(input),
      gs.map((_, i) => base + i),
    ))
      for (const t of b) res[t.tag - base]!.push(t.obj);
    gs.forEach((g, i) => {
      if (valBy.reducing) {
        if (res[i]!.length > 0) m.set(g.key, res[i]![0]!);
      } else m.set(g.key, res[i]!);
    });
    return [fresh(m, tag)];
  });
};

/** order() of each tag's traversers by its by() modulators, or order(local) of a list or map. */
const order: StepImpl = (c, o) => {
  const local = o.args[0] instanceof Token && o.args[0].name === 'local';
  const bys = o.by.length > 0 ? o.by : [{ kind: 'identity' } as ByMod];
  const cmpFor = (by: ByMod) => (x: Value, y: Value) => {
    const r = orderValues(x, y);
    return by.order === 'desc' ? -r : r;
  };
  if (local) {
    return mapBatch(
      c.ctx,
      async (b) =>
        b.map((t) => {
          const v = t.obj;
          if (Array.isArray(v)) return [...v].sort(cmpFor(bys[0]!));
          if (v instanceof GMap) {
            const by = bys[0]!;
            const col = by.kind === 'token' && by.token.type === 'Column' ? by.token.name : 'keys';
            const entries = [...v.entries()].sort((p, q) =>
              cmpFor(by)(col === 'keys' ? p[0] : p[1], col === 'keys' ? q[0] : q[1]),
            );
            return GMap.of(entries);
          }
          return v;
        }),
      false,
    );
  }
  return barrier(c.ctx, async (ts) => {
    if (bys.some((b) => b.order === 'shuffle')) {
      const a = [...ts];
      for (let i = a.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [a[i], a[j]] = [a[j]!, a[i]!];
      }
      return a;
    }
    const cols = await Promise.all(bys.map((by) => c.byValues(by, ts)));
    const idx = ts.map((_, i) => i).filter((i) => cols.every((col) => col[i] !== undefined));
    idx.sort((i, j) => {
      for (let k = 0; k < bys.length; k++) {
        const r = cmpFor(bys[k]!)(cols[k]![i]!, cols[k]![j]!);
        if (r !== 0) return r;
      }
      return i - j;
    });
    return idx.map((i) => ts[i]!);
  });
};

export const AGGREGATE_STEPS: StepTable = {
  count: reducing,
  sum: reducing,
  min: reducing,
  max: reducing,
  mean: reducing,
  fold: reducing,
  group,
  groupCount: group,
  order,
};
