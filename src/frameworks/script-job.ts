// Script mode for jobs in SageMaker's framework images: what the training toolkit (training jobs)
// and the image's own Python (processing jobs) give the user's code, run in src/sandbox.
//
// A training job in a framework image runs `python/slipway_training.py` (the toolkit's contract:
// sagemaker_program, sagemaker_submit_directory, SM_*, requirements.txt, --name value arguments,
// /opt/ml/output/failure); the source directory is fetched from S3 and unpacked at /opt/ml/code
// here, before the sandbox starts (the sandbox cannot reach Slipway's S3). A processing job in a
// framework image runs its ContainerEntrypoint with `python3` / `python` meaning the interpreter
// src/frameworks/interpreter.ts picked.
// https://github.com/aws/sagemaker-training-toolkit (environment, hyperparameters as arguments)

import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArchiveError, extractEntries, readTarGz } from '../inference/artifact/index.js';
import type { ContainerEntry, ContainersFile } from '../inference/runtimes/container/containers-file.js';
import { JobFailure } from '../jobs/job-failure.js';
import { CONTAINER_ML_ROOT, SANDBOX_PATH } from '../sandbox/sandbox.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import { FRAMEWORK_MODULES, type FrameworkImage, parseFrameworkImage } from './images.js';
import { type Interpreter, InterpreterError, resolveInterpreter } from './interpreter.js';

/** The directory of the Python programs Slipway ships (python/ at the repository's root). */
export const PYTHON_DIR = fileURLToPath(new URL('../../../python/', import.meta.url)).replace(/\/$/, '');
export const TRAINING_LAUNCHER = join(PYTHON_DIR, 'slipway_training.py');

/** What a training job's image and hyperparameters say about script mode. */
export interface ScriptMode {
  readonly image: FrameworkImage;
  /** sagemaker_program, decoded. */
  readonly program: string;
  /** sagemaker_submit_directory, decoded (an s3:// URI of sourcedir.tar.gz), when given. */
  readonly submitDirectory: string | undefined;
}

/** A hyperparameter as the SDK sends it: a JSON value (`"\"train.py\""`), or plain text. */
function decoded(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  try {
    const j = JSON.parse(v) as unknown;
    return typeof j === 'string' ? j : v;
  } catch {
    return v;
  }
}

/**
 * Script mode when the image is a framework image and the job names a program; a framework image
 * without one is script mode too (and fails saying what is missing), except SageMaker's XGBoost
 * image, which then runs the built-in algorithm.
 */
export function scriptModeOf(
  imageUri: string,
  hyperparameters: Readonly<Record<string, string>>,
): ScriptMode | undefined {
  const image = parseFrameworkImage(imageUri);
  if (!image) return undefined;
  const program = decoded(hyperparameters.sagemaker_program);
  if (image.framework === 'xgboost' && program === undefined) return undefined;
  return { image, program: program ?? '', submitDirectory: decoded(hyperparameters.sagemaker_submit_directory) };
}

function interpreterFailure(e: unknown): never {
  if (e instanceof InterpreterError) throw new JobFailure(`ClientError: ${e.message}`);
  throw e;
}

/**
 * `python` and `python3` in <mlRoot>/.slipway/bin pointing at the interpreter; that directory leads
 * the program's PATH, so a script that starts `python3` (FrameworkProcessor's runproc.sh, a
 * subprocess) gets the framework's interpreter.
 */
function interpreterBin(mlRoot: string, python: string): string {
  const bin = join(mlRoot, '.slipway/bin');
  // Synchronously: three calls take ~0.1 ms, where each asynchronous one is a round trip to
  // libuv's thread pool (~1 ms on a busy VM), on a job's way to its first line.
  mkdirSync(bin, { recursive: true });
  for (const name of ['python', 'python3']) symlinkSync(python, join(bin, name));
  return `${CONTAINER_ML_ROOT}/.slipway/bin`;
}

function entryFor(
  imageUri: string,
  interpreter: Interpreter,
  command: string[],
  env: Record<string, string>,
  extraBinds: string[] = [],
): ContainerEntry {
  return {
    pattern: imageUri,
    runtime: 'process',
    command,
    cwd: PYTHON_DIR,
    env: { ...interpreter.env, ...env },
    startupTimeoutMs: undefined,
    appendServe: false,
    binds: [...interpreter.binds, ...extraBinds],
  };
}

/** Fetches sourcedir.tar.gz and unpacks it into `dest` (no links, no paths outside it). */
export async function unpackSourceDirectory(blobs: BlobStore, uri: string, dest: string): Promise<void> {
  if (!uri.startsWith('s3://'))
    throw new JobFailure(
      `ClientError: sagemaker_submit_directory must be an s3:// URI of the source directory's tar.gz, not "${uri.slice(0, 200)}".`,
    );
  let entries: Awaited<ReturnType<typeof readTarGz>>;
  try {
    entries = await readTarGz(await blobs.get(uri), { limits: { maxTotalBytes: 2 * 1024 ** 3 } });
  } catch (e) {
    if (e instanceof ArchiveError)
      throw new JobFailure(`ClientError: The source directory ${uri} is not a valid tar.gz archive: ${e.message}`);
    const code = (e as { name?: string; Code?: string }).name;
    if (code === 'NoSuchKey' || code === 'NoSuchBucket' || /NoSuch/.test(String((e as Error).message)))
      throw new JobFailure(`ClientError: The source directory ${uri} does not exist (sagemaker_submit_directory).`);
    throw e;
  }
  // No links, no paths outside it (src/inference/artifact/extract.ts).
  await extractEntries(entries, dest);
}

export interface PreparedTraining {
  readonly entry: ContainerEntry;
  /** Lines for the job's log before the script starts. */
  readonly notes: readonly string[];
}

/**
 * Lays /opt/ml/code out for a script-mode training job and gives the containers-file entry that
 * runs it. Throws JobFailure (ClientError) for what the user must fix.
 */
export async function prepareScriptTraining(
  mode: ScriptMode,
  imageUri: string,
  o: { blobs: BlobStore; containers: ContainersFile | undefined; mlRoot: string },
): Promise<PreparedTraining> {
  if (!mode.program)
    throw new JobFailure(
      `ClientError: Image "${imageUri}" is SageMaker's ${FRAMEWORK_MODULES[mode.image.framework].name} image: it runs the training script the hyperparameter sagemaker_program names (entry_point in the SageMaker Python SDK), and the job has none.`,
    );
  const interpreter = await resolveInterpreter(mode.image, o.containers).catch(interpreterFailure);
  const code = join(o.mlRoot, 'code');
  if (existsSync(code)) await rm(code, { recursive: true, force: true });
  if (mode.submitDirectory) await unpackSourceDirectory(o.blobs, mode.submitDirectory, code);
  else await mkdir(code, { recursive: true });
  if (!mode.submitDirectory && (await readdir(code)).length === 0)
    throw new JobFailure(
      `ClientError: The job names the entry point ${mode.program} but no source directory (the hyperparameter sagemaker_submit_directory, an s3:// URI of sourcedir.tar.gz).`,
    );
  const bin = interpreterBin(o.mlRoot, interpreter.python);
  const env: Record<string, string> = {
    PATH: `${bin}:${SANDBOX_PATH}`,
    PYTHONUNBUFFERED: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    SLIPWAY_FRAMEWORK_MODULE: FRAMEWORK_MODULES[mode.image.framework].module,
  };
  if (interpreter.wheels) env.SLIPWAY_WHEELS = interpreter.wheels;
  const entry = entryFor(
    imageUri,
    interpreter,
    [interpreter.python, TRAINING_LAUNCHER],
    env,
    interpreter.wheels ? [interpreter.wheels] : [],
  );
  return { entry, notes: interpreter.notes };
}

/**
 * The entry for a processing job in a framework image: its ContainerEntrypoint runs as given, with
 * `python3`/`python` the framework's interpreter (first in PATH, and an entrypoint that names one
 * of them bare gets its absolute path).
 */
export async function prepareScriptProcessing(
  imageUri: string,
  entrypoint: readonly string[] | undefined,
  o: { containers: ContainersFile | undefined; mlRoot: string },
): Promise<(PreparedTraining & { argv: string[] }) | undefined> {
  const image = parseFrameworkImage(imageUri);
  if (!image) return undefined;
  if (!entrypoint?.length)
    throw new JobFailure(
      `ClientError: Image "${imageUri}" is SageMaker's ${FRAMEWORK_MODULES[image.framework].name} image: a processing job in it needs AppSpecification.ContainerEntrypoint (the SDK's command, e.g. ["python3", "/opt/ml/processing/input/code/script.py"]).`,
    );
  const interpreter = await resolveInterpreter(image, o.containers).catch(interpreterFailure);
  const bin = interpreterBin(o.mlRoot, interpreter.python);
  const entry = entryFor(imageUri, interpreter, [interpreter.python], {
    PATH: `${bin}:${SANDBOX_PATH}`,
    PYTHONUNBUFFERED: '1',
    PYTHONDONTWRITEBYTECODE: '1',
  });
  const argv = entrypoint.map((a, i) => (i === 0 && /^python(?:3(?:\.\d+)?)?$/.test(a) ? interpreter.python : a));
  return { entry, notes: interpreter.notes, argv };
}
