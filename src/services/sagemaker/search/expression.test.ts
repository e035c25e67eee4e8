// SearchExpression checks and evaluation: number/text/parameter comparisons, Or, nested filters, refusals.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SearchExpression } from '../../../generated/sagemaker/shapes.js';
import { ValidationException } from '../../../protocol/common-errors.js';
import { compile, matches } from './expression.js';

const doc = {
  TrialComponentName: 'Train-XGB',
  DisplayName: 'training',
  CreationTime: new Date('2026-01-02T00:00:00Z'),
  Parameters: { max_depth: { NumberValue: 10 }, lr: { StringValue: '9' } },
  Metrics: [{ MetricName: 'validation:rmse', Min: 0.25 }],
  Parents: [
    { TrialName: 't1', ExperimentName: 'e1' },
    { TrialName: 't2', ExperimentName: 'e2' },
  ],
};
const run = (e: SearchExpression) => matches(compile(e, 'TrialComponent', 'ExperimentTrialComponent'), doc);
const one = (Name: string, Operator: string | undefined, Value?: string) =>
  run({ Filters: [{ Name, Operator: Operator as 'Equals', Value }] });

test('numbers compare as numbers, text as text, parameters by the kind of their value', () => {
  assert.ok(one('Metrics.validation:rmse.Min', 'LessThan', '0.3'));
  assert.ok(!one('Metrics.validation:rmse.Min', 'GreaterThanOrEqualTo', '0.3'));
  // 10 > 9 as numbers (as text '10' < '9').
  assert.ok(one('Parameters.max_depth', 'GreaterThan', '9'));
  assert.ok(one('Parameters.lr', 'Equals', '9'));
  assert.ok(one('CreationTime', 'GreaterThan', '2026-01-01T00:00:00'));
  assert.ok(one('TrialComponentName', 'Contains', 'xgb'));
  assert.ok(one('TrialComponentName', 'In', 'a, Train-XGB'));
  // A Value without an Operator is Equals; neither is Exists.
  assert.ok(one('DisplayName', undefined, 'training'));
  assert.ok(one('Parents.TrialName', undefined));
  assert.ok(one('EndTime', 'NotExists'));
  assert.ok(!one('Parents.ExperimentName', 'NotEquals', 'e1'));
});

test('Or, sub-expressions and nested filters (one list element satisfies all)', () => {
  assert.ok(
    run({
      Operator: 'Or',
      Filters: [{ Name: 'DisplayName', Value: 'x' }],
      SubExpressions: [{ Filters: [{ Name: 'Parameters.max_depth', Operator: 'Equals', Value: '10' }] }],
    }),
  );
  const nested = (trial: string, experiment: string) =>
    run({
      NestedFilters: [
        {
          NestedPropertyName: 'Parents',
          Filters: [
            { Name: 'Parents.TrialName', Value: trial },
            { Name: 'Parents.ExperimentName', Value: experiment },
          ],
        },
      ],
    });
  assert.ok(nested('t2', 'e2'));
  assert.ok(!nested('t1', 'e2'));
});

test('bad expressions are refused with ValidationException', () => {
  const bad: Array<[SearchExpression, RegExp]> = [
    [{ Filters: [{ Name: 'Nope', Value: 'x' }] }, /not a valid property/],
    [{ Filters: [{ Name: 'DisplayName', Operator: 'LessThan', Value: 'x' }] }, /not supported for text property/],
    [{ Filters: [{ Name: 'Metrics.a.Min', Operator: 'Contains', Value: '1' }] }, /only supported for text/],
    [{ Filters: [{ Name: 'Metrics.a.Min', Operator: 'Equals', Value: 'x' }] }, /must be a number/],
    [{ Filters: [{ Name: 'DisplayName', Operator: 'Equals' }] }, /value is required/],
    [{}, /at least one/],
    [
      { NestedFilters: [{ NestedPropertyName: 'Parents', Filters: [{ Name: 'DisplayName', Value: 'x' }] }] },
      /must start with/,
    ],
    [
      { NestedFilters: [{ NestedPropertyName: 'DisplayName', Filters: [{ Name: 'DisplayName.x', Value: 'x' }] }] },
      /not a valid property/,
    ],
  ];
  for (const [e, message] of bad) {
    assert.throws(
      () => compile(e, 'TrialComponent', 'ExperimentTrialComponent'),
      (err: Error) => {
        assert.ok(err instanceof ValidationException);
        assert.match(err.message, message);
        return true;
      },
    );
  }
});
