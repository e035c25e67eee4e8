// Search property paths against the model's record shapes: resolution, values of a document, index values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { indexValues, isList, resolvePath, valuesAt } from './paths.js';

const tc = {
  TrialComponentName: 'tc-1',
  CreationTime: new Date(1000),
  Parameters: {
    max_depth: { NumberValue: 6 },
    objective: { StringValue: 'reg:squarederror' },
    'a.b': { NumberValue: 1 },
  },
  Metrics: [
    { MetricName: 'validation:rmse', Min: 0.5, Max: 0.9, Count: 3 },
    { MetricName: 'train.loss', Min: 0.1 },
  ],
  Tags: [{ Key: 'team.name', Value: 'ml' }],
  Parents: [
    { TrialName: 't1', ExperimentName: 'e' },
    { TrialName: 't2', ExperimentName: 'e' },
  ],
};

test('paths resolve against the record shape: keyed metrics, parameters, tags, parents', () => {
  assert.deepEqual(valuesAt(tc, resolvePath('TrialComponent', 'Metrics.validation:rmse.Min')!.steps), [0.5]);
  // A metric or tag name may contain dots: the trailing statistic splits off.
  assert.deepEqual(valuesAt(tc, resolvePath('TrialComponent', 'Metrics.train.loss.Min')!.steps), [0.1]);
  assert.deepEqual(valuesAt(tc, resolvePath('TrialComponent', 'Tags.team.name')!.steps), ['ml']);
  const depth = resolvePath('TrialComponent', 'Parameters.max_depth')!;
  assert.equal(depth.type, 'parameter');
  assert.deepEqual(valuesAt(tc, depth.steps), [6]);
  assert.deepEqual(valuesAt(tc, resolvePath('TrialComponent', 'Parameters.objective')!.steps), ['reg:squarederror']);
  assert.deepEqual(valuesAt(tc, resolvePath('TrialComponent', 'Parameters.a.b')!.steps), [1]);
  assert.equal(resolvePath('TrialComponent', 'Parameters.max_depth.NumberValue')!.type, 'number');
  assert.deepEqual(valuesAt(tc, resolvePath('TrialComponent', 'Parents.TrialName')!.steps), ['t1', 't2']);
  assert.equal(resolvePath('TrialComponent', 'CreationTime')!.type, 'timestamp');
  assert.deepEqual(valuesAt(tc, resolvePath('TrialComponent', 'CreationTime')!.steps), [1000]);
  assert.equal(resolvePath('TrialComponent', 'Metrics.validation:rmse.Count')!.type, 'number');
  assert.equal(resolvePath('ModelPackage', 'ModelApprovalStatus')!.type, 'string');
  assert.ok(isList('TrialComponent', 'Parents'));
  assert.ok(!isList('TrialComponent', 'TrialComponentName'));
});

test('unknown or non-leaf paths do not resolve', () => {
  for (const p of ['Nope', 'Parameters', 'Metrics.validation:rmse', 'TrialComponentName.x', 'Parents', 'Metrics']) {
    assert.equal(resolvePath('TrialComponent', p), undefined, p);
  }
});

test('index values use the same paths the filters resolve', () => {
  const values = new Map<string, unknown[]>();
  for (const [path, v] of indexValues('TrialComponent', tc))
    values.set(path, [...(values.get(path) ?? []), v.num ?? v.str]);
  assert.deepEqual(values.get('Metrics.validation:rmse.Min'), [0.5]);
  assert.deepEqual(values.get('Metrics.train.loss.Min'), [0.1]);
  assert.deepEqual(values.get('Parameters.max_depth'), [6]);
  assert.deepEqual(values.get('Parameters.objective'), ['reg:squarederror']);
  assert.deepEqual(values.get('Tags.team.name'), ['ml']);
  assert.deepEqual(values.get('Parents.TrialName'), ['t1', 't2']);
  assert.deepEqual(values.get('CreationTime'), [1000]);
  // The key of a keyed list is not a value of its own.
  assert.equal(values.get('Metrics.validation:rmse.MetricName'), undefined);
});
