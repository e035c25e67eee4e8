// Set-at-a-time reads and writes of the graph store for the Gremlin engine: every method takes a
// batch of ids and issues one query per 500 of them, so a traversal step costs a few queries per
// batch of traversers, never one per traverser.
// https://docs.aws.amazon.com/neptune/latest/userguide/feature-overview-data-model.html
import type { Queryable, SqlValue } from '../../storage/db/types.js';
import { parseValue, type ValueType } from '../store/values.js';
import { Num, type Value } from './values.js';

const CHUNK = 500;
const marks = (n: number) => new Array(n).fill('?').join(',');
/** Adds v to the list of k. */
const pushTo = <K, V>(m: Map<K, V[]>, k: K, v: V): void => {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
};

function* chunks<T>(xs: readonly T[]): Generator<T[]> {
  for (let i = 0; i < xs.length; i += CHUNK) yield xs.slice(i, i + CHUNK);
}

export type PropRow = {
  readonly owner: string;
  readonly name: string;
  readonly type: string;
  readonly value: string;
};

export type EdgeRow = {
  readonly id: string;
  readonly label: string;
  readonly from_id: string;
  readonly to_id: string;
};

/** A stored (type, text) pair as an engine value. */
export function decodeStored(type: string, text: string): Value {
  switch (type) {
    case 'bool':
      return text === 'true';
    case 'byte':
    case 'short':
    case 'int':
      return Num.int(Number(text));
    case 'long':
      return Num.long(Number(text));
    case 'float':
      return new Num(Number(text), 'float');
    case 'double':
      return Num.double(Number(text));
    case 'date':
      return new Date(text);
    default:
      return text;
  }
}

/** An engine value as the store keeps it: type tag, canonical text, numeric column. */
export function encodeStored(v: Value): { type: ValueType; value: string; num: number | null } | undefined {
  if (typeof v === 'string') return { type: 'string', value: v, num: null };
  if (typeof v === 'boolean') return { type: 'bool', value: String(v), num: null };
  if (v instanceof Date) return { type: 'date', value: v.toISOString(), num: v.getTime() };
  if (v instanceof Num) {
    const t: ValueType = v.t;
    return parseValue(t, String(v.v)) ?? { type: 'double', value: String(v.v), num: v.v };
  }
  return undefined;
}

/** Vertex scan filter pushed into SQL: labels (any of) and property equalities (all of). */
export interface VertexFilter {
  readonly labels?: readonly string[];
  readonly props?: readonly { name: string; type: string; value: string }[];
}

export class StoreAccess {
  constructor(readonly q: Queryable) {}

  /** Conditions on a vertex id expression: any of the labels, all of the property equalities. */
  #conds(f: VertexFilter, params: SqlValue[], id: string, skipFirstProp: boolean): string[] {
    const conds: string[] = [];
    if (f.labels && f.labels.length > 0) {
      conds.push(
        `EXISTS (SELECT 1 FROM graph_vertex_labels l WHERE l.vertex_id = ${id} AND l.label IN (${marks(f.labels.length)}))`,
      );
      params.push(...f.labels);
    }
    for (const p of (f.props ?? []).slice(skipFirstProp ? 1 : 0)) {
      conds.push(
        `EXISTS (SELECT 1 FROM graph_vertex_props p WHERE p.vertex_id = ${id} AND p.name = ? AND p.value = ? AND p.type = ?)`,
      );
      params.push(p.name, p.value, p.type);
    }
    return conds;
  }

  /**
   * The query behind a filtered vertex scan, driven by the most selective index at hand: the
   * (name, value) index for has(key, value), the (label, vertex_id) index for one label, else the
   * vertex table. Each gives ids in order, so pages are index ranges.
   */
  #scan(f: VertexFilter, params: SqlValue[], after: string | null): { from: string; id: string; where: string[] } {
    const first = f.props?.[0];
    if (first) {
      params.push(first.name, first.value, first.type);
      const where = ['d.name = ?', 'd.value = ?', 'd.type = ?', ...this.#conds(f, params, 'd.vertex_id', true)];
      if (after !== null) {
        where.push('d.vertex_id > ?');
        params.push(after);
      }
      return { from: 'graph_vertex_props d', id: 'd.vertex_id', where };
    }
    if (f.labels?.length === 1) {
      params.push(f.labels[0]!);
      const where = ['d.label = ?'];
      if (after !== null) {
        where.push('d.vertex_id > ?');
        params.push(after);
      }
      return { from: 'graph_vertex_labels d', id: 'd.vertex_id', where };
    }
    const where = this.#conds(f, params, 'd.id', false);
    if (after !== null) {
      where.push('d.id > ?');
      params.push(after);
    }
    return { from: 'graph_vertices d', id: 'd.id', where };
  }

  /** One page of vertex ids after `after`, in id order (keyset paging: never more than a page held). */
  async vertexPage(f: VertexFilter, after: string | null, limit: number): Promise<string[]> {
    const params: SqlValue[] = [];
    const s = this.#scan(f, params, after);
    params.push(limit);
    const rows = await this.q.all<{ id: string }>(
      `SELECT ${s.id} AS id FROM ${s.from}${s.where.length ? ` WHERE ${s.where.join(' AND ')}` : ''} ORDER BY ${s.id} LIMIT ?`,
      params,
    );
    return rows.map((r) => r.id);
  }

  async countVertices(f: VertexFilter): Promise<number> {
    const params: SqlValue[] = [];
    const s = this.#scan(f, params, null);
    const r = await this.q.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM ${s.from}${s.where.length ? ` WHERE ${s.where.join(' AND ')}` : ''}`,
      params,
    );
    return Number(r?.n ?? 0);
  }

  /** Which of these vertex ids exist (in the order given). */
  async existingVertices(ids: readonly string[]): Promise<string[]> {
    const found = new Set<string>();
    for (const part of chunks([...new Set(ids)])) {
      const rows = await this.q.all<{ id: string }>(
        `SELECT id FROM graph_vertices WHERE id IN (${marks(part.length)})`,
        part,
      );
      for (const r of rows) found.add(r.id);
    }
    return ids.filter((id) => found.has(id));
  }

  async edgePage(labels: readonly string[] | undefined, after: string | null, limit: number): Promise<EdgeRow[]> {
    const params: SqlValue[] = [];
    const conds: string[] = [];
    if (labels && labels.length > 0) {
      conds.push(`label IN (${marks(labels.length)})`);
      params.push(...labels);
    }
    if (after !== null) {
      conds.push('id > ?');
      params.push(after);
    }
    params.push(limit);
    return this.q.all<EdgeRow>(
      `SELECT id, label, from_id, to_id FROM graph_edges${conds.length ? ` WHERE ${conds.join(' AND ')}` : ''} ORDER BY id LIMIT ?`,
      params,
    );
  }

  async countEdges(labels: readonly string[] | undefined): Promise<number> {
    const r = await this.q.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM graph_edges${labels?.length ? ` WHERE label IN (${marks(labels.length)})` : ''}`,
      labels ? [...labels] : [],
    );
    return Number(r?.n ?? 0);
  }

  async edgesById(ids: readonly string[]): Promise<Map<string, EdgeRow>> {
    const out = new Map<string, EdgeRow>();
    for (const part of chunks([...new Set(ids)])) {
      const rows = await this.q.all<EdgeRow>(
        `SELECT id, label, from_id, to_id FROM graph_edges WHERE id IN (${marks(part.length)})`,
        part,
      );
      for (const r of rows) out.set(r.id, r);
    }
    return out;
  }

  /** Edges touching these vertices in one direction, optionally of some labels; grouped by vertex. */
  async incident(
    vertexIds: readonly string[],
    dir: 'out' | 'in',
    labels: readonly string[],
  ): Promise<Map<string, EdgeRow[]>> {
    const col = dir === 'out' ? 'from_id' : 'to_id';
    const out = new Map<string, EdgeRow[]>();
    for (const part of chunks([...new Set(vertexIds)])) {
      const params: SqlValue[] = [...part];
      let labelCond = '';
      if (labels.length > 0) {
        labelCond = ` AND label IN (${marks(labels.length)})`;
        params.push(...labels);
      }
      const rows = await this.q.all<EdgeRow>(
        `SELECT id, label, from_id, to_id FROM graph_edges WHERE ${col} IN (${marks(part.length)})${labelCond} ORDER BY ${col}, label, id`,
        params,
      );
      for (const r of rows) pushTo(out, dir === 'out' ? r.from_id : r.to_id, r);
    }
    return out;
  }

  /** Labels of vertices, sorted, per vertex. */
  async labels(ids: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const part of chunks([...new Set(ids)])) {
      const rows = await this.q.all<{ vertex_id: string; label: string }>(
        `SELECT vertex_id, label FROM graph_vertex_labels WHERE vertex_id IN (${marks(part.length)}) ORDER BY vertex_id, label`,
        part,
      );
      for (const r of rows) pushTo(out, r.vertex_id, r.label);
    }
    return out;
  }

  /** Properties of vertices or edges, optionally only some keys, per owner in (name, value) order. */
  async props(
    kind: 'vertex' | 'edge',
    ids: readonly string[],
    keys?: readonly string[],
  ): Promise<Map<string, PropRow[]>> {
    const table = kind === 'vertex' ? 'graph_vertex_props' : 'graph_edge_props';
    const owner = kind === 'vertex' ? 'vertex_id' : 'edge_id';
    const out = new Map<string, PropRow[]>();
    for (const part of chunks([...new Set(ids)])) {
      const params: SqlValue[] = [...part];
      let keyCond = '';
      if (keys && keys.length > 0) {
        keyCond = ` AND name IN (${marks(keys.length)})`;
        params.push(...keys);
      }
      const rows = await this.q.all<PropRow>(
        `SELECT ${owner} AS owner, name, type, value FROM ${table} WHERE ${owner} IN (${marks(part.length)})${keyCond} ORDER BY ${owner}, name, type, value`,
        params,
      );
      for (const r of rows) pushTo(out, r.owner, r);
    }
    return out;
  }

  // --- writes (inside a transaction) ---

  async addVertex(id: string, labels: readonly string[]): Promise<boolean> {
    const r = await this.q.run('INSERT INTO graph_vertices (id) VALUES (?) ON CONFLICT DO NOTHING', [id]);
    if (r.changes === 0) return false;
    for (const l of labels) {
      await this.q.run('INSERT INTO graph_vertex_labels (vertex_id, label) VALUES (?, ?) ON CONFLICT DO NOTHING', [
        id,
        l,
      ]);
    }
    return true;
  }

  async addEdge(id: string, label: string, from: string, to: string): Promise<boolean> {
    const r = await this.q.run(
      'INSERT INTO graph_edges (id, label, from_id, to_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
      [id, label, from, to],
    );
    return r.changes > 0;
  }

  async setVertexProp(id: string, name: string, v: Value, single: boolean): Promise<void> {
    const e = encodeStored(v);
    if (!e) return;
    if (single) await this.q.run('DELETE FROM graph_vertex_props WHERE vertex_id = ? AND name = ?', [id, name]);
    await this.q.run(
      'INSERT INTO graph_vertex_props (vertex_id, name, type, value, num) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      [id, name, e.type, e.value, e.num],
    );
  }

  async setEdgeProp(id: string, name: string, v: Value): Promise<void> {
    const e = encodeStored(v);
    if (!e) return;
    await this.q.run('DELETE FROM graph_edge_props WHERE edge_id = ? AND name = ?', [id, name]);
    await this.q.run('INSERT INTO graph_edge_props (edge_id, name, type, value, num) VALUES (?, ?, ?, ?, ?)', [
      id,
      name,
      e.type,
      e.value,
      e.num,
    ]);
  }

  async dropVertices(ids: readonly string[]): Promise<void> {
    for (const part of chunks([...new Set(ids)])) {
      const m = marks(part.length);
      const edgeCond = `from_id IN (${m}) OR to_id IN (${m})`;
      await this.q.run(`DELETE FROM graph_edge_props WHERE edge_id IN (SELECT id FROM graph_edges WHERE ${edgeCond})`, [
        ...part,
        ...part,
      ]);
      await this.q.run(`DELETE FROM graph_edges WHERE ${edgeCond}`, [...part, ...part]);
      await this.q.run(`DELETE FROM graph_vertex_props WHERE vertex_id IN (${m})`, part);
      await this.q.run(`DELETE FROM graph_vertex_labels WHERE vertex_id IN (${m})`, part);
      await this.q.run(`DELETE FROM graph_vertices WHERE id IN (${m})`, part);
    }
  }

  async dropEdges(ids: readonly string[]): Promise<void> {
    for (const part of chunks([...new Set(ids)])) {
      const m = marks(part.length);
      await this.q.run(`DELETE FROM graph_edge_props WHERE edge_id IN (${m})`, part);
      await this.q.run(`DELETE FROM graph_edges WHERE id IN (${m})`, part);
    }
  }

  async dropVertexProp(id: string, name: string, v: Value): Promise<void> {
    const e = encodeStored(v);
    if (!e) return;
    await this.q.run('DELETE FROM graph_vertex_props WHERE vertex_id = ? AND name = ? AND type = ? AND value = ?', [
      id,
      name,
      e.type,
      e.value,
    ]);
  }

  async dropEdgeProp(id: string, name: string): Promise<void> {
    await this.q.run('DELETE FROM graph_edge_props WHERE edge_id = ? AND name = ?', [id, name]);
  }

  /** Gives a vertex another id, in every table that names it (the new id must be free). */
  async renameVertex(from: string, to: string): Promise<void> {
    for (const [t, c] of [
      ['graph_vertices', 'id'],
      ['graph_vertex_labels', 'vertex_id'],
      ['graph_vertex_props', 'vertex_id'],
      ['graph_edges', 'from_id'],
      ['graph_edges', 'to_id'],
    ] as const) {
      await this.q.run(`UPDATE ${t} SET ${c} = ? WHERE ${c} = ?`, [to, from]);
    }
  }

  /** Gives an edge another id (the new id must be free). */
  async renameEdge(from: string, to: string): Promise<void> {
    await this.q.run('UPDATE graph_edges SET id = ? WHERE id = ?', [to, from]);
    await this.q.run('UPDATE graph_edge_props SET edge_id = ? WHERE edge_id = ?', [to, from]);
  }
}
