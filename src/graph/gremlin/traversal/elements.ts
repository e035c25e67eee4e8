// Reads of element data the steps share: property rows of a batch of elements, T tokens
// (id, label, key, value) and Column tokens of an object, vertex-property ids.
import type { PropRow } from '../store-access.js';
import { Edge, GMap, int32Hash, Num, Property, type Token, type Value, Vertex, VertexProperty } from '../values.js';
import type { QueryContext } from './context.js';
import type { Batch } from './traverser.js';

/** Property rows of elements, keyed by the element object. */
export async function props(
  ctx: QueryContext,
  elems: readonly (Vertex | Edge)[],
  keys?: readonly string[],
): Promise<Map<Vertex | Edge, PropRow[]>> {
  const vs = elems.filter((e) => e instanceof Vertex).map((v) => v.id);
  const es = elems.filter((e) => e instanceof Edge).map((e) => e.id);
  const vp = vs.length > 0 ? await ctx.store.props('vertex', vs, keys) : new Map<string, PropRow[]>();
  const ep = es.length > 0 ? await ctx.store.props('edge', es, keys) : new Map<string, PropRow[]>();
  const out = new Map<Vertex | Edge, PropRow[]>();
  for (const e of elems) out.set(e, (e instanceof Vertex ? vp.get(e.id) : ep.get(e.id)) ?? []);
  return out;
}

/** The vertices of a batch (to read their labels in one query). */
export const vertices = (b: Batch): Vertex[] => b.map((t) => t.obj).filter((x): x is Vertex => x instanceof Vertex);

/** The value of a T or Column token for an object (undefined where it has none). */
export async function tokenValue(ctx: QueryContext, tok: Token, obj: Value): Promise<Value | undefined> {
  if (tok.type === 'Column' && obj instanceof GMap && obj.size === 1) {
    const [[k, v]] = [...obj.entries()] as [[Value, Value]];
    return tok.name === 'keys' ? k : v;
  }
  if (tok.type !== 'T') return undefined;
  switch (tok.name) {
    case 'id':
      return obj instanceof Vertex || obj instanceof Edge
        ? obj.id
        : obj instanceof VertexProperty
          ? Num.long(obj.id)
          : undefined;
    case 'label':
      if (obj instanceof Vertex) {
        await ctx.resolveLabels([obj]);
        return obj.label!;
      }
      return obj instanceof Edge ? obj.label : obj instanceof VertexProperty ? obj.key : undefined;
    case 'key':
      return obj instanceof VertexProperty || obj instanceof Property ? obj.key : undefined;
    case 'value':
      return obj instanceof VertexProperty || obj instanceof Property ? obj.value : undefined;
  }
  return undefined;
}

/** A vertex property's id: stable for the same vertex, key and stored value. */
export const vpId = (vertexId: string, r: PropRow): number =>
  int32Hash(`${vertexId}\u0000${r.name}\u0000${r.type}\u0000${r.value}`);
