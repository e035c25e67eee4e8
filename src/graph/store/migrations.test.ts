import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrate, openDatabase } from '../../storage/db/index.js';
import { GraphReader } from './graph-store.js';
import { GRAPH_MIGRATIONS } from './migrations.js';

test('0002 turns a graph.db made by 0001 into a rowid edge table, keeping every edge and index', async () => {
  const db = await openDatabase({ fileName: ':memory:', migrations: GRAPH_MIGRATIONS.slice(0, 1) });
  try {
    await db.run("INSERT INTO graph_vertices (id) VALUES ('a'), ('b')");
    await db.run(
      "INSERT INTO graph_edges (id, label, from_id, to_id) VALUES ('e2', 'x', 'b', 'a'), ('e1', 'x', 'a', 'b')",
    );
    await migrate(db, GRAPH_MIGRATIONS);
    const reader = new GraphReader(db);
    assert.equal((await reader.counts()).edges, 2);
    assert.deepEqual(await reader.edge('e1'), { id: 'e1', label: 'x', from: 'a', to: 'b', properties: {} });
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
