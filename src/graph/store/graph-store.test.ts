// The graph store's writer on both dialects: vertices by number, and the rows that refer to them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/databases.js';
import { GraphReader, GraphWriter } from './graph-store.js';
import { GRAPH_MIGRATIONS } from './migrations.js';

for (const dialect of DIALECTS) {
  describe(`graph store writer (${dialect.name})`, () => {
    it('vertices numbered by a load keep their numbers, and vertices added later get new ones', async () => {
      const t = await dialect.open(GRAPH_MIGRATIONS);
      try {
        await t.db.transaction(async (tx) => {
          const w = new GraphWriter(tx);
          assert.equal(await w.insertNumberedVertices([5, 'a', 7, 'b']), 2);
          const vnums = new Map([
            ['a', 5],
            ['b', 7],
          ]);
          await w.insertLabels([[5, 'person']]);
          await w.insertVertexProps([{ owner: 'b', name: 'n', type: 'int', value: '1', num: 1 }], vnums);
          assert.deepEqual([...(await w.insertEdges([{ id: 'e', label: 'knows', fromV: 5, toV: 7 }]))], ['e']);
          const made = await w.insertVertices(['a', 'c']);
          assert.deepEqual([...made.keys()], ['c']);
          assert.ok(made.get('c')! > 7, `c got ${made.get('c')}`);
          assert.deepEqual(await w.existingVertices(['a', 'b', 'zz']), vnums);
        });
        const r = new GraphReader(t.db);
        assert.deepEqual(await r.vertex('a'), { id: 'a', labels: ['person'], properties: {} });
        assert.deepEqual(await r.vertex('b'), { id: 'b', labels: [], properties: { n: [1] } });
        assert.deepEqual(await r.edge('e'), { id: 'e', label: 'knows', from: 'a', to: 'b', properties: {} });
      } finally {
        await t.cleanup();
      }
    });
  });
}
