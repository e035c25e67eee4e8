// Training jobs on the job runner: Starting → Downloading → Training → Uploading → Completed, or
// Failed / Stopped / MaxRuntimeExceeded, each step recorded as DescribeTrainingJob reports it, with
// the job's log and metrics, its model at <S3OutputPath>/<job>/output/model.tar.gz, and its trial
// component following its status. https://docs.aws.amazon.com/sagemaker/latest/dg/model-train-storage.html
import { mkdirSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Partition } from '../domain/arn.js';
import type { Channel } from '../generated/sagemaker/shapes.js';
import { packDirectory, packFiles } from '../inference/artifact/tar-writer.js';
import { type ContainersFileReader, findContainerEntry } from '../inference/runtimes/container/containers-file.js';
import { parseContainerVersion } from '../inference/runtimes/xgboost/serving.js';
import { checkRoleAccess, type JobAccess } from '../jobs/job-access.js';
import type { JobRunner } from '../jobs/runner.js';
import type { JobKind, RunContext } from '../jobs/types.js';
import { recordJobProgress } from '../lineage/job-recorder.js';
import type { ServiceDeps } from '../services/common/deps.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { Queryable } from '../storage/db/types.js';
import type { ResourceRow } from '../storage/repositories/resource-table.js';
import { dockerAnswers, type Sandbox } from '../sandbox/sandbox.js';
import { type ChannelObject, ChannelError, downloadChannel, resolveChannel } from './channels.js';
import { failureReason, JobFailure, jobFailureReason, uploadFailure } from '../jobs/job-failure.js';
import type { Metrics } from '../metrics/index.js';
import { type AppendLogs, evaluationMetrics, JobLog, MetricSeries, metricMatchers } from './job-output.js';
import { JobMetricsPublisher } from './job-metrics.js';
import type { TrainingProgress } from './progress.js';
import { type BuiltinModel, runBuiltinXGBoost } from './run-builtin.js';
import { runContainerTraining } from './run-container.js';
import { prepareScriptTraining, scriptModeOf } from '../frameworks/script-job.js';
import {
  advance,
  modelArtifactUri,
  TRAINING_LOG_GROUP,
  type TrainingJobDoc,
  type TrainingWork,
} from './training-doc.js';

export interface TrainingOptions {
  readonly deps: ServiceDeps;
  readonly blobs: BlobStore;
  readonly runner: JobRunner;
  readonly dataDir: string;
  readonly containers: ContainersFileReader;
  /** Where custom images' programs run (src/sandbox). */
  readonly sandbox: Sandbox;
  readonly appendLogs: AppendLogs;
  /** Bytes of a job's log kept (--job-log-limit-mb). */
  readonly logLimitBytes?: number;
  readonly log: Logger;
  /** Whether the job's RoleArn may read its channels and write its output (the credentials file's roles). */
  readonly access?: JobAccess;
  /** Jobs that train at once on this replica (default: the number of cores). */
  readonly concurrency?: number;
  /** The metrics store: each metric the job emits is published there, as SageMaker publishes it to CloudWatch. */
  readonly metrics?: Metrics;
  /** Where running jobs' output lines are handed to watchers (a tuning job stopping its children early). */
  readonly progress?: TrainingProgress;
}

export const TRAINING_KIND = 'training-job';
/** StoppingCondition.MaxRuntimeInSeconds when the request gives none (SageMaker's default, one day). */
export const DEFAULT_MAX_RUNTIME_SECONDS = 86_400;

/** How a job ended on its own account (stop, time limit, failure, restart): status, secondary status, reason. */
function ending(cause: string, message: string) {
  switch (cause) {
    case 'stopped':
      return { status: 'Stopped', secondary: 'Stopped', note: 'Training job stopped' };
    case 'timeout':
      return {
        status: 'Stopped',
        secondary: 'MaxRuntimeExceeded',
        note: 'Training job stopped because it exceeded MaxRuntimeInSeconds',
        reason: 'Training job runtime exceeded MaxRuntimeInSeconds provided',
      };
    case 'error':
      return { status: 'Failed', secondary: 'Failed', note: 'Training job failed', reason: message };
    default:
      return {
        status: 'Failed',
        secondary: 'Failed',
        note: 'Training job failed',
        reason: `InternalServerError: the Slipway server stopped while the job was running (${message}); create the job again.`,
      };
  }
}

export function trainingKind(o: TrainingOptions): JobKind<TrainingWork> {
  const { deps } = o;
  const table = deps.repos.trainingJobs;
  const load = async (q: Queryable, w: TrainingWork) => {
    const row = (await table.get(q, w, w.nameKey, true)) as ResourceRow;
    return { row, doc: JSON.parse(row.doc) as TrainingJobDoc };
  };
  const save = (q: Queryable, w: TrainingWork, doc: TrainingJobDoc, status: string, at: number) =>
    table.update(q, w, w.nameKey, { doc: JSON.stringify(doc), status, last_modified_at: at });

  return {
    name: TRAINING_KIND,
    concurrency: o.concurrency ?? availableParallelism(),
    onRestart: 'fail',
    maxRuntimeMs: (w) => (w.maxRuntimeSeconds ?? DEFAULT_MAX_RUNTIME_SECONDS) * 1000,
    async run(ctx) {
      await runJob(o, ctx, load, save);
    },
    async end(tx, item, why) {
      const w = item.payload;
      const { row, doc } = await load(tx, w);
      const at = Date.now();
      const e = ending(why.cause, why.cause === 'error' ? jobFailureReason(why, join(o.dataDir, 'jobs')) : why.message);
      advance(doc, e.secondary, e.note, at);
      doc.SecondaryStatusTransitions[doc.SecondaryStatusTransitions.length - 1]!.EndTime = at;
      if (e.reason) doc.FailureReason = failureReason(e.reason);
      doc.TrainingEndTime = at;
      await save(tx, w, doc, e.status, at);
      await recordJobProgress(tx, w, {
        kind: 'training',
        jobArn: row.arn,
        at,
        status: e.status,
        message: e.reason,
        endTime: at,
      });
      return { status: e.status, message: e.reason ?? e.note };
    },
  };
}

type Load = (q: Queryable, w: TrainingWork) => Promise<{ row: ResourceRow; doc: TrainingJobDoc }>;
type Save = (q: Queryable, w: TrainingWork, doc: TrainingJobDoc, status: string, at: number) => Promise<unknown>;

async function runJob(o: TrainingOptions, ctx: RunContext<TrainingWork>, load: Load, save: Save): Promise<void> {
  const w = ctx.payload;
  const p: Partition = w;
  const { row, doc: created } = await load(o.deps.db, w);
  const name = row.name;
  const image = created.AlgorithmSpecification?.TrainingImage ?? '';
  const started = Date.now();
  const stream = `${name}/algo-1-${Math.floor(started / 1000)}`;
  const log = new JobLog(o.appendLogs, p, TRAINING_LOG_GROUP, stream, o.logLimitBytes);
  const metrics = new MetricSeries();
  // A framework image (scikit-learn, PyTorch ..., or XGBoost with sagemaker_program) runs the
  // user's script; an image the containers file lists runs as listed.
  const script = listedImage(o.containers, image) ? undefined : scriptModeOf(image, created.HyperParameters ?? {});
  const builtin = !script && parseContainerVersion(image) !== undefined;
  const custom = builtin ? undefined : metricMatchers(created.AlgorithmSpecification?.MetricDefinitions);
  const published = o.metrics ? new JobMetricsPublisher(o.metrics, p, name, row.arn, o.log) : undefined;
  const onLine = (line: string) => {
    for (const [m, v] of builtin ? evaluationMetrics(line) : custom!(line)) {
      metrics.add(m, v);
      published?.add(m, v, line);
    }
    o.progress?.line(row.arn, line);
  };
  /** Moves the job to a secondary status in one lease-checked transaction. */
  const step = (status: string, message: string, more?: (doc: TrainingJobDoc) => void) =>
    ctx.transaction(async (tx) => {
      const { row: now, doc } = await load(tx, w);
      // A stop asked for meanwhile wins: the run ends at its next look at the signal.
      if (now.status === 'Stopping') return;
      const at = Date.now();
      advance(doc, status, message, at);
      more?.(doc);
      await save(tx, w, doc, 'InProgress', at);
      await ctx.transition(tx, status, message);
    });

  const mlRoot = join(o.dataDir, 'jobs', `${w.nameKey}-${started.toString(36)}`);
  let completed = false;
  try {
    await step('Starting', 'Preparing the instances for training', (d) => {
      d.TrainingStartTime = started;
      d.LogStreamName = stream;
    });
    let entry = builtin || script ? undefined : findContainerEntry(o.containers.read(), image);
    if (!builtin && !script && !entry && !(await dockerAnswers())) {
      throw new JobFailure(
        `ClientError: Image "${image}" cannot be run: it is not a SageMaker XGBoost algorithm image, it is not in the containers file (--containers-file), and no Docker engine answers.`,
      );
    }
    // the built-in algorithm reads its channels from S3 as it trains: it needs no directories
    if (!builtin) {
      // Synchronously: five mkdir calls take ~0.1 ms, where each asynchronous one is a round
      // trip to libuv's thread pool (~1 ms on a busy VM).
      for (const d of ['input/config', 'input/data', 'model', 'output/data', 'output/intermediate']) {
        mkdirSync(join(mlRoot, d), { recursive: true });
      }
    }

    await step('Downloading', 'Downloading input data');
    const channels = created.InputDataConfig ?? [];
    const objects: Record<string, ChannelObject[]> = {};
    const modelUri = modelArtifactUri(created.OutputDataConfig.S3OutputPath, name);
    checkRoleAccess(
      o.access,
      created.RoleArn,
      [
        ...channels.flatMap((c) => (c.DataSource.S3DataSource ? [c.DataSource.S3DataSource.S3Uri] : [])),
        ...(script?.submitDirectory?.startsWith('s3://') ? [script.submitDirectory] : []),
      ],
      [modelUri],
    );
    const notes: string[] = [];
    // The script's source directory and the channels download at the same time; a failure of
    // the source is reported first, as it would be if they came one after the other.
    const [prepared, fetched] = await Promise.allSettled([
      script
        ? prepareScriptTraining(script, image, { blobs: o.blobs, containers: o.containers.read(), mlRoot })
        : Promise.resolve(undefined),
      (async () => {
        for (const c of channels) {
          if (builtin) objects[c.ChannelName] = await resolveChannel(o.blobs, c, p.region, created.RoleArn);
          else await fetchChannel(o, c, p.region, created.RoleArn, mlRoot, ctx.signal);
        }
      })(),
    ]);
    if (prepared.status === 'rejected') throw prepared.reason;
    if (fetched.status === 'rejected') throw fetched.reason;
    if (prepared.value) {
      entry = prepared.value.entry;
      notes.push(...prepared.value.notes);
    }
    await step('Training', 'Training image download completed. Training in progress.');
    log.write(`Slipway training job ${name} on ${builtin ? 'the built-in XGBoost algorithm' : image}`);
    for (const n of notes) log.write(n);
    let model: BuiltinModel | undefined;
    if (builtin) {
      // DEVIATION(aws): the built-in algorithm streams its channels from S3 while it parses them
      // (as FastFile mode does), whatever the TrainingInputMode, rather than copying them to disk
      // first; errors name the files where File mode would put them (/opt/ml/input/data/...).
      model = await runBuiltinXGBoost({
        image,
        hyperparameters: created.HyperParameters ?? {},
        channels: Object.fromEntries(
          channels.map((c) => [
            c.ChannelName,
            {
              files: objects[c.ChannelName]!.map((x) => `/opt/ml/input/data/${c.ChannelName}/${x.relative}`),
              contentType: c.ContentType,
              compression: c.CompressionType,
            },
          ]),
        ),
        threads: availableParallelism(),
        log,
        onLine,
        signal: ctx.signal,
        open: (channel, index) => o.blobs.get(objects[channel]![index]!.uri),
      });
    } else {
      await runContainerTraining({
        entry,
        image,
        jobName: name,
        region: p.region,
        mlRoot,
        hyperparameters: created.HyperParameters ?? {},
        channels,
        resourceConfig: created.ResourceConfig,
        environment: created.Environment ?? {},
        entrypoint: created.AlgorithmSpecification?.ContainerEntrypoint,
        arguments: created.AlgorithmSpecification?.ContainerArguments,
        log,
        onLine,
        signal: ctx.signal,
        sandbox: o.sandbox,
        networkIsolation: created.EnableNetworkIsolation === true,
        metrics: (created.AlgorithmSpecification?.MetricDefinitions?.length ?? 0) > 0,
      });
    }

    if (script && (await readdir(join(mlRoot, 'model'))).length === 0) {
      throw new JobFailure(
        'ClientError: The training script wrote nothing to /opt/ml/model (SM_MODEL_DIR, args.model_dir): save the model there; SageMaker uploads what it holds as model.tar.gz.',
      );
    }

    // The built-in algorithm's model is packed and stored while the step is recorded (both wait
    // for a disk sync); a custom image's model directory is packed from disk after it.
    const builtinUpload =
      model &&
      packFiles([{ name: model.fileName, bytes: model.bytes }]).then((gz) =>
        o.blobs.put(modelUri, gz, { contentType: 'application/x-tar' }),
      );
    builtinUpload?.catch(() => {});
    const uploaded: string[] = [];
    try {
      await step('Uploading', 'Uploading generated training model');
    } catch (e) {
      if (builtinUpload) await builtinUpload.then(() => o.blobs.delete(modelUri)).catch(() => {});
      throw e;
    }
    try {
      if (builtinUpload) await builtinUpload;
      else await o.blobs.put(modelUri, packDirectory(join(mlRoot, 'model')), { contentType: 'application/x-tar' });
      uploaded.push(modelUri);
      if (!builtin && (await readdir(join(mlRoot, 'output/data'))).length > 0) {
        const outputUri = modelUri.replace(/model\.tar\.gz$/, 'output.tar.gz');
        await o.blobs.put(outputUri, packDirectory(join(mlRoot, 'output/data')));
        uploaded.push(outputUri);
      }
    } catch (e) {
      // A model without its output.tar.gz (or the reverse) is not left behind as if complete.
      await Promise.all(uploaded.map((u) => o.blobs.delete(u).catch(() => {})));
      throw uploadFailure(e, 'The model artifacts');
    }
    await log.close();
    // A client that sees the job Completed finds its metrics in CloudWatch.
    await published?.flush();

    await ctx.transaction(async (tx) => {
      const { doc } = await load(tx, w);
      const at = Date.now();
      advance(doc, 'Completed', 'Training job completed', at);
      doc.SecondaryStatusTransitions[doc.SecondaryStatusTransitions.length - 1]!.EndTime = at;
      doc.ModelArtifacts = { S3ModelArtifacts: modelUri };
      doc.FinalMetricDataList = metrics
        .final()
        .map((m) => ({ ...m, Timestamp: m.Timestamp!.getTime() })) as TrainingJobDoc['FinalMetricDataList'];
      doc.TrainingEndTime = at;
      await save(tx, w, doc, 'Completed', at);
      await recordJobProgress(tx, p, {
        kind: 'training',
        jobArn: row.arn,
        at,
        status: 'Completed',
        endTime: at,
        metrics: metrics.summaries(row.arn),
        outputs: { 'SageMaker.ModelArtifact': { uri: modelUri, type: 'Model' } },
      });
      await ctx.finish(tx, 'Completed', 'Training job completed');
    });
    completed = true;
  } catch (e) {
    if (e instanceof ChannelError) throw new JobFailure(e.message);
    throw e;
  } finally {
    await log.close();
    await published?.close();
    // Metrics seen before a failure or a stop still reach the trial component and FinalMetricDataList
    // (a job a tuning job stopped early is judged by them); the status is end()'s.
    if (!completed && metrics.final().length > 0) {
      const summaries = metrics.summaries(row.arn);
      const final = metrics.final().map((m) => ({ ...m, Timestamp: m.Timestamp!.getTime() }));
      await o.deps.db
        .transaction(async (tx) => {
          const { row: now, doc } = await load(tx, w);
          doc.FinalMetricDataList = final as TrainingJobDoc['FinalMetricDataList'];
          await save(tx, w, doc, now.status ?? 'InProgress', now.last_modified_at);
          await recordJobProgress(tx, p, { kind: 'training', jobArn: row.arn, at: Date.now(), metrics: summaries });
        })
        .catch(() => {});
    }
    if (!builtin) await rm(mlRoot, { recursive: true, force: true });
  }
}

/** Whether the containers file lists the image (a file that cannot be read is reported later, in the job). */
function listedImage(containers: ContainersFileReader, image: string): boolean {
  try {
    return findContainerEntry(containers.read(), image) !== undefined;
  } catch {
    return false;
  }
}

/** Resolves a channel and copies it into /opt/ml/input/data/<channel>/ (a container's File mode). */
async function fetchChannel(
  o: TrainingOptions,
  c: Channel,
  region: string,
  roleArn: string,
  mlRoot: string,
  signal: AbortSignal,
): Promise<void> {
  const objects = await resolveChannel(o.blobs, c, region, roleArn);
  const dir = join(mlRoot, 'input/data', c.ChannelName);
  await mkdir(dir, { recursive: true });
  if (signal.aborted) throw signal.reason;
  await downloadChannel(o.blobs, objects, dir, c.CompressionType === 'Gzip');
}
