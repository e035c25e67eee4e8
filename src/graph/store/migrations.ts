// Schema of the graph store's own database (graph.db, or the <schema>_graph PostgreSQL schema):
// a property graph with string ids, multi-label vertices and typed property values, indexed for
// traversal in both directions and for has(key, value) lookups.
// https://docs.aws.amazon.com/neptune/latest/userguide/feature-overview-data-model.html
import type { Migration } from '../../storage/db/types.js';

/**
 * One DDL list for both dialects. `KEY_TEXT` is a text column that is compared and sorted:
 * PostgreSQL gets COLLATE "C" so it orders bytewise like SQLite's BINARY collation (and compares
 * faster). `REAL8` is a double on both.
 */
function ddl(id: string, statements: readonly string[]): Migration {
  return {
    id,
    sqlite: statements.map((s) =>
      s.replaceAll('KEY_TEXT', 'TEXT').replaceAll('REAL8', 'REAL').replaceAll(' WITHOUT_ROWID', ' WITHOUT ROWID'),
    ),
    postgres: statements.map((s) =>
      s
        .replaceAll('KEY_TEXT', 'TEXT COLLATE "C"')
        .replaceAll('REAL8', 'DOUBLE PRECISION')
        .replaceAll(' WITHOUT_ROWID', ''),
    ),
  };
}

/**
 * The secondary indexes of the graph tables (the same text on both dialects, except
 * graph_edges_by_id: SQLite only, see 0002). The bulk loader drops the ones of tables that are
 * empty when a load starts and creates them again, with this DDL, before the load commits
 * (IF NOT EXISTS: the edge id index may have been created early, see GraphWriter.ensureEdgeIdIndex).
 */
export const GRAPH_SECONDARY_INDEXES = [
  {
    name: 'graph_vertex_labels_by_label',
    table: 'graph_vertex_labels',
    sql: 'CREATE INDEX IF NOT EXISTS graph_vertex_labels_by_label ON graph_vertex_labels (label, vertex_id)',
  },
  {
    name: 'graph_vertex_props_by_value',
    table: 'graph_vertex_props',
    sql: 'CREATE INDEX IF NOT EXISTS graph_vertex_props_by_value ON graph_vertex_props (name, value)',
  },
  // outE()/inE() by vertex, optionally narrowed by label.
  {
    name: 'graph_edges_out',
    table: 'graph_edges',
    sql: 'CREATE INDEX IF NOT EXISTS graph_edges_out ON graph_edges (from_id, label)',
  },
  {
    name: 'graph_edges_in',
    table: 'graph_edges',
    sql: 'CREATE INDEX IF NOT EXISTS graph_edges_in ON graph_edges (to_id, label)',
  },
  // SQLite: edge ids are unique through this index, not the table's key (0002).
  {
    name: 'graph_edges_by_id',
    table: 'graph_edges',
    sql: 'CREATE UNIQUE INDEX IF NOT EXISTS graph_edges_by_id ON graph_edges (id)',
  },
] as const;

const indexSql = (name: string): string => GRAPH_SECONDARY_INDEXES.find((i) => i.name === name)!.sql;

export const GRAPH_MIGRATIONS: readonly Migration[] = [
  ddl('0001_property_graph', [
    // Vertex ids are user-supplied strings (Neptune ids are strings); no surrogate keys, so a
    // traversal joins on the id it already has. No foreign keys: the loader checks endpoints
    // itself in bulk, and drop() must delete a vertex's labels, properties and edges explicitly.
    `CREATE TABLE graph_vertices (id KEY_TEXT PRIMARY KEY) WITHOUT_ROWID`,
    `CREATE TABLE graph_vertex_labels (
      vertex_id KEY_TEXT NOT NULL,
      label KEY_TEXT NOT NULL,
      PRIMARY KEY (vertex_id, label)
    ) WITHOUT_ROWID`,
    indexSql('graph_vertex_labels_by_label'),
    // Set cardinality: one row per distinct (type, value); single cardinality: one row per name.
    // value is the canonical text (see values.ts), num the number or epoch ms for range filters.
    `CREATE TABLE graph_vertex_props (
      vertex_id KEY_TEXT NOT NULL,
      name KEY_TEXT NOT NULL,
      type TEXT NOT NULL,
      value KEY_TEXT NOT NULL,
      num REAL8,
      PRIMARY KEY (vertex_id, name, type, value)
    ) WITHOUT_ROWID`,
    indexSql('graph_vertex_props_by_value'),
    `CREATE TABLE graph_edges (
      id KEY_TEXT PRIMARY KEY,
      label KEY_TEXT NOT NULL,
      from_id KEY_TEXT NOT NULL,
      to_id KEY_TEXT NOT NULL
    ) WITHOUT_ROWID`,
    indexSql('graph_edges_out'),
    indexSql('graph_edges_in'),
    // Edge properties are always single cardinality.
    `CREATE TABLE graph_edge_props (
      edge_id KEY_TEXT NOT NULL,
      name KEY_TEXT NOT NULL,
      type TEXT NOT NULL,
      value KEY_TEXT NOT NULL,
      num REAL8,
      PRIMARY KEY (edge_id, name)
    ) WITHOUT_ROWID`,
    // Bulk-load jobs (the most recent 1,024 are kept) and their error logs (10,000 per job).
    `CREATE TABLE graph_load_jobs (
      id KEY_TEXT PRIMARY KEY,
      seq BIGINT NOT NULL,
      source TEXT NOT NULL,
      status TEXT NOT NULL,
      doc TEXT NOT NULL
    )`,
    `CREATE INDEX graph_load_jobs_by_seq ON graph_load_jobs (seq)`,
    `CREATE TABLE graph_load_errors (
      load_id KEY_TEXT NOT NULL,
      seq BIGINT NOT NULL,
      error_code TEXT NOT NULL,
      error_message TEXT NOT NULL,
      file_name TEXT NOT NULL,
      record_num BIGINT NOT NULL,
      PRIMARY KEY (load_id, seq)
    )`,
  ]),
  // SQLite: graph_edges becomes a rowid table whose ids are unique through an index. Keyed by its
  // (random) id, every edge a bulk load inserted landed on a random page of the table, so the
  // loader staged edges in a temporary table and moved them in id order (1.5 s of a 10 s load,
  // plus 0.8 s of staging); appended in file order, the table costs nothing more than the staging
  // did, and the id index is built once at the end from 24-byte entries. The out/in indexes hold
  // rowids instead of ids. PostgreSQL tables are heaps with a separate primary-key index already.
  {
    id: '0002_edges_by_rowid',
    sqlite: [
      'CREATE TABLE graph_edges_v2 (id TEXT NOT NULL, label TEXT NOT NULL, from_id TEXT NOT NULL, to_id TEXT NOT NULL)',
      'INSERT INTO graph_edges_v2 (id, label, from_id, to_id) SELECT id, label, from_id, to_id FROM graph_edges ORDER BY id',
      'DROP TABLE graph_edges',
      'ALTER TABLE graph_edges_v2 RENAME TO graph_edges',
      indexSql('graph_edges_by_id'),
      indexSql('graph_edges_out'),
      indexSql('graph_edges_in'),
    ],
    postgres: [],
  },
];
