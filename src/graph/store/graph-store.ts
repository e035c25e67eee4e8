// The graph store: opens its own database next to Slipway's (graph.db, or the <schema>_graph
// PostgreSQL schema) and offers the set-at-a-time reads and writes the loader and queries use.
// https://docs.aws.amazon.com/neptune/latest/userguide/feature-overview-data-model.html
import { availableParallelism } from 'node:os';
import { openDatabase } from '../../storage/db/index.js';
import type { Database, Queryable, SqlValue } from '../../storage/db/types.js';
import { GRAPH_MIGRATIONS, GRAPH_SECONDARY_INDEXES } from './migrations.js';
import { decodeValue } from './values.js';

export const GRAPH_SQLITE_FILE = 'graph.db';

export interface GraphStoreOptions {
  /** postgres:// URL, or absent for SQLite in dataDir. */
  readonly url?: string;
  readonly dataDir?: string;
  /** The main PostgreSQL schema; the graph lives in `<schema>_graph` (`slipway_graph` by default). */
  readonly schema?: string;
  /** SQLite file name (default graph.db; ':memory:' in tests). */
  readonly fileName?: string;
}

export function graphSchemaName(schema: string | undefined): string {
  return `${schema || 'slipway'}_graph`;
}

/** The page cache of the graph's writer connection, KiB (see openGraphDatabase). */
export const GRAPH_WRITER_CACHE_KIB = 262144;

export async function openGraphDatabase(o: GraphStoreOptions): Promise<Database> {
  const db = await openDatabase({
    url: o.url,
    dataDir: o.dataDir,
    fileName: o.fileName ?? GRAPH_SQLITE_FILE,
    schema: o.url ? graphSchemaName(o.schema) : undefined,
    migrations: GRAPH_MIGRATIONS,
    // 16 KiB pages: a bulk load of 2.3M records (index builds included) took 9.4 s instead of
    // 10.2 s with 4 KiB (64 KiB: 9.0 s, but every point lookup of a traversal would read 64 KiB).
    sqlitePageSize: 16384,
  });
  // Bulk loads touch large indexes: a 256 MiB page cache (SQLite's default is 2 MiB) keeps them
  // in memory instead of re-reading pages for every batch. The writer connection gets it.
  if (db.dialect === 'sqlite') await db.run(`PRAGMA cache_size = -${GRAPH_WRITER_CACHE_KIB}`);
  return db;
}

/** Rows per multi-row statement: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const CHUNK = 500;

function* chunks<T>(rows: readonly T[]): Generator<readonly T[]> {
  for (let i = 0; i < rows.length; i += CHUNK) yield rows.slice(i, i + CHUNK);
}

/** `flat` in parts of at most `per` values (itself when it fits in one). */
function* flatParts<T>(flat: readonly T[], per: number): Generator<readonly T[]> {
  if (flat.length <= per) yield flat;
  else for (let i = 0; i < flat.length; i += per) yield flat.slice(i, i + per);
}

/**
 * Sends one statement per part without waiting for the one before, and returns their results in
 * order. A connection runs its statements in the order they are sent (SQLite's, and its thread's:
 * see Database.threadTransaction, where waiting for each answer would cost a round trip each);
 * after a failure the transaction fails as a whole, whatever ran after it.
 */
async function inOrder<P, R>(parts: Iterable<P>, send: (part: P) => Promise<R>): Promise<R[]> {
  const sent: Promise<R>[] = [];
  for (const part of parts) sent.push(send(part));
  return Promise.all(sent);
}

const tupleCache = new Map<number, string>();

/** `(?,?),(?,?),…`: n tuples of width placeholders (cached: the same text hits the statement cache). */
const tuples = (n: number, width: number): string => {
  const key = n * 64 + width;
  let sql = tupleCache.get(key);
  if (sql === undefined) {
    const one = `(${new Array(width).fill('?').join(',')})`;
    sql = new Array(n).fill(one).join(',');
    if (tupleCache.size < 256) tupleCache.set(key, sql);
  }
  return sql;
};

const statementCache = new Map<string, string>();

/**
 * `${head} VALUES (…),(…)${tail}` for n rows, the same string object each time: the connection's
 * statement cache is keyed by the text, and a new concatenation of thousands of placeholders is
 * flattened and hashed again at every lookup.
 */
function valuesSql(head: string, n: number, width: number, tail = ''): string {
  const key = `${n}\u0000${width}\u0000${head}\u0000${tail}`;
  let sql = statementCache.get(key);
  if (sql === undefined) {
    sql = `${head} VALUES ${tuples(n, width)}${tail}`;
    if (statementCache.size < 512) statementCache.set(key, sql);
  }
  return sql;
}

/** Rows per PostgreSQL unnest() statement (its parameters are one array per column). */
const PG_CHUNK = 5000;

/** A PostgreSQL array literal of text values (NULL for null), bound as one text parameter. */
function pgArray(values: readonly (string | number | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === null || v === undefined) out += 'NULL';
    else {
      const t = String(v);
      out += `"${t.includes('"') || t.includes('\\') ? t.replace(/["\\]/g, '\\$&') : t}"`;
    }
  }
  return `${out}}`;
}

/**
 * PostgreSQL: `INSERT … SELECT * FROM unnest(?::text[], …)` with one array parameter per column.
 * A multi-row VALUES list of thousands of parameters costs PostgreSQL more to parse and plan than
 * to execute; this statement is the same short text for any number of rows.
 */
function pgUnnest(columns: readonly string[], types: readonly string[]): string {
  return `(${columns.join(', ')}) SELECT * FROM unnest(${types.map((t) => `?::${t}[]`).join(', ')})`;
}

export interface PropRow {
  readonly owner: string;
  readonly name: string;
  readonly type: string;
  readonly value: string;
  readonly num: number | null;
}

export interface EdgeRow {
  readonly id: string;
  readonly label: string;
  readonly from: string;
  readonly to: string;
}

/** An edge as graph_edges stores it: its endpoints by vertex number (see migration 0003). */
export interface NumberedEdge {
  readonly id: string;
  readonly label: string;
  readonly fromV: number;
  readonly toV: number;
}

/** A vertex id's number, for the rows that refer to the vertex; throws if the caller did not resolve it. */
function vnumOf(vnums: ReadonlyMap<string, number>, id: string): number {
  const n = vnums.get(id);
  if (n === undefined) throw new Error(`graph store: vertex '${id}' has no number here`);
  return n;
}

/**
 * An edge's columns with its endpoints' ids, for a `SELECT … FROM graph_edges e`: graph_edges
 * holds the endpoints by vertex number (migration 0003).
 */
export const EDGE_COLUMNS =
  'e.id AS id, e.label AS label, (SELECT f.id FROM graph_vertices f WHERE f.vnum = e.from_v) AS from_id, ' +
  '(SELECT t.id FROM graph_vertices t WHERE t.vnum = e.to_v) AS to_id';

/** Rows per staging statement: SQLite allows 32,766 parameters per statement. */
const STAGE_PARAMS = 32_000;

/**
 * Append-only staging table of the bulk path for edge properties (a SQLite temp table: private to
 * the writer connection, never seen by readers). Rows are appended in file order, then moved into
 * graph_edge_props in key order with one INSERT … SELECT … ORDER BY: a WITHOUT ROWID table filled
 * in key order appends to its last page, filled in file order (random ids) it splits pages all
 * over. Edges themselves go straight into graph_edges, a rowid table (see migration 0002).
 */
const STAGING_DDL = [
  'CREATE TEMP TABLE IF NOT EXISTS graph_stage_props (owner TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, value TEXT NOT NULL, num REAL)',
];

/**
 * SQLite's insert that skips rows whose key exists: `INSERT OR IGNORE` rather than `ON CONFLICT
 * DO NOTHING`. The two skip the same rows here (the graph tables' only other constraints are NOT
 * NULL, and no null reaches them), but the upsert form keeps ABORT for NOT NULL, so each
 * multi-row statement in the load's transaction opens a statement journal and copies there every
 * page it is about to change: 617 MB of temp-file writes in a 2.28M-record load.
 */
const ignoreInto = (target: string): string => `INSERT OR IGNORE INTO ${target}`;

/** Set-at-a-time writes inside one transaction; every method takes any number of rows. */
export class GraphWriter {
  constructor(private readonly q: Queryable) {}

  /**
   * Drops the secondary indexes (of `tables`) whose table is empty, for a bulk load to create
   * them once at its end (one sort) instead of inserting into them row by row. SQLite only: its
   * DDL is transactional and readers keep their snapshot, with the indexes, until the load commits;
   * PostgreSQL's DROP INDEX would lock readers out of the table for the whole load. Returns the
   * dropped indexes, for restoreIndexes() before the commit; a rollback restores them by itself.
   */
  async deferIndexes(tables: readonly string[]): Promise<string[]> {
    if (this.q.dialect !== 'sqlite') return [];
    const dropped: string[] = [];
    const empty = new Map<string, boolean>();
    for (const ix of GRAPH_SECONDARY_INDEXES) {
      if (!tables.includes(ix.table)) continue;
      if (!empty.has(ix.table)) empty.set(ix.table, !(await this.q.get(`SELECT 1 AS x FROM ${ix.table} LIMIT 1`)));
      if (!empty.get(ix.table)) continue;
      await this.q.run(`DROP INDEX IF EXISTS ${ix.name}`);
      dropped.push(ix.name);
    }
    return dropped;
  }

  /**
   * The page cache of a load (SQLite; a no-op elsewhere); returns what puts the connection's back.
   * A load into a graph with data gets GRAPH_WRITER_CACHE_KIB, for the indexes it inserts into.
   * A load into an empty graph (every secondary index deferred) gets 16 MiB: it fills its tables
   * near key order, so what it needs cached is the right edge of each B-tree, and the pages it
   * fills go to the WAL as it goes. With 256 MiB they stayed dirty in the cache until the index
   * builds shrank it (see restoreIndexes), and were spilled then, inside CREATE INDEX, which
   * always opens a statement journal: each spilled page was first copied there, ~700 MB of
   * temp-file writes in a 2.28M-record load (and 260 MB more peak RSS).
   */
  async loadCache(emptyGraph: boolean): Promise<() => Promise<void>> {
    if (this.q.dialect !== 'sqlite') return async () => {};
    const before = (await this.q.get<{ cache_size: number }>('PRAGMA cache_size'))!.cache_size;
    await this.q.run(`PRAGMA cache_size = -${emptyGraph ? 16384 : GRAPH_WRITER_CACHE_KIB}`);
    return async () => {
      await this.q.run(`PRAGMA cache_size = ${Math.trunc(before)}`).catch(() => {});
    };
  }

  /**
   * Creates again the indexes deferIndexes() dropped (those not created again already).
   *
   * SQLite sorts an index's entries in runs of at most its page cache size: with the loader's
   * 256 MiB cache, each index was one sort of up to 100 MB, on one thread. A 4 MiB cache for the
   * duration gives runs that sort within the CPU caches and, with PRAGMA threads, on helper threads
   * while the table is still being read: the five indexes of a 200k-vertex, 1M-edge load took
   * 1.4–1.5 s instead of 3.3 s (4 MiB and no threads: 2.1 s; 16 MiB and 2 threads: 2.1–2.3 s).
   */
  async restoreIndexes(names: readonly string[]): Promise<void> {
    const todo = GRAPH_SECONDARY_INDEXES.filter((ix) => names.includes(ix.name));
    if (todo.length === 0) return;
    const sqlite = this.q.dialect === 'sqlite';
    const before = sqlite
      ? {
          cache: (await this.q.get<{ cache_size: number }>('PRAGMA cache_size'))!.cache_size,
          threads: (await this.q.get<{ threads: number }>('PRAGMA threads'))!.threads,
        }
      : undefined;
    // Sent at once (see inOrder): the connection's settings are put back after the last index,
    // and on a thread connection even when one failed.
    const statements = [
      ...(before ? ['PRAGMA cache_size = -4096', `PRAGMA threads = ${Math.min(4, availableParallelism())}`] : []),
      ...todo.map((ix) => ix.sql),
      ...(before
        ? [`PRAGMA cache_size = ${Math.trunc(before.cache)}`, `PRAGMA threads = ${Math.trunc(before.threads)}`]
        : []),
    ];
    await inOrder(statements, (sql) => this.q.run(sql));
  }

  /** Whether the bulk path's staging tables can be used (SQLite only). */
  get canStage(): boolean {
    return this.q.dialect === 'sqlite';
  }

  /** Creates (once per connection) and empties the staging tables. */
  async resetStaging(): Promise<void> {
    for (const ddl of STAGING_DDL) await this.q.run(ddl);
    await this.q.run('DELETE FROM temp.graph_stage_props');
  }

  /**
   * Multi-row `INSERT OR IGNORE`s (see ignoreInto) of `rows` (flat, `width` values per row) of at
   * most STAGE_PARAMS values; returns the rows changed.
   */
  async #append(into: string, width: number, rows: readonly SqlValue[]): Promise<number> {
    // Every part is sent before the first answer is awaited, and nothing here holds `rows` while it
    // waits (a closure over it would): waiting between parts kept it alive for the whole write,
    // and with it, in a bulk load, each batch's strings and the text they were cut from, which the
    // young generation's collections then copied and promoted (a load took 5-7 % longer).
    const results = await inOrder(flatParts(rows, Math.floor(STAGE_PARAMS / width) * width), (part) =>
      this.q.run(valuesSql(ignoreInto(into), part.length / width, width), part),
    );
    let changes = 0;
    for (const r of results) changes += r.changes;
    return changes;
  }

  /**
   * The bulk path's edge insert (SQLite): appends edges (flat id, label, from_v, to_v) to graph_edges
   * in file order, skipping ids that conflict with graph_edges_by_id when that index exists;
   * returns how many were inserted. Without the index (deferred), ids are not checked here.
   */
  async appendEdges(flat: readonly SqlValue[]): Promise<number> {
    return this.#append('graph_edges (id, label, from_v, to_v)', 4, flat);
  }

  /** Creates graph_edges_by_id if a bulk load deferred it (before edges are inserted by id conflict). */
  async ensureEdgeIdIndex(): Promise<void> {
    if (this.q.dialect !== 'sqlite') return;
    await this.restoreIndexes(['graph_edges_by_id']);
  }

  /** Appends properties to the staging table: owner, name, type, value, num for each. */
  async stageProps(flat: readonly SqlValue[]): Promise<void> {
    await this.#append('temp.graph_stage_props', 5, flat);
  }

  /** Moves staged edge properties into graph_edge_props in key order; returns how many were new. */
  async commitStagedEdgeProps(): Promise<number> {
    const r = await this.q.run(
      `${ignoreInto('graph_edge_props (edge_id, name, type, value, num)')}
       SELECT owner, name, type, value, num FROM temp.graph_stage_props ORDER BY owner, name, type, value`,
    );
    await this.q.run('DELETE FROM temp.graph_stage_props');
    return r.changes;
  }

  /** Inserts the vertices that do not exist yet; returns the new ones' numbers by id. */
  async insertVertices(ids: readonly string[]): Promise<Map<string, number>> {
    const created = new Map<string, number>();
    if (this.q.dialect === 'postgres') {
      for (let i = 0; i < ids.length; i += PG_CHUNK) {
        const rows = await this.q.all<{ vnum: number; id: string }>(
          `INSERT INTO graph_vertices ${pgUnnest(['id'], ['text'])} ON CONFLICT DO NOTHING RETURNING vnum, id`,
          [pgArray(ids.slice(i, i + PG_CHUNK))],
        );
        for (const r of rows) created.set(r.id, Number(r.vnum));
      }
      return created;
    }
    const results = await inOrder(chunks(ids), (part) =>
      this.q.all<{ vnum: number; id: string }>(
        valuesSql(ignoreInto('graph_vertices (id)'), part.length, 1, ' RETURNING vnum, id'),
        part,
      ),
    );
    for (const rows of results) for (const r of rows) created.set(r.id, Number(r.vnum));
    return created;
  }

  /**
   * Inserts vertices with the numbers the caller gave them (flat vnum, id: a load into an empty
   * graph numbers its vertices itself, so nothing waits for an answer); returns how many were new.
   */
  async insertNumberedVertices(flat: readonly SqlValue[]): Promise<number> {
    if (this.q.dialect === 'postgres') {
      let changes = 0;
      for (let i = 0; i < flat.length; i += 2 * PG_CHUNK) {
        const part = flat.slice(i, i + 2 * PG_CHUNK);
        const r = await this.q.run(
          `INSERT INTO graph_vertices ${pgUnnest(['vnum', 'id'], ['bigint', 'text'])} ON CONFLICT DO NOTHING`,
          [
            pgArray(part.filter((_, k) => k % 2 === 0) as number[]),
            pgArray(part.filter((_, k) => k % 2 === 1) as string[]),
          ],
        );
        changes += r.changes;
      }
      // The identity column numbers the vertices inserted later from past these.
      await this.q.run(
        "SELECT setval(pg_get_serial_sequence('graph_vertices', 'vnum'), (SELECT max(vnum) FROM graph_vertices))",
      );
      return changes;
    }
    return this.#append('graph_vertices (vnum, id)', 2, flat);
  }

  /** The numbers of those of these vertex ids that exist. */
  async existingVertices(ids: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    const results = await inOrder(chunks(ids), (part) =>
      this.q.all<{ vnum: number; id: string }>(
        `SELECT vnum, id FROM graph_vertices WHERE id IN (${tuples(part.length, 1)})`,
        part,
      ),
    );
    for (const rows of results) for (const r of rows) found.set(r.id, Number(r.vnum));
    return found;
  }

  /** Adds labels (vertex number, label); returns how many were new (the rest were duplicates). */
  async insertLabels(pairs: readonly (readonly [number, string])[]): Promise<number> {
    let changes = 0;
    if (this.q.dialect === 'postgres') {
      for (let i = 0; i < pairs.length; i += PG_CHUNK) {
        const part = pairs.slice(i, i + PG_CHUNK);
        const r = await this.q.run(
          `INSERT INTO graph_vertex_labels ${pgUnnest(['vnum', 'label'], ['bigint', 'text'])} ON CONFLICT DO NOTHING`,
          [pgArray(part.map((p) => p[0])), pgArray(part.map((p) => p[1]))],
        );
        changes += r.changes;
      }
      return changes;
    }
    const results = await inOrder(chunks(pairs), (part) =>
      this.q.run(valuesSql(ignoreInto('graph_vertex_labels (vnum, label)'), part.length, 2), part.flat()),
    );
    for (const r of results) changes += r.changes;
    return changes;
  }

  /**
   * Adds property values of vertices (owners by id, numbered in `vnums`); returns how many were
   * new (identical values are duplicates).
   */
  async insertVertexProps(rows: readonly PropRow[], vnums: ReadonlyMap<string, number>): Promise<number> {
    return this.#insertProps('graph_vertex_props', 'vnum', rows, (id) => vnumOf(vnums, id));
  }

  async insertEdgeProps(rows: readonly PropRow[]): Promise<number> {
    return this.#insertProps('graph_edge_props', 'edge_id', rows, (id) => id);
  }

  async #insertProps(
    table: string,
    owner: string,
    rows: readonly PropRow[],
    key: (owner: string) => string | number,
  ): Promise<number> {
    let changes = 0;
    if (this.q.dialect === 'postgres') {
      const ownerType = owner === 'vnum' ? 'bigint' : 'text';
      const sql = `INSERT INTO ${table} ${pgUnnest([owner, 'name', 'type', 'value', 'num'], [ownerType, 'text', 'text', 'text', 'float8'])} ON CONFLICT DO NOTHING`;
      for (let i = 0; i < rows.length; i += PG_CHUNK) {
        const part = rows.slice(i, i + PG_CHUNK);
        const r = await this.q.run(sql, [
          pgArray(part.map((p) => key(p.owner))),
          pgArray(part.map((p) => p.name)),
          pgArray(part.map((p) => p.type)),
          pgArray(part.map((p) => p.value)),
          pgArray(part.map((p) => p.num)),
        ]);
        changes += r.changes;
      }
      return changes;
    }
    const results = await inOrder(chunks(rows), (part) => {
      const params = new Array<SqlValue>(part.length * 5);
      let k = 0;
      for (const r of part) {
        params[k++] = key(r.owner);
        params[k++] = r.name;
        params[k++] = r.type;
        params[k++] = r.value;
        params[k++] = r.num;
      }
      return this.q.run(valuesSql(ignoreInto(`${table} (${owner}, name, type, value, num)`), part.length, 5), params);
    });
    for (const r of results) changes += r.changes;
    return changes;
  }

  /** Current values of (owner, name) pairs, for single-cardinality checks (owners by id). */
  async vertexPropsOf(
    owners: readonly string[],
    names: readonly string[],
    vnums: ReadonlyMap<string, number>,
  ): Promise<PropRow[]> {
    return this.#propsOf(
      'graph_vertex_props p JOIN graph_vertices v ON v.vnum = p.vnum',
      'v.id',
      'p.vnum',
      [...new Set(owners)].map((id) => vnumOf(vnums, id)),
      names,
    );
  }

  async edgePropsOf(owners: readonly string[], names: readonly string[]): Promise<PropRow[]> {
    return this.#propsOf('graph_edge_props p', 'p.edge_id', 'p.edge_id', [...new Set(owners)], names);
  }

  async #propsOf(
    from: string,
    ownerOut: string,
    ownerKey: string,
    owners: readonly (string | number)[],
    names: readonly string[],
  ): Promise<PropRow[]> {
    const out: PropRow[] = [];
    const nameList = [...new Set(names)];
    for (const part of chunks(owners)) {
      const rows = await this.q.all<{ owner: string; name: string; type: string; value: string; num: number | null }>(
        `SELECT ${ownerOut} AS owner, p.name AS name, p.type AS type, p.value AS value, p.num AS num FROM ${from}
         WHERE ${ownerKey} IN (${tuples(part.length, 1)}) AND p.name IN (${tuples(nameList.length, 1)})`,
        [...part, ...nameList],
      );
      out.push(...rows);
    }
    return out;
  }

  async deleteVertexProp(vnum: number, name: string): Promise<void> {
    await this.q.run('DELETE FROM graph_vertex_props WHERE vnum = ? AND name = ?', [vnum, name]);
  }

  async deleteEdgeProp(owner: string, name: string): Promise<void> {
    await this.q.run('DELETE FROM graph_edge_props WHERE edge_id = ? AND name = ?', [owner, name]);
  }

  /** Inserts edges whose id is new; returns those ids. */
  async insertEdges(rows: readonly NumberedEdge[]): Promise<Set<string>> {
    const created = new Set<string>();
    if (this.q.dialect === 'postgres') {
      const sql = `INSERT INTO graph_edges ${pgUnnest(['id', 'label', 'from_v', 'to_v'], ['text', 'text', 'bigint', 'bigint'])} ON CONFLICT DO NOTHING RETURNING id`;
      for (let i = 0; i < rows.length; i += PG_CHUNK) {
        const part = rows.slice(i, i + PG_CHUNK);
        const res = await this.q.all<{ id: string }>(sql, [
          pgArray(part.map((e) => e.id)),
          pgArray(part.map((e) => e.label)),
          pgArray(part.map((e) => e.fromV)),
          pgArray(part.map((e) => e.toV)),
        ]);
        for (const r of res) created.add(r.id);
      }
      return created;
    }
    const results = await inOrder(chunks(rows), (part) => {
      const params: SqlValue[] = [];
      for (const e of part) params.push(e.id, e.label, e.fromV, e.toV);
      return this.q.all<{ id: string }>(
        valuesSql(ignoreInto('graph_edges (id, label, from_v, to_v)'), part.length, 4, ' RETURNING id'),
        params,
      );
    });
    for (const res of results) for (const r of res) created.add(r.id);
    return created;
  }

  async edgesById(ids: readonly string[]): Promise<Map<string, EdgeRow>> {
    const out = new Map<string, EdgeRow>();
    for (const part of chunks([...new Set(ids)])) {
      const rows = await this.q.all<{ id: string; label: string; from_id: string; to_id: string }>(
        `SELECT ${EDGE_COLUMNS} FROM graph_edges e WHERE e.id IN (${tuples(part.length, 1)})`,
        part,
      );
      for (const r of rows) out.set(r.id, { id: r.id, label: r.label, from: r.from_id, to: r.to_id });
    }
    return out;
  }

  /** Empties the graph (fast reset). Load history is cleared by the caller. */
  async clear(): Promise<void> {
    for (const t of [
      'graph_edge_props',
      'graph_edges',
      'graph_vertex_props',
      'graph_vertex_labels',
      'graph_vertices',
    ]) {
      // SQLite's DELETE without WHERE takes the truncate fast path; PostgreSQL has TRUNCATE.
      await this.q.run(this.q.dialect === 'postgres' ? `TRUNCATE ${t}` : `DELETE FROM ${t}`);
    }
  }
}

export type PropertyValue = string | number | boolean | bigint | Date;

export interface VertexView {
  readonly id: string;
  readonly labels: string[];
  readonly properties: Record<string, PropertyValue[]>;
}

export interface EdgeView {
  readonly id: string;
  readonly label: string;
  readonly from: string;
  readonly to: string;
  readonly properties: Record<string, PropertyValue>;
}

/** Point reads (tests, status, and a starting point for the query engine). */
export class GraphReader {
  constructor(private readonly q: Queryable) {}

  async vertex(id: string): Promise<VertexView | undefined> {
    const v = await this.q.get<{ vnum: number }>('SELECT vnum FROM graph_vertices WHERE id = ?', [id]);
    if (!v) return undefined;
    const labels = await this.q.all<{ label: string }>(
      'SELECT label FROM graph_vertex_labels WHERE vnum = ? ORDER BY label',
      [v.vnum],
    );
    const props = await this.q.all<{ name: string; type: string; value: string }>(
      'SELECT name, type, value FROM graph_vertex_props WHERE vnum = ? ORDER BY name, type, value',
      [v.vnum],
    );
    const properties: Record<string, PropertyValue[]> = {};
    for (const p of props) {
      properties[p.name] ??= [];
      properties[p.name]!.push(decodeValue(p.type, p.value));
    }
    return { id, labels: labels.map((l) => l.label), properties };
  }

  async edge(id: string): Promise<EdgeView | undefined> {
    const e = await this.q.get<{ id: string; label: string; from_id: string; to_id: string }>(
      `SELECT ${EDGE_COLUMNS} FROM graph_edges e WHERE e.id = ?`,
      [id],
    );
    if (!e) return undefined;
    const props = await this.q.all<{ name: string; type: string; value: string }>(
      'SELECT name, type, value FROM graph_edge_props WHERE edge_id = ? ORDER BY name',
      [id],
    );
    const properties: Record<string, PropertyValue> = {};
    for (const p of props) properties[p.name] = decodeValue(p.type, p.value);
    return { id: e.id, label: e.label, from: e.from_id, to: e.to_id, properties };
  }

  async counts(): Promise<{ vertices: number; edges: number; vertexProperties: number; edgeProperties: number }> {
    const n = async (t: string) => Number((await this.q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t}`))!.n);
    return {
      vertices: await n('graph_vertices'),
      edges: await n('graph_edges'),
      vertexProperties: await n('graph_vertex_props'),
      edgeProperties: await n('graph_edge_props'),
    };
  }
}
