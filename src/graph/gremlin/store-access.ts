// Set-at-a-time reads and writes of the graph store for the Gremlin engine: every method takes a
// batch of ids and issues one query per 500 of them, so a traversal step costs a few queries per
// batch of traversers, never one per traverser.
// https://docs.aws.amazon.com/neptune/latest/userguide/feature-overview-data-model.html
import type { Queryable, SqlValue } from '../../storage/db/types.js';
import { EDGE_COLUMNS } from '../store/graph-store.js';
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

/** A vertex of a scan page and the key the next page starts after. */
export interface VertexPageRow {
  readonly id: string;
  readonly key: string | number;
}

/** Vertex scan filter pushed into SQL: labels (any of) and property equalities (all of). */
export interface VertexFilter {
  readonly labels?: readonly string[];
  readonly props?: readonly { name: string; type: string; value: string }[];
}

export class StoreAccess {
  constructor(readonly q: Queryable) {}

  /** Conditions on a vertex number expression: any of the labels, all of the property equalities. */
  #conds(f: VertexFilter, params: SqlValue[], vnum: string, skipFirstProp: boolean): string[] {
    const conds: string[] = [];
    if (f.labels && f.labels.length > 0) {
      conds.push(
        `EXISTS (SELECT 1 FROM graph_vertex_labels l WHERE l.vnum = ${vnum} AND l.label IN (${marks(f.labels.length)}))`,
      );
      params.push(...f.labels);
    }
    for (const p of (f.props ?? []).slice(skipFirstProp ? 1 : 0)) {
      conds.push(
        `EXISTS (SELECT 1 FROM graph_vertex_props p WHERE p.vnum = ${vnum} AND p.name = ? AND p.value = ? AND p.type = ?)`,
      );
      params.push(p.name, p.value, p.type);
    }
    return conds;
  }

  /**
   * The query behind a filtered vertex scan, driven by the most selective index at hand: the
   * (name, value) index for has(key, value), the (label, vnum) index for one label (both in vertex
   * number order, so pages are index ranges of numbers), else the vertex table's id index (pages
   * are ranges of ids). `key` is the column pages are keyed and ordered by.
   */
  #scan(
    f: VertexFilter,
    params: SqlValue[],
    after: string | number | null,
  ): { from: string; key: string; where: string[] } {
    const first = f.props?.[0];
    if (first) {
      params.push(first.name, first.value, first.type);
      const where = ['d.name = ?', 'd.value = ?', 'd.type = ?', ...this.#conds(f, params, 'd.vnum', true)];
      if (after !== null) {
        where.push('d.vnum > ?');
        params.push(after);
      }
      return { from: 'graph_vertex_props d', key: 'd.vnum', where };
    }
    if (f.labels?.length === 1) {
      params.push(f.labels[0]!);
      const where = ['d.label = ?'];
      if (after !== null) {
        where.push('d.vnum > ?');
        params.push(after);
      }
      return { from: 'graph_vertex_labels d', key: 'd.vnum', where };
    }
    const where = this.#conds(f, params, 'd.vnum', false);
    if (after !== null) {
      where.push('d.id > ?');
      params.push(after);
    }
    return { from: 'graph_vertices d', key: 'd.id', where };
  }

  /** One page of vertices after the key `after` (keyset paging: never more than a page held). */
  async vertexPage(f: VertexFilter, after: string | number | null, limit: number): Promise<VertexPageRow[]> {
    const params: SqlValue[] = [];
    const s = this.#scan(f, params, after);
    params.push(limit);
    const where = s.where.length ? ` WHERE ${s.where.join(' AND ')}` : '';
    const sql =
      s.key === 'd.id'
        ? `SELECT d.id AS id, d.id AS key FROM ${s.from}${where} ORDER BY d.id LIMIT ?`
        : `SELECT (SELECT v.id FROM graph_vertices v WHERE v.vnum = d.vnum) AS id, d.vnum AS key FROM ${s.from}${where} ORDER BY d.vnum LIMIT ?`;
    const rows = await this.q.all<{ id: string; key: string | number }>(sql, params);
    return rows.map((r) => ({ id: r.id, key: typeof r.key === 'string' ? r.key : Number(r.key) }));
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
      conds.push(`e.label IN (${marks(labels.length)})`);
      params.push(...labels);
    }
    if (after !== null) {
      conds.push('e.id > ?');
      params.push(after);
    }
    params.push(limit);
    return this.q.all<EdgeRow>(
      `SELECT ${EDGE_COLUMNS} FROM graph_edges e${conds.length ? ` WHERE ${conds.join(' AND ')}` : ''} ORDER BY e.id LIMIT ?`,
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
        `SELECT ${EDGE_COLUMNS} FROM graph_edges e WHERE e.id IN (${marks(part.length)})`,
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
    // x: the vertices given, o: the edges' other ends.
    const [near, far] = dir === 'out' ? ['from', 'to'] : ['to', 'from'];
    const out = new Map<string, EdgeRow[]>();
    for (const part of chunks([...new Set(vertexIds)])) {
      const params: SqlValue[] = [...part];
      let labelCond = '';
      if (labels.length > 0) {
        labelCond = ` AND e.label IN (${marks(labels.length)})`;
        params.push(...labels);
      }
      const rows = await this.q.all<EdgeRow>(
        `SELECT e.id AS id, e.label AS label, x.id AS ${near}_id, o.id AS ${far}_id
         FROM graph_vertices x JOIN graph_edges e ON e.${near}_v = x.vnum JOIN graph_vertices o ON o.vnum = e.${far}_v
         WHERE x.id IN (${marks(part.length)})${labelCond} ORDER BY x.id, e.label, e.id`,
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
        `SELECT v.id AS vertex_id, l.label AS label FROM graph_vertices v JOIN graph_vertex_labels l ON l.vnum = v.vnum
         WHERE v.id IN (${marks(part.length)}) ORDER BY v.id, l.label`,
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
    const [from, owner] =
      kind === 'vertex'
        ? ['graph_vertices v JOIN graph_vertex_props p ON p.vnum = v.vnum', 'v.id']
        : ['graph_edge_props p', 'p.edge_id'];
    const out = new Map<string, PropRow[]>();
    for (const part of chunks([...new Set(ids)])) {
      const params: SqlValue[] = [...part];
      let keyCond = '';
      if (keys && keys.length > 0) {
        keyCond = ` AND p.name IN (${marks(keys.length)})`;
        params.push(...keys);
      }
      const rows = await this.q.all<PropRow>(
        `SELECT ${owner} AS owner, p.name AS name, p.type AS type, p.value AS value FROM ${from}
         WHERE ${owner} IN (${marks(part.length)})${keyCond} ORDER BY ${owner}, p.name, p.type, p.value`,
        params,
      );
      for (const r of rows) pushTo(out, r.owner, r);
    }
    return out;
  }

  // --- writes (inside a transaction) ---

  /** A vertex's number, or undefined if it does not exist. */
  async #vnum(id: string): Promise<number | undefined> {
    const r = await this.q.get<{ vnum: number }>('SELECT vnum FROM graph_vertices WHERE id = ?', [id]);
    return r ? Number(r.vnum) : undefined;
  }

  async addVertex(id: string, labels: readonly string[]): Promise<boolean> {
    const r = await this.q.get<{ vnum: number }>(
      'INSERT INTO graph_vertices (id) VALUES (?) ON CONFLICT DO NOTHING RETURNING vnum',
      [id],
    );
    if (!r) return false;
    for (const l of labels) {
      await this.q.run('INSERT INTO graph_vertex_labels (vnum, label) VALUES (?, ?) ON CONFLICT DO NOTHING', [
        Number(r.vnum),
        l,
      ]);
    }
    return true;
  }

  /** Adds an edge between two existing vertices; false if its id is taken. */
  async addEdge(id: string, label: string, from: string, to: string): Promise<boolean> {
    const r = await this.q.run(
      `INSERT INTO graph_edges (id, label, from_v, to_v)
       SELECT ?, ?, f.vnum, t.vnum FROM graph_vertices f, graph_vertices t WHERE f.id = ? AND t.id = ?
       ON CONFLICT DO NOTHING`,
      [id, label, from, to],
    );
    return r.changes > 0;
  }

  async setVertexProp(id: string, name: string, v: Value, single: boolean): Promise<void> {
    const e = encodeStored(v);
    if (!e) return;
    const vnum = await this.#vnum(id);
    if (vnum === undefined) return;
    if (single) await this.q.run('DELETE FROM graph_vertex_props WHERE vnum = ? AND name = ?', [vnum, name]);
    await this.q.run(
      'INSERT INTO graph_vertex_props (vnum, name, type, value, num) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      [vnum, name, e.type, e.value, e.num],
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
      const rows = await this.q.all<{ vnum: number }>(
        `SELECT vnum FROM graph_vertices WHERE id IN (${marks(part.length)})`,
        part,
      );
      const vnums = rows.map((r) => Number(r.vnum));
      if (vnums.length === 0) continue;
      const m = marks(vnums.length);
      const edgeCond = `from_v IN (${m}) OR to_v IN (${m})`;
      await this.q.run(`DELETE FROM graph_edge_props WHERE edge_id IN (SELECT id FROM graph_edges WHERE ${edgeCond})`, [
        ...vnums,
        ...vnums,
      ]);
      await this.q.run(`DELETE FROM graph_edges WHERE ${edgeCond}`, [...vnums, ...vnums]);
      await this.q.run(`DELETE FROM graph_vertex_props WHERE vnum IN (${m})`, vnums);
      await this.q.run(`DELETE FROM graph_vertex_labels WHERE vnum IN (${m})`, vnums);
      await this.q.run(`DELETE FROM graph_vertices WHERE vnum IN (${m})`, vnums);
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
    await this.q.run(
      'DELETE FROM graph_vertex_props WHERE vnum = (SELECT vnum FROM graph_vertices WHERE id = ?) AND name = ? AND type = ? AND value = ?',
      [id, name, e.type, e.value],
    );
  }

  async dropEdgeProp(id: string, name: string): Promise<void> {
    await this.q.run('DELETE FROM graph_edge_props WHERE edge_id = ? AND name = ?', [id, name]);
  }

  /** Gives a vertex another id (the new id must be free); the rows that refer to it hold its number. */
  async renameVertex(from: string, to: string): Promise<void> {
    await this.q.run('UPDATE graph_vertices SET id = ? WHERE id = ?', [to, from]);
  }

  /** Gives an edge another id (the new id must be free). */
  async renameEdge(from: string, to: string): Promise<void> {
    await this.q.run('UPDATE graph_edges SET id = ? WHERE id = ?', [to, from]);
    await this.q.run('UPDATE graph_edge_props SET edge_id = ? WHERE edge_id = ?', [to, from]);
  }
}
