// The ONNX runtime, chosen at deployment when:
//   1. the container environment sets SLIPWAY_RUNTIME=onnx, or the image's entry in the containers
//      file says "runtime": "onnx" (an image configured as ONNX), or
//   2. the image is not an XGBoost image nor in the containers file, and the artifact holds a
//      `.onnx` file.
// The model file is SLIPWAY_ONNX_MODEL (a path in the archive) when set, else the only `.onnx` file,
// else `model.onnx` at the top level; SLIPWAY_ONNX_OUTPUT picks the output to answer with.
// Models run in worker threads (onnxruntime-node), bounded by MemorySizeInMB for their JS heap.
// DEVIATION(aws): onnxruntime's native allocations are outside V8's heap limit, so MemorySizeInMB
// does not bound them; SageMaker would bound the whole container.

import { DeploymentError } from '../../engine.js';
import type { Runtime, RuntimeContext, RuntimeProvider } from '../../runtime.js';
import { threadRuntime } from '../thread-runtime.js';
import type { OnnxOptions } from './onnx-thread.js';

export function chooseOnnxFile(files: readonly string[], wanted: string | undefined): string | undefined {
  if (wanted) return files.includes(wanted) ? wanted : undefined;
  const onnx = files.filter((f) => f.toLowerCase().endsWith('.onnx'));
  if (onnx.length === 1) return onnx[0];
  return onnx.includes('model.onnx') ? 'model.onnx' : undefined;
}

/** Whether this container is configured as ONNX (rule 1). */
export function configuredAsOnnx(ctx: RuntimeContext): boolean {
  return ctx.container.environment.SLIPWAY_RUNTIME?.toLowerCase() === 'onnx' || ctx.entry?.runtime === 'onnx';
}

export function onnxRuntime(ctx: RuntimeContext): Runtime {
  const env = ctx.container.environment;
  const file = chooseOnnxFile(ctx.artifact.files, env.SLIPWAY_ONNX_MODEL);
  if (!file) {
    const found = ctx.artifact.files.filter((f) => f.toLowerCase().endsWith('.onnx'));
    throw new DeploymentError(
      env.SLIPWAY_ONNX_MODEL
        ? `The model data has no file "${env.SLIPWAY_ONNX_MODEL}" (named by SLIPWAY_ONNX_MODEL).`
        : found.length === 0
          ? `Image "${ctx.container.image}" is configured as ONNX but its model data holds no .onnx file.`
          : `The model data holds several .onnx files (${found.slice(0, 5).join(', ')}); name one with the SLIPWAY_ONNX_MODEL environment variable or call it model.onnx.`,
    );
  }
  const options: OnnxOptions = { file, ...(env.SLIPWAY_ONNX_OUTPUT ? { output: env.SLIPWAY_ONNX_OUTPUT } : {}) };
  return threadRuntime({
    kind: 'onnx',
    resolvedImage: ctx.container.image,
    module: new URL('./onnx-thread.js', import.meta.url),
    args: {
      modelDir: ctx.artifact.dir,
      files: ctx.artifact.files,
      image: ctx.container.image,
      environment: env,
      options,
    },
    threads: ctx.threads,
    memoryMB: ctx.memoryMB,
    startupTimeoutMs: ctx.startupTimeoutMs,
  });
}

/** Rule 1: an image configured as ONNX. */
export const configuredOnnxProvider: RuntimeProvider = {
  name: 'onnx (configured)',
  select: (ctx) => (configuredAsOnnx(ctx) ? onnxRuntime(ctx) : undefined),
};

/** Rule 2: an artifact holding a .onnx file. */
export const artifactOnnxProvider: RuntimeProvider = {
  name: 'onnx (artifact)',
  select: (ctx) => (ctx.artifact.files.some((f) => f.toLowerCase().endsWith('.onnx')) ? onnxRuntime(ctx) : undefined),
};
