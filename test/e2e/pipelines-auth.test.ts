// With a credentials file, a pipeline acts as its role: each call its steps make must be allowed to
// the role (a step whose role may not create its model fails with IAM's sentence), and the
// pipeline operations themselves are authorized like any other.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CreatePipelineCommand, SageMakerClient, StartPipelineExecutionCommand } from '@aws-sdk/client-sagemaker';
import { rejects } from '../support/errors.js';
import { definition, STEP_IMAGE, waitForExecution } from '../support/pipelines.js';
import { ACCOUNT, REGION, startServer, type TestServer } from '../support/server.js';

const ADMIN = { accessKeyId: 'AKIAPIPELINEADMIN001', secretAccessKey: 'admin-secret' };
const VIEWER = { accessKeyId: 'AKIAPIPELINEVIEWER01', secretAccessKey: 'viewer-secret' };
const TRUSTED = `arn:aws:iam::${ACCOUNT}:role/pipeline-trusted`;
const LIMITED = `arn:aws:iam::${ACCOUNT}:role/pipeline-limited`;

let server: TestServer;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'slipway-pipelines-auth-'));
  const allow = (Action: string | string[]) => ({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action, Resource: '*' }],
  });
  writeFileSync(
    join(dir, 'credentials.json'),
    JSON.stringify({
      principals: [
        { ...ADMIN, arn: `arn:aws:iam::${ACCOUNT}:user/admin`, policy: allow('*') },
        {
          ...VIEWER,
          arn: `arn:aws:iam::${ACCOUNT}:user/viewer`,
          policy: allow(['sagemaker:Describe*', 'sagemaker:List*']),
        },
      ],
      roles: [
        { arn: TRUSTED, policy: allow('sagemaker:*') },
        // May run the pipeline's bookkeeping but not create models.
        { arn: LIMITED, policy: allow(['sagemaker:CreateExperiment', 'sagemaker:CreateTrial', 'sagemaker:Describe*']) },
      ],
    }),
  );
  server = await startServer(['--credentials-file', join(dir, 'credentials.json')]);
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const MODEL_ONLY = definition([
  { Name: 'Model', Type: 'Model', Arguments: { ExecutionRoleArn: TRUSTED, PrimaryContainer: { Image: STEP_IMAGE } } },
]);

test("a step acts as the pipeline's role: allowed, it runs; refused, it fails with IAM's sentence", async () => {
  const sm = new SageMakerClient({ endpoint: server.endpoint, region: REGION, credentials: ADMIN });
  const viewer = new SageMakerClient({ endpoint: server.endpoint, region: REGION, credentials: VIEWER });
  try {
    await rejects(
      viewer.send(
        new CreatePipelineCommand({ PipelineName: 'Nope', PipelineDefinition: MODEL_ONLY, RoleArn: TRUSTED }),
      ),
      'AccessDeniedException',
      /is not authorized to perform: sagemaker:CreatePipeline on resource: arn:aws:sagemaker:us-west-2:\d+:pipeline\/nope/,
    );
    for (const [name, role] of [
      ['Trusted', TRUSTED],
      ['Limited', LIMITED],
    ] as const) {
      await sm.send(new CreatePipelineCommand({ PipelineName: name, PipelineDefinition: MODEL_ONLY, RoleArn: role }));
    }
    const ok = await sm.send(new StartPipelineExecutionCommand({ PipelineName: 'Trusted' }));
    assert.equal((await waitForExecution(sm, ok.PipelineExecutionArn!)).execution.PipelineExecutionStatus, 'Succeeded');
    const refused = await sm.send(new StartPipelineExecutionCommand({ PipelineName: 'Limited' }));
    const { execution, steps } = await waitForExecution(sm, refused.PipelineExecutionArn!);
    assert.equal(execution.PipelineExecutionStatus, 'Failed');
    assert.match(
      steps.Model!.FailureReason!,
      new RegExp(
        `^AccessDeniedException: User: ${LIMITED} is not authorized to perform: sagemaker:CreateModel on resource: arn:aws:sagemaker:us-west-2:${ACCOUNT}:model/pipelines-`,
      ),
    );
  } finally {
    sm.destroy();
    viewer.destroy();
  }
});
