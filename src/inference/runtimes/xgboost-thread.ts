// Serves one XGBoost model as the SageMaker XGBoost container does (runtimes/xgboost does the
// work); used inside worker threads (`load`) and, for small models, on the event loop.
// https://docs.aws.amazon.com/sagemaker/latest/dg/xgboost.html#InputOutput-XGBoost

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InvocationRequest, InvocationResult } from '../engine.js';
import { ContainerFailure } from '../failure.js';
import type { ThreadLoadArgs, ThreadModel } from '../threads/protocol.js';
import {
  type ContainerVersion,
  type Scratch,
  invokeXGBoostBytes,
  loadXGBoostModel,
  XGBoostServingError,
  type XGBoostModel,
} from './xgboost/index.js';

export interface XGBoostOptions {
  /** The model file, relative to the model directory. */
  readonly file: string;
  readonly version: ContainerVersion;
  /** The container's SAGEMAKER_BATCH: one prediction per line. */
  readonly batch: boolean;
}

export interface ServedXGBoost extends ThreadModel {
  readonly model: XGBoostModel;
  invoke(req: InvocationRequest): InvocationResult;
}

const EMPTY = new Uint8Array(0);

export async function openXGBoost(modelDir: string, o: XGBoostOptions): Promise<ServedXGBoost> {
  const bytes = await readFile(join(modelDir, ...o.file.split('/')));
  const model = loadXGBoostModel(bytes);
  // Requests run one at a time here: their rows and answer bytes reuse the same memory.
  const scratch: Scratch = {};
  return {
    model,
    invoke(req: InvocationRequest): InvocationResult {
      try {
        const r = invokeXGBoostBytes(
          model,
          o.version,
          {
            body: req.body,
            contentType: req.contentType,
            accept: req.accept,
            batch: o.batch,
          },
          scratch,
        );
        const b = r.body;
        return {
          body: b.length === 0 ? EMPTY : Buffer.from(b.buffer, b.byteOffset, b.byteLength),
          contentType: r.contentType,
        };
      } catch (e) {
        if (e instanceof XGBoostServingError) throw new ContainerFailure('response', e.httpStatus, e.message);
        throw new ContainerFailure('response', 500, e instanceof Error ? e.message : String(e));
      }
    },
  };
}

/** The thread-module entry point. */
export function load(args: ThreadLoadArgs): Promise<ThreadModel> {
  return openXGBoost(args.modelDir, args.options as XGBoostOptions);
}
