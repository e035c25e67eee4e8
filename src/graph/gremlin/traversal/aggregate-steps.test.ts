// Aggregating barriers: order, fold (and unfold), group/groupCount, sum/min/max/mean; each
// answer is the one TinkerPop gives on the modern graph, in both dialects.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeOnModernGraph } from '../test-support.js';

describeOnModernGraph('aggregate steps on the modern graph', ({ exact, g, same }) => {
  it('order().by(..., asc|desc)', async () => {
    await exact("g.V().values('name').order()", ['josh', 'lop', 'marko', 'peter', 'ripple', 'vadas']);
    await exact("g.V().values('name').order().by(desc)", ['vadas', 'ripple', 'peter', 'marko', 'lop', 'josh']);
    await exact("g.V().hasLabel('person').order().by('age', desc).values('name')", ['peter', 'josh', 'marko', 'vadas']);
    await exact("g.V().hasLabel('person').order().by('age', Order.asc).values('name')", [
      'vadas',
      'marko',
      'josh',
      'peter',
    ]);
    await exact("g.V().hasLabel('person').order().by(outE().count(), desc).by('name').values('name')", [
      'marko',
      'josh',
      'peter',
      'vadas',
    ]);
  });

  it('fold, unfold', async () => {
    const [folded] = (await g("g.V('1').out().values('name').fold()")) as [string[]];
    assert.deepEqual([...folded].sort(), ['josh', 'lop', 'vadas']);
    await same("g.V('1').out().values('name').fold().unfold()", ['josh', 'lop', 'vadas']);
    await exact("g.V('nope').fold()", [[]]);
  });

  it('group, groupCount', async () => {
    await exact('g.V().groupCount().by(label)', [{ person: 4, software: 2 }]);
    await exact("g.V().values('lang').groupCount()", [{ java: 2 }]);
    await exact('g.V().group().by(label).by(count())', [{ person: 4, software: 2 }]);
    const [groups] = (await g("g.V().group().by(label).by('name')")) as [Record<string, string[]>];
    assert.deepEqual(groups.person!.sort(), ['josh', 'marko', 'peter', 'vadas']);
    assert.deepEqual(groups.software!.sort(), ['lop', 'ripple']);
    await exact("g.V().hasLabel('nope').groupCount()", [{}]);
  });

  it('sum, min, max, mean (global and local)', async () => {
    await exact("g.V().values('age').sum()", [123]);
    await exact("g.V().values('age').min()", [27]);
    await exact("g.V().values('age').max()", [35]);
    await exact("g.V().values('age').mean()", [30.75]);
    await exact("g.V().values('age').fold().sum(local)", [123]);
    await exact("g.V().values('name').min()", ['josh']);
    await exact("g.V().values('age').fold().count(local)", [4]);
  });
});
