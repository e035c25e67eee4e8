// Branch steps (coalesce, union, optional, not, map, flatMap, filter, sideEffect, choose); each
// answer is the one TinkerPop gives on the modern graph, in both dialects.
import { it } from 'node:test';
import { describeOnModernGraph } from '../test-support.js';

describeOnModernGraph('branch steps on the modern graph', ({ exact, same }) => {
  it('constant, coalesce, union, optional, not, is', async () => {
    await exact("g.V().hasLabel('software').constant('x')", ['x', 'x']);
    await same("g.V().hasLabel('person').coalesce(values('nick'), values('name'))", [
      'marko',
      'vadas',
      'josh',
      'peter',
    ]);
    await exact("g.V('2').coalesce(out(), constant('none'))", ['none']);
    await exact("g.V('4').union(__.in().values('age'), out().values('lang'))", [29, 'java', 'java']);
    await exact("g.V('2').optional(out('knows'))", ['v[2]']);
    await same("g.V('1').optional(out('knows'))", ['v[2]', 'v[4]']);
    await same("g.V().not(hasLabel('person')).values('name')", ['lop', 'ripple']);
    await exact("g.V().values('age').is(32)", [32]);
    await same("g.V().values('age').is(lte(29))", [29, 27]);
  });

  it('map, flatMap, filter, sideEffect, choose', async () => {
    await exact("g.V('1').map(outE().count())", [3]);
    await exact("g.V('1').map(out('knows').values('name')).path()", [['v[1]', 'vadas']]);
    await same("g.V('1').flatMap(out('knows')).values('name')", ['vadas', 'josh']);
    await same("g.V().filter(outE('created')).values('name')", ['marko', 'josh', 'peter']);
    await exact("g.V('1').sideEffect(out()).values('name')", ['marko']);
    await same("g.V().hasLabel('person').choose(values('age').is(gt(30)), values('name'), constant('young'))", [
      'young',
      'young',
      'josh',
      'peter',
    ]);
    await same("g.V().choose(hasLabel('person'), out('created')).values('name')", [
      'lop',
      'lop',
      'lop',
      'lop',
      'ripple',
      'ripple',
    ]);
    await same("g.V().values('age').choose(P.gt(30), constant('old'), constant('young'))", [
      'young',
      'young',
      'old',
      'old',
    ]);
  });
});
