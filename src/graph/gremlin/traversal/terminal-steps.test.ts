// Terminal steps: next(n), iterate(), and several statements in one query, on the modern
// graph in both dialects.
import { it } from 'node:test';
import { describeOnModernGraph } from '../test-support.js';

describeOnModernGraph('terminal steps on the modern graph', ({ exact }) => {
  it('next(), iterate() and several statements', async () => {
    await exact("g.V().hasLabel('person').values('name').order().next()", ['josh']);
    await exact("g.V().hasLabel('person').values('name').order().next(2)", ['josh', 'marko']);
    await exact('g.V().iterate()', []);
    await exact("g.V().count().next(); g.V('1').values('name')", ['marko']);
  });
});
