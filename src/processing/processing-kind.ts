// Processing jobs on the job runner: the inputs copied to their LocalPath under /opt/ml/processing/,
// the image's entrypoint run in the same sandbox as training containers (or Docker), the outputs
// uploaded at the end of the job, the exit code → Completed or Failed with the output's tail.
// https://docs.aws.amazon.com/sagemaker/latest/dg/build-your-own-processing-container.html
import { checkRoleAccess, type JobAccess } from '../jobs/job-access.js';
import { lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { CreateProcessingJobRequest, ProcessingInput } from '../generated/sagemaker/shapes.js';
import type { ContainersFileReader } from '../inference/runtimes/container/containers-file.js';
import { prepareScriptProcessing } from '../frameworks/script-job.js';
import { entryCodeDirs, findContainerEntry } from '../inference/runtimes/container/containers-file.js';
import { JobFailure, sandboxFailure, uploadFailure } from '../jobs/job-failure.js';
import { type LoadedJob, type TableJobDoc, type TableWork, tableJobKind } from '../jobs/table-job.js';
import type { JobKind } from '../jobs/types.js';
import type { JobArtifact } from '../lineage/job-recorder.js';
import { jobLimits } from '../sandbox/limits.js';
import { dockerAnswers, runUnsandboxed, type Sandbox } from '../sandbox/sandbox.js';
import { dockerHardening } from '../sandbox/docker.js';
import { jobFileStream, readJobFile } from '../sandbox/job-files.js';
import type { ServiceDeps } from '../services/common/deps.js';
import { type BlobStore, parseS3Uri } from '../storage/blobs/blob-store.js';
import { ChannelError, downloadChannel, resolveChannel } from '../training/channels.js';
import { type AppendLogs, JobLog } from '../training/job-output.js';

export const PROCESSING_KIND = 'processing-job';
export const PROCESSING_LOG_GROUP = '/aws/sagemaker/ProcessingJobs';
/** SageMaker's default StoppingCondition for processing jobs (one day). */
export const DEFAULT_PROCESSING_RUNTIME_SECONDS = 86_400;
const ROOT = '/opt/ml/processing/';

export interface ProcessingJobDoc extends Omit<CreateProcessingJobRequest, 'Tags' | 'ProcessingJobName'>, TableJobDoc {
  ExitMessage?: string;
}

export interface ProcessingOptions {
  readonly deps: ServiceDeps;
  readonly blobs: BlobStore;
  readonly dataDir: string;
  readonly containers: ContainersFileReader;
  /** Where the image's program runs (src/sandbox). */
  readonly sandbox: Sandbox;
  readonly appendLogs: AppendLogs;
  /** Bytes of a job's log kept (--job-log-limit-mb). */
  readonly logLimitBytes?: number;
  /** Whether the job's RoleArn may read its inputs and write its outputs (the credentials file's roles). */
  readonly access?: JobAccess;
  readonly concurrency?: number;
}

/** The path under the job directory of a LocalPath under /opt/ml/processing/ (validated at create). */
export function localUnder(mlRoot: string, localPath: string): string {
  return join(mlRoot, localPath.replace(/^\/opt\/ml\//, ''));
}

/** A LocalPath SageMaker accepts: absolute, under /opt/ml/processing/, no `..`. */
export function validLocalPath(p: string | undefined): boolean {
  return p?.startsWith(ROOT) === true && p.length > ROOT.length && !p.split('/').includes('..');
}

export function processingKind(o: ProcessingOptions): JobKind<TableWork> {
  return tableJobKind<TableWork, ProcessingJobDoc>({
    name: PROCESSING_KIND,
    table: o.deps.repos.processingJobs,
    db: o.deps.db,
    lineage: 'processing',
    label: 'Processing job',
    concurrency: o.concurrency,
    defaultMaxRuntimeSeconds: DEFAULT_PROCESSING_RUNTIME_SECONDS,
    timeoutReason: 'Processing job runtime exceeded MaxRuntimeInSeconds provided',
    jobsDir: join(o.dataDir, 'jobs'),
    run: async ({ ctx, job, complete }) => {
      const mlRoot = join(o.dataDir, 'jobs', `processing-${ctx.payload.nameKey}-${Date.now().toString(36)}`);
      const log = new JobLog(
        o.appendLogs,
        ctx.payload,
        PROCESSING_LOG_GROUP,
        `${job.row.name}/algo-1-${Math.floor(Date.now() / 1000)}`,
        o.logLimitBytes,
      );
      try {
        const outputs = await runProcessing(o, job, mlRoot, log, ctx.payload.region, ctx.signal);
        await log.close();
        await complete(() => {}, outputs);
      } catch (e) {
        if (e instanceof ChannelError) throw new JobFailure(e.message);
        throw e;
      } finally {
        await log.close();
        await rm(mlRoot, { recursive: true, force: true });
      }
    },
  });
}

async function runProcessing(
  o: ProcessingOptions,
  job: LoadedJob<ProcessingJobDoc>,
  mlRoot: string,
  log: JobLog,
  region: string,
  signal: AbortSignal,
): Promise<Record<string, JobArtifact>> {
  const { doc, row } = job;
  const app = doc.AppSpecification;
  checkRoleAccess(
    o.access,
    doc.RoleArn,
    (doc.ProcessingInputs ?? []).flatMap((i) => (i.S3Input ? [i.S3Input.S3Uri] : [])),
    (doc.ProcessingOutputConfig?.Outputs ?? []).flatMap((out) => (out.S3Output ? [out.S3Output.S3Uri] : [])),
  );
  let entry = findContainerEntry(o.containers.read(), app.ImageUri);
  // SageMaker's framework images (SKLearnProcessor, ScriptProcessor with command=["python3"],
  // FrameworkProcessor) run their entrypoint with this host's interpreter for the framework.
  const script = entry
    ? undefined
    : await prepareScriptProcessing(app.ImageUri, app.ContainerEntrypoint, { containers: o.containers.read(), mlRoot });
  if (script) {
    entry = script.entry;
    for (const n of script.notes) log.write(n);
  }
  const network = doc.NetworkConfig?.EnableNetworkIsolation ? 'none' : 'outbound';
  const refused = entry ? o.sandbox.refusal(network) : undefined;
  if (refused) throw new JobFailure(`ClientError: ${refused}`);
  if (!entry && !(await dockerAnswers())) {
    throw new JobFailure(
      `ClientError: Image "${app.ImageUri}" cannot be run: it is not in the containers file (--containers-file), and no Docker engine answers.`,
    );
  }
  await mkdir(join(mlRoot, 'processing'), { recursive: true });
  for (const input of doc.ProcessingInputs ?? []) await fetchInput(o, input, mlRoot, region, doc.RoleArn, signal);
  for (const out of doc.ProcessingOutputConfig?.Outputs ?? []) {
    if (out.S3Output?.LocalPath) await mkdir(localUnder(mlRoot, out.S3Output.LocalPath), { recursive: true });
  }
  await mkdir(join(mlRoot, 'processing/output'), { recursive: true });

  const env = (ml: string) => ({
    ...entry?.env,
    ...doc.Environment,
    PROCESSING_JOB_NAME: row.name,
    AWS_REGION: region,
    SM_PROCESSING_ROOT: `${ml}/processing`,
  });
  const args = app.ContainerArguments ?? [];
  const cluster = doc.ProcessingResources.ClusterConfig;
  const limits = jobLimits(cluster.InstanceType, cluster.VolumeSizeInGB, o.sandbox.host);
  const io = {
    onLine: (line: string) => log.write(line),
    onNote: (line: string) => void log.write(line),
    skip: { skipping: () => log.truncated, onSkipped: (n: number, b: number, end: string) => log.skipped(n, b, end) },
    signal,
  };
  let exit: Awaited<ReturnType<Sandbox['runJob']>>;
  if (entry) {
    exit = await o.sandbox.runJob(
      {
        argv: [
          ...(script?.argv ?? (app.ContainerEntrypoint?.length ? app.ContainerEntrypoint : entry.command)),
          ...args,
        ],
        cwd: entry.cwd,
        code: entryCodeDirs(entry),
        mlRoot,
        env,
        network,
        limits,
      },
      io,
    );
  } else {
    const argv = ['docker', 'run', '--rm', ...dockerHardening(network, limits), '-v', `${mlRoot}:/opt/ml`];
    for (const [k, v] of Object.entries(env('/opt/ml'))) argv.push('-e', `${k}=${v}`);
    if (app.ContainerEntrypoint?.length)
      argv.push('--entrypoint', app.ContainerEntrypoint[0]!, app.ImageUri, ...app.ContainerEntrypoint.slice(1));
    else argv.push(app.ImageUri);
    argv.push(...args);
    exit = await runUnsandboxed({ argv, mlRoot, env, network, limits }, io);
  }
  if (signal.aborted) throw signal.reason;
  const failed = sandboxFailure(exit);
  if (failed) throw failed;
  if (exit.code !== 0) {
    // SageMaker reports a failed processing container as an AlgorithmError with its exit code and
    // the failure file's text; the tail of the output stands in when there is none.
    const failure = (await readJobFile(join(mlRoot, 'processing/output/failure'))).trim();
    const why = exit.code === null ? `killed by ${exit.signal}` : `ExitCode ${exit.code}`;
    const detail = failure || log.tail.slice(-5).join('\n');
    throw new JobFailure(
      `AlgorithmError: See job logs for more information. ${why}${detail ? `: ${detail}` : ''}`,
      failure ? { ExitMessage: failure.slice(0, 1024) } : undefined,
    );
  }
  return uploadOutputs(o, doc, mlRoot);
}

async function fetchInput(
  o: ProcessingOptions,
  input: ProcessingInput,
  mlRoot: string,
  region: string,
  roleArn: string,
  signal: AbortSignal,
) {
  const s3 = input.S3Input;
  if (!s3)
    throw new JobFailure(`ClientError: Input "${input.InputName}" has no S3Input; only S3 inputs are supported.`);
  const listed = await resolveChannel(
    o.blobs,
    { ChannelName: input.InputName, DataSource: { S3DataSource: { S3DataType: s3.S3DataType, S3Uri: s3.S3Uri } } },
    region,
    roleArn,
  );
  // A processing input's prefix is a folder: its objects land at LocalPath/<key after the prefix>
  // (an object named by the whole URI lands at LocalPath/<its name>).
  const prefix = parseS3Uri(s3.S3Uri).key.replace(/\/+$/, '');
  const objects =
    s3.S3DataType === 'S3Prefix'
      ? listed.map((x) => {
          const key = parseS3Uri(x.uri).key;
          const rest = key.slice(prefix.length).replace(/^\/+/, '');
          return {
            ...x,
            relative:
              rest === '' || (!key.startsWith(`${prefix}/`) && prefix !== '')
                ? key.slice(key.lastIndexOf('/') + 1)
                : rest,
          };
        })
      : listed;
  if (signal.aborted) throw signal.reason;
  const dir = localUnder(mlRoot, s3.LocalPath!);
  await mkdir(dir, { recursive: true });
  // DEVIATION(aws): Pipe mode is served as File mode.
  await downloadChannel(o.blobs, objects, dir, s3.S3CompressionType === 'Gzip');
}

/** EndOfJob: every file under each output's LocalPath goes to its S3Uri, keys relative to the path. */
async function uploadOutputs(o: ProcessingOptions, doc: ProcessingJobDoc, mlRoot: string) {
  const produced: Record<string, JobArtifact> = {};
  const written: string[] = [];
  try {
    for (const out of doc.ProcessingOutputConfig?.Outputs ?? []) {
      if (!out.S3Output) continue;
      const dir = localUnder(mlRoot, out.S3Output.LocalPath!);
      const base = out.S3Output.S3Uri.replace(/\/+$/, '');
      for (const file of await walk(dir)) {
        const uri = `${base}/${relative(dir, file)}`;
        await o.blobs.put(uri, jobFileStream(file));
        written.push(uri);
      }
      produced[out.OutputName] = { uri: out.S3Output.S3Uri, type: 'DataSet' };
    }
  } catch (e) {
    // Nothing half-uploaded stays under an output prefix.
    await Promise.all(written.map((u) => o.blobs.delete(u).catch(() => {})));
    throw uploadFailure(e, "The job's output");
  }
  return produced;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, d.name);
    // lstat: a symbolic link the job planted (to /etc/shadow) is not followed by the server.
    if (d.isDirectory()) out.push(...(await walk(p)));
    else if ((await lstat(p)).isFile()) out.push(p);
  }
  return out;
}
