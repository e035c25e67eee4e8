// Filter steps: has() in its forms with P and TextP predicates, limit/range/tail, dedup; each
// answer is the one TinkerPop gives on the modern graph, in both dialects.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeOnModernGraph } from '../test-support.js';

describeOnModernGraph('filter steps on the modern graph', ({ exact, g, same }) => {
  it('hasLabel, has(key), has(key, value), has(label, key, value), hasId, hasNot', async () => {
    await same("g.V().hasLabel('person').values('name')", ['marko', 'vadas', 'josh', 'peter']);
    await same("g.V().hasLabel('person', 'software').count()", [6]);
    await exact("g.E().hasLabel('created').count()", [4]);
    await same("g.V().has('age').values('name')", ['marko', 'vadas', 'josh', 'peter']);
    await exact("g.V().has('name', 'marko')", ['v[1]']);
    await exact("g.V().has('person', 'name', 'josh')", ['v[4]']);
    await exact("g.V().has('software', 'name', 'josh')", []);
    await same("g.V().hasId('1', '3')", ['v[1]', 'v[3]']);
    await same("g.V().has(T.id, within('2', '5'))", ['v[2]', 'v[5]']);
    await same("g.V().has(label, 'software').values('name')", ['lop', 'ripple']);
    await same("g.V().hasNot('age').values('name')", ['lop', 'ripple']);
    await same("g.E().has('weight', 0.4)", ['e[9][1-created->3]', 'e[11][4-created->3]']);
  });

  it('P predicates: eq neq lt lte gt gte within without between', async () => {
    const ages = (p: string) => g(`g.V().has('age', ${p}).values('name')`);
    assert.deepEqual((await ages('P.eq(29)')).sort(), ['marko']);
    assert.deepEqual((await ages('P.neq(29)')).sort(), ['josh', 'peter', 'vadas']);
    assert.deepEqual((await ages('P.lt(29)')).sort(), ['vadas']);
    assert.deepEqual((await ages('P.lte(29)')).sort(), ['marko', 'vadas']);
    assert.deepEqual((await ages('gt(30)')).sort(), ['josh', 'peter']);
    assert.deepEqual((await ages('P.gte(32)')).sort(), ['josh', 'peter']);
    assert.deepEqual((await ages('P.within(27, 35)')).sort(), ['peter', 'vadas']);
    assert.deepEqual((await ages('P.without([27, 35])')).sort(), ['josh', 'marko']);
    assert.deepEqual((await ages('P.between(27, 32)')).sort(), ['marko', 'vadas']);
    assert.deepEqual((await ages('P.gt(28).and(P.lt(33))')).sort(), ['josh', 'marko']);
    // Comparing a number with a string is false, not an error (TinkerPop 3.6+).
    assert.deepEqual(await g("g.V().has('name', P.gt(3)).count()"), [0]);
  });

  it('TextP predicates: containing startingWith endingWith', async () => {
    await same("g.V().has('name', TextP.containing('a')).values('name')", ['marko', 'vadas']);
    await same("g.V().has('name', TextP.startingWith('p')).values('name')", ['peter']);
    await same("g.V().has('name', TextP.endingWith('o')).values('name')", ['marko']);
    await same("g.V().has('name', TextP.notContaining('o')).values('name')", ['vadas', 'ripple', 'peter']);
  });

  it('limit, range, tail', async () => {
    await exact("g.V().values('name').order().limit(2)", ['josh', 'lop']);
    await exact("g.V().values('name').order().range(1, 3)", ['lop', 'marko']);
    await exact("g.V().values('name').order().tail(2)", ['ripple', 'vadas']);
    await exact("g.V().values('name').order().tail()", ['vadas']);
    await exact('g.V().limit(0)', []);
    await exact('g.V().limit(3).count()', [3]);
  });

  it('dedup, with by', async () => {
    await exact("g.V().values('lang').dedup()", ['java']);
    await exact('g.V().both().dedup().count()', [6]);
    await same('g.V().dedup().by(label).label()', ['person', 'software']);
  });
});
