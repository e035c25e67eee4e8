import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { compileDefinition } from './definition.js';

const abalone = readFileSync(
  new URL('../../../test/fixtures/pipelines/abalone/definition.json', import.meta.url),
  'utf8',
);

/** A definition with these steps (and parameters). */
const def = (steps: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    Version: '2020-12-01',
    Parameters: [{ Name: 'Threshold', Type: 'Float', DefaultValue: 6 }],
    Steps: steps,
    ...extra,
  });

const processing = (name: string, args: Record<string, unknown> = {}, more: Record<string, unknown> = {}) => ({
  Name: name,
  Type: 'Processing',
  Arguments: {
    AppSpecification: { ImageUri: 'img' },
    ProcessingOutputConfig: {
      Outputs: [{ OutputName: 'out', S3Output: { S3Uri: 's3://b/o', LocalPath: '/opt/ml/processing/o' } }],
    },
    ...args,
  },
  ...more,
});

const rejects = (text: string, message: RegExp) =>
  assert.throws(
    () => compileDefinition(text),
    (e: Error & { code?: string }) => {
      assert.equal(e.code, 'ValidationException');
      assert.match(e.message, message);
      return true;
    },
  );

test("the SDK's abalone definition compiles: steps in dependency order, branches owned by the condition", () => {
  const p = compileDefinition(abalone);
  assert.deepEqual(
    p.steps.map((s) => s.name),
    [
      'AbaloneProcess',
      'AbaloneTrain',
      'AbaloneEval',
      'AbaloneMSECond',
      'AbaloneRegisterModel-RegisterModel',
      'AbaloneCreateModel-CreateModel',
      'AbaloneMSEFail',
      'AbaloneTransform',
    ],
  );
  const byName = p.byName;
  assert.deepEqual(byName.get('AbaloneTrain')!.dependsOn, ['AbaloneProcess']);
  assert.deepEqual([...byName.get('AbaloneEval')!.dependsOn].sort(), ['AbaloneProcess', 'AbaloneTrain']);
  assert.deepEqual(byName.get('AbaloneMSECond')!.dependsOn, ['AbaloneEval']);
  assert.deepEqual(byName.get('AbaloneMSEFail')!.branch, { condition: 'AbaloneMSECond', outcome: false });
  assert.deepEqual(byName.get('AbaloneTransform')!.branch, { condition: 'AbaloneMSECond', outcome: true });
  assert.ok(byName.get('AbaloneTransform')!.dependsOn.includes('AbaloneCreateModel-CreateModel'));
  assert.equal(byName.get('AbaloneProcess')!.cacheExpireMs, 3_600_000);
  assert.deepEqual(Object.keys(byName.get('AbaloneMSECond')!.arguments), ['Conditions']);
  assert.deepEqual(p.experiment, {
    ExperimentName: { Get: 'Execution.PipelineName' },
    TrialName: { Get: 'Execution.PipelineExecutionId' },
  });
});

test('DependsOn and data references order the steps; a cycle is refused naming its steps', () => {
  const p = compileDefinition(def([processing('B', {}, { DependsOn: ['A'] }), processing('A')]));
  assert.deepEqual(
    p.steps.map((s) => s.name),
    ['A', 'B'],
  );
  rejects(
    def([
      processing('A', { Environment: { X: { Get: "Steps.B.ProcessingOutputConfig.Outputs['out'].S3Output.S3Uri" } } }),
      processing('B', {}, { DependsOn: ['A'] }),
    ]),
    /cycle: (A -> B -> A|B -> A -> B)/,
  );
  rejects(def([processing('A', {}, { DependsOn: ['A'] })]), /step A depends on itself/);
});

test('references to what does not exist are refused naming the step and the reference', () => {
  rejects(def([processing('A', {}, { DependsOn: ['Nope'] })]), /step A depends on Nope, which is not a step/);
  rejects(
    def([processing('A', { Environment: { X: { Get: 'Steps.Nope.ModelArtifacts.S3ModelArtifacts' } } })]),
    /step A refers to the step Nope/,
  );
  rejects(
    def([processing('A', { Environment: { X: { Get: 'Parameters.Missing' } } })]),
    /step A refers to the parameter Missing/,
  );
  rejects(def([processing('A', { Environment: { X: { Get: 'Execution.Nope' } } })]), /Execution\.Nope/);
  rejects(
    def([processing('A', { Environment: { X: { Get: 'Whatever' } } })]),
    /step A: "Whatever" is not a valid reference/,
  );
});

test('a property path is checked against the step type’s Describe response', () => {
  const train = { Name: 'T', Type: 'Training', Arguments: {} };
  compileDefinition(
    def([train, processing('A', { Environment: { X: { Get: 'Steps.T.ModelArtifacts.S3ModelArtifacts' } } })]),
  );
  compileDefinition(
    def([train, processing('A', { Environment: { X: { Get: "Steps.T.FinalMetricDataList['rmse'].Value" } } })]),
  );
  rejects(
    def([train, processing('A', { Environment: { X: { Get: 'Steps.T.ModelArtifacts.NoSuchThing' } } })]),
    /step A refers to Steps\.T\.ModelArtifacts\.NoSuchThing, but a Training step has no property NoSuchThing/,
  );
  rejects(
    def([processing('P'), processing('A', { Environment: { X: { Get: 'Steps.P.Outcome' } } })]),
    /a Processing step has no property Outcome/,
  );
  const fail = { Name: 'F', Type: 'Fail', Arguments: { ErrorMessage: 'x' } };
  rejects(def([fail, processing('A', { Environment: { X: { Get: 'Steps.F.ErrorMessage' } } })]), /F is a Fail step/);
});

test('step types Slipway cannot run are refused at create, naming the type', () => {
  for (const type of ['EMR', 'Lambda', 'ClarifyCheck', 'QualityCheck', 'AutoML']) {
    rejects(
      def([{ Name: 'X', Type: type, Arguments: {} }]),
      new RegExp(`step X is of type ${type}, which Slipway cannot run`),
    );
  }
  rejects(def([{ Name: 'X', Type: 'Teleport', Arguments: {} }]), /step X has the unknown type Teleport/);
  assert.throws(
    () => compileDefinition(def([{ Name: 'X', Type: 'Tuning', Arguments: {} }]), { canRun: (t) => t !== 'Tuning' }),
    /step X is of type Tuning, which this Slipway cannot run yet/,
  );
});

test('parameters, conditions, caches and retry policies are checked', () => {
  rejects(JSON.stringify({ Version: '2021-01-01', Steps: [] }), /Version must be "2020-12-01"/);
  rejects('{not json', /not JSON/);
  rejects(
    def([processing('A')], { Parameters: [{ Name: 'N', Type: 'Integer', DefaultValue: 1.5 }] }),
    /default value 1\.5 of parameter N is not a Integer/,
  );
  rejects(
    def([processing('A')], { Parameters: [{ Name: 'S', Type: 'String', DefaultValue: 'c', EnumValues: ['a', 'b'] }] }),
    /default value c of parameter S is not one of its EnumValues/,
  );
  rejects(def([processing('A'), processing('A')]), /step name A is used more than once/);
  rejects(
    def([
      { Name: 'C', Type: 'Condition', Arguments: { Conditions: [{ Type: 'Almost', LeftValue: 1, RightValue: 2 }] } },
    ]),
    /step C: Unknown condition type Almost/,
  );
  rejects(
    def([processing('A', {}, { CacheConfig: { Enabled: true } })]),
    /CacheConfig with caching enabled needs ExpireAfter/,
  );
  rejects(
    def([processing('A', {}, { CacheConfig: { Enabled: true, ExpireAfter: 'soon' } })]),
    /ExpireAfter soon is not an ISO 8601 duration/,
  );
  rejects(
    def([processing('A', {}, { RetryPolicies: [{ ExceptionType: ['Step.BAD'], MaxAttempts: 1 }] })]),
    /unknown retry ExceptionType "Step\.BAD"/,
  );
  rejects(
    def([processing('A', {}, { PropertyFiles: [{ PropertyFileName: 'R', OutputName: 'nope', FilePath: 'r.json' }] })]),
    /property file R names the output nope, which the step does not have/,
  );
  const p = compileDefinition(
    def([
      processing('A', {}, { RetryPolicies: [{ ExceptionType: ['SageMaker.JOB_INTERNAL_ERROR'], MaxAttempts: 2 }] }),
    ]),
  );
  assert.deepEqual(p.byName.get('A')!.retryPolicies, [
    {
      exceptionTypes: ['SageMaker.JOB_INTERNAL_ERROR'],
      intervalSeconds: 1,
      backoffRate: 2,
      maxAttempts: 2,
      expireAfterMin: undefined,
    },
  ]);
});

test('a JsonGet must name a property file its step declares; a Callback output must be declared', () => {
  const report = processing(
    'E',
    {},
    { PropertyFiles: [{ PropertyFileName: 'Report', OutputName: 'out', FilePath: 'r.json' }] },
  );
  const cond = (file: string) => ({
    Name: 'C',
    Type: 'Condition',
    Arguments: {
      Conditions: [
        {
          Type: 'LessThanOrEqualTo',
          LeftValue: { 'Std:JsonGet': { PropertyFile: { Get: `Steps.E.PropertyFiles.${file}` }, Path: 'mse.value' } },
          RightValue: { Get: 'Parameters.Threshold' },
        },
      ],
      IfSteps: [],
      ElseSteps: [],
    },
  });
  assert.deepEqual(compileDefinition(def([report, cond('Report')])).byName.get('C')!.dependsOn, ['E']);
  rejects(def([report, cond('Other')]), /property file Other of step E, which declares no such file/);
  const callback = {
    Name: 'CB',
    Type: 'Callback',
    Arguments: {},
    OutputParameters: [{ OutputName: 'out', OutputType: 'String' }],
  };
  compileDefinition(
    def([callback, processing('A', { Environment: { X: { Get: "Steps.CB.OutputParameters['out']" } } })]),
  );
  rejects(
    def([callback, processing('A', { Environment: { X: { Get: "Steps.CB.OutputParameters['other']" } } })]),
    /step CB declares no output parameter other/,
  );
});

test('PipelineExperimentConfig: null turns experiments off; it may only name parameters and execution variables', () => {
  assert.equal(compileDefinition(def([processing('A')], { PipelineExperimentConfig: null })).experiment, null);
  rejects(
    def([processing('A')], { PipelineExperimentConfig: { ExperimentName: { Get: 'Steps.A.ProcessingJobName' } } }),
    /PipelineExperimentConfig may refer to parameters and execution variables only/,
  );
});
