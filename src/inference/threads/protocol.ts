// Messages between the engine and its generic worker threads, and the interface a runtime module
// loaded into a worker thread implements (runtimes/xgboost-thread.ts, runtimes/onnx/onnx-thread.ts).

import type { InvocationRequest, InvocationResult } from '../engine.js';

export interface ThreadLoadArgs {
  /** The unpacked model directory. */
  readonly modelDir: string;
  /** Regular files of the artifact in archive order. */
  readonly files: readonly string[];
  readonly image: string;
  readonly environment: Readonly<Record<string, string>>;
  /** Runtime-specific settings chosen at deployment (structured-clonable). */
  readonly options: unknown;
}

/** A model loaded inside a worker thread. Throw ContainerFailure('response', status, …) for errors. */
export interface ThreadModel {
  invoke(req: InvocationRequest): InvocationResult | Promise<InvocationResult>;
  close?(): void | Promise<void>;
}

/** What a runtime module exports. */
export interface ThreadRuntimeModule {
  load(args: ThreadLoadArgs): Promise<ThreadModel>;
}

export type ToWorker =
  | { readonly t: 'load'; readonly id: number; readonly module: string; readonly args: ThreadLoadArgs }
  | { readonly t: 'invoke'; readonly id: number; readonly req: InvocationRequest }
  | { readonly t: 'unload'; readonly id: number };

export type FromWorker =
  | { readonly t: 'ready' }
  | { readonly t: 'ok'; readonly id: number; readonly result?: InvocationResult }
  | {
      readonly t: 'fail';
      readonly id: number;
      readonly status: number;
      readonly message: string;
      readonly response: boolean;
    };
