// Our validation accepts, parses and refuses exactly as the SageMaker XGBoost container's own code
// does, with its messages: the expectations were recorded by running the container's validation
// (scripts/fixtures/xgboost-train/generate_hyperparameters.py) on each input.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import { HyperparameterError } from './errors.js';
import { type PyValue, PyFloat, PyTuple } from './python.js';
import { validateAsContainer } from './validate.js';

interface Case {
  input: Record<string, string>;
  ok?: Record<string, unknown>;
  error?: string;
  type?: string;
}
const cases = JSON.parse(
  readFileSync(resolve(process.cwd(), 'test', 'fixtures', 'xgboost-train', 'io', 'hyperparameters.json'), 'utf8'),
) as Case[];

function plain(v: PyValue): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof PyFloat) return Number.isFinite(v.value) ? v.value : v.value > 0 ? 'inf' : '-inf';
  if (v instanceof PyTuple) return v.items.map(plain);
  if (Array.isArray(v)) return v.map(plain);
  return v;
}

describe('hyperparameter validation conforms to the container', () => {
  test('the recorded cases cover acceptance, every kind of refusal and the aliases', () => {
    assert.ok(cases.length > 80);
    assert.ok(cases.filter((c) => c.ok).length > 30);
    assert.ok(cases.filter((c) => c.error).length > 40);
  });

  for (const c of cases) {
    test(`${JSON.stringify(c.input)} → ${c.ok ? 'accepted' : c.error}`, () => {
      if (c.type === 'KeyError') {
        // DEVIATION(aws): the container crashes (KeyError 'objective') on eval_metric without an
        // objective; we validate against xgboost's default objective and accept.
        assert.ok(validateAsContainer(c.input).has('eval_metric'));
        return;
      }
      if (c.error !== undefined) {
        assert.throws(
          () => validateAsContainer(c.input),
          (e: unknown) => e instanceof HyperparameterError && e.message === c.error,
          `expected: ${c.error}`,
        );
        return;
      }
      const got = validateAsContainer(c.input);
      assert.deepEqual(Object.fromEntries([...got].map(([k, v]) => [k, plain(v)])), c.ok);
    });
  }

  test('NaN is refused where the container lets it through its interval test', () => {
    assert.throws(
      () => validateAsContainer({ num_round: '5', eta: 'nan' }),
      (e: unknown) => e instanceof HyperparameterError && e.message === 'Hyperparameter eta: nan is not in [0, 1]',
    );
  });
});
