import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluateConditions } from './conditions.js';
import { parseDuration } from './durations.js';
import {
  collectReferences,
  evaluate,
  ExpressionError,
  FloatValue,
  type Json,
  type Scope,
  toJson,
} from './expressions.js';
import { checkPropertyPath, lookupProperty, parsePropertyPath } from './properties.js';

const describeProcessing = {
  ProcessingJobName: 'p',
  ProcessingOutputConfig: {
    Outputs: [
      { OutputName: 'train', S3Output: { S3Uri: 's3://b/train' } },
      { OutputName: 'test', S3Output: { S3Uri: 's3://b/test' } },
    ],
  },
};
const files: Record<string, unknown> = {
  's3://b/eval/evaluation.json': { regression_metrics: { mse: { value: 4.5 } }, list: [1, 2] },
};

const scope: Scope = {
  parameter: (n) => ({ Threshold: new FloatValue(6), Count: 2, Name: 'abalone', On: true })[n] ?? null,
  execution: (n) => ({ PipelineExecutionId: 'abc123', PipelineName: 'P' })[n] ?? null,
  stepProperty: (step, path) => (step === 'Proc' ? lookupProperty(describeProcessing, path) : undefined),
  propertyFile: () => 's3://b/eval/evaluation.json',
  readJson: async (uri) => {
    if (!(uri in files)) throw new ExpressionError(`no ${uri}`);
    return files[uri];
  },
};

test('Get, Std:Join and Std:JsonGet evaluate; Float parameters join as floats', async () => {
  const v = await evaluate(
    {
      Uri: { Get: "Steps.Proc.ProcessingOutputConfig.Outputs['test'].S3Output.S3Uri" },
      Joined: { 'Std:Join': { On: '/', Values: ['s3:/', 'b', { Get: 'Execution.PipelineExecutionId' }, 'out'] } },
      Message: { 'Std:Join': { On: ' ', Values: ['MSE >', { Get: 'Parameters.Threshold' }] } },
      Mse: {
        'Std:JsonGet': {
          PropertyFile: { Get: 'Steps.Eval.PropertyFiles.Report' },
          Path: 'regression_metrics.mse.value',
        },
      },
      Second: { 'Std:JsonGet': { S3Uri: 's3://b/eval/evaluation.json', Path: 'list[1]' } },
      List: [{ Get: 'Parameters.Count' }, 'literal', 3],
      Threshold: { Get: 'Parameters.Threshold' },
    },
    scope,
  );
  assert.deepEqual(toJson(v), {
    Uri: 's3://b/test',
    Joined: 's3://b/abc123/out',
    Message: 'MSE > 6.0',
    Mse: 4.5,
    Second: 2,
    List: [2, 'literal', 3],
    Threshold: 6,
  });
});

test('a missing property or file is an ExpressionError a user can act on', async () => {
  await assert.rejects(
    evaluate({ Get: "Steps.Proc.ProcessingOutputConfig.Outputs['nope'].S3Output.S3Uri" }, scope),
    /has no value/,
  );
  await assert.rejects(
    evaluate({ 'Std:JsonGet': { S3Uri: 's3://b/none.json', Path: 'a' } }, scope),
    /no s3:\/\/b\/none\.json/,
  );
  await assert.rejects(
    evaluate({ 'Std:JsonGet': { S3Uri: 's3://b/eval/evaluation.json', Path: 'regression_metrics.r2' } }, scope),
    /matches nothing/,
  );
});

test('references are collected from every expression form', () => {
  const refs = collectReferences({
    a: { Get: 'Parameters.X' },
    b: [
      {
        'Std:Join': {
          On: '',
          Values: [{ Get: 'Execution.PipelineName' }, { Get: 'Steps.S.ModelArtifacts.S3ModelArtifacts' }],
        },
      },
    ],
    c: { 'Std:JsonGet': { PropertyFile: { Get: 'Steps.E.PropertyFiles.R' }, Path: 'x' } },
  } as Json);
  assert.deepEqual(
    refs.map((r) =>
      r.t === 'step' ? `${r.t}:${r.step}:${r.text}` : `${r.t}:${'name' in r ? r.name : `${r.step}.${r.file}`}`,
    ),
    ['parameter:X', 'execution:PipelineName', 'step:S:Steps.S.ModelArtifacts.S3ModelArtifacts', 'property-file:E.R'],
  );
  assert.throws(() => collectReferences({ 'Std:Join': { Values: 'x' } } as Json), /Std:Join/);
  assert.throws(() => collectReferences({ 'Std:JsonGet': { Path: 'a' } } as Json), /Std:JsonGet/);
});

test('conditions: every SDK type, numbers compared as numbers, the list is a conjunction', async () => {
  const cond = (c: Json) => evaluateConditions([c], scope);
  const mse = { 'Std:JsonGet': { S3Uri: 's3://b/eval/evaluation.json', Path: 'regression_metrics.mse.value' } };
  assert.equal(
    await cond({ Type: 'LessThanOrEqualTo', LeftValue: mse, RightValue: { Get: 'Parameters.Threshold' } }),
    true,
  );
  assert.equal(await cond({ Type: 'GreaterThan', LeftValue: mse, RightValue: 4.5 }), false);
  assert.equal(await cond({ Type: 'GreaterThanOrEqualTo', LeftValue: mse, RightValue: 4.5 }), true);
  assert.equal(await cond({ Type: 'LessThan', LeftValue: '10', RightValue: 9 }), false);
  assert.equal(await cond({ Type: 'Equals', LeftValue: { Get: 'Parameters.Threshold' }, RightValue: 6 }), true);
  assert.equal(await cond({ Type: 'Equals', LeftValue: { Get: 'Parameters.On' }, RightValue: true }), true);
  assert.equal(await cond({ Type: 'In', QueryValue: { Get: 'Parameters.Name' }, Values: ['x', 'abalone'] }), true);
  assert.equal(await cond({ Type: 'Not', Condition: { Type: 'Equals', LeftValue: 1, RightValue: 1 } }), false);
  assert.equal(
    await cond({
      Type: 'Or',
      Conditions: [
        { Type: 'Equals', LeftValue: 1, RightValue: 2 },
        { Type: 'Equals', LeftValue: 'a', RightValue: 'a' },
      ],
    }),
    true,
  );
  assert.equal(
    await evaluateConditions(
      [
        { Type: 'Equals', LeftValue: 1, RightValue: 1 },
        { Type: 'Equals', LeftValue: 1, RightValue: 2 },
      ],
      scope,
    ),
    false,
  );
  await assert.rejects(cond({ Type: 'GreaterThan', LeftValue: 'abc', RightValue: 1 }), /cannot compare "abc" with 1/);
});

test('ExpireAfter durations as SageMaker writes them', () => {
  assert.equal(parseDuration('PT1H'), 3_600_000);
  assert.equal(parseDuration('p30d'), 30 * 86_400_000);
  assert.equal(parseDuration('30d'), 30 * 86_400_000);
  assert.equal(parseDuration('T16m'), 16 * 60_000);
  assert.equal(parseDuration('30dT5h'), 30 * 86_400_000 + 5 * 3_600_000);
  assert.equal(parseDuration('P4DT12H'), 4 * 86_400_000 + 12 * 3_600_000);
  for (const bad of ['', 'P', 'PT', 'soon', '1h', 'P1D1D', 'PT0S']) assert.equal(parseDuration(bad), undefined, bad);
});

test('property paths: parsed, checked against the model, looked up by index or key', () => {
  const path = parsePropertyPath("ProcessingOutputConfig.Outputs['train'].S3Output.S3Uri");
  assert.equal(lookupProperty(describeProcessing, path), 's3://b/train');
  assert.equal(
    lookupProperty(describeProcessing, parsePropertyPath('ProcessingOutputConfig.Outputs[1].OutputName')),
    'test',
  );
  assert.equal(checkPropertyPath(['DescribeProcessingJobResponse'], path), undefined);
  assert.equal(
    checkPropertyPath(['DescribeProcessingJobResponse'], parsePropertyPath('ProcessingOutputConfig.Nope')),
    'Nope',
  );
  assert.equal(
    checkPropertyPath(['DescribeProcessingJobResponse'], parsePropertyPath('ProcessingJobName.More')),
    'More',
  );
  assert.throws(() => parsePropertyPath('A..B'));
  assert.throws(() => parsePropertyPath("A['x"));
});
