import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyJsonPath, JsonPathError, parseJsonPath } from './json-path.js';

const run = (path: string, v: unknown) => applyJsonPath(parseJsonPath(path), v);

test('the JSONPath subset SageMaker documents for InputFilter / OutputFilter', () => {
  const csv = ['7', 'M', '0.5', '0.4', '9.1'];
  assert.deepEqual(run('$', csv), csv);
  assert.deepEqual(run('$[1:]', csv), ['M', '0.5', '0.4', '9.1']);
  assert.deepEqual(run('$[:-1]', csv), ['7', 'M', '0.5', '0.4']);
  assert.deepEqual(run('$[0,-1]', csv), ['7', '9.1']);
  assert.equal(run('$[-1]', csv), '9.1');
  assert.deepEqual(run('$[*]', csv), csv);
  const rec = { id: 3, features: [1, 2, 3], SageMakerOutput: { score: 0.5 } };
  assert.deepEqual(run('$.features', rec), [1, 2, 3]);
  assert.deepEqual(run("$['id','SageMakerOutput']", rec), { id: 3, SageMakerOutput: { score: 0.5 } });
  assert.equal(run('$.SageMakerOutput.score', rec), 0.5);
  assert.equal(run("$['features'][1]", rec), 2);
  assert.equal(run('$.missing.deeper', rec), undefined);
});

test('what is not in the subset is refused with the expression named', () => {
  for (const bad of ['features', '$..id', '$[?(@.a)]', '$.a[', '$[1:2:3]']) {
    assert.throws(() => parseJsonPath(bad), JsonPathError, bad);
  }
});
