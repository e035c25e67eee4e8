// Steps over a traverser's path: as() labels, path() (with round-robin by()), select() of
// labels or map keys, where() on labels or a traversal, simplePath()/cyclicPath().
// https://tinkerpop.apache.org/docs/3.7.2/reference/#path-step
import { MalformedQueryException } from '../../../generated/neptunedata/errors.js';
import { Pred, Traversal } from '../steps.js';
import { GMap, keyOf, Path, Token, type Value } from '../values.js';
import { filterBatch, mapBatch } from './pipes.js';
import { type StepImpl, type StepTable, str, strings } from './step-api.js';
import { fresh, type PathNode, pathNodes, selectLabel, type Trav } from './traverser.js';

const as: StepImpl = (_c, o) => {
  const labels = strings(o.args, 'as()');
  return async function* (input) {
    for await (const b of input)
      yield b.map((t) =>
        t.path
          ? { ...t, path: { obj: t.path.obj, labels: [...t.path.labels, ...labels], prev: t.path.prev } }
          : { ...t, path: { obj: t.obj, labels, prev: null } },
      );
  };
};

const path: StepImpl = (c, o) =>
  mapBatch(c.ctx, async (b) => {
    const paths = b.map(pathNodes);
    const labelsOf = (ns: PathNode[]) => ns.map((n) => n.labels);
    if (o.by.length === 0)
      return paths.map(
        (ns) =>
          new Path(
            labelsOf(ns),
            ns.map((n) => n.obj),
          ),
      );
    // by() modulators apply round-robin over the path's objects; evaluate each modulator once
    // over every object it applies to, across the batch.
    const slots: { p: number; j: number }[][] = o.by.map(() => []);
    paths.forEach((ns, p) => {
      ns.forEach((_, j) => {
        slots[j % o.by.length]!.push({ p, j });
      });
    });
    const vals: (Value | undefined)[][] = paths.map((ns) => new Array(ns.length));
    for (let k = 0; k < o.by.length; k++) {
      // The modulator sees only the object (a fresh path), so each distinct object is
      // evaluated once per batch: a vertex shared by many paths is read once.
      const index = new Map<string, number>();
      const starts: Trav[] = [];
      const which = slots[k]!.map(({ p, j }) => {
        const obj = paths[p]![j]!.obj;
        const key = keyOf(obj);
        let i = index.get(key);
        if (i === undefined) {
          i = starts.length;
          index.set(key, i);
          starts.push(fresh(obj, 0));
        }
        return i;
      });
      const res = await c.byValues(o.by[k], starts);
      slots[k]!.forEach(({ p, j }, n) => {
        vals[p]![j] = res[which[n]!];
      });
    }
    return paths.map((ns, p) =>
      vals[p]!.some((v) => v === undefined) ? undefined : new Path(labelsOf(ns), vals[p] as Value[]),
    );
  });

const select: StepImpl = (c, o) => {
  let pop = 'last';
  const keys: string[] = [];
  let column: string | undefined;
  for (const x of o.args) {
    if (x instanceof Token && x.type === 'Pop') pop = x.name;
    else if (x instanceof Token && x.type === 'Column') column = x.name;
    else keys.push(str(x, 'select()'));
  }
  if (column) {
    return mapBatch(c.ctx, async (b) =>
      b.map((t) => {
        const v = t.obj;
        if (v instanceof GMap) {
          const es = [...v.entries()];
          return es.map(([k, x]) => (column === 'keys' ? k : x));
        }
        return undefined;
      }),
    );
  }
  if (keys.length === 0) throw new MalformedQueryException('select() needs a key');
  return mapBatch(c.ctx, async (b) => {
    const picked = b.map((t) => keys.map((k) => selectLabel(t, k, pop)));
    const cols = await Promise.all(
      keys.map((_, i) =>
        c.byValues(
          o.by.length ? o.by[i % o.by.length] : undefined,
          picked.map((p, r) => ({ ...b[r]!, obj: p[i] ?? null })),
        ),
      ),
    );
    return b.map((_, r) => {
      if (picked[r]!.some((x) => x === undefined)) return undefined;
      const vals = keys.map((_, i) => cols[i]![r]);
      if (vals.some((v) => v === undefined)) return undefined;
      if (keys.length === 1) return vals[0]!;
      return GMap.of(keys.map((k, i) => [k, vals[i]!] as [Value, Value]));
    });
  });
};

const where: StepImpl = (c, o) => {
  const a = o.args;
  if (a[0] instanceof Traversal) {
    const pipe = c.compile(a[0].steps);
    return filterBatch(c.ctx, async (b) => (await c.runChild(pipe, b)).map((r) => r.length > 0));
  }
  // where(P) compares the current object with a labelled one; where('a', P) a labelled one with another.
  const [left, p] = a[0] instanceof Pred ? [undefined, a[0]] : [str(a[0], 'where()'), a[1]];
  if (!(p instanceof Pred)) throw new MalformedQueryException('where() takes a traversal or a predicate');
  const target = p.value;
  if (typeof target !== 'string')
    throw new MalformedQueryException('where(P) compares with a step label: use a string');
  const byL = o.by[0];
  const byR = o.by[1] ?? o.by[0];
  return filterBatch(c.ctx, async (b) => {
    const lhs = b.map((t) => (left === undefined ? t.obj : selectLabel(t, left, 'last')));
    const rhs = b.map((t) => selectLabel(t, target, 'last'));
    const lv = await c.byValues(
      byL,
      b.map((t, i) => ({ ...t, obj: lhs[i] ?? null })),
    );
    const rv = await c.byValues(
      byR,
      b.map((t, i) => ({ ...t, obj: rhs[i] ?? null })),
    );
    return b.map((_, i) => {
      if (lhs[i] === undefined || rhs[i] === undefined || lv[i] === undefined || rv[i] === undefined) return false;
      return new Pred(p.op, rv[i]!, p.other).test(lv[i]!);
    });
  });
};

/** simplePath() keeps paths that repeat no object, cyclicPath() those that do. */
const pathRepeats: StepImpl = (c, o) =>
  filterBatch(c.ctx, async (b) =>
    b.map((t) => {
      const seen = new Set<string>();
      let dup = false;
      for (let n = t.path; n; n = n.prev) {
        const k = keyOf(n.obj);
        if (seen.has(k)) dup = true;
        seen.add(k);
      }
      return o.name === 'simplePath' ? !dup : dup;
    }),
  );

export const PATH_STEPS: StepTable = {
  as,
  path,
  select,
  where,
  simplePath: pathRepeats,
  cyclicPath: pathRepeats,
};
