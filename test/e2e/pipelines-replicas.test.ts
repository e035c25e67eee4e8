// A pipeline execution outlives the server running it: killed with kill -9 mid-step, a restarted
// server (same replica id) takes the execution back at once; with two replicas on PostgreSQL, the
// survivor takes it over once the dead one's lease expires. The job that died with its server is
// failed as SageMaker.JOB_INTERNAL_ERROR and the step's RetryPolicy runs it again; no step runs twice.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreatePipelineCommand,
  ListModelsCommand,
  ListProcessingJobsCommand,
  SageMakerClient,
  StartPipelineExecutionCommand,
} from '@aws-sdk/client-sagemaker';
import pg from 'pg';
import {
  definition,
  PIPELINE_ROLE,
  STEP_IMAGE,
  stepProcessing,
  waitForExecution,
  waitForSteps,
} from '../support/pipelines.js';
import {
  CREDENTIALS,
  databaseArgs,
  PG_URL,
  REGION,
  spawnServer,
  startServer,
  tempDir,
  type ChildServer,
  type TestServer,
} from '../support/server.js';

const BUCKET = 'pipeline-restarts';
const CONTAINERS = ['--containers-file', 'test/fixtures/pipelines/containers.json'];

/** A slow step retried when its job dies with its server, then a Model step reading its output. */
const DEFINITION = definition([
  stepProcessing(
    'Slow',
    BUCKET,
    { SLEEP_MS: '3000' },
    { RetryPolicies: [{ ExceptionType: ['SageMaker.JOB_INTERNAL_ERROR'], IntervalSeconds: 0, MaxAttempts: 2 }] },
  ),
  {
    Name: 'Register',
    Type: 'Model',
    Arguments: {
      ExecutionRoleArn: PIPELINE_ROLE,
      PrimaryContainer: {
        Image: STEP_IMAGE,
        ModelDataUrl: { Get: "Steps.Slow.ProcessingOutputConfig.Outputs['result'].S3Output.S3Uri" },
      },
    },
  },
]);

const client = (endpoint: string) =>
  new SageMakerClient({ region: REGION, credentials: CREDENTIALS, endpoint, maxAttempts: 1 });

/** Starts the pipeline, waits for its slow step's job to run, and kills the server with kill -9. */
async function startAndKill(server: ChildServer): Promise<string> {
  const sm = client(server.endpoint);
  try {
    await sm.send(
      new CreatePipelineCommand({ PipelineName: 'Survivor', PipelineDefinition: DEFINITION, RoleArn: PIPELINE_ROLE }),
    );
    const { PipelineExecutionArn } = await sm.send(new StartPipelineExecutionCommand({ PipelineName: 'Survivor' }));
    await waitForSteps(sm, PipelineExecutionArn!, (s) => s.Slow?.StepStatus === 'Executing');
    server.child.kill('SIGKILL');
    assert.equal(await server.exited, 'SIGKILL');
    return PipelineExecutionArn!;
  } finally {
    sm.destroy();
  }
}

/** The execution ends Succeeded with the slow step on its second attempt and nothing duplicated. */
async function checkFinished(sm: SageMakerClient, arn: string): Promise<void> {
  const { execution, steps } = await waitForExecution(sm, arn, 60_000);
  assert.equal(execution.PipelineExecutionStatus, 'Succeeded', JSON.stringify(steps));
  assert.equal(steps.Slow!.AttemptCount, 2);
  assert.equal(steps.Register!.StepStatus, 'Succeeded');
  const jobs = (await sm.send(new ListProcessingJobsCommand({ SortOrder: 'Ascending' }))).ProcessingJobSummaries!;
  assert.deepEqual(
    jobs.map((j) => j.ProcessingJobStatus),
    ['Failed', 'Completed'],
  );
  assert.match(jobs[0]!.FailureReason!, /^InternalServerError/);
  assert.equal(steps.Slow!.Metadata!.ProcessingJob!.Arn, jobs[1]!.ProcessingJobArn);
  assert.equal((await sm.send(new ListModelsCommand({}))).Models!.length, 1);
}

test('kill -9 mid-execution: the restarted server resumes it and retries the job that died', async () => {
  const dir = tempDir();
  try {
    const args = [...CONTAINERS, '--replica-id', 'solo'];
    const first = await spawnServer(args, dir);
    const s3 = new S3Client({
      region: REGION,
      credentials: CREDENTIALS,
      endpoint: first.endpoint,
      forcePathStyle: true,
    });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    s3.destroy();
    const arn = await startAndKill(first);
    const second = await spawnServer(args, dir);
    const sm = client(second.endpoint);
    try {
      await checkFinished(sm, arn);
    } finally {
      sm.destroy();
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('two replicas on one PostgreSQL database', () => {
  const schema = `t_${process.pid}_${Date.now().toString(36)}_pipelines`;
  const dirs = [tempDir(), tempDir()];
  let objects: TestServer;
  const sql = new pg.Client({ connectionString: PG_URL });

  before(async () => {
    // The replicas' shared object store, reached with the usual AWS credentials.
    objects = await startServer();
    process.env.AWS_ACCESS_KEY_ID = CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = CREDENTIALS.secretAccessKey;
    process.env.AWS_REGION = REGION;
    await sql.connect();
    const s3 = new S3Client({
      region: REGION,
      credentials: CREDENTIALS,
      endpoint: objects.endpoint,
      forcePathStyle: true,
    });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    s3.destroy();
  });
  after(async () => {
    await objects?.close();
    await sql.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await sql.query(`DROP SCHEMA IF EXISTS ${schema}_graph CASCADE`);
    await sql.end();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('kill -9 of the replica running an execution: the other takes it over under the lease', async () => {
    const args = (id: string) => [
      ...databaseArgs('postgres', schema),
      '--s3-endpoint',
      objects.endpoint,
      ...CONTAINERS,
      '--job-lease-seconds',
      '2',
      '--replica-id',
      id,
    ];
    const a = await spawnServer(args('replica-a'), dirs[0]!);
    const b = await spawnServer(args('replica-b'), dirs[1]!);
    const smB = client(b.endpoint);
    try {
      const arn = await startAndKill(a);
      const owner = await sql.query<{ claimed_by: string }>(
        `SELECT claimed_by FROM ${schema}.job_items WHERE kind = 'pipeline-execution' AND item_id = $1`,
        [arn],
      );
      assert.equal(owner.rows[0]?.claimed_by, 'replica-a');
      await checkFinished(smB, arn);
      const item = await sql.query<{ attempts: number; state: string }>(
        `SELECT attempts, state FROM ${schema}.job_items WHERE kind = 'pipeline-execution' AND item_id = $1`,
        [arn],
      );
      assert.deepEqual(item.rows[0], { attempts: 2, state: 'done' });
    } finally {
      smB.destroy();
      await a.close();
      await b.close();
    }
  });
});
