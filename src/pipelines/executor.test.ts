import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { compileDefinition } from './definition.js';
import { failureReasonOf, planSteps } from './executor.js';
import type { StepDoc, StepRow, StepStatus } from './store.js';

const abalone = compileDefinition(
  readFileSync(new URL('../../../test/fixtures/pipelines/abalone/definition.json', import.meta.url), 'utf8'),
);

function rows(states: Record<string, StepStatus | [StepStatus, StepDoc]>): Map<string, StepRow> {
  return new Map(
    Object.entries(states).map(([name, s], i) => {
      const [status, doc] = Array.isArray(s) ? s : [s, {}];
      return [
        name,
        {
          execution_arn: 'e',
          step_name: name,
          account_id: 'a',
          region: 'r',
          pipeline_key: 'p',
          step_type: abalone.byName.get(name)!.type,
          status,
          attempt: 1,
          seq: i + 1,
          started_at: 1,
          ended_at: null,
          not_before: null,
          job_arn: null,
          cache_key: null,
          callback_token: null,
          doc: JSON.stringify(doc),
        } satisfies StepRow,
      ];
    }),
  );
}

const names = (plan: ReturnType<typeof planSteps>) => plan.ready.map((r) => r.step.name);
const outcome = (o: 'True' | 'False'): [StepStatus, StepDoc] => [
  'Succeeded',
  { Metadata: { Condition: { Outcome: o } } },
];

test('a step is ready once every step it depends on succeeded', () => {
  assert.deepEqual(names(planSteps(abalone, rows({}))), ['AbaloneProcess']);
  const running = planSteps(abalone, rows({ AbaloneProcess: 'Executing' }));
  assert.deepEqual(names(running), []);
  assert.equal(running.active, 1);
  assert.deepEqual(names(planSteps(abalone, rows({ AbaloneProcess: 'Succeeded' }))), ['AbaloneTrain']);
  assert.deepEqual(names(planSteps(abalone, rows({ AbaloneProcess: 'Succeeded', AbaloneTrain: 'Succeeded' }))), [
    'AbaloneEval',
  ]);
});

test('only the branch the condition chose runs; the other is skipped, not waited for', () => {
  const done = { AbaloneProcess: 'Succeeded', AbaloneTrain: 'Succeeded', AbaloneEval: 'Succeeded' } as const;
  assert.deepEqual(names(planSteps(abalone, rows({ ...done, AbaloneMSECond: outcome('True') }))), [
    'AbaloneRegisterModel-RegisterModel',
    'AbaloneCreateModel-CreateModel',
  ]);
  assert.deepEqual(names(planSteps(abalone, rows({ ...done, AbaloneMSECond: outcome('False') }))), ['AbaloneMSEFail']);
  const finished = planSteps(
    abalone,
    rows({
      ...done,
      AbaloneMSECond: outcome('True'),
      'AbaloneRegisterModel-RegisterModel': 'Succeeded',
      'AbaloneCreateModel-CreateModel': 'Succeeded',
      AbaloneTransform: 'Succeeded',
    }),
  );
  assert.deepEqual([names(finished), finished.active, finished.failed], [[], 0, []]);
});

test('a failed step blocks what depends on it and is reported with its reason', () => {
  const plan = planSteps(abalone, rows({ AbaloneProcess: ['Failed', { FailureReason: 'AlgorithmError: boom' }] }));
  assert.deepEqual([names(plan), plan.active], [[], 0]);
  assert.deepEqual(plan.failed, [{ name: 'AbaloneProcess', reason: 'AlgorithmError: boom' }]);
  assert.equal(
    failureReasonOf(plan.failed),
    'Step failure: One or multiple steps failed. AbaloneProcess: AlgorithmError: boom',
  );
});

test('a step put back by RetryPipelineExecution (Pending) is ready again', () => {
  const plan = planSteps(abalone, rows({ AbaloneProcess: 'Succeeded', AbaloneTrain: 'Pending' }));
  assert.deepEqual(names(plan), ['AbaloneTrain']);
  assert.equal(plan.ready[0]!.row?.status, 'Pending');
});
