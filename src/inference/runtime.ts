// The seam between serverless pools and runtimes (XGBoost, ONNX, process and Docker containers).
// A runtime starts instances (one model loaded, one request at a time, like a serverless
// container); a pool decides when to start, reuse and stop them.

import type { Logger } from 'pino';
import type { CachedArtifact } from './artifact-cache.js';
import type { ContainerSpec, InvocationRequest, InvocationResult, VariantSpec } from './engine.js';
import type { ContainerEntry } from './runtimes/container/containers-file.js';
import type { FailureKind } from './failure.js';
import type { ThreadPool } from './threads/thread-pool.js';

/** One warm copy of the model: a worker thread, a process or a container. */
export interface Instance {
  /** One request at a time. Rejects with ContainerFailure. */
  invoke(req: InvocationRequest): Promise<InvocationResult>;
  /** Stops it now (timeout, memory, engine shutdown); pending calls reject. Idempotent. */
  kill(reason: FailureKind): void;
  /** Stops it gracefully at scale-in (worker threads go back to the thread pool). */
  release(): Promise<void>;
  /** Called once if the instance dies on its own. */
  onDeath(listener: (kind: FailureKind, message: string) => void): void;
}

/** A model small enough to answer on the event loop (see runtimes/xgboost-runtime.ts for the bound). */
export interface InlineModel {
  /** Answers, or returns undefined when this request is too heavy for the event loop. */
  tryInvoke(req: InvocationRequest): InvocationResult | undefined;
}

export interface Runtime {
  readonly kind: 'xgboost' | 'onnx' | 'process' | 'docker' | (string & {});
  /** The image as resolved for DescribeEndpoint's DeployedImages. */
  readonly resolvedImage: string;
  /** Cold start: one instance with the model loaded. Rejects with ContainerFailure('startup'). */
  start(): Promise<Instance>;
  /** A bounded fast path on the event loop, when the runtime has one. */
  loadInline?(): Promise<InlineModel>;
  /** Releases what the runtime holds beyond its instances. */
  close?(): Promise<void>;
}

export interface RuntimeContext {
  readonly spec: VariantSpec;
  readonly container: ContainerSpec;
  /** The unpacked model artifact (an empty directory when the container has no ModelDataUrl). */
  readonly artifact: CachedArtifact;
  /** Whether ModelDataUrl was given. */
  readonly hasModelData: boolean;
  /** The containers-file entry for the image, if any. */
  readonly entry: ContainerEntry | undefined;
  readonly threads: ThreadPool;
  readonly log: Logger;
  /** Per-variant memory bound, in MB. */
  readonly memoryMB: number;
  readonly startupTimeoutMs: number;
}

/** Chooses and builds a runtime for a container; returns undefined when it does not serve it. */
export interface RuntimeProvider {
  readonly name: string;
  select(ctx: RuntimeContext): Promise<Runtime | undefined> | Runtime | undefined;
}
