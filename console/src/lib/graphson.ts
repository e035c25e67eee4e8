// GraphSON v3 (what Neptune's Gremlin HTTP endpoint answers) → plain values, and the vertices and
// edges a result holds and their names, for the graph page. https://tinkerpop.apache.org/docs/3.7.2/dev/io/#graphson-3d0
import { shortName } from './arn.js';

export interface GVertex {
  readonly id: string;
  readonly label: string;
  readonly properties: Record<string, unknown>;
}

export interface GEdge {
  readonly id: string;
  readonly label: string;
  readonly outV: string;
  readonly inV: string;
  readonly outVLabel?: string;
  readonly inVLabel?: string;
  readonly properties: Record<string, unknown>;
}

type Typed = { '@type': string; '@value': unknown };
const isTyped = (v: unknown): v is Typed => typeof v === 'object' && v !== null && '@type' in v && '@value' in v;

/** Plain JSON for display: numbers, strings, arrays, objects; vertices and edges tagged by `type`. */
export function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (!isTyped(v)) {
    if (typeof v === 'object' && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
    return v;
  }
  const x = v['@value'] as never;
  switch (v['@type']) {
    case 'g:List':
    case 'g:Set':
      return (x as unknown[]).map(plain);
    case 'g:Map': {
      const arr = x as unknown[];
      const out: Record<string, unknown> = {};
      for (let i = 0; i + 1 < arr.length; i += 2) {
        const k = plain(arr[i]);
        out[typeof k === 'object' ? JSON.stringify(k) : String(k)] = plain(arr[i + 1]);
      }
      return out;
    }
    case 'g:Vertex':
      return vertex(x);
    case 'g:Edge':
      return edge(x);
    case 'g:Path':
      return { type: 'path', objects: plain((x as { objects: unknown }).objects) };
    case 'g:VertexProperty':
    case 'g:Property':
      return plain((x as { value: unknown }).value);
    case 'g:T':
    case 'g:Direction':
      return String(x);
    // Times as people read them in a table, not epoch milliseconds.
    case 'g:Date':
    case 'g:Timestamp':
      return typeof x === 'number' ? new Date(x).toISOString() : x;
    default:
      return typeof x === 'object' ? plain(x) : x;
  }
}

function props(p: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, list] of Object.entries((p ?? {}) as Record<string, unknown>)) {
    const vals = (Array.isArray(list) ? list : [list]).map(plain);
    out[k] = vals.length === 1 ? vals[0] : vals;
  }
  return out;
}

function vertex(x: { id: unknown; label: string; properties?: unknown }): GVertex & { type: 'vertex' } {
  return { type: 'vertex', id: String(plain(x.id)), label: x.label, properties: props(x.properties) };
}

function edge(x: {
  id: unknown;
  label: string;
  outV: unknown;
  inV: unknown;
  outVLabel?: string;
  inVLabel?: string;
  properties?: unknown;
}): GEdge & {
  type: 'edge';
} {
  return {
    type: 'edge',
    id: String(plain(x.id)),
    label: x.label,
    outV: String(plain(x.outV)),
    inV: String(plain(x.inV)),
    outVLabel: x.outVLabel,
    inVLabel: x.inVLabel,
    properties: props(x.properties),
  };
}

/** Every vertex and edge anywhere in a result (inside lists, maps and paths too). */
export function graphOf(results: readonly unknown[]): { vertices: GVertex[]; edges: GEdge[] } {
  const vertices = new Map<string, GVertex>();
  const edges = new Map<string, GEdge>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
      return;
    }
    if (typeof v !== 'object' || v === null) return;
    const o = v as { type?: string } & Record<string, unknown>;
    if (o.type === 'vertex') vertices.set(String(o.id), o as unknown as GVertex);
    else if (o.type === 'edge') edges.set(String(o.id), o as unknown as GEdge);
    else for (const x of Object.values(o)) walk(x);
  };
  walk(results.map(plain));
  // An edge's ends are drawn even when the query returned only the edge.
  for (const e of edges.values()) {
    if (!vertices.has(e.outV)) vertices.set(e.outV, { id: e.outV, label: e.outVLabel ?? 'vertex', properties: {} });
    if (!vertices.has(e.inV)) vertices.set(e.inV, { id: e.inV, label: e.inVLabel ?? 'vertex', properties: {} });
  }
  return { vertices: [...vertices.values()], edges: [...edges.values()] };
}

/**
 * A vertex's name for the picture: its `name` property, else what the lineage exporter's columns
 * say (`type` and the short form of `sourceuri`, `sourcearn` or `arn`: "Model: output/model.tar.gz",
 * "Endpoint: my-endpoint"), else its id.
 */
export function vertexName(v: GVertex): string {
  const p = v.properties;
  const s = (k: string) => (typeof p[k] === 'string' && p[k] !== '' ? (p[k] as string) : undefined);
  const named = s('name') ?? s('Name');
  if (named) return named;
  const what = s('type') ?? s('sourcetype')?.replace(/^SageMaker/, '');
  const from = s('sourceuri') ?? s('sourcearn') ?? s('arn');
  if (from) return what ? `${what}: ${shortName(from)}` : shortName(from);
  return what ? `${what}: ${v.id}` : v.id;
}

/** Merges properties read afterwards (elementMap rows) into vertices an edge-only result left bare. */
export function withProperties(vertices: readonly GVertex[], rows: readonly unknown[]): GVertex[] {
  const byId = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    const o = plain(r) as Record<string, unknown>;
    if (o && typeof o === 'object' && o.id !== undefined) {
      const { id, label: _label, ...props } = o;
      byId.set(String(id), props);
    }
  }
  return vertices.map((v) => (byId.has(v.id) ? { ...v, properties: { ...byId.get(v.id), ...v.properties } } : v));
}

/** A Gremlin string literal. */
export const gremlinString = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
