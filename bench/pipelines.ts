// SageMaker Pipelines (issue 32), against a Slipway server run as its own process:
//  1. AWS's abalone pipeline (the SDK-built fixture): StartPipelineExecution → Succeeded, wall time,
//     uncached (CacheConfig removed), beside the same jobs driven one after another by a client
//     (the peer: what a user would script without pipelines, polling each job with Describe* every
//     50 ms); and the cached rerun.
//  2. The executor's own overhead per step: in those abalone runs, the time from the last
//     predecessor's end to each step's start; and a chain of 10 Condition steps (no job at all).
//  3. 100 concurrent executions of a 10-step pipeline of cached steps: every execution must have
//     exactly its 10 steps, each a cache hit, and no job may run twice.
// Usage: npm run build && node dist/bench/pipelines.js [--runs 5] [--concurrent 100]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateModelCommand,
  CreateModelPackageCommand,
  CreateModelPackageGroupCommand,
  CreatePipelineCommand,
  CreateProcessingJobCommand,
  type CreateProcessingJobCommandInput,
  CreateTrainingJobCommand,
  type CreateTrainingJobCommandInput,
  CreateTransformJobCommand,
  DescribePipelineExecutionCommand,
  DescribeProcessingJobCommand,
  DescribeTrainingJobCommand,
  DescribeTransformJobCommand,
  ListPipelineExecutionStepsCommand,
  ListProcessingJobsCommand,
  type PipelineExecutionStep,
  SageMakerClient,
  StartPipelineExecutionCommand,
} from '@aws-sdk/client-sagemaker';
import { rawAbaloneCsv } from '../test/support/abalone.js';
import { median, percentile, sleep, slipway } from './support.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 5);
const CONCURRENT = arg('concurrent', 100);
const ACCOUNT = '111122223333';
const BUCKET = `sagemaker-us-east-1-${ACCOUNT}`;
const ROLE = `arn:aws:iam::${ACCOUNT}:role/SageMakerPipelines`;
const FIXTURE = 'test/fixtures/pipelines/abalone';
const STEP_IMAGE = `${ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/slipway-test-pipeline-step:1`;
const load = () => loadavg()[0]!.toFixed(2);
const ms = (x: number) => `${Math.round(x)} ms`;

type Def = { Steps: Array<Record<string, unknown>> } & Record<string, unknown>;
const abalone = JSON.parse(readFileSync(join(FIXTURE, 'definition.json'), 'utf8')) as Def;

/** The abalone definition without CacheConfig: every run computes every step. */
function uncached(d: Def): Def {
  const strip = (steps: Array<Record<string, unknown>>): Array<Record<string, unknown>> =>
    steps.map(({ CacheConfig: _, ...s }) => {
      const args = s.Arguments as Record<string, unknown> | undefined;
      if (s.Type === 'Condition' && args) {
        return {
          ...s,
          Arguments: {
            ...args,
            IfSteps: strip(args.IfSteps as Array<Record<string, unknown>>),
            ElseSteps: strip(args.ElseSteps as Array<Record<string, unknown>>),
          },
        };
      }
      return s;
    });
  return { ...d, Steps: strip(d.Steps) };
}

const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-pipelines-'));
const server = await slipway(dataDir, [
  '--account-id',
  ACCOUNT,
  '--containers-file',
  'test/fixtures/pipelines/containers.json',
  '--log-level',
  'warn',
]);
const cfg = {
  endpoint: `http://127.0.0.1:${server.port}`,
  region: 'us-east-1',
  credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
};
const sm = new SageMakerClient({ ...cfg, maxAttempts: 1 });
const s3 = new S3Client({ ...cfg, forcePathStyle: true });

async function run(pipeline: string, parameters: Array<{ Name: string; Value: string }> = []) {
  const t0 = performance.now();
  const { PipelineExecutionArn: arn } = await sm.send(
    new StartPipelineExecutionCommand({ PipelineName: pipeline, PipelineParameters: parameters }),
  );
  for (;;) {
    const d = await sm.send(new DescribePipelineExecutionCommand({ PipelineExecutionArn: arn }));
    if (d.PipelineExecutionStatus !== 'Executing') {
      const wall = performance.now() - t0;
      if (d.PipelineExecutionStatus !== 'Succeeded')
        throw new Error(`${arn}: ${d.PipelineExecutionStatus} ${d.FailureReason}`);
      const steps = (await sm.send(new ListPipelineExecutionStepsCommand({ PipelineExecutionArn: arn })))
        .PipelineExecutionSteps!;
      return { arn: arn!, wall, steps };
    }
    await sleep(20);
  }
}

/** The gap between each step's start and the end of the latest step that ended before it (its predecessors'). */
function gaps(steps: PipelineExecutionStep[], definition: Def): number[] {
  const deps = stepDeps(definition);
  const end = new Map(steps.map((s) => [s.StepName!, s.EndTime!.getTime()]));
  return steps
    .filter((s) => (deps.get(s.StepName!) ?? []).length > 0)
    .map((s) => s.StartTime!.getTime() - Math.max(...deps.get(s.StepName!)!.map((d) => end.get(d) ?? 0)));
}

/** Each step's predecessors: DependsOn, step references, and the condition owning its branch. */
function stepDeps(d: Def): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const walk = (steps: Array<Record<string, unknown>>, owner?: string) => {
    for (const s of steps) {
      const args = (s.Arguments ?? {}) as Record<string, unknown>;
      const text = JSON.stringify(s.Type === 'Condition' ? args.Conditions : args);
      const refs = [...text.matchAll(/"Get":"Steps\.([A-Za-z0-9_-]+)\./g)].map((m) => m[1]!);
      out.set(String(s.Name), [...new Set([...refs, ...((s.DependsOn as string[]) ?? []), ...(owner ? [owner] : [])])]);
      if (s.Type === 'Condition') {
        walk(args.IfSteps as Array<Record<string, unknown>>, String(s.Name));
        walk(args.ElseSteps as Array<Record<string, unknown>>, String(s.Name));
      }
    }
  };
  walk(d.Steps);
  return out;
}

async function waitJob(describe: () => Promise<string | undefined>) {
  for (;;) {
    const s = await describe();
    if (s === 'Completed') return;
    if (s === 'Failed' || s === 'Stopped') throw new Error(`job ${s}`);
    await sleep(50);
  }
}

/** The peer: the abalone pipeline's jobs driven one after another by a client, without Pipelines. */
async function direct(n: number): Promise<number> {
  const steps = new Map(
    [
      ...abalone.Steps,
      ...((abalone.Steps[3]!.Arguments as Record<string, unknown>).IfSteps as Array<Record<string, unknown>>),
    ].map((s) => [s.Name as string, s.Arguments as Record<string, unknown>]),
  );
  const t0 = performance.now();
  const id = `direct${n}`;
  const out = (name: string) => `s3://${BUCKET}/direct/${id}/${name}`;
  const proc = steps.get('AbaloneProcess')!;
  const prep = `${id}-prep`;
  await sm.send(
    new CreateProcessingJobCommand({
      ...(proc as unknown as CreateProcessingJobCommandInput),
      ProcessingJobName: prep,
      ProcessingResources: { ClusterConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 30 } },
      ProcessingInputs: [
        {
          InputName: 'input-1',
          S3Input: {
            S3Uri: `s3://${BUCKET}/abalone/abalone-dataset.csv`,
            LocalPath: '/opt/ml/processing/input',
            S3DataType: 'S3Prefix',
            S3InputMode: 'File',
          },
        },
        (proc.ProcessingInputs as CreateProcessingJobCommandInput['ProcessingInputs'])![1]!,
      ],
      ProcessingOutputConfig: {
        Outputs: ['train', 'validation', 'test'].map((o) => ({
          OutputName: o,
          S3Output: { S3Uri: out(o), LocalPath: `/opt/ml/processing/${o}`, S3UploadMode: 'EndOfJob' },
        })),
      },
    }),
  );
  await waitJob(
    async () => (await sm.send(new DescribeProcessingJobCommand({ ProcessingJobName: prep }))).ProcessingJobStatus,
  );
  const train = steps.get('AbaloneTrain')! as unknown as CreateTrainingJobCommandInput;
  const trainName = `${id}-train`;
  await sm.send(
    new CreateTrainingJobCommand({
      ...train,
      TrainingJobName: trainName,
      ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 30 },
      InputDataConfig: train.InputDataConfig!.map((c) => ({
        ...c,
        DataSource: { S3DataSource: { ...c.DataSource!.S3DataSource!, S3Uri: out(c.ChannelName!) } },
      })),
    }),
  );
  await waitJob(
    async () => (await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: trainName }))).TrainingJobStatus,
  );
  const model = (await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: trainName }))).ModelArtifacts!
    .S3ModelArtifacts!;
  const ev = steps.get('AbaloneEval')! as unknown as CreateProcessingJobCommandInput;
  const evalName = `${id}-eval`;
  await sm.send(
    new CreateProcessingJobCommand({
      ...ev,
      ProcessingJobName: evalName,
      ProcessingInputs: [
        {
          InputName: 'input-1',
          S3Input: { S3Uri: model, LocalPath: '/opt/ml/processing/model', S3DataType: 'S3Prefix', S3InputMode: 'File' },
        },
        {
          InputName: 'input-2',
          S3Input: {
            S3Uri: out('test'),
            LocalPath: '/opt/ml/processing/test',
            S3DataType: 'S3Prefix',
            S3InputMode: 'File',
          },
        },
        ev.ProcessingInputs![2]!,
      ],
      ProcessingOutputConfig: {
        Outputs: [
          {
            OutputName: 'evaluation',
            S3Output: {
              S3Uri: out('evaluation'),
              LocalPath: '/opt/ml/processing/evaluation',
              S3UploadMode: 'EndOfJob',
            },
          },
        ],
      },
    }),
  );
  await waitJob(
    async () => (await sm.send(new DescribeProcessingJobCommand({ ProcessingJobName: evalName }))).ProcessingJobStatus,
  );
  const report = JSON.parse(
    await (
      await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `direct/${id}/evaluation/evaluation.json` }))
    ).Body!.transformToString(),
  );
  if (!(report.regression_metrics.mse.value <= 6)) throw new Error('mse too high');
  const image = (steps.get('AbaloneCreateModel-CreateModel')!.PrimaryContainer as { Image: string }).Image;
  await sm.send(
    new CreateModelPackageCommand({
      ModelPackageGroupName: 'DirectGroup',
      ModelApprovalStatus: 'PendingManualApproval',
      InferenceSpecification: {
        Containers: [{ Image: image, ModelDataUrl: model }],
        SupportedContentTypes: ['text/csv'],
        SupportedResponseMIMETypes: ['text/csv'],
      },
    }),
  );
  await sm.send(
    new CreateModelCommand({
      ModelName: `${id}-model`,
      ExecutionRoleArn: ROLE,
      PrimaryContainer: { Image: image, ModelDataUrl: model },
    }),
  );
  await sm.send(
    new CreateTransformJobCommand({
      TransformJobName: `${id}-transform`,
      ModelName: `${id}-model`,
      TransformInput: {
        DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: `s3://${BUCKET}/abalone/abalone-dataset-batch` } },
        ContentType: 'text/csv',
      },
      TransformOutput: { S3OutputPath: out('transform') },
      TransformResources: { InstanceCount: 1, InstanceType: 'ml.m5.xlarge' },
    }),
  );
  await waitJob(
    async () =>
      (await sm.send(new DescribeTransformJobCommand({ TransformJobName: `${id}-transform` }))).TransformJobStatus,
  );
  return performance.now() - t0;
}

async function countProcessingJobs(): Promise<number> {
  let n = 0;
  let token: string | undefined;
  do {
    const page = await sm.send(new ListProcessingJobsCommand({ MaxResults: 100, NextToken: token }));
    n += page.ProcessingJobSummaries!.length;
    token = page.NextToken;
  } while (token);
  return n;
}

/** A definition of `n` steps in a chain. */
const chain = (n: number, step: (i: number) => Record<string, unknown>) =>
  JSON.stringify({
    Version: '2020-12-01',
    Parameters: [{ Name: 'X', Type: 'Integer', DefaultValue: 1 }],
    Steps: Array.from({ length: n }, (_, i) => ({ ...step(i), ...(i > 0 ? { DependsOn: [`S${i - 1}`] } : {}) })),
  });

try {
  console.log(`# Pipelines bench: ${RUNS} runs, ${CONCURRENT} concurrent executions; load ${load()} at start`);
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'abalone/abalone-dataset.csv', Body: rawAbaloneCsv() }));
  const batch = Array.from(
    { length: 100 },
    (_, i) =>
      `${Array.from({ length: 7 }, (_, j) => (((i * 7 + j) % 13) / 6.5 - 1).toFixed(3)).join(',')},${[0, 1, 2].map((k) => (k === i % 3 ? 1 : 0)).join(',')}`,
  ).join('\n');
  await s3.send(
    new PutObjectCommand({ Bucket: BUCKET, Key: 'abalone/abalone-dataset-batch/batch.csv', Body: `${batch}\n` }),
  );
  for (const step of abalone.Steps) {
    for (const i of ((step.Arguments as Record<string, unknown>).ProcessingInputs as Array<{
      InputName: string;
      S3Input: { S3Uri: string };
    }>) ?? []) {
      if (i.InputName !== 'code') continue;
      const uri = i.S3Input.S3Uri;
      await s3.send(
        new PutObjectCommand({
          Bucket: BUCKET,
          Key: uri.split('/').slice(3).join('/'),
          Body: readFileSync(join(FIXTURE, uri.split('/').pop()!)),
        }),
      );
    }
  }
  await sm.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'DirectGroup' }));
  const def = JSON.stringify(abalone);
  await sm.send(
    new CreatePipelineCommand({
      PipelineName: 'Abalone',
      PipelineDefinition: JSON.stringify(uncached(abalone)),
      RoleArn: ROLE,
    }),
  );
  await sm.send(new CreatePipelineCommand({ PipelineName: 'AbaloneCached', PipelineDefinition: def, RoleArn: ROLE }));

  // 1. The abalone pipeline, uncached, beside the same jobs driven directly (alternating, after a warm-up of each).
  await run('Abalone');
  await direct(0);
  const walls: number[] = [];
  const peers: number[] = [];
  const stepGaps: number[] = [];
  const stepTimes = new Map<string, number[]>();
  for (let r = 1; r <= RUNS; r++) {
    const res = await run('Abalone');
    walls.push(res.wall);
    for (const st of res.steps) {
      const t = st.EndTime!.getTime() - st.StartTime!.getTime();
      stepTimes.set(st.StepName!, [...(stepTimes.get(st.StepName!) ?? []), t]);
    }
    stepGaps.push(...gaps(res.steps, abalone));
    peers.push(await direct(r));
    console.log(`  run ${r}: pipeline ${ms(res.wall)}, direct ${ms(peers.at(-1)!)} (load ${load()})`);
  }
  await run('AbaloneCached');
  const cached: number[] = [];
  for (let r = 0; r < RUNS; r++) cached.push((await run('AbaloneCached')).wall);

  // 2. 10 Condition steps in a chain: no job, only the executor.
  await sm.send(
    new CreatePipelineCommand({
      PipelineName: 'Conditions',
      RoleArn: ROLE,
      PipelineDefinition: chain(10, (i) => ({
        Name: `S${i}`,
        Type: 'Condition',
        Arguments: {
          Conditions: [{ Type: 'GreaterThan', LeftValue: { Get: 'Parameters.X' }, RightValue: 0 }],
          IfSteps: [],
          ElseSteps: [],
        },
      })),
    }),
  );
  await run('Conditions');
  const conditionWalls: number[] = [];
  const conditionGaps: number[] = [];
  for (let r = 0; r < RUNS * 4; r++) {
    const res = await run('Conditions');
    conditionWalls.push(res.wall);
    const byName = new Map(res.steps.map((s) => [s.StepName!, s]));
    for (let i = 1; i < 10; i++)
      conditionGaps.push(byName.get(`S${i}`)!.StartTime!.getTime() - byName.get(`S${i - 1}`)!.EndTime!.getTime());
  }

  // 3. 100 concurrent executions of 10 cached steps.
  const cachedChain = chain(10, (i) => ({
    Name: `S${i}`,
    Type: 'Processing',
    CacheConfig: { Enabled: true, ExpireAfter: 'PT1H' },
    Arguments: {
      ProcessingResources: { ClusterConfig: { InstanceType: 'ml.m5.large', InstanceCount: 1, VolumeSizeInGB: 5 } },
      AppSpecification: { ImageUri: STEP_IMAGE },
      RoleArn: ROLE,
      Environment: { STEP: String(i), ...(i > 0 ? { PREVIOUS: { Get: `Steps.S${i - 1}.ProcessingJobName` } } : {}) },
      ProcessingOutputConfig: {
        Outputs: [
          {
            OutputName: 'result',
            S3Output: {
              S3Uri: {
                'Std:Join': {
                  On: '/',
                  Values: [`s3://${BUCKET}/chain/S${i}`, { Get: 'Execution.PipelineExecutionId' }],
                },
              },
              LocalPath: '/opt/ml/processing/output/result',
              S3UploadMode: 'EndOfJob',
            },
          },
        ],
      },
    },
  }));
  await sm.send(
    new CreatePipelineCommand({ PipelineName: 'CachedChain', RoleArn: ROLE, PipelineDefinition: cachedChain }),
  );
  const seed = await run('CachedChain');
  const jobsBefore = await countProcessingJobs();
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: CONCURRENT }, () => run('CachedChain')));
  const wall = performance.now() - t0;
  let problems = 0;
  for (const r of results) {
    const names = r.steps.map((s) => s.StepName).sort();
    const expected = Array.from({ length: 10 }, (_, i) => `S${i}`).sort();
    const ok =
      JSON.stringify(names) === JSON.stringify(expected) &&
      r.steps.every(
        (s) =>
          s.StepStatus === 'Succeeded' &&
          s.CacheHitResult?.SourcePipelineExecutionArn === seed.arn &&
          s.AttemptCount === 1,
      );
    if (!ok) problems++;
  }
  const jobsAfter = await countProcessingJobs();
  const perExecution = results.map((r) => r.wall);

  console.log('');
  console.log('| figure | result | target |');
  console.log('|---|---|---|');
  console.log(
    `| abalone pipeline, StartPipelineExecution → Succeeded, uncached, median of ${RUNS} | **${ms(median(walls))}** (min ${ms(Math.min(...walls))}, max ${ms(Math.max(...walls))}) | ≤ 3 s |`,
  );
  console.log(
    `| … the same jobs driven one after another by a client (peer), median | ${ms(median(peers))} (min ${ms(Math.min(...peers))}) | |`,
  );
  console.log(`| … pipeline minus peer, median | ${ms(median(walls) - median(peers))} | |`);
  console.log(
    `| … its steps, median duration | ${[...stepTimes].map(([name, t]) => `${name} ${ms(median(t))}`).join(', ')} | |`,
  );
  console.log(`| abalone pipeline, every job step a cache hit, median | ${ms(median(cached))} | |`);
  console.log(
    `| executor overhead per step: a step's start after its last predecessor's end, abalone runs (${stepGaps.length} steps) | **median ${ms(median(stepGaps))}, p90 ${ms(percentile(stepGaps, 90))}, max ${ms(Math.max(...stepGaps))}** | ≤ 20 ms |`,
  );
  console.log(
    `| … 10 chained Condition steps, StartPipelineExecution → Succeeded, median | ${ms(median(conditionWalls))} (${ms(median(conditionWalls) / 10)} per step); gap median ${ms(median(conditionGaps))}, p90 ${ms(percentile(conditionGaps, 90))} | ≤ 20 ms per step |`,
  );
  console.log(
    `| ${CONCURRENT} concurrent executions × 10 cached steps: all Succeeded | ${ms(wall)} wall; per execution median ${ms(median(perExecution))}, max ${ms(Math.max(...perExecution))} | |`,
  );
  console.log(
    `| … executions with a step lost, duplicated, retried or not from the cache | **${problems}** of ${CONCURRENT}; processing jobs ${jobsBefore} before, ${jobsAfter} after | 0; no new job |`,
  );
  console.log(`\nload at end ${load()}`);
} finally {
  sm.destroy();
  s3.destroy();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
