// SageMaker Pipelines through the AWS SDK for JavaScript: definitions refused with the step and the
// reason named, callback steps completed through SendPipelineExecutionStep*, RetryPipelineExecution,
// StopPipelineExecution reaching the running job, ParallelismConfiguration, a definition in S3,
// tags, listing and deletion.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import {
  AddTagsCommand,
  CreatePipelineCommand,
  DeletePipelineCommand,
  DescribeModelCommand,
  DescribePipelineCommand,
  DescribePipelineExecutionCommand,
  DescribeProcessingJobCommand,
  ListPipelineExecutionsCommand,
  ListPipelinesCommand,
  ListTagsCommand,
  RetryPipelineExecutionCommand,
  SearchCommand,
  SendPipelineExecutionStepFailureCommand,
  SendPipelineExecutionStepSuccessCommand,
  StartPipelineExecutionCommand,
  StopPipelineExecutionCommand,
  UpdatePipelineExecutionCommand,
} from '@aws-sdk/client-sagemaker';
import { sdkClients } from '../support/clients.js';
import { rejects } from '../support/errors.js';

const expectError = (p: Promise<unknown>, name: string, message: string | RegExp = /./) => rejects(p, name, message);
import {
  definition,
  PIPELINE_ROLE,
  STEP_IMAGE,
  stepProcessing,
  stepsOf,
  waitForExecution,
  waitForSteps,
} from '../support/pipelines.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let clients: ReturnType<typeof sdkClients>;
const BUCKET = 'pipeline-tests';

before(async () => {
  server = await startServer(['--containers-file', 'test/fixtures/pipelines/containers.json']);
  clients = sdkClients(server.endpoint);
  await clients.s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
});
after(async () => {
  clients.sm.destroy();
  clients.s3.destroy();
  await server.close();
});

const create = (name: string, def: string, extra: Record<string, unknown> = {}) =>
  clients.sm.send(
    new CreatePipelineCommand({ PipelineName: name, PipelineDefinition: def, RoleArn: PIPELINE_ROLE, ...extra }),
  );

test('CreatePipeline refuses a bad definition with ValidationException naming the step and the problem', async () => {
  const cases: Array<[string, RegExp]> = [
    [
      definition([
        stepProcessing('A', BUCKET, {}, { DependsOn: ['B'] }),
        stepProcessing('B', BUCKET, {}, { DependsOn: ['A'] }),
      ]),
      /cycle: (A -> B -> A|B -> A -> B)/,
    ],
    [
      definition([stepProcessing('A', BUCKET, {}, { DependsOn: ['Ghost'] })]),
      /step A depends on Ghost, which is not a step/,
    ],
    [
      definition([stepProcessing('A', BUCKET, { X: { Get: 'Steps.Ghost.ProcessingJobName' } })]),
      /step A refers to the step Ghost/,
    ],
    [
      definition([stepProcessing('A', BUCKET, { X: { Get: 'Parameters.Nope' } })]),
      /step A refers to the parameter Nope/,
    ],
    [definition([{ Name: 'Emr', Type: 'EMR', Arguments: {} }]), /step Emr is of type EMR, which Slipway cannot run/],
    [definition([{ Name: 'L', Type: 'Lambda', Arguments: {} }]), /step L is of type Lambda, which Slipway cannot run/],
    ['{"Version": "2020-12-01", "Steps": [', /not JSON/],
  ];
  for (const [def, message] of cases) {
    await expectError(create('bad', def), 'ValidationException', message);
  }
  await expectError(
    clients.sm.send(new CreatePipelineCommand({ PipelineName: 'bad', RoleArn: PIPELINE_ROLE })),
    'ValidationException',
    /Either PipelineDefinition or PipelineDefinitionS3Location must be specified/,
  );
  await expectError(
    clients.sm.send(new DescribePipelineCommand({ PipelineName: 'bad' })),
    'ResourceNotFound',
    /Pipeline '.*pipeline\/bad' does not exist/,
  );
});

test('a definition in S3, tags, listing by prefix, and DeletePipeline', async () => {
  const def = definition([stepProcessing('Only', BUCKET)]);
  await clients.s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'defs/listed.json', Body: def }));
  const { PipelineArn } = await clients.sm.send(
    new CreatePipelineCommand({
      PipelineName: 'Listed-One',
      PipelineDefinitionS3Location: { Bucket: BUCKET, ObjectKey: 'defs/listed.json' },
      RoleArn: PIPELINE_ROLE,
      Tags: [{ Key: 'team', Value: 'ml' }],
    }),
  );
  assert.match(PipelineArn!, /:pipeline\/listed-one$/);
  await create('Listed-Two', def);
  await create('Other', def);
  const d = await clients.sm.send(new DescribePipelineCommand({ PipelineName: PipelineArn }));
  assert.equal(d.PipelineDefinition, def);
  assert.equal(d.PipelineStatus, 'Active');
  assert.equal(d.PipelineDisplayName, 'Listed-One');
  const listed = await clients.sm.send(
    new ListPipelinesCommand({ PipelineNamePrefix: 'listed', SortBy: 'Name', SortOrder: 'Ascending' }),
  );
  assert.deepEqual(
    listed.PipelineSummaries?.map((p) => p.PipelineName),
    ['Listed-One', 'Listed-Two'],
  );
  await clients.sm.send(new AddTagsCommand({ ResourceArn: PipelineArn, Tags: [{ Key: 'stage', Value: 'dev' }] }));
  const tags = await clients.sm.send(new ListTagsCommand({ ResourceArn: PipelineArn }));
  assert.deepEqual(tags.Tags, [
    { Key: 'team', Value: 'ml' },
    { Key: 'stage', Value: 'dev' },
  ]);
  const found = await clients.sm.send(
    new SearchCommand({
      Resource: 'Pipeline',
      SearchExpression: { Filters: [{ Name: 'Tags.team', Operator: 'Equals', Value: 'ml' }] },
    }),
  );
  assert.deepEqual(
    found.Results?.map((r) => [r.Pipeline?.PipelineName, r.Pipeline?.RoleArn]),
    [['Listed-One', PIPELINE_ROLE]],
  );
  await clients.sm.send(new DeletePipelineCommand({ PipelineName: 'Listed-Two' }));
  await expectError(clients.sm.send(new DescribePipelineCommand({ PipelineName: 'Listed-Two' })), 'ResourceNotFound');
});

test('callback steps wait for SendPipelineExecutionStep*; a failed execution is retried from its failed step', async () => {
  const def = definition([
    {
      Name: 'Approve',
      Type: 'Callback',
      Arguments: { Note: { Get: 'Execution.PipelineExecutionId' } },
      SqsQueueUrl: 'https://sqs.us-west-2.amazonaws.com/111122223333/approvals',
      OutputParameters: [{ OutputName: 'image', OutputType: 'String' }],
    },
    {
      Name: 'Model',
      Type: 'Model',
      Arguments: {
        ExecutionRoleArn: PIPELINE_ROLE,
        PrimaryContainer: { Image: { Get: "Steps.Approve.OutputParameters['image']" } },
      },
    },
  ]);
  await create('Callbacks', def);
  const { PipelineExecutionArn: arn } = await clients.sm.send(
    new StartPipelineExecutionCommand({ PipelineName: 'Callbacks' }),
  );
  const token = async () => {
    const steps = await waitForSteps(clients.sm, arn!, (s) => s.Approve?.StepStatus === 'Executing');
    assert.equal(
      steps.Approve!.Metadata?.Callback?.SqsQueueUrl,
      'https://sqs.us-west-2.amazonaws.com/111122223333/approvals',
    );
    return { token: steps.Approve!.Metadata!.Callback!.CallbackToken!, attempt: steps.Approve!.AttemptCount };
  };
  const first = await token();
  assert.equal(first.attempt, 1);
  await expectError(
    clients.sm.send(new SendPipelineExecutionStepSuccessCommand({ CallbackToken: 'NoSuchTokn' })),
    'ResourceNotFound',
  );
  await expectError(
    clients.sm.send(
      new SendPipelineExecutionStepSuccessCommand({
        CallbackToken: first.token,
        OutputParameters: [{ Name: 'other', Value: 'x' }],
      }),
    ),
    'ValidationException',
    /declares no output parameter other/,
  );
  await clients.sm.send(
    new SendPipelineExecutionStepFailureCommand({ CallbackToken: first.token, FailureReason: 'not approved' }),
  );
  let done = await waitForExecution(clients.sm, arn!);
  assert.equal(done.execution.PipelineExecutionStatus, 'Failed');
  assert.match(done.execution.FailureReason!, /Approve: not approved/);
  assert.equal(done.steps.Approve!.FailureReason, 'not approved');
  assert.equal(done.steps.Model, undefined);

  await clients.sm.send(new RetryPipelineExecutionCommand({ PipelineExecutionArn: arn }));
  const second = await token();
  assert.equal(second.attempt, 2);
  assert.notEqual(second.token, first.token);
  const image = '111122223333.dkr.ecr.us-west-2.amazonaws.com/approved:1';
  const out = await clients.sm.send(
    new SendPipelineExecutionStepSuccessCommand({
      CallbackToken: second.token,
      OutputParameters: [{ Name: 'image', Value: image }],
    }),
  );
  assert.equal(out.PipelineExecutionArn, arn);
  done = await waitForExecution(clients.sm, arn!);
  assert.equal(done.execution.PipelineExecutionStatus, 'Succeeded');
  assert.deepEqual(done.steps.Approve!.Metadata?.Callback?.OutputParameters, [{ Name: 'image', Value: image }]);
  const searched = await clients.sm.send(
    new SearchCommand({
      Resource: 'PipelineExecution',
      SearchExpression: {
        Filters: [
          { Name: 'PipelineExecutionStatus', Operator: 'Equals', Value: 'Succeeded' },
          { Name: 'PipelineArn', Operator: 'Contains', Value: 'callbacks' },
        ],
      },
    }),
  );
  assert.deepEqual(
    searched.Results?.map((r) => r.PipelineExecution?.PipelineExecutionArn),
    [arn],
  );
  const model = await clients.sm.send(
    new DescribeModelCommand({ ModelName: done.steps.Model!.Metadata!.Model!.Arn!.split('/').pop() }),
  );
  assert.equal(model.PrimaryContainer?.Image, image);
  // A settled callback cannot be settled again.
  await expectError(
    clients.sm.send(new SendPipelineExecutionStepSuccessCommand({ CallbackToken: second.token })),
    'ValidationException',
    /no longer waits for a callback/,
  );
});

test('StopPipelineExecution stops the running job; the step and the execution end Stopped', async () => {
  await create(
    'Stoppable',
    definition([
      stepProcessing('Sleepy', BUCKET, { SLEEP_MS: '60000' }),
      stepProcessing('After', BUCKET, {}, { DependsOn: ['Sleepy'] }),
    ]),
  );
  const { PipelineExecutionArn: arn } = await clients.sm.send(
    new StartPipelineExecutionCommand({ PipelineName: 'Stoppable' }),
  );
  const running = await waitForSteps(clients.sm, arn!, (s) => s.Sleepy?.StepStatus === 'Executing');
  const job = running.Sleepy!.Metadata!.ProcessingJob!.Arn!.split('/').pop()!;
  await clients.sm.send(new StopPipelineExecutionCommand({ PipelineExecutionArn: arn }));
  const done = await waitForExecution(clients.sm, arn!);
  assert.equal(done.execution.PipelineExecutionStatus, 'Stopped');
  assert.equal(done.steps.Sleepy!.StepStatus, 'Stopped');
  assert.equal(done.steps.After, undefined);
  assert.equal(
    (await clients.sm.send(new DescribeProcessingJobCommand({ ProcessingJobName: job }))).ProcessingJobStatus,
    'Stopped',
  );
  await expectError(
    clients.sm.send(new StopPipelineExecutionCommand({ PipelineExecutionArn: arn })),
    'ValidationException',
    /is Stopped; only an Executing execution can be stopped/,
  );
});

test('ParallelismConfiguration bounds the steps running at once; UpdatePipelineExecution changes it', async () => {
  const callback = (name: string) => ({ Name: name, Type: 'Callback', Arguments: {}, OutputParameters: [] });
  await create('Narrow', definition([callback('A'), callback('B'), callback('C')]), {
    ParallelismConfiguration: { MaxParallelExecutionSteps: 1 },
  });
  const { PipelineExecutionArn: arn } = await clients.sm.send(
    new StartPipelineExecutionCommand({ PipelineName: 'Narrow', PipelineExecutionDisplayName: 'narrow-run' }),
  );
  let steps = await waitForSteps(clients.sm, arn!, (s) => Object.keys(s).length === 1);
  await new Promise((r) => setTimeout(r, 300));
  steps = await stepsOf(clients.sm, arn!);
  assert.deepEqual(Object.keys(steps), ['A']);
  await clients.sm.send(
    new SendPipelineExecutionStepSuccessCommand({ CallbackToken: steps.A!.Metadata!.Callback!.CallbackToken! }),
  );
  steps = await waitForSteps(clients.sm, arn!, (s) => s.B?.StepStatus === 'Executing');
  assert.equal(steps.C, undefined);
  await clients.sm.send(
    new UpdatePipelineExecutionCommand({
      PipelineExecutionArn: arn,
      ParallelismConfiguration: { MaxParallelExecutionSteps: 2 },
    }),
  );
  steps = await waitForSteps(clients.sm, arn!, (s) => s.C?.StepStatus === 'Executing');
  for (const s of ['B', 'C'])
    await clients.sm.send(
      new SendPipelineExecutionStepSuccessCommand({ CallbackToken: steps[s]!.Metadata!.Callback!.CallbackToken! }),
    );
  const done = await waitForExecution(clients.sm, arn!);
  assert.equal(done.execution.PipelineExecutionStatus, 'Succeeded');
  assert.equal(done.execution.PipelineExecutionDisplayName, 'narrow-run');
  assert.deepEqual(done.execution.ParallelismConfiguration, { MaxParallelExecutionSteps: 2 });
  const listed = await clients.sm.send(new ListPipelineExecutionsCommand({ PipelineName: 'Narrow' }));
  assert.deepEqual(
    listed.PipelineExecutionSummaries?.map((e) => [e.PipelineExecutionArn, e.PipelineExecutionStatus]),
    [[arn, 'Succeeded']],
  );
  // A running execution holds its pipeline: DeletePipeline is refused while one runs.
  const second = await clients.sm.send(new StartPipelineExecutionCommand({ PipelineName: 'Narrow' }));
  await expectError(
    clients.sm.send(new DeletePipelineCommand({ PipelineName: 'Narrow' })),
    'ValidationException',
    /has a running execution/,
  );
  await clients.sm.send(new StopPipelineExecutionCommand({ PipelineExecutionArn: second.PipelineExecutionArn }));
  assert.equal(
    (await waitForExecution(clients.sm, second.PipelineExecutionArn!)).execution.PipelineExecutionStatus,
    'Stopped',
  );
  await clients.sm.send(new DeletePipelineCommand({ PipelineName: 'Narrow' }));
  await expectError(
    clients.sm.send(new DescribePipelineExecutionCommand({ PipelineExecutionArn: arn })),
    'ResourceNotFound',
  );
});

test('a step that fails fails the execution with its reason; ClientRequestToken makes a start idempotent', async () => {
  await create(
    'Failing',
    definition([
      stepProcessing('Broken', BUCKET, { FAIL: 'the input has no rows' }),
      stepProcessing('Next', BUCKET, {}, { DependsOn: ['Broken'] }),
    ]),
  );
  const token = 'start-once-0000000000000000000001';
  const a = await clients.sm.send(
    new StartPipelineExecutionCommand({ PipelineName: 'Failing', ClientRequestToken: token }),
  );
  const b = await clients.sm.send(
    new StartPipelineExecutionCommand({ PipelineName: 'Failing', ClientRequestToken: token }),
  );
  assert.equal(a.PipelineExecutionArn, b.PipelineExecutionArn);
  const done = await waitForExecution(clients.sm, a.PipelineExecutionArn!);
  assert.equal(done.execution.PipelineExecutionStatus, 'Failed');
  assert.match(done.steps.Broken!.FailureReason!, /^AlgorithmError: .*ExitCode 2: the input has no rows/);
  assert.match(done.execution.FailureReason!, /^Step failure: One or multiple steps failed\. Broken: AlgorithmError/);
  assert.equal(done.steps.Next, undefined);
  void STEP_IMAGE;
});
