// Steps that write: addV, property (cardinality set and single, T.id), addE with from()/to(),
// drop; on a modern graph of their own, in both dialects.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeOnModernGraph } from '../test-support.js';

describeOnModernGraph('gremlin mutations', ({ exact, g }) => {
  it('addV, property, addE, drop', async () => {
    const [v] = (await g("g.addV('person').property(T.id, 'x1').property('name', 'stephen').property('age', 41)")) as [
      string,
    ];
    assert.equal(v, 'v[x1]');
    assert.deepEqual(await g("g.V('x1').valueMap()"), [{ age: [41], name: ['stephen'] }]);
    // Neptune's default cardinality is set: a second value is added, single replaces.
    await g("g.V('x1').property('name', 'steve')");
    assert.deepEqual((await g("g.V('x1').values('name')")).sort(), ['stephen', 'steve']);
    await g("g.V('x1').property(single, 'name', 'stephen')");
    assert.deepEqual(await g("g.V('x1').values('name')"), ['stephen']);
    const [e] = (await g("g.V('1').addE('knows').to(__.V('x1')).property('weight', 0.9)")) as [string];
    assert.match(e, /^e\[.+\]\[1-knows->x1\]$/);
    assert.deepEqual((await g("g.V('1').out('knows').values('name')")).sort(), ['josh', 'stephen', 'vadas']);
    await exact("g.V('x1').as('a').V('2').addE('likes').from('a').inV().values('name')", ['vadas']);
    await exact("g.V('x1').outE('likes').property('since', 2024).values('since')", [2024]);
    await exact("g.V('x1').properties('age').drop()", []);
    await exact("g.V('x1').values('age')", []);
    await exact("g.V('x1').drop()", []);
    await exact("g.V('x1').count()", [0]);
    await exact("g.E().hasLabel('likes').count()", [0]);
    await exact("g.V('1').outE('knows').count()", [2]);
    await exact("g.E('7').drop()", []);
    await exact('g.E().count()', [5]);
  });
});
