// Steps that map an object to values: properties and their values, id, label, key, value,
// valueMap/elementMap, project, constant, unfold (and identity). Property rows are read once per
// batch. https://tinkerpop.apache.org/docs/3.7.2/reference/#valuemap-step
import { MalformedQueryException } from '../../../generated/neptunedata/errors.js';
import { decodeStored } from '../store-access.js';
import { Edge, GMap, isElement, Path, Property, Token, type Value, Vertex, VertexProperty } from '../values.js';
import { props, tokenValue, vertices, vpId } from './elements.js';
import { flatMapBatch, mapBatch } from './pipes.js';
import { type StepImpl, type StepTable, str, strings } from './step-api.js';
import { fresh } from './traverser.js';

const T_ID = new Token('T', 'id');
const T_LABEL = new Token('T', 'label');

const propertyValues: StepImpl = (c, o) => {
  const keys = strings(o.args, `${o.name}()`);
  const asProps = o.name === 'properties';
  return flatMapBatch(c.ctx, async (b) => {
    const elems = b.map((t) => t.obj).filter(isElement);
    const rowsOf = await props(c.ctx, elems, keys.length > 0 ? keys : undefined);
    return b.map((t) => {
      const e = t.obj;
      // Meta-properties are not stored: values()/properties() of a property yield nothing.
      if (!isElement(e)) return [];
      const rows = rowsOf.get(e) ?? [];
      // values('a','b') returns a's values before b's, as the keys were asked.
      const ordered = keys.length > 1 ? keys.flatMap((k) => rows.filter((r) => r.name === k)) : rows;
      return ordered.map((r) => {
        const v = decodeStored(r.type, r.value);
        if (!asProps) return v;
        if (e instanceof Vertex) return new VertexProperty(vpId(e.id, r), r.name, v, e);
        return new Property(r.name, v, e);
      });
    });
  });
};

const keyOrValue: StepImpl = (c, o) =>
  mapBatch(c.ctx, async (b) =>
    b.map((t) =>
      t.obj instanceof VertexProperty || t.obj instanceof Property
        ? o.name === 'key'
          ? t.obj.key
          : t.obj.value
        : undefined,
    ),
  );

/** valueMap() and elementMap(): T tokens (with(WithOptions.tokens), valueMap(true)), properties. */
const elementMap: StepImpl = (c, o) => {
  const ctx = c.ctx;
  let tokens = o.name === 'elementMap';
  const keys: string[] = [];
  for (const x of o.args) {
    if (typeof x === 'boolean') tokens = x;
    else keys.push(str(x, `${o.name}()`));
  }
  for (const w of o.mods.get('with') ?? []) {
    const opt = w[0];
    if (opt === '~tinkerpop.valueMap.tokens' || (opt instanceof Token && opt.type === 'WithOptions')) {
      const which = w[1] instanceof Token ? w[1].name : opt instanceof Token ? opt.name : 'all';
      tokens = which !== 'none';
    }
  }
  const idAndLabel = (e: Vertex | Edge) =>
    GMap.of([
      [T_ID, e.id],
      [T_LABEL, e.label!],
    ]);
  return mapBatch(ctx, async (b) => {
    const elems = b.map((t) => t.obj).filter(isElement);
    if (tokens) await ctx.resolveLabels(elems.filter((e): e is Vertex => e instanceof Vertex));
    const rowsOf = await props(ctx, elems, keys.length > 0 ? keys : undefined);
    const withEnds = o.name === 'elementMap' ? elems.filter((e): e is Edge => e instanceof Edge) : [];
    await ctx.resolveLabels(withEnds.flatMap((e) => [e.inV, e.outV]));
    const maps = b.map((t) => {
      const e = t.obj;
      if (!isElement(e)) return undefined;
      const m = new GMap();
      if (tokens) {
        m.set(T_ID, e.id);
        m.set(T_LABEL, e.label!);
      }
      if (o.name === 'elementMap' && e instanceof Edge) {
        m.set(new Token('Direction', 'IN'), idAndLabel(e.inV));
        m.set(new Token('Direction', 'OUT'), idAndLabel(e.outV));
      }
      const rows = rowsOf.get(e) ?? [];
      const names = keys.length > 0 ? keys : [...new Set(rows.map((r) => r.name))];
      for (const n of names) {
        const vals = rows.filter((r) => r.name === n).map((r) => decodeStored(r.type, r.value));
        if (vals.length === 0) continue;
        // valueMap lists a vertex's values (multi-properties); edges and elementMap have one.
        m.set(n, o.name === 'valueMap' && e instanceof Vertex ? vals : vals[0]!);
      }
      return m;
    });
    // valueMap().by(unfold()): the modulator maps each property's value list.
    const by = o.by[0];
    if (by && o.name === 'valueMap') {
      const slots: [GMap, Value][] = [];
      for (const m of maps) if (m) for (const [k] of m.entries()) if (!(k instanceof Token)) slots.push([m, k]);
      const vals = await c.byValues(
        by,
        slots.map(([m, k]) => fresh(m.get(k)!, 0)),
      );
      slots.forEach(([m, k], i) => {
        const v = vals[i];
        if (v === undefined) m.delete(k);
        else m.set(k, v);
      });
    }
    return maps;
  });
};

const project: StepImpl = (c, o) => {
  const keys = strings(o.args, 'project()');
  if (keys.length === 0) throw new MalformedQueryException('project() needs at least one key');
  return mapBatch(c.ctx, async (b) => {
    const cols = await Promise.all(keys.map((_, i) => c.byValues(o.by.length ? o.by[i % o.by.length] : undefined, b)));
    return b.map((_, r) => {
      const m = new GMap();
      keys.forEach((k, i) => {
        const v = cols[i]![r];
        // TinkerPop 3.6+: an unproductive by() leaves its key out.
        if (v !== undefined) m.set(k, v);
      });
      return m;
    });
  });
};

export const MAP_STEPS: StepTable = {
  values: propertyValues,
  properties: propertyValues,
  key: keyOrValue,
  value: keyOrValue,
  id: (c) => mapBatch(c.ctx, async (b) => Promise.all(b.map((t) => tokenValue(c.ctx, T_ID, t.obj)))),
  label: (c) =>
    mapBatch(c.ctx, async (b) => {
      await c.ctx.resolveLabels(vertices(b));
      return Promise.all(b.map((t) => tokenValue(c.ctx, T_LABEL, t.obj)));
    }),
  valueMap: elementMap,
  elementMap,
  project,
  constant: (c, o) => {
    const v = o.args[0] as Value;
    return mapBatch(c.ctx, async (b) => b.map(() => v));
  },
  unfold: (c) =>
    flatMapBatch(c.ctx, async (b) =>
      b.map((t) => {
        const v = t.obj;
        if (Array.isArray(v)) return v;
        if (v instanceof GMap) return [...v.entries()].map(([k, x]) => GMap.of([[k, x]]));
        if (v instanceof Path) return [...v.objects];
        return [v];
      }),
    ),
  identity: () => (input) => input,
  barrier: () => (input) => input,
};
