// GraphSON v3 writer for query results, as Neptune answers /gremlin and the WebSocket endpoint:
// typed numbers, g:Vertex/g:Edge as references (id and label), g:Path, g:Map/g:List/g:Set, g:T.
// https://tinkerpop.apache.org/docs/3.7.2/dev/io/#graphson-3d0
import { Edge, GMap, Num, Path, Property, Token, type Value, Vertex, VertexProperty } from './values.js';

export type GraphSON = null | boolean | number | string | GraphSON[] | { [k: string]: GraphSON };

const typed = (type: string, value: GraphSON): GraphSON => ({ '@type': type, '@value': value });

const NUM_TYPES = { int: 'g:Int32', long: 'g:Int64', float: 'g:Float', double: 'g:Double' } as const;

function number(n: Num): GraphSON {
  // GraphSON writes NaN and the infinities as strings.
  const v = Number.isFinite(n.v) ? n.v : Number.isNaN(n.v) ? 'NaN' : n.v > 0 ? 'Infinity' : '-Infinity';
  return typed(NUM_TYPES[n.t], v);
}

/**
 * One value. Elements are references without properties, as TinkerPop 3.5+ servers (and
 * Neptune) return them; ask for properties with valueMap()/elementMap().
 */
export function toGraphSON(v: Value): GraphSON {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Num) return number(v);
  if (v instanceof Date) return typed('g:Date', v.getTime());
  if (v instanceof Vertex) return typed('g:Vertex', { id: v.id, label: v.label ?? 'vertex' });
  if (v instanceof Edge)
    return typed('g:Edge', {
      id: v.id,
      label: v.label,
      inVLabel: v.inV.label ?? 'vertex',
      outVLabel: v.outV.label ?? 'vertex',
      inV: v.inV.id,
      outV: v.outV.id,
    });
  if (v instanceof VertexProperty)
    return typed('g:VertexProperty', { id: typed('g:Int64', v.id), value: toGraphSON(v.value), label: v.key });
  if (v instanceof Property) return typed('g:Property', { key: v.key, value: toGraphSON(v.value) });
  if (v instanceof Path)
    return typed('g:Path', {
      labels: typed(
        'g:List',
        v.labels.map((l) => typed('g:Set', [...l])),
      ),
      objects: typed('g:List', v.objects.map(toGraphSON)),
    });
  if (v instanceof GMap) {
    const flat: GraphSON[] = [];
    for (const [k, x] of v.entries()) flat.push(toGraphSON(k), toGraphSON(x));
    return typed('g:Map', flat);
  }
  if (v instanceof Token) return typed(`g:${v.type}`, v.name);
  if (Array.isArray(v)) return typed('g:List', v.map(toGraphSON));
  return String(v);
}

/** A bytecode result: TinkerPop servers send traversers (value and bulk) to drivers. */
export function traverserGraphSON(v: Value): GraphSON {
  return typed('g:Traverser', { bulk: typed('g:Int64', 1), value: toGraphSON(v) });
}

export const EMPTY_MAP: GraphSON = typed('g:Map', []);
export const list = (items: GraphSON[]): GraphSON => typed('g:List', items);
