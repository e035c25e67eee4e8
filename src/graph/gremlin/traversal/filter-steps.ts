// Steps that keep or drop traversers: has() and its forms, is(), dedup(), and limit()/range()/
// tail() (limit stops pulling once every tag has enough, which ends a scan upstream).
// https://tinkerpop.apache.org/docs/3.7.2/reference/#has-step
import { MalformedQueryException } from '../../../generated/neptunedata/errors.js';
import { type Arg, Pred } from '../steps.js';
import { decodeStored } from '../store-access.js';
import { Edge, isElement, keyOf, Num, Property, Token, type Value, Vertex, VertexProperty } from '../values.js';
import { props, vertices } from './elements.js';
import { barrier, filterBatch, perBatch } from './pipes.js';
import { int, type StepImpl, type StepTable, str } from './step-api.js';
import { type Batch, chain, selectLabel } from './traverser.js';

const test = (p: Arg, v: Value): boolean => (p instanceof Pred ? p.test(v) : new Pred('eq', p as Value).test(v));
const anyOf = (list: readonly Arg[]) => (v: Value) =>
  list.some((x) => (Array.isArray(x) ? x.some((y) => test(y, v)) : test(x, v)));

const is: StepImpl = (c, o) => {
  const p = o.args[0] as Arg;
  return filterBatch(c.ctx, async (b) => b.map((t) => test(p, t.obj)));
};

const hasLabel: StepImpl = (c, o) => {
  const match = anyOf(o.args);
  return filterBatch(c.ctx, async (b) => {
    await c.ctx.resolveLabels(vertices(b));
    return b.map((t) => {
      // Neptune vertices may carry several labels (a::b); hasLabel matches any of them.
      if (t.obj instanceof Vertex) return t.obj.label!.split('::').some(match) || match(t.obj.label!);
      if (t.obj instanceof Edge) return match(t.obj.label);
      if (t.obj instanceof VertexProperty || t.obj instanceof Property) return match(t.obj.key);
      return false;
    });
  });
};

const hasId: StepImpl = (c, o) => {
  const match = anyOf(o.args);
  return filterBatch(c.ctx, async (b) =>
    b.map((t) =>
      isElement(t.obj) ? match(t.obj.id) : t.obj instanceof VertexProperty ? match(Num.long(t.obj.id)) : false,
    ),
  );
};

/** Elements whose property `key` exists (pred undefined) or has a value pred accepts. */
const hasProperty: StepImpl = (c, o) => {
  const key = str(o.args[0], `${o.name}()`);
  const pred = o.args[1];
  const absent = o.name === 'hasNot';
  return filterBatch(c.ctx, async (b) => {
    const rowsOf = await props(c.ctx, b.map((t) => t.obj).filter(isElement), [key]);
    return b.map((t) => {
      if (!isElement(t.obj)) return false;
      const rows = rowsOf.get(t.obj) ?? [];
      if (absent) return rows.length === 0;
      if (pred === undefined) return rows.length > 0;
      return rows.some((r) => test(pred, decodeStored(r.type, r.value)));
    });
  });
};

/** has(key) | has(key, value|P) | has(label, key, value|P) | has(T.id|T.label, value|P) */
const has: StepImpl = (c, o, first) => {
  const a = o.args;
  if (a.length < 1 || a.length > 3) throw new MalformedQueryException('has() takes one to three arguments');
  const [label, key, pred] = a.length === 3 ? [str(a[0], 'has()'), a[1]!, a[2]] : [undefined, a[0]!, a[1]];
  if (key instanceof Token) {
    if (key.type !== 'T' || pred === undefined) throw new MalformedQueryException('has() takes a key or T.id/T.label');
    return (key.name === 'id' ? hasId : hasLabel)(c, { ...o, args: [pred] }, first);
  }
  const propFilter = hasProperty(c, { ...o, args: pred === undefined ? [key] : [key, pred] }, first);
  return label !== undefined ? chain(hasLabel(c, { ...o, args: [label] }, first), propFilter) : propFilter;
};

const dedup: StepImpl = (c, o) => {
  const labels = o.args.filter((x): x is string => typeof x === 'string');
  const by = o.by[0];
  // What each tag has seen, per run of the pipe (a child traversal's run starts afresh).
  return (input, scope) => {
    const seen = new Map<number, Set<string>>();
    return perBatch(c.ctx, async (b) => {
      const keys: (Value | undefined)[] =
        labels.length > 0
          ? b.map((t) => labels.map((l) => selectLabel(t, l, 'last') ?? null))
          : await c.byValues(by, b);
      const out: Batch = [];
      b.forEach((t, i) => {
        const k = keys[i];
        if (k === undefined) return;
        let s = seen.get(t.tag);
        if (!s) {
          s = new Set();
          seen.set(t.tag, s);
        }
        const key = keyOf(k);
        if (s.has(key)) return;
        s.add(key);
        out.push(t);
      });
      return out;
    })(input, scope);
  };
};

/** limit(n), range(lo, hi) (hi -1: no end), tail(n): per tag. */
const rangeStep: StepImpl = (c, o) => {
  const ctx = c.ctx;
  const a = o.args.filter((x) => !(x instanceof Token));
  if (o.name === 'tail') {
    const n = a.length > 0 ? int(a[0], 'tail()') : 1;
    return barrier(ctx, async (ts) => ts.slice(Math.max(0, ts.length - n)));
  }
  const [lo, hi] = o.name === 'limit' ? [0, int(a[0], 'limit()')] : [int(a[0], 'range()'), int(a[1], 'range()')];
  return async function* (input, scope) {
    const seen = new Map<number, number>();
    let finished = 0;
    for await (const b of input) {
      await ctx.tick();
      const out: Batch = [];
      for (const t of b) {
        const n = seen.get(t.tag) ?? 0;
        seen.set(t.tag, n + 1);
        if (n >= lo && (hi < 0 || n < hi)) out.push(t);
        if (hi >= 0 && n + 1 === hi) finished++;
      }
      if (out.length > 0) yield out;
      // Every tag has all it needs: stop pulling (this ends the scan upstream).
      if (hi >= 0 && finished >= scope.length) return;
    }
  };
};

export const FILTER_STEPS: StepTable = {
  has,
  hasLabel,
  hasId,
  hasNot: hasProperty,
  is,
  dedup,
  limit: rangeStep,
  range: rangeStep,
  tail: rangeStep,
};
