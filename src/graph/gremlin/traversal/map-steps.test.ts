// Map steps: values, properties, valueMap, elementMap, id, label, key, value, project; each
// answer is the one TinkerPop gives on the modern graph, in both dialects.
import { it } from 'node:test';
import { describeOnModernGraph } from '../test-support.js';

describeOnModernGraph('map steps on the modern graph', ({ exact, same }) => {
  it('values, valueMap (with true and tokens), elementMap, id, label, properties', async () => {
    await same("g.V('1').values()", ['marko', 29]);
    await exact("g.V('1').values('name')", ['marko']);
    await exact("g.V('1').valueMap()", [{ age: [29], name: ['marko'] }]);
    await exact("g.V('1').valueMap('name')", [{ name: ['marko'] }]);
    await exact("g.V('1').valueMap(true)", [{ id: '1', label: 'person', age: [29], name: ['marko'] }]);
    await exact("g.V('1').valueMap('name').with(WithOptions.tokens)", [{ id: '1', label: 'person', name: ['marko'] }]);
    await exact("g.E('7').valueMap()", [{ weight: 0.5 }]);
    await exact("g.V('1').elementMap()", [{ id: '1', label: 'person', age: 29, name: 'marko' }]);
    await exact("g.E('7').elementMap()", [
      { id: '7', label: 'knows', IN: { id: '2', label: 'person' }, OUT: { id: '1', label: 'person' }, weight: 0.5 },
    ]);
    await exact("g.V('1').id()", ['1']);
    await exact("g.E('7').id()", ['7']);
    await exact("g.V('1').label()", ['person']);
    await exact("g.E('9').label()", ['created']);
    await exact("g.V('1').properties('name')", ['vp[name->marko]']);
    await exact("g.E('7').properties()", ['p[weight->0.5]']);
    await exact("g.V('1').properties('age').value()", [29]);
    await exact("g.V('1').properties('age').key()", ['age']);
  });

  it('project().by()', async () => {
    await exact("g.V('1').project('name', 'out').by('name').by(out().count())", [{ name: 'marko', out: 3 }]);
    // An unproductive by() leaves its key out (TinkerPop 3.6+).
    await exact("g.V('3').project('name', 'age').by('name').by('age')", [{ name: 'lop' }]);
  });

  it('valueMap().by(unfold())', async () => {
    await exact("g.V('1').valueMap().by(unfold())", [{ age: 29, name: 'marko' }]);
  });
});
