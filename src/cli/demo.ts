// `slipway demo`: a new user's first look at a full loop, run against a live server with the same AWS
// SDK calls a user would make: data to S3, an experiment of training runs with the built-in XGBoost
// algorithm and a tuning job around them, the best model registered and approved, deployed
// serverless and invoked, a batch transform over the hold-out rows, and a pipeline that trains,
// checks and registers; every step printed with a link into the console. Each run is a new round
// (names carry its number), so running it again never fails on a name.
import { parseArgs } from 'node:util';
import { CreateBucketCommand, HeadBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  type CreateTrainingJobCommandInput,
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateExperimentCommand,
  CreateModelCommand,
  CreateModelPackageCommand,
  CreateModelPackageGroupCommand,
  CreateTrainingJobCommand,
  CreateTransformJobCommand,
  CreateHyperParameterTuningJobCommand,
  CreatePipelineCommand,
  DescribeHyperParameterTuningJobCommand,
  DescribePipelineExecutionCommand,
  ListPipelineExecutionStepsCommand,
  StartPipelineExecutionCommand,
  UpdatePipelineCommand,
  CreateTrialCommand,
  DescribeEndpointCommand,
  DescribeTrainingJobCommand,
  DescribeTransformJobCommand,
  ListContextsCommand,
  ListTrainingJobsCommand,
  SageMakerClient,
  UpdateModelPackageCommand,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { demoData } from './demo-data.js';
import { profileFinished, startProfile } from './demo-processing.js';

export const DEMO_USAGE = `Usage: slipway demo [options]

Runs the whole loop against a running Slipway server, as a new user would with the AWS SDK: makes an
abalone data set and uploads it, trains three runs of the built-in XGBoost algorithm in an experiment
and a Bayesian tuning job around them, registers and approves the best model, deploys it to a
serverless endpoint and invokes it, runs a batch transform and a processing job (a script in
SageMaker's scikit-learn image), and runs a pipeline that trains, checks
the model's validation:rmse and registers it for review. Each run of the demo adds a new round
(slipway-demo-r1, -r2, ...).

  --endpoint URL          the server (default $SLIPWAY_ENDPOINT, $AWS_ENDPOINT_URL or http://127.0.0.1:4810)
  --region NAME           region to sign for (default $AWS_REGION or us-east-1)
  --access-key-id KEY     sign with this key (default $AWS_ACCESS_KEY_ID; a server without a credentials
  --secret-access-key S   file accepts any key, so the demo signs with a dummy one when none is given)
  --bucket NAME           bucket for the data and models (default slipway-demo)
  --role-arn ARN          the role jobs and the model run as (default arn:aws:iam::<account>:role/slipway-demo;
                          with a credentials file, a role it lists that you may pass)
`;

const OPTIONS = {
  endpoint: { type: 'string' },
  region: { type: 'string' },
  'access-key-id': { type: 'string' },
  'secret-access-key': { type: 'string' },
  bucket: { type: 'string' },
  'role-arn': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The built-in XGBoost algorithm's image (any account's sagemaker-xgboost image trains the same). */
const IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1';
const EXPERIMENT = 'slipway-demo';
const PIPELINE = 'slipway-demo-pipeline';
const GROUP = 'slipway-demo-abalone';

/** The runs of each round: the same data, different trees. */
const RUNS: ReadonlyArray<{ readonly tag: string; readonly hp: Readonly<Record<string, string>> }> = [
  { tag: 'shallow', hp: { max_depth: '2', eta: '0.3', num_round: '60' } },
  { tag: 'medium', hp: { max_depth: '4', eta: '0.2', num_round: '80' } },
  { tag: 'deep', hp: { max_depth: '7', eta: '0.1', num_round: '120', subsample: '0.8' } },
];

export interface DemoOptions {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  readonly bucket: string;
  readonly roleArn?: string;
  /** Where progress lines go (stdout for the command). */
  readonly print: (line: string) => void;
}

export interface DemoResult {
  readonly round: number;
  readonly trainingJobs: readonly string[];
  readonly best: string;
  readonly modelPackageArn: string;
  readonly endpointName: string;
  readonly predictions: readonly string[];
  readonly transformJob: string;
  readonly tuningJob: string;
  readonly pipelineStatus: string;
  readonly processingJob: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `read` every `everyMs` until `done` says so, or fails after `timeoutMs`. */
async function until<T>(
  what: string,
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 120_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (let every = 50; ; every = Math.min(every * 2, 500)) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`${what} did not finish within ${timeoutMs / 1000} s`);
    await sleep(every);
  }
}

/** The next round: one more than the highest `slipway-demo-r<N>-` training job on the server. */
async function nextRound(sm: SageMakerClient): Promise<number> {
  let max = 0;
  let NextToken: string | undefined;
  do {
    const page = await sm.send(
      new ListTrainingJobsCommand({ NameContains: 'slipway-demo-r', MaxResults: 100, NextToken }),
    );
    for (const j of page.TrainingJobSummaries ?? []) {
      const m = /^slipway-demo-r(\d+)-/.exec(j.TrainingJobName ?? '');
      if (m) max = Math.max(max, Number(m[1]));
    }
    NextToken = page.NextToken;
  } while (NextToken);
  return max + 1;
}

/** Creates what may exist from an earlier round; "already exists" is not an error here. */
async function ensure(create: () => Promise<unknown>): Promise<boolean> {
  try {
    await create();
    return true;
  } catch (e) {
    const msg = (e as Error).message ?? '';
    if (
      /already exist|BucketAlreadyOwnedByYou/i.test(msg) ||
      (e as { name?: string }).name === 'BucketAlreadyOwnedByYou'
    )
      return false;
    throw e;
  }
}

export async function runDemo(o: DemoOptions): Promise<DemoResult> {
  const cfg = { endpoint: o.endpoint, region: o.region, credentials: o.credentials };
  const s3 = new S3Client({ ...cfg, forcePathStyle: true });
  const sm = new SageMakerClient(cfg);
  const rt = new SageMakerRuntimeClient(cfg);
  const consoleUrl = (path: string) => `${o.endpoint.replace(/\/+$/, '')}/console${path}`;
  const started = Date.now();
  const t = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  try {
    const round = await nextRound(sm);
    const prefix = `slipway-demo-r${round}`;
    const role = o.roleArn ?? `arn:aws:iam::${await accountOf(sm)}:role/slipway-demo`;
    o.print(`Round ${round} against ${o.endpoint}`);

    // 1. Data
    const data = demoData();
    let bucketIsNew = false;
    try {
      await s3.send(new HeadBucketCommand({ Bucket: o.bucket }));
    } catch {
      bucketIsNew = await ensure(() => s3.send(new CreateBucketCommand({ Bucket: o.bucket })));
    }
    const base = `s3://${o.bucket}/abalone`;
    await s3.send(new PutObjectCommand({ Bucket: o.bucket, Key: 'abalone/train/train.csv', Body: data.train }));
    await s3.send(
      new PutObjectCommand({ Bucket: o.bucket, Key: 'abalone/validation/validation.csv', Body: data.validation }),
    );
    await s3.send(
      new PutObjectCommand({
        Bucket: o.bucket,
        Key: 'abalone/batch/features.csv',
        Body: `${data.features.join('\n')}\n`,
      }),
    );
    o.print(
      `  data      ${base}/ (${bucketIsNew ? 'created the bucket, ' : ''}2,400 training and 600 validation rows of ${data.featureNames.length} features)`,
    );

    // 1b. A processing job in SageMaker's scikit-learn image profiles the training data meanwhile.
    const processingJob = `${prefix}-profile`;
    await startProfile(s3, sm, { name: processingJob, role, bucket: o.bucket, base, featureNames: data.featureNames });

    // 2. An experiment with one trial per round and a training run per set of hyperparameters
    await ensure(() =>
      sm.send(
        new CreateExperimentCommand({
          ExperimentName: EXPERIMENT,
          Description: 'slipway demo: XGBoost on abalone rings, a trial per round',
        }),
      ),
    );
    await ensure(() => sm.send(new CreateTrialCommand({ TrialName: prefix, ExperimentName: EXPERIMENT })));
    const jobs = RUNS.map((r) => `${prefix}-${r.tag}`);
    for (const [i, r] of RUNS.entries()) {
      await sm.send(new CreateTrainingJobCommand(trainingJob(jobs[i]!, r.hp, role, base, prefix, r.tag)));
    }
    o.print(`  training  ${jobs.join(', ')}`);
    const finished = await Promise.all(
      jobs.map((name) =>
        until(
          `training job ${name}`,
          () => sm.send(new DescribeTrainingJobCommand({ TrainingJobName: name })),
          (j) => ['Completed', 'Failed', 'Stopped'].includes(j.TrainingJobStatus ?? ''),
        ),
      ),
    );
    const scored = finished.map((j) => {
      if (j.TrainingJobStatus !== 'Completed')
        throw new Error(`training job ${j.TrainingJobName} ended ${j.TrainingJobStatus}: ${j.FailureReason ?? ''}`);
      const rmse = j.FinalMetricDataList?.find((m) => m.MetricName === 'validation:rmse')?.Value ?? Number.NaN;
      return { name: j.TrainingJobName!, rmse, model: j.ModelArtifacts!.S3ModelArtifacts! };
    });
    for (const s of scored)
      o.print(`            ${s.name.padEnd(prefix.length + 8)} validation:rmse ${s.rmse.toFixed(4)}`);
    let best = scored.reduce((a, b) => (b.rmse < a.rmse ? b : a));
    o.print(`            best: ${best.name} (${t()})`);
    const profiled = await profileFinished(sm, processingJob, until);
    if (profiled.ProcessingJobStatus !== 'Completed')
      throw new Error(
        `processing job ${processingJob} ended ${profiled.ProcessingJobStatus}: ${profiled.FailureReason ?? ''}`,
      );
    o.print(
      `  process   ${processingJob}: scikit-learn image profiled the training data → ${base}/profile/${processingJob}/profile.json`,
    );

    // 2b. A hyperparameter tuning job around them: Bayesian search over eta and max_depth.
    const tuning = await tune(sm, `${prefix}-tune`, role, base, round);
    o.print(
      `  tuning    ${tuning.name}: ${tuning.jobs} training jobs, best ${tuning.best.name} validation:rmse ${tuning.best.rmse.toFixed(4)} (${t()})`,
    );
    if (tuning.best.rmse < best.rmse) best = tuning.best;

    // 3. Registry: the best model as a new version, approved
    await ensure(() =>
      sm.send(
        new CreateModelPackageGroupCommand({
          ModelPackageGroupName: GROUP,
          ModelPackageGroupDescription: 'XGBoost models of abalone rings, registered by slipway demo',
        }),
      ),
    );
    const pkg = await sm.send(
      new CreateModelPackageCommand({
        ModelPackageGroupName: GROUP,
        ModelPackageDescription: `${best.name}: validation:rmse ${best.rmse.toFixed(4)}`,
        ModelApprovalStatus: 'PendingManualApproval',
        InferenceSpecification: {
          Containers: [{ Image: IMAGE, ModelDataUrl: best.model }],
          SupportedContentTypes: ['text/csv'],
          SupportedResponseMIMETypes: ['text/csv'],
        },
      }),
    );
    const modelPackageArn = pkg.ModelPackageArn!;
    await sm.send(
      new UpdateModelPackageCommand({
        ModelPackageArn: modelPackageArn,
        ModelApprovalStatus: 'Approved',
        ApprovalDescription: `lowest validation:rmse of round ${round}`,
      }),
    );
    o.print(`  registry  ${modelPackageArn} approved`);

    // 4. A serverless endpoint serving the approved package
    const name = prefix;
    await sm.send(
      new CreateModelCommand({
        ModelName: name,
        ExecutionRoleArn: role,
        Containers: [{ ModelPackageName: modelPackageArn }],
      }),
    );
    await sm.send(
      new CreateEndpointConfigCommand({
        EndpointConfigName: name,
        ProductionVariants: [
          { VariantName: 'AllTraffic', ModelName: name, ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: 5 } },
        ],
      }),
    );
    await sm.send(new CreateEndpointCommand({ EndpointName: name, EndpointConfigName: name }));
    const ep = await until(
      `endpoint ${name}`,
      () => sm.send(new DescribeEndpointCommand({ EndpointName: name })),
      (e) => e.EndpointStatus !== 'Creating',
    );
    if (ep.EndpointStatus !== 'InService')
      throw new Error(`endpoint ${name} is ${ep.EndpointStatus}: ${ep.FailureReason ?? ''}`);
    const predictions: string[] = [];
    for (const row of data.features.slice(0, 5)) {
      const out = await rt.send(
        new InvokeEndpointCommand({ EndpointName: name, ContentType: 'text/csv', Body: Buffer.from(row) }),
      );
      predictions.push(Buffer.from(out.Body!).toString().trim());
    }
    o.print(
      `  endpoint  ${name} InService; predicted rings for 5 abalone: ${predictions.map((p) => Number(p).toFixed(1)).join(', ')}`,
    );

    // 5. A batch transform over the hold-out rows
    const transformJob = `${prefix}-batch`;
    await sm.send(
      new CreateTransformJobCommand({
        TransformJobName: transformJob,
        ModelName: name,
        TransformInput: {
          DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: `${base}/batch/` } },
          ContentType: 'text/csv',
          SplitType: 'Line',
        },
        TransformOutput: { S3OutputPath: `${base}/batch-output/${prefix}/`, AssembleWith: 'Line' },
        TransformResources: { InstanceType: 'ml.m5.large', InstanceCount: 1 },
      }),
    );
    const tj = await until(
      `transform job ${transformJob}`,
      () => sm.send(new DescribeTransformJobCommand({ TransformJobName: transformJob })),
      (j) => ['Completed', 'Failed', 'Stopped'].includes(j.TransformJobStatus ?? ''),
    );
    if (tj.TransformJobStatus !== 'Completed')
      throw new Error(`transform job ${transformJob} ended ${tj.TransformJobStatus}: ${tj.FailureReason ?? ''}`);
    o.print(`  transform ${transformJob}: ${data.features.length} predictions in ${base}/batch-output/${prefix}/`);

    // 6. A pipeline that trains, checks the model's validation:rmse and registers it (or fails).
    const pipeline = await runPipeline(sm, role, base);
    o.print(`  pipeline  ${PIPELINE} execution ${pipeline.status}: ${pipeline.steps.join(' → ')} (${t()})`);

    const ctx = await sm.send(new ListContextsCommand({ ContextType: 'Endpoint', SourceUri: ep.EndpointArn }));
    const lineageArn = ctx.ContextSummaries?.[0]?.ContextArn ?? ep.EndpointArn!;
    o.print('');
    o.print(`Done in ${t()}. Look around:`);
    o.print(`  experiment runs   ${consoleUrl(`/experiments/${EXPERIMENT}`)}`);
    o.print(`  tuning job        ${consoleUrl(`/tuning/${tuning.name}`)}`);
    o.print(`  pipeline          ${consoleUrl(`/pipelines/${PIPELINE}`)}`);
    o.print(`  training jobs     ${consoleUrl('/jobs/training')}`);
    o.print(`  processing job    ${consoleUrl(`/jobs/processing/${processingJob}`)}`);
    o.print(`  model registry    ${consoleUrl(`/registry/${GROUP}`)}`);
    o.print(`  endpoint          ${consoleUrl(`/endpoints/${name}`)}`);
    o.print(`  lineage           ${consoleUrl(`/lineage?arn=${encodeURIComponent(lineageArn)}&direction=Ascendants`)}`);
    return {
      round,
      trainingJobs: jobs,
      best: best.name,
      modelPackageArn,
      endpointName: name,
      predictions,
      transformJob,
      tuningJob: tuning.name,
      pipelineStatus: pipeline.status,
      processingJob,
    };
  } finally {
    s3.destroy();
    sm.destroy();
    rt.destroy();
  }
}

/** The data channels every demo training job reads. */
const channels = (base: string) =>
  ['train', 'validation'].map((c) => ({
    ChannelName: c,
    ContentType: 'text/csv',
    DataSource: { S3DataSource: { S3DataType: 'S3Prefix' as const, S3Uri: `${base}/${c}/` } },
  }));

/** Runs a small Bayesian tuning job and waits for it; returns its best training job. */
async function tune(sm: SageMakerClient, name: string, role: string, base: string, seed: number) {
  await sm.send(
    new CreateHyperParameterTuningJobCommand({
      HyperParameterTuningJobName: name,
      HyperParameterTuningJobConfig: {
        Strategy: 'Bayesian',
        HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'validation:rmse' },
        ResourceLimits: { MaxNumberOfTrainingJobs: 8, MaxParallelTrainingJobs: 2 },
        ParameterRanges: {
          ContinuousParameterRanges: [{ Name: 'eta', MinValue: '0.05', MaxValue: '0.5', ScalingType: 'Logarithmic' }],
          IntegerParameterRanges: [{ Name: 'max_depth', MinValue: '2', MaxValue: '8', ScalingType: 'Linear' }],
        },
        RandomSeed: seed,
      },
      TrainingJobDefinition: {
        AlgorithmSpecification: { TrainingImage: IMAGE, TrainingInputMode: 'File' },
        StaticHyperParameters: {
          objective: 'reg:squarederror',
          eval_metric: 'rmse',
          num_round: '60',
          min_child_weight: '4',
        },
        RoleArn: role,
        InputDataConfig: channels(base),
        OutputDataConfig: { S3OutputPath: `${base}/output` },
        ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 },
        StoppingCondition: { MaxRuntimeInSeconds: 600 },
      },
      Tags: [{ Key: 'slipway:demo', Value: name }],
    }),
  );
  const done = await until(
    `tuning job ${name}`,
    () => sm.send(new DescribeHyperParameterTuningJobCommand({ HyperParameterTuningJobName: name })),
    (j) => ['Completed', 'Failed', 'Stopped'].includes(j.HyperParameterTuningJobStatus ?? ''),
    300_000,
  );
  const bestJob = done.BestTrainingJob;
  if (done.HyperParameterTuningJobStatus !== 'Completed' || !bestJob?.TrainingJobName)
    throw new Error(
      `tuning job ${name} ended ${done.HyperParameterTuningJobStatus}: ${done.FailureReason ?? 'no best job'}`,
    );
  const job = await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: bestJob.TrainingJobName }));
  return {
    name,
    jobs: done.TrainingJobStatusCounters?.Completed ?? 0,
    best: {
      name: bestJob.TrainingJobName,
      rmse: bestJob.FinalHyperParameterTuningJobObjectiveMetric?.Value ?? Number.NaN,
      model: job.ModelArtifacts!.S3ModelArtifacts!,
    },
  };
}

/**
 * Creates (or updates) the demo's pipeline and runs it: train, a condition on the model's
 * validation:rmse, then register the model for review, or fail saying why.
 */
async function runPipeline(sm: SageMakerClient, role: string, base: string) {
  const training = trainingJob('unused', { max_depth: '4', eta: '0.2', num_round: '80' }, role, base, '', '');
  const { TrainingJobName: _, ExperimentConfig: _e, Tags: _t, ...trainArgs } = training;
  const definition = {
    Version: '2020-12-01',
    Metadata: {},
    Parameters: [{ Name: 'MaxRmse', Type: 'Float', DefaultValue: 3.0 }],
    PipelineExperimentConfig: {
      ExperimentName: { Get: 'Execution.PipelineName' },
      TrialName: { Get: 'Execution.PipelineExecutionId' },
    },
    Steps: [
      { Name: 'Train', Type: 'Training', Arguments: trainArgs },
      {
        Name: 'CheckRmse',
        Type: 'Condition',
        Arguments: {
          Conditions: [
            {
              Type: 'LessThanOrEqualTo',
              LeftValue: { Get: "Steps.Train.FinalMetricDataList['validation:rmse'].Value" },
              RightValue: { Get: 'Parameters.MaxRmse' },
            },
          ],
          IfSteps: [
            {
              Name: 'Register',
              Type: 'RegisterModel',
              Arguments: {
                ModelPackageGroupName: GROUP,
                ModelPackageDescription: 'registered by the slipway-demo pipeline',
                ModelApprovalStatus: 'PendingManualApproval',
                InferenceSpecification: {
                  Containers: [{ Image: IMAGE, ModelDataUrl: { Get: 'Steps.Train.ModelArtifacts.S3ModelArtifacts' } }],
                  SupportedContentTypes: ['text/csv'],
                  SupportedResponseMIMETypes: ['text/csv'],
                },
              },
            },
          ],
          ElseSteps: [
            {
              Name: 'TooInaccurate',
              Type: 'Fail',
              Arguments: {
                ErrorMessage: {
                  'Std:Join': { On: ' ', Values: ['validation:rmse is above', { Get: 'Parameters.MaxRmse' }] },
                },
              },
            },
          ],
        },
      },
    ],
  };
  const PipelineDefinition = JSON.stringify(definition);
  const created = await ensure(() =>
    sm.send(
      new CreatePipelineCommand({
        PipelineName: PIPELINE,
        PipelineDefinition,
        RoleArn: role,
        PipelineDescription: 'slipway demo',
      }),
    ),
  );
  if (!created) await sm.send(new UpdatePipelineCommand({ PipelineName: PIPELINE, PipelineDefinition, RoleArn: role }));
  const { PipelineExecutionArn } = await sm.send(new StartPipelineExecutionCommand({ PipelineName: PIPELINE }));
  const ended = await until(
    `pipeline ${PIPELINE}`,
    () => sm.send(new DescribePipelineExecutionCommand({ PipelineExecutionArn })),
    (e) => ['Succeeded', 'Failed', 'Stopped'].includes(e.PipelineExecutionStatus ?? ''),
    300_000,
  );
  const steps = await sm.send(new ListPipelineExecutionStepsCommand({ PipelineExecutionArn, SortOrder: 'Ascending' }));
  return {
    status: ended.PipelineExecutionStatus ?? 'Unknown',
    steps: (steps.PipelineExecutionSteps ?? []).map((st) => `${st.StepName} ${st.StepStatus}`),
  };
}

function trainingJob(
  name: string,
  hp: Readonly<Record<string, string>>,
  role: string,
  base: string,
  trial: string,
  tag: string,
): CreateTrainingJobCommandInput {
  const channel = (c: string) => ({
    ChannelName: c,
    ContentType: 'text/csv',
    DataSource: { S3DataSource: { S3DataType: 'S3Prefix' as const, S3Uri: `${base}/${c}/` } },
  });
  return {
    TrainingJobName: name,
    RoleArn: role,
    AlgorithmSpecification: { TrainingImage: IMAGE, TrainingInputMode: 'File' },
    HyperParameters: { objective: 'reg:squarederror', eval_metric: 'rmse', min_child_weight: '4', ...hp },
    InputDataConfig: [channel('train'), channel('validation')],
    OutputDataConfig: { S3OutputPath: `${base}/output` },
    ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 },
    StoppingCondition: { MaxRuntimeInSeconds: 600 },
    ExperimentConfig: { ExperimentName: EXPERIMENT, TrialName: trial, TrialComponentDisplayName: tag },
    Tags: [{ Key: 'slipway:demo', Value: trial }],
  };
}

/** The account the server runs as, read from an ARN it makes (no STS needed). */
async function accountOf(sm: SageMakerClient): Promise<string> {
  const page = await sm.send(new ListContextsCommand({ MaxResults: 1 }));
  const arn = page.ContextSummaries?.[0]?.ContextArn;
  const m = arn ? /^arn:[^:]+:sagemaker:[^:]*:(\d{12}):/.exec(arn) : null;
  return m?.[1] ?? '000000000000';
}

export async function demoCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let v: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>['values'];
  try {
    v = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    process.stderr.write(`slipway demo: ${(err as Error).message}\n\n${DEMO_USAGE}`);
    return 2;
  }
  if (v.help) {
    process.stdout.write(DEMO_USAGE);
    return 0;
  }
  const endpoint = v.endpoint ?? env.SLIPWAY_ENDPOINT ?? env.AWS_ENDPOINT_URL ?? 'http://127.0.0.1:4810';
  const accessKeyId = v['access-key-id'] ?? env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = v['secret-access-key'] ?? env.AWS_SECRET_ACCESS_KEY;
  const credentials =
    accessKeyId && secretAccessKey
      ? { accessKeyId, secretAccessKey, sessionToken: v['access-key-id'] ? undefined : env.AWS_SESSION_TOKEN }
      : { accessKeyId: 'slipway-demo', secretAccessKey: 'slipway-demo' };
  try {
    const health = await fetch(new URL('/_slipway/health', endpoint), { signal: AbortSignal.timeout(5000) });
    if (!health.ok) throw new Error(`answered ${health.status}`);
  } catch (e) {
    process.stderr.write(
      `slipway demo: no Slipway server answers at ${endpoint} (${(e as Error).message}). Start one with \`npm start\`, or pass --endpoint URL.\n`,
    );
    return 1;
  }
  process.stdout.write(
    accessKeyId && secretAccessKey
      ? `Signing as access key ${credentials.accessKeyId}.\n`
      : 'Signing with a dummy key (slipway-demo): a server without a credentials file accepts any key.\n',
  );
  try {
    await runDemo({
      endpoint,
      region: v.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
      credentials,
      bucket: v.bucket ?? 'slipway-demo',
      roleArn: v['role-arn'],
      print: (l) => process.stdout.write(`${l}\n`),
    });
    return 0;
  } catch (e) {
    const err = e as Error & { name?: string };
    const hint = /UnrecognizedClient|InvalidAccessKeyId|SignatureDoesNotMatch|InvalidSignature/.test(
      `${err.name} ${err.message}`,
    )
      ? ' The server has a credentials file: pass --access-key-id and --secret-access-key (or set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY).'
      : '';
    process.stderr.write(
      `slipway demo: ${err.name && err.name !== 'Error' ? `${err.name}: ` : ''}${err.message}${hint}\n`,
    );
    return 1;
  }
}
