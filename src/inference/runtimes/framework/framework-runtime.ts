// The `framework` runtime: SageMaker's framework images (scikit-learn, PyTorch, TensorFlow,
// HuggingFace, MXNet, and XGBoost in script mode) serving the user's own code, the way their
// inference toolkits do, without Docker: one long-lived Python worker per instance (model_fn once,
// many requests), python/slipway_serving/worker.py, run by the local interpreter src/frameworks
// picks, in the sandbox, reached over HTTP like the process runtime's servers.
// https://github.com/aws/sagemaker-inference-toolkit
// https://github.com/aws/sagemaker-scikit-learn-container
//
// Which images: parseFrameworkImage(image) names a framework, the image is not in the containers
// file's "images" (the user's explicit choice wins), and for a sagemaker-xgboost image the
// container's Environment has SAGEMAKER_PROGRAM (without it, the built-in XGBoost runtime serves).
//
// The user's code (SAGEMAKER_PROGRAM, a file or package in it): SAGEMAKER_SUBMIT_DIRECTORY when set
// (s3:// of sourcedir.tar.gz, fetched and unpacked safely by the artifact cache, shown read-only at
// /opt/ml/code; /opt/ml/model/code as the SDK's repack sets it), else code/ inside model.tar.gz
// (/opt/ml/model/code). A host path (file://, local mode's
// way) is refused: it would show any directory of this host to whoever may create a model.
// The worker gets the container's Environment, the framework's settings' env, and
// SM_MODEL_DIR, SAGEMAKER_MODEL_DIR, SLIPWAY_CODE_DIR, SLIPWAY_FRAMEWORK; it answers on its
// stdin/stdout (runtimes/container/channel-container.ts), not on a port.

import { existsSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FRAMEWORK_MODULES, type FrameworkImage, parseFrameworkImage } from '../../../frameworks/images.js';
import { InterpreterError, resolveInterpreter } from '../../../frameworks/interpreter.js';
import { serverLimits } from '../../../sandbox/limits.js';
import type { Sandbox } from '../../../sandbox/sandbox.js';
import type { CachedArtifact } from '../../artifact-cache.js';
import { DeploymentError } from '../../engine.js';
import type { Runtime, RuntimeContext, RuntimeProvider } from '../../runtime.js';
import type { AnswerPoller } from '../container/answer-poller.js';
import type { ContainersFile } from '../container/containers-file.js';
import { startServerInstance, unsandboxed } from '../container/process-runtime.js';

export interface FrameworkRuntimeSettings {
  readonly memoryPollMs: number;
  /** The longest a worker busy-polls for its next request (µs; 0: it always sleeps): worker.py's Poller. */
  readonly workerPollMicros: number;
  /** The server's loop polls for a worker's answer (--invoke-poll-us); none: it sleeps. */
  readonly answerPoller?: AnswerPoller;
  readonly sandbox?: Sandbox;
  /** Fetches and unpacks an s3:// source directory archive (the artifact cache). */
  readonly fetchSource: (uri: string) => Promise<CachedArtifact>;
  /** The containers file, for the interpreter per framework and version. */
  readonly containersFile: () => ContainersFile | undefined;
}

/** python/ of this package: holds slipway_serving/ (shipped beside dist/ and src/). */
export function servingRoot(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let d = from; ; d = dirname(d)) {
    if (existsSync(join(d, 'python', 'slipway_serving', 'worker.py'))) return join(d, 'python');
    if (dirname(d) === d) throw new Error(`python/slipway_serving not found above ${from}`);
  }
}

/** Whether the framework runtime serves this container (see the header). */
export function servesFramework(
  image: string,
  environment: Readonly<Record<string, string>>,
): FrameworkImage | undefined {
  const fw = parseFrameworkImage(image);
  if (!fw) return undefined;
  if (fw.framework === 'xgboost' && !environment.SAGEMAKER_PROGRAM?.trim()) return undefined;
  return fw;
}

interface Code {
  /** Shown at /opt/ml/code (a host directory), or undefined when the code is inside the model. */
  readonly hostDir?: string;
  /** Where the worker finds it: a path inside the model dir (relative), /opt/ml/code, or none. */
  readonly inModel?: string;
}

async function locateCode(ctx: RuntimeContext, settings: FrameworkRuntimeSettings): Promise<Code> {
  const sub = ctx.container.environment.SAGEMAKER_SUBMIT_DIRECTORY?.trim();
  if (sub) {
    if (sub.startsWith('s3://')) {
      const a = await settings.fetchSource(sub).catch((e: Error) => {
        throw new DeploymentError(
          `Failed to download the model's source directory SAGEMAKER_SUBMIT_DIRECTORY "${sub}": ${e.message}`.slice(
            0,
            1024,
          ),
        );
      });
      return { hostDir: a.dir };
    }
    const path = posix.normalize(sub.startsWith('file://') ? sub.slice('file://'.length) : sub);
    if (path === '/opt/ml/model' || path.startsWith('/opt/ml/model/')) {
      return { inModel: posix.relative('/opt/ml/model', path) };
    }
    // A host path would show any directory of this host to whoever may create a model.
    throw new DeploymentError(
      `SAGEMAKER_SUBMIT_DIRECTORY must be an s3:// URI of sourcedir.tar.gz or a directory inside the model (/opt/ml/model/code), not "${sub.slice(0, 200)}": Slipway shows no host directory to a model's code.`,
    );
  }
  if (existsSync(join(ctx.artifact.dir, 'code'))) return { inModel: 'code' };
  return {};
}

function programExists(dir: string, program: string): boolean {
  const name = program.endsWith('.py') ? program.slice(0, -3) : program;
  return existsSync(join(dir, `${name}.py`)) || existsSync(join(dir, name, '__init__.py'));
}

export function frameworkProvider(settings: FrameworkRuntimeSettings): RuntimeProvider {
  const sandbox = settings.sandbox ?? unsandboxed();
  return {
    name: 'framework',
    async select(ctx: RuntimeContext): Promise<Runtime | undefined> {
      if (ctx.entry) return undefined;
      const env = ctx.container.environment;
      if (env.SLIPWAY_RUNTIME === 'onnx') return undefined;
      const fw = servesFramework(ctx.container.image, env);
      if (!fw) return undefined;
      const network = ctx.container.networkIsolation ? 'none' : 'outbound';
      const refused = settings.sandbox?.refusal(network, true);
      if (refused) throw new DeploymentError(refused);
      const interp = await resolveInterpreter(fw, settings.containersFile()).catch((e: unknown) => {
        if (e instanceof InterpreterError) throw new DeploymentError(e.message.slice(0, 1024));
        throw e;
      });
      const log = ctx.log.child({ endpoint: ctx.spec.endpointName, variant: ctx.spec.variantName });
      for (const note of interp.notes) log.info(note);
      const program = env.SAGEMAKER_PROGRAM?.trim() ?? '';
      const code = await locateCode(ctx, settings);
      const hostCodeDir =
        code.hostDir ?? (code.inModel !== undefined ? join(ctx.artifact.dir, code.inModel) : undefined);
      if (program && !/^[A-Za-z_][\w.]*$/.test(program.replace(/\.py$/, '').replaceAll('/', '_')))
        throw new DeploymentError(`SAGEMAKER_PROGRAM "${program}" is not a Python module name or file.`);
      if (program && (!hostCodeDir || !programExists(hostCodeDir, program)))
        throw new DeploymentError(
          hostCodeDir
            ? `SAGEMAKER_PROGRAM "${program}" was not found in the model's code (${
                code.hostDir
                  ? `SAGEMAKER_SUBMIT_DIRECTORY ${env.SAGEMAKER_SUBMIT_DIRECTORY}`
                  : `${code.inModel}/ in the model data`
              }).`
            : `SAGEMAKER_PROGRAM "${program}" is set but the model has no code: neither code/ in model.tar.gz nor SAGEMAKER_SUBMIT_DIRECTORY.`,
        );
      const root = servingRoot();
      const name = FRAMEWORK_MODULES[fw.framework].name;
      return {
        kind: 'framework',
        resolvedImage: ctx.container.image,
        start: () =>
          startServerInstance(sandbox, {
            spec: {
              argv: [interp.python, '-B', join(root, 'slipway_serving', 'worker.py')],
              code: [root, ...interp.binds],
              network,
              limits: serverLimits(ctx.memoryMB, sandbox.host),
              modelDir: ctx.artifact.dir,
              ...(code.hostDir ? { codeDir: code.hostDir } : {}),
              // Slipway's own protocol on the worker's stdin/stdout: no port, no pasta, no HTTP.
              channel: true,
              env: ({ modelDir, codeDir }) => ({
                ...interp.env,
                ...env,
                SM_MODEL_DIR: modelDir,
                SAGEMAKER_MODEL_DIR: modelDir,
                SLIPWAY_CODE_DIR: codeDir ?? (code.inModel !== undefined ? posix.join(modelDir, code.inModel) : ''),
                SLIPWAY_FRAMEWORK: fw.framework,
                SLIPWAY_WORKER_POLL_US: String(settings.workerPollMicros),
                PYTHONDONTWRITEBYTECODE: '1',
                PYTHONUNBUFFERED: '1',
              }),
            },
            memoryMB: ctx.memoryMB,
            memoryPollMs: settings.memoryPollMs,
            startupTimeoutMs: ctx.startupTimeoutMs,
            ...(settings.answerPoller ? { answerPoller: settings.answerPoller } : {}),
            tailLines: 12,
            startFailure: (m) => `The ${name} model server could not start: ${m}`,
            exitMessage: (how, tail) => {
              // The worker's last word ("slipway_serving: model_fn failed: ValueError: ...") first:
              // the FailureReason is cut at 1,024 characters.
              const lines = tail.split('\n');
              const said = lines.findLast((l) => l.startsWith('slipway_serving: '));
              const rest = lines
                .filter((l) => l !== said)
                .join('\n')
                .trim();
              const head = said ? `: ${said.slice('slipway_serving: '.length)}` : '';
              return `The ${name} model server${program ? ` (${program})` : ''} ${how}${head}${rest ? `\n${rest}` : ''}`;
            },
            onStderr: (s) => log.debug({ model_log: s.trimEnd() }, 'model log'),
          }),
      };
    },
  };
}
