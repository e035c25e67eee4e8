// A custom training image as a job step: SageMaker's training contract without Docker. The job's
// directory becomes /opt/ml (input/config/*.json, input/data/<channel>/, model/, output/), the image's
// command from the containers file runs with the `train` argument and the SM_* environment the
// SageMaker training toolkit reads, and /opt/ml/output/failure becomes the FailureReason.
// https://docs.aws.amazon.com/sagemaker/latest/dg/your-algorithms-training-algo-running-container.html
// https://github.com/aws/sagemaker-training-toolkit (environment variables)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Channel, ResourceConfig } from '../generated/sagemaker/shapes.js';
import { type ContainerEntry, entryCodeDirs } from '../inference/runtimes/container/containers-file.js';
import { JobFailure, sandboxFailure } from '../jobs/job-failure.js';
import { dockerHardening } from '../sandbox/docker.js';
import { readJobFile } from '../sandbox/job-files.js';
import { jobLimits, type Limits } from '../sandbox/limits.js';
import { runUnsandboxed, type Sandbox } from '../sandbox/sandbox.js';
import type { JobLog } from './job-output.js';

export interface ContainerRun {
  /** The containers-file entry, or undefined to run the image with Docker. */
  readonly entry: ContainerEntry | undefined;
  readonly image: string;
  readonly jobName: string;
  readonly region: string;
  readonly mlRoot: string;
  readonly hyperparameters: Readonly<Record<string, string>>;
  readonly channels: readonly Channel[];
  readonly resourceConfig: ResourceConfig | undefined;
  readonly environment: Readonly<Record<string, string>>;
  readonly entrypoint?: readonly string[];
  readonly arguments?: readonly string[];
  readonly log: JobLog;
  readonly onLine: (line: string) => void;
  readonly signal: AbortSignal;
  /** Where the image's program runs (src/sandbox). */
  readonly sandbox: Sandbox;
  /** EnableNetworkIsolation: no network at all. */
  readonly networkIsolation: boolean;
  /** Whether its output is read for MetricDefinitions (every line then goes through onLine). */
  readonly metrics: boolean;
}

const HOST = 'algo-1';

/** Writes /opt/ml/input/config/{hyperparameters,inputdataconfig,resourceconfig}.json. */
async function writeConfig(r: ContainerRun): Promise<void> {
  const config = join(r.mlRoot, 'input/config');
  const dataConfig = Object.fromEntries(
    r.channels.map((c) => [
      c.ChannelName,
      {
        ContentType: c.ContentType,
        TrainingInputMode: c.InputMode ?? 'File',
        S3DistributionType: c.DataSource.S3DataSource?.S3DataDistributionType ?? 'FullyReplicated',
        RecordWrapperType: c.RecordWrapperType ?? 'None',
      },
    ]),
  );
  // Three small files on the server's own disk: written synchronously (~0.1 ms), where each
  // asynchronous write is a round trip to libuv's thread pool (~1 ms on a busy VM).
  writeFileSync(join(config, 'hyperparameters.json'), JSON.stringify(r.hyperparameters));
  writeFileSync(join(config, 'inputdataconfig.json'), JSON.stringify(dataConfig));
  writeFileSync(
    join(config, 'resourceconfig.json'),
    JSON.stringify({
      current_host: HOST,
      current_instance_type: r.resourceConfig?.InstanceType ?? 'local',
      hosts: [HOST],
      network_interface_name: 'eth0',
    }),
  );
}

/** The environment the SageMaker training toolkit sets, for a container whose /opt/ml is `ml`. */
export function trainingEnvironment(r: ContainerRun, ml: string, limits?: Limits): Record<string, string> {
  const channels = r.channels.map((c) => c.ChannelName);
  const env: Record<string, string> = {
    TRAINING_JOB_NAME: r.jobName,
    AWS_REGION: r.region,
    SM_MODEL_DIR: `${ml}/model`,
    SM_INPUT_DIR: `${ml}/input`,
    SM_INPUT_CONFIG_DIR: `${ml}/input/config`,
    SM_INPUT_DATA_DIR: `${ml}/input/data`,
    SM_OUTPUT_DIR: `${ml}/output`,
    SM_OUTPUT_DATA_DIR: `${ml}/output/data`,
    SM_OUTPUT_INTERMEDIATE_DIR: `${ml}/output/intermediate`,
    SM_CHANNELS: JSON.stringify(channels),
    SM_HPS: JSON.stringify(r.hyperparameters),
    SM_HOSTS: JSON.stringify([HOST]),
    SM_CURRENT_HOST: HOST,
    SM_NUM_CPUS: String(Math.max(1, Math.floor(limits?.cpus ?? r.sandbox.host.cpus))),
    SM_NUM_GPUS: '0',
    SM_NETWORK_INTERFACE_NAME: 'eth0',
    SM_USER_ARGS: JSON.stringify(Object.entries(r.hyperparameters).flatMap(([k, v]) => [`--${k}`, v])),
  };
  for (const c of channels) env[`SM_CHANNEL_${c.toUpperCase()}`] = `${ml}/input/data/${c}`;
  for (const [k, v] of Object.entries(r.hyperparameters)) env[`SM_HP_${k.toUpperCase()}`] = v;
  return { ...r.entry?.env, ...r.environment, ...env };
}

/** Runs the image's training to its end; throws JobFailure for anything but exit code 0. */
export async function runContainerTraining(r: ContainerRun): Promise<void> {
  await writeConfig(r);
  const network = r.networkIsolation ? 'none' : 'outbound';
  const limits = jobLimits(r.resourceConfig?.InstanceType, r.resourceConfig?.VolumeSizeInGB, r.sandbox.host);
  const io = {
    onLine: (line: string) => {
      r.onLine(line);
      return r.log.write(line);
    },
    onNote: (line: string) => void r.log.write(line),
    // Lines past the log's limit are still read for MetricDefinitions, unless the image has none.
    skip: r.metrics
      ? undefined
      : { skipping: () => r.log.truncated, onSkipped: (n: number, b: number, end: string) => r.log.skipped(n, b, end) },
    signal: r.signal,
  };
  const env = (ml: string) => trainingEnvironment(r, ml, limits);
  let exit: Awaited<ReturnType<Sandbox['runJob']>>;
  if (r.entry) {
    const refused = r.sandbox.refusal(network);
    if (refused) throw new JobFailure(`ClientError: ${refused}`);
    const base = r.entrypoint?.length
      ? [...r.entrypoint]
      : [...r.entry.command, ...(r.entry.appendServe ? ['train'] : [])];
    exit = await r.sandbox.runJob(
      {
        argv: [...base, ...(r.arguments ?? [])],
        cwd: r.entry.cwd,
        code: entryCodeDirs(r.entry),
        mlRoot: r.mlRoot,
        env,
        network,
        limits,
        nice: 19,
      },
      io,
    );
  } else {
    // A Docker engine runs the image itself with the job's directory as /opt/ml.
    const argv = ['docker', 'run', '--rm', ...dockerHardening(network, limits), '-v', `${r.mlRoot}:/opt/ml`];
    argv.push(...Object.entries(env('/opt/ml')).flatMap(([k, v]) => ['-e', `${k}=${v}`]));
    if (r.entrypoint?.length) argv.push('--entrypoint', r.entrypoint[0]!, r.image, ...r.entrypoint.slice(1));
    else argv.push(r.image, 'train');
    argv.push(...(r.arguments ?? []));
    exit = await runUnsandboxed({ argv, mlRoot: r.mlRoot, env, network, limits, nice: 19 }, io);
  }
  if (r.signal.aborted) throw r.signal.reason;
  const failed = sandboxFailure(exit);
  if (failed) throw failed;
  if (exit.code === 0) return;
  const failure = await readJobFile(join(r.mlRoot, 'output/failure'));
  // Script mode's launcher (src/frameworks) words what the user must fix as a ClientError.
  if (failure.startsWith('ClientError: ')) throw new JobFailure(failure.trim());
  const why = exit.code === null ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
  const detail = failure.trim() || r.log.tail.slice(-5).join('\n');
  throw new JobFailure(`AlgorithmError: ${detail ? `${detail}, ` : ''}${why}`);
}
