import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrate, openDatabase } from '../../storage/db/index.js';
import { GraphReader } from './graph-store.js';
import { DIALECTS } from '../../../test/support/databases.js';
import { GRAPH_MIGRATIONS } from './migrations.js';

test('0002 turns a graph.db made by 0001 into a rowid edge table, keeping every edge and index', async () => {
  const db = await openDatabase({ fileName: ':memory:', migrations: GRAPH_MIGRATIONS.slice(0, 1) });
  try {
    await db.run("INSERT INTO graph_vertices (id) VALUES ('a'), ('b')");
    await db.run(
      "INSERT INTO graph_edges (id, label, from_id, to_id) VALUES ('e2', 'x', 'b', 'a'), ('e1', 'x', 'a', 'b')",
    );
    await migrate(db, GRAPH_MIGRATIONS.slice(0, 2));
    assert.deepEqual(await db.all('SELECT id, label, from_id, to_id FROM graph_edges ORDER BY rowid'), [
      { id: 'e1', label: 'x', from_id: 'a', to_id: 'b' },
      { id: 'e2', label: 'x', from_id: 'b', to_id: 'a' },
    ]);
    const indexes = await db.all<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'graph_edges' ORDER BY name",
    );
    assert.deepEqual(
      indexes.map((r) => r.name),
      ['graph_edges_by_id', 'graph_edges_in', 'graph_edges_out'],
    );
    // Ids stay unique: ON CONFLICT sees the index.
    const r = await db.run(
      "INSERT INTO graph_edges (id, label, from_id, to_id) VALUES ('e1', 'y', 'b', 'b') ON CONFLICT DO NOTHING",
    );
    assert.equal(r.changes, 0);
  } finally {
    await db.close();
  }
});

for (const dialect of DIALECTS) {
  test(`0003 numbers the vertices of a graph made by 0002 (${dialect.name}): every vertex, label, property and edge is kept`, async () => {
    const t = await dialect.open(GRAPH_MIGRATIONS.slice(0, 2));
    const db = t.db;
    try {
      await db.run("INSERT INTO graph_vertices (id) VALUES ('b'), ('a'), ('c')");
      await db.run("INSERT INTO graph_vertex_labels (vertex_id, label) VALUES ('a', 'x'), ('a', 'y'), ('b', 'x')");
      await db.run(
        "INSERT INTO graph_vertex_props (vertex_id, name, type, value, num) VALUES ('a', 'n', 'int', '7', 7), ('b', 's', 'string', 'hi', NULL)",
      );
      await db.run(
        "INSERT INTO graph_edges (id, label, from_id, to_id) VALUES ('e2', 'r', 'b', 'a'), ('e1', 'r', 'a', 'c')",
      );
      await db.run(
        "INSERT INTO graph_edge_props (edge_id, name, type, value, num) VALUES ('e1', 'w', 'double', '0.5', 0.5)",
      );
      await migrate(db, GRAPH_MIGRATIONS);
      const reader = new GraphReader(db);
      assert.deepEqual(await reader.counts(), { vertices: 3, edges: 2, vertexProperties: 2, edgeProperties: 1 });
      assert.deepEqual(await reader.vertex('a'), { id: 'a', labels: ['x', 'y'], properties: { n: [7] } });
      assert.deepEqual(await reader.vertex('b'), { id: 'b', labels: ['x'], properties: { s: ['hi'] } });
      assert.deepEqual(await reader.edge('e1'), { id: 'e1', label: 'r', from: 'a', to: 'c', properties: { w: 0.5 } });
      assert.deepEqual(await reader.edge('e2'), { id: 'e2', label: 'r', from: 'b', to: 'a', properties: {} });
      const indexes =
        db.dialect === 'sqlite'
          ? await db.all<{ name: string; sql: string }>(
              "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'graph_%' AND sql IS NOT NULL ORDER BY name",
            )
          : await db.all<{ name: string; sql: string }>(
              "SELECT indexname AS name, indexdef AS sql FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'graph_%' ORDER BY indexname",
            );
      assert.deepEqual(
        indexes.map((r) => r.name),
        db.dialect === 'sqlite'
          ? [
              'graph_edges_by_id',
              'graph_edges_in',
              'graph_edges_out',
              'graph_load_jobs_by_seq',
              'graph_vertex_labels_by_label',
              'graph_vertex_props_by_value',
            ]
          : [
              'graph_edge_props_pkey',
              'graph_edges_in',
              'graph_edges_out',
              'graph_edges_pkey',
              'graph_load_errors_pkey',
              'graph_load_jobs_by_seq',
              'graph_load_jobs_pkey',
              'graph_vertex_labels_by_label',
              'graph_vertex_labels_pkey',
              'graph_vertex_props_by_value',
              'graph_vertex_props_pkey',
              'graph_vertices_id_key',
              'graph_vertices_pkey',
            ],
      );
      assert.match(indexes.find((r) => r.name === 'graph_edges_out')!.sql, /\(from_v, label\)/);
      // Vertex ids stay unique, and a new vertex gets the next number.
      assert.equal((await db.run("INSERT INTO graph_vertices (id) VALUES ('a') ON CONFLICT DO NOTHING")).changes, 0);
      const d = await db.get<{ vnum: number }>("INSERT INTO graph_vertices (id) VALUES ('d') RETURNING vnum");
      // (PostgreSQL's identity spends a number on the conflicting insert above.)
      assert.ok(Number(d!.vnum) >= 4);
    } finally {
      await t.cleanup();
    }
  });
}
