// Steps that write: addV, addE (from()/to() a label, traversal or vertex), property (with
// cardinality single, or T.id right after creation), drop. They run inside the query's
// transaction. https://tinkerpop.apache.org/docs/3.7.2/reference/#addvertex-step
import { randomUUID } from 'node:crypto';
import { ConstraintViolationException, MalformedQueryException } from '../../../generated/neptunedata/errors.js';
import { type Arg, Traversal } from '../steps.js';
import { Edge, isElement, Num, Property, Token, type Value, Vertex, VertexProperty } from '../values.js';
import type { QueryContext } from './context.js';
import { vertices } from './elements.js';
import { mapBatch, perBatch } from './pipes.js';
import { type StepImpl, type StepTable, str } from './step-api.js';
import { type Batch, selectLabel } from './traverser.js';

const addV: StepImpl = (c, o) => {
  const ctx = c.ctx;
  const label = o.args.length > 0 ? str(o.args[0], 'addV()') : 'vertex';
  return mapBatch(ctx, async (b) => {
    const out: Value[] = [];
    for (const _ of b) {
      const id = randomUUID();
      await ctx.store.addVertex(id, label.split('::'));
      out.push(ctx.vertex(id, label));
    }
    return out;
  });
};

const addE: StepImpl = (c, o) => {
  const ctx = c.ctx;
  const label = str(o.args[0], 'addE()');
  const end = (which: 'from' | 'to') => {
    const m = o.mods.get(which)?.[0]?.[0];
    if (m === undefined) return undefined;
    if (typeof m === 'string') return { label: m };
    if (m instanceof Traversal) return { pipe: c.compile(m.steps) };
    if (m instanceof Vertex) return { vertex: m };
    throw new MalformedQueryException(`${which}() takes a step label, a traversal or a vertex`);
  };
  const from = end('from');
  const to = end('to');
  const resolve = async (spec: ReturnType<typeof end>, b: Batch): Promise<(Value | undefined)[]> => {
    if (!spec) return b.map((t) => t.obj);
    if ('label' in spec) return b.map((t) => selectLabel(t, spec.label!, 'last'));
    if ('vertex' in spec) return b.map(() => spec.vertex);
    return (await c.runChild(spec.pipe!, b)).map((r) => r[0]?.obj);
  };
  return mapBatch(ctx, async (b) => {
    const fs = await resolve(from, b);
    const tos = await resolve(to, b);
    const out: (Value | undefined)[] = [];
    for (let i = 0; i < b.length; i++) {
      const f = fs[i];
      const t = tos[i];
      if (!(f instanceof Vertex) || !(t instanceof Vertex))
        throw new ConstraintViolationException('addE() needs a from and a to vertex');
      const exists = await ctx.store.existingVertices([f.id, t.id]);
      if (exists.length < (f.id === t.id ? 1 : 2))
        throw new ConstraintViolationException('addE(): the from or to vertex does not exist');
      const id = randomUUID();
      await ctx.store.addEdge(id, label, f.id, t.id);
      out.push(new Edge(id, label, f, t));
    }
    return out;
  });
};

const property: StepImpl = (c, o) => {
  const ctx = c.ctx;
  let single = false;
  let rest = o.args;
  if (rest[0] instanceof Token && rest[0].type === 'Cardinality') {
    single = rest[0].name === 'single';
    rest = rest.slice(1);
  }
  if (rest.length < 2 || rest.length % 2 !== 0) throw new MalformedQueryException('property() takes key, value pairs');
  const pairs: [Arg, Arg][] = [];
  for (let i = 0; i < rest.length; i += 2) pairs.push([rest[i]!, rest[i + 1]!]);
  const valuePipes = pairs.map(([, v]) => (v instanceof Traversal ? c.compile(v.steps) : undefined));
  return async function* (input) {
    for await (const b of input) {
      await ctx.tick();
      for (let p = 0; p < pairs.length; p++) {
        const [k, v] = pairs[p]!;
        const vals = valuePipes[p]
          ? (await c.runChild(valuePipes[p]!, b)).map((r) => r[0]?.obj)
          : b.map(() => v as Value);
        for (let i = 0; i < b.length; i++) {
          const e = b[i]!.obj;
          const val = vals[i];
          if (val === undefined || val === null) continue;
          if (k instanceof Token) {
            // DEVIATION(neptune): ids are set when the element is created; property(T.id, x)
            // right after addV()/addE() renames it here instead.
            if (k.name === 'id' && isElement(e)) {
              await renameElement(ctx, e, String(val instanceof Num ? val.v : val));
              continue;
            }
            throw new MalformedQueryException(`property() cannot set ${k.type}.${k.name}`);
          }
          const key = str(k, 'property()');
          if (e instanceof Vertex) await ctx.store.setVertexProp(e.id, key, val, single);
          else if (e instanceof Edge) await ctx.store.setEdgeProp(e.id, key, val);
        }
      }
      yield b;
    }
  };
};

async function renameElement(ctx: QueryContext, e: Vertex | Edge, id: string): Promise<void> {
  if (e instanceof Vertex) {
    if ((await ctx.store.existingVertices([id])).length > 0)
      throw new ConstraintViolationException(`Vertex with id already exists: ${id}`);
    await ctx.store.renameVertex(e.id, id);
  } else {
    if ((await ctx.store.edgesById([id])).size > 0)
      throw new ConstraintViolationException(`Edge with id already exists: ${id}`);
    await ctx.store.renameEdge(e.id, id);
  }
  (e as { id: string }).id = id;
}

/** drop(): elements and properties; yields nothing. */
const drop: StepImpl = (c) => {
  const ctx = c.ctx;
  return perBatch(ctx, async (b) => {
    const vs = vertices(b);
    const es = b.map((t) => t.obj).filter((x): x is Edge => x instanceof Edge);
    if (vs.length) await ctx.store.dropVertices(vs.map((v) => v.id));
    if (es.length) await ctx.store.dropEdges(es.map((e) => e.id));
    for (const t of b) {
      if (t.obj instanceof VertexProperty) await ctx.store.dropVertexProp(t.obj.element.id, t.obj.key, t.obj.value);
      else if (t.obj instanceof Property) await ctx.store.dropEdgeProp(t.obj.element.id, t.obj.key);
    }
    return [];
  });
};

export const MUTATION_STEPS: StepTable = { addV, addE, property, drop };
