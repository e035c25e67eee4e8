// Start steps: V()/E() by id and as a scan (count() taken into SQL), inject(); each answer is
// the one TinkerPop gives on the modern graph, in both dialects.
import { it } from 'node:test';
import { describeOnModernGraph } from '../test-support.js';

describeOnModernGraph('V(), E() and inject() on the modern graph', ({ exact, same }) => {
  it('V(ids), E(ids), count', async () => {
    await exact('g.V().count()', [6]);
    await exact('g.E().count()', [6]);
    await same("g.V('1', '2', 'nope')", ['v[1]', 'v[2]']);
    await same("g.V(['1', '2'])", ['v[1]', 'v[2]']);
    await exact("g.E('7')", ['e[7][1-knows->2]']);
    await exact('g.V().hasLabel("person").count()', [4]);
    await exact("g.V().has('name', 'marko').count()", [1]);
  });

  it('inject', async () => {
    await exact('g.inject(1, 2, 3)', [1, 2, 3]);
    await exact("g.inject('a', 'b').fold()", [['a', 'b']]);
    await exact('g.inject(1, 2).sum()', [3]);
  });
});
