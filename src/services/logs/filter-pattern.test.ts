import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileFilterPattern } from './filter-pattern.js';

test('terms, phrases, optional and excluded terms', () => {
  const lines = [
    '[1]\ttrain-rmse:0.5',
    'ERROR disk full',
    'WARN slow',
    'ERROR Retrying upload',
    'Model saved to /opt/ml/model',
  ];
  const pick = (p: string) => lines.filter(compileFilterPattern(p));
  assert.deepEqual(pick(''), lines);
  assert.deepEqual(pick('ERROR'), ['ERROR disk full', 'ERROR Retrying upload']);
  assert.deepEqual(pick('ERROR -Retrying'), ['ERROR disk full']);
  assert.deepEqual(pick('?ERROR ?WARN'), ['ERROR disk full', 'WARN slow', 'ERROR Retrying upload']);
  assert.deepEqual(pick('"Model saved"'), ['Model saved to /opt/ml/model']);
  assert.deepEqual(pick('error'), [], 'matching is case-sensitive');
  assert.deepEqual(pick('train-rmse'), ['[1]\ttrain-rmse:0.5']);
});

test('structured patterns are refused with InvalidParameterException', () => {
  assert.throws(() => compileFilterPattern('{ $.level = "ERROR" }'), /InvalidParameter|Invalid filter pattern/);
});
