// The XGBoost runtime: `*/sagemaker-xgboost:<version>` images (any account or region) and the
// older `xgboost` repository, served by the TypeScript engine with that container version's formats.
// https://docs.aws.amazon.com/sagemaker/latest/dg/xgboost.html
//
// Design decision — small work on the event loop. Handing a request to a worker thread costs
// ~60 µs on this class of machine, twenty times the 3 µs an abalone prediction takes (decode,
// 50 trees, encode), and would halve an endpoint's throughput. So a warm XGBoost variant answers
// on the event loop when the work is provably small, and in a worker thread otherwise:
//   * the model file is at most INLINE_MAX_MODEL_BYTES: loading it (at deployment and at each cold
//     start) then takes ≤ ~3.5 ms even for UBJSON, the slowest format at ~27 ns a byte (abalone,
//     65–105 KB in every format: 0.1–1.2 ms). A byte bound rather than a timed trial load, so the
//     choice does not depend on how busy the machine is at deployment; and
//   * the request body is at most INLINE_MAX_BODY_BYTES, and
//   * rows × nodes of the model ≤ INLINE_MAX_NODE_VISITS (a walk visits at most every node of its
//     tree once, so this bounds the prediction work; ~1 ms worst case, typically far less).
// Everything else (big models, big batches) runs in worker threads bounded by MemorySizeInMB.
// DEVIATION(aws): the event-loop copy of a small model is not counted against MemorySizeInMB; its
// size is bounded by INLINE_MAX_MODEL_BYTES instead.

import type { InvocationRequest, InvocationResult } from '../engine.js';
import { DeploymentError } from '../engine.js';
import { fileSize } from '../artifact-cache.js';
import type { InlineModel, RuntimeProvider } from '../runtime.js';
import { threadRuntime } from './thread-runtime.js';
import { parseContainerVersion, XGBOOST_MODEL_FILE } from './xgboost/index.js';
import { openXGBoost, type ServedXGBoost, type XGBoostOptions } from './xgboost-thread.js';

export const INLINE_MAX_MODEL_BYTES = 128 * 1024;
export const INLINE_MAX_BODY_BYTES = 64 * 1024;
export const INLINE_MAX_NODE_VISITS = 200_000;

/** The container loads the first top-level regular, non-dot file; training writes `xgboost-model`. */
export function chooseXGBoostFile(files: readonly string[]): string | undefined {
  const top = files.filter((f) => !f.includes('/') && !f.startsWith('.'));
  return top.includes(XGBOOST_MODEL_FILE) ? XGBOOST_MODEL_FILE : top[0];
}

export const xgboostProvider: RuntimeProvider = {
  name: 'xgboost',
  async select(ctx) {
    const version = parseContainerVersion(ctx.container.image);
    if (!version) return undefined;
    if (!ctx.hasModelData) {
      throw new DeploymentError(
        `Image "${ctx.container.image}" is an XGBoost algorithm image and needs model data: set ModelDataUrl.`,
      );
    }
    const file = chooseXGBoostFile(ctx.artifact.files);
    if (!file) {
      throw new DeploymentError(
        `The model data of image "${ctx.container.image}" has no model file at the top level of the archive (expected xgboost-model).`,
      );
    }
    const options: XGBoostOptions = { file, version, batch: ctx.container.environment.SAGEMAKER_BATCH === 'true' };
    const runtime = threadRuntime({
      kind: 'xgboost',
      resolvedImage: ctx.container.image,
      module: new URL('./xgboost-thread.js', import.meta.url),
      args: {
        modelDir: ctx.artifact.dir,
        files: ctx.artifact.files,
        image: ctx.container.image,
        environment: ctx.container.environment,
        options,
      },
      threads: ctx.threads,
      memoryMB: ctx.memoryMB,
      startupTimeoutMs: ctx.startupTimeoutMs,
    });
    const size = (await fileSize(ctx.artifact, file)) ?? Number.POSITIVE_INFINITY;
    if (size > INLINE_MAX_MODEL_BYTES) return runtime;
    // The deployment's proof that the model loads; the pool's warm-up takes this copy and keeps it
    // only for ProvisionedConcurrency (idle endpoints hold no model).
    let first: ServedXGBoost | undefined;
    try {
      first = await openXGBoost(ctx.artifact.dir, options);
    } catch (e) {
      throw new DeploymentError(
        `The model of container primary (image "${ctx.container.image}") could not be loaded: ${(e as Error).message}`.slice(
          0,
          1024,
        ),
      );
    }
    return {
      ...runtime,
      async loadInline(): Promise<InlineModel> {
        const served = first ?? (await openXGBoost(ctx.artifact.dir, options));
        first = undefined;
        return inlineModel(served);
      },
    };
  },
};

function inlineModel(served: ServedXGBoost): InlineModel {
  const nodes = Math.max(1, served.model.info().numNodes);
  // A body of n bytes holds at most n + 1 rows (libsvm reads an empty line as a row), so
  // bodies up to this size need no counting.
  const alwaysSmall = Math.floor(INLINE_MAX_NODE_VISITS / nodes) - 1;
  return {
    tryInvoke(req: InvocationRequest): InvocationResult | undefined {
      const body = req.body;
      if (body.length > INLINE_MAX_BODY_BYTES) return undefined;
      if (body.length > alwaysSmall && countRows(body) * nodes > INLINE_MAX_NODE_VISITS) return undefined;
      return served.invoke(req);
    },
  };
}

function countRows(b: Uint8Array): number {
  let n = 1;
  for (let i = 0; i < b.length; i++) if (b[i] === 10) n++;
  return n;
}
