import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gremlinPlan, HeaderError, openCypherPlan } from './headers.js';

describe('Gremlin CSV headers', () => {
  it('plans a vertex file with typed, cardinality and array columns', () => {
    const plan = gremlinPlan(['~id', '~label', 'name:String', 'age:Int(single)', 'tags:String[]', 'born:Date', 'note']);
    assert.equal(plan.element, 'vertex');
    assert.deepEqual(plan.columns.slice(2), [
      { kind: 'property', name: 'name', type: 'string', cardinality: 'set', array: false },
      { kind: 'property', name: 'age', type: 'int', cardinality: 'single', array: false },
      { kind: 'property', name: 'tags', type: 'string', cardinality: 'set', array: true },
      { kind: 'property', name: 'born', type: 'date', cardinality: 'set', array: false },
      { kind: 'property', name: 'note', type: 'string', cardinality: 'set', array: false },
    ]);
  });

  it('plans an edge file; edge properties are single', () => {
    const plan = gremlinPlan(['~id', '~from', '~to', '~label', 'weight:Double']);
    assert.equal(plan.element, 'edge');
    assert.deepEqual(plan.columns[4], {
      kind: 'property',
      name: 'weight',
      type: 'double',
      cardinality: 'single',
      array: false,
    });
  });

  it('rejects bad types, missing ~id, set edge properties and duplicate columns', () => {
    assert.throws(() => gremlinPlan(['~id', 'age:Integr']), /invalid data type 'Integr'/);
    assert.throws(() => gremlinPlan(['~label', 'name']), /missing ~id/);
    assert.throws(() => gremlinPlan(['~id', '~from', '~to', 'w:Int[]']), HeaderError);
    assert.throws(() => gremlinPlan(['~id', 'a', 'a:String']), /duplicate column/);
    assert.throws(() => gremlinPlan(['~id', '~from']), /both ~from and ~to/);
  });
});

describe('openCypher CSV headers', () => {
  it('plans node and relationship files', () => {
    assert.equal(openCypherPlan([':ID', ':LABEL', 'name:String', 'when:DateTime']).element, 'vertex');
    const rel = openCypherPlan([':START_ID', ':END_ID', ':TYPE', 'since:Int']);
    assert.equal(rel.element, 'edge');
    assert.equal(rel.generatedIds, true);
  });
});
