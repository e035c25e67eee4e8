// What the engine does with a query it cannot run: an unsupported step or a syntax error is a
// MalformedQueryException that names it (modern graph, both dialects).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeOnModernGraph } from './test-support.js';

describeOnModernGraph('the Gremlin engine on the modern graph', ({ g }) => {
  it('an unsupported step is a MalformedQueryException naming it', async () => {
    await assert.rejects(g("g.V().math('_ + 1')"), {
      code: 'MalformedQueryException',
      message: /math\(\)/,
    });
    await assert.rejects(g('g.V(.out()'), {
      code: 'MalformedQueryException',
      message: /line 1, character position at 5/,
    });
  });
});
