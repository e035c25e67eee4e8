// The Groovy parser and the bytecode reader produce the same steps for the same traversal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readBytecode } from './bytecode.js';
import { parseGremlin } from './parser.js';
import { Pred, Traversal } from './steps.js';
import { Num, Token } from './values.js';

describe('gremlin-groovy parser', () => {
  it("parses the AWS notebook's queries", () => {
    const [steps] = parseGremlin(
      "g.V().hasLabel('artifact').has('type','DataSet').outE().inV().path().by(valueMap('arn','type','sourcearn','status'))",
    );
    assert.deepEqual(
      steps!.map((s) => s.name),
      ['V', 'hasLabel', 'has', 'outE', 'inV', 'path', 'by'],
    );
    const by = steps![6]!.args[0];
    assert.ok(by instanceof Traversal);
    assert.deepEqual(by.steps, [{ name: 'valueMap', args: ['arn', 'type', 'sourcearn', 'status'] }]);
  });

  it('reads literals, tokens, predicates and anonymous traversals', () => {
    const [steps] = parseGremlin(
      "g.V(1, 2L, 3.5, -4, \"x\\\"y\", true, null).has('age', P.between(1, 9)).order().by('age', Order.desc).by(T.label)" +
        ".where(__.in('knows').count().is(gt(1))).repeat(out()).until(hasLabel('x')).select(values).toList()",
    );
    const v = steps![0]!.args;
    assert.deepEqual(v, [Num.int(1), Num.long(2), Num.double(3.5), new Num(-4, 'int'), 'x"y', true, null]);
    const p = steps![1]!.args[1] as Pred;
    assert.equal(p.op, 'between');
    assert.deepEqual(steps![3]!.args, ['age', new Token('Order', 'desc')]);
    assert.deepEqual(steps![4]!.args, [new Token('T', 'label')]);
    const where = steps![5]!.args[0] as Traversal;
    assert.deepEqual(
      where.steps.map((s) => s.name),
      ['in', 'count', 'is'],
    );
    assert.ok(where.steps[2]!.args[0] instanceof Pred);
    assert.deepEqual((steps![6]!.args[0] as Traversal).steps, [{ name: 'out', args: [] }]);
    assert.deepEqual(steps![8]!.args, [new Token('Column', 'values')]);
    assert.equal(steps!.length, 9);
  });

  it('reports where a query stops making sense', () => {
    assert.throws(() => parseGremlin("g.V().has('a',"), { code: 'MalformedQueryException' });
    assert.throws(() => parseGremlin('x.V()'), /must start with the traversal source 'g'/);
    assert.throws(() => parseGremlin("g.V().has('a' ! 1)"), /character position at 15.*token recognition error/);
    const deep = `g.V()${'.where(__.out()'.repeat(500)}${')'.repeat(500)}`;
    assert.throws(() => parseGremlin(deep), { code: 'QueryLimitException', message: /nests deeper than 64 levels/ });
  });
});

describe('GraphSON v3 bytecode', () => {
  it("reads the driver's bytecode into the parser's steps", () => {
    const json = {
      '@type': 'g:Bytecode',
      '@value': {
        step: [
          ['V'],
          ['hasLabel', 'artifact'],
          [
            'has',
            'age',
            { '@type': 'g:P', '@value': { predicate: 'within', value: [1, { '@type': 'g:Int64', '@value': 2 }] } },
          ],
          ['order'],
          ['by', 'age', { '@type': 'g:Order', '@value': 'desc' }],
          ['path'],
          ['by', { '@type': 'g:Bytecode', '@value': { step: [['valueMap', 'arn', 'type']] } }],
          ['has', 'name', { '@type': 'g:TextP', '@value': { predicate: 'containing', value: 'a' } }],
        ],
      },
    };
    const { steps } = readBytecode(json);
    const [groovy] = parseGremlin(
      "g.V().hasLabel('artifact').has('age', within(1, 2L)).order().by('age', desc).path().by(__.valueMap('arn', 'type')).has('name', TextP.containing('a'))",
    );
    assert.deepEqual(steps, groovy);
  });
});
