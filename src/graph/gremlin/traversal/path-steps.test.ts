// Path steps: path() with by(), as/select, where; each answer is the one TinkerPop gives on the
// modern graph, order-insensitive where its order is the graph's iteration order, both dialects.
import { it } from 'node:test';
import { describeOnModernGraph } from '../test-support.js';

describeOnModernGraph('path steps on the modern graph', ({ exact, same }) => {
  it('path with by modulators', async () => {
    await same("g.V('1').out().path()", [
      ['v[1]', 'v[2]'],
      ['v[1]', 'v[3]'],
      ['v[1]', 'v[4]'],
    ]);
    await same("g.V('1').out().path().by('name')", [
      ['marko', 'vadas'],
      ['marko', 'lop'],
      ['marko', 'josh'],
    ]);
    await same("g.V('1').outE().inV().path().by('name').by('weight')", [
      ['marko', 0.5, 'vadas'],
      ['marko', 1.0, 'josh'],
      ['marko', 0.4, 'lop'],
    ]);
    await exact("g.V('1').outE('knows').inV().has('name', 'vadas').path().by(valueMap('name'))", [
      [{ name: ['marko'] }, {}, { name: ['vadas'] }],
    ]);
  });

  it('as/select, where', async () => {
    await exact("g.V('1').as('a').out('created').as('b').select('a', 'b').by('name')", [{ a: 'marko', b: 'lop' }]);
    await exact("g.V('1').as('a').out('created').select('a')", ['v[1]']);
    await same("g.V('1').as('a').out('created').in('created').where(neq('a')).values('name')", ['josh', 'peter']);
    await same("g.V().where(out('created')).values('name')", ['marko', 'josh', 'peter']);
    await same("g.V().where(__.out('created').count().is(gt(1))).values('name')", ['josh']);
    await exact("g.V('1').project('a').select('a')", ['v[1]']);
  });
});
