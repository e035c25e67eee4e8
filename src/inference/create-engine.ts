// Builds the inference engine hosting deploys variants through: artifacts (artifact-cache.ts),
// the choice of runtime, one serverless pool per deployed variant (pool.ts), and metrics.
// https://docs.aws.amazon.com/sagemaker/latest/dg/serverless-endpoints.html
//
// Runtime choice, first match wins:
//   0. SageMaker framework images (scikit-learn, PyTorch, TensorFlow, HuggingFace, MXNet; XGBoost
//      with SAGEMAKER_PROGRAM) not listed in the containers file's "images" → framework (the user's
//      code behind the inference toolkit's contract, runtimes/framework/);
//   1. XGBoost algorithm images (`*/sagemaker-xgboost:<version>`, older `*/xgboost:<tag>`) → xgboost;
//   2. an image configured as ONNX (container Environment SLIPWAY_RUNTIME=onnx, or "runtime": "onnx"
//      in the containers file) → onnx;
//   3. an image listed in the containers file → process;
//   4. model data holding a `.onnx` file → onnx;
//   5. a Docker engine answers `docker info` → docker;
//   otherwise the deployment fails with a FailureReason saying why.

import { pino, type Logger } from 'pino';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { ArchiveLimits } from './artifact/index.js';
import { ArtifactCache } from './artifact-cache.js';
import { CoreBudget } from './core-budget.js';
import { type DeployedVariant, DeploymentError, type InferenceEngine, type VariantSpec } from './engine.js';
import type { ConcurrencyLimiter } from './concurrency/limiter.js';
import { MetricsRegistry } from './metrics.js';
import { ServerlessPool } from './pool.js';
import type { Runtime, RuntimeContext, RuntimeProvider } from './runtime.js';
import { ContainersFileError, ContainersFileReader, findContainerEntry } from './runtimes/container/containers-file.js';
import { AnswerPoller, DEFAULT_INVOKE_POLL_US, type RunDelay } from './runtimes/container/answer-poller.js';
import { dockerProvider } from './runtimes/container/docker-runtime.js';
import { frameworkProvider } from './runtimes/framework/framework-runtime.js';
import { processProvider } from './runtimes/container/process-runtime.js';
import { artifactOnnxProvider, configuredOnnxProvider } from './runtimes/onnx/onnx-runtime.js';
import { xgboostProvider } from './runtimes/xgboost-runtime.js';
import { ThreadPool } from './threads/thread-pool.js';
import type { Sandbox } from '../sandbox/sandbox.js';

export interface InferenceEngineOptions {
  readonly blobs: BlobStore;
  /** Artifacts are cached under <dataDir>/models. */
  readonly dataDir: string;
  /** Scale-in after this many seconds without traffic (--serverless-idle-seconds); default 300. */
  readonly idleSeconds?: number;
  /** Per-invocation timeout; default 60,000 ms as in SageMaker. */
  readonly invocationTimeoutMs?: number;
  /** The containers file (process runtime); default: env SLIPWAY_CONTAINERS_FILE. */
  readonly containerConfigPath?: string;
  readonly log?: Logger;
  /** Bounds for model archives (defaults: 1 GiB unpacked, 10,000 entries, ratio 250:1). */
  readonly archiveLimits?: ArchiveLimits;
  /** How long a model load or container start may take; default 180 s (SageMaker's /ping limit). */
  readonly startupTimeoutMs?: number;
  /** How long a framework model worker busy-polls for its next request (µs); default 0, never. */
  readonly workerPollMicros?: number;
  /** How long the event loop polls for a framework worker's answer (µs; 0: never); default 400. */
  readonly invokePollMicros?: number;
  /** Resident-memory poll interval of the process runtime; default 100 ms. */
  readonly memoryPollMs?: number;
  /** Unloaded worker threads kept for reuse (per memory size) and for how long; default 2, 60 s. */
  readonly spareThreads?: number;
  readonly spareThreadSeconds?: number;
  /** Whether to run other images with Docker when an engine is available; default true. */
  readonly docker?: boolean;
  /** Counts invocations against endpoint and account limits (shared by replicas on PostgreSQL); default: each pool alone. */
  readonly limiter?: ConcurrencyLimiter;
  /** Expose endpoint latencies as histograms with buckets (default: summaries, sum and count). */
  readonly latencyBuckets?: boolean;
  /** Where custom images' servers run (src/sandbox); without one, as plain processes. */
  readonly sandbox?: Sandbox;
  /** Providers tried before the built-in ones (tests use this to inject misbehaving models). */
  readonly extraRuntimes?: readonly RuntimeProvider[];
  /** The per-variant counters (/metrics; the metrics store's endpoint recorder reads them too). */
  readonly registry?: MetricsRegistry;
  /**
   * How long the event loop's thread has waited for a CPU (ns), which turns answer polling off while
   * the cores are contended; default: the kernel's schedstat. Tests pass a fixed one.
   */
  readonly runDelay?: RunDelay;
}

/** The engine, with a few extras for the server and tests beyond the InferenceEngine contract. */
export interface SlipwayInferenceEngine extends InferenceEngine {
  /** Worker threads alive in the process (all variants, spares included). */
  readonly threadCount: number;
  /** metrics(), encoded, from bytes kept between scrapes (what GET /metrics sends). */
  exposition(): Buffer;
}

const DEFAULT_MEMORY_MB = 2048;

export function createInferenceEngine(opts: InferenceEngineOptions): SlipwayInferenceEngine {
  const log = opts.log ?? pino({ level: 'silent' });
  const idleMs = (opts.idleSeconds ?? 300) * 1000;
  const invocationTimeoutMs = opts.invocationTimeoutMs ?? 60_000;
  const startupTimeoutMs = opts.startupTimeoutMs ?? 180_000;
  const cache = new ArtifactCache(opts.blobs, opts.dataDir, opts.archiveLimits, log);
  const threads = new ThreadPool({
    idleMs: (opts.spareThreadSeconds ?? 60) * 1000,
    maxIdle: opts.spareThreads ?? 2,
    log,
  });
  const metrics = opts.registry ?? new MetricsRegistry({ buckets: opts.latencyBuckets });
  const containers = new ContainersFileReader(opts.containerConfigPath ?? process.env.SLIPWAY_CONTAINERS_FILE);
  const providers: RuntimeProvider[] = [
    ...(opts.extraRuntimes ?? []),
    frameworkProvider({
      memoryPollMs: opts.memoryPollMs ?? 100,
      workerPollMicros: opts.workerPollMicros ?? 0,
      answerPoller: new AnswerPoller(opts.invokePollMicros ?? DEFAULT_INVOKE_POLL_US, opts.runDelay),
      sandbox: opts.sandbox,
      fetchSource: (uri) => cache.fetch(uri),
      containersFile: () => containers.read(),
    }),
    xgboostProvider,
    configuredOnnxProvider,
    processProvider({ memoryPollMs: opts.memoryPollMs ?? 100, sandbox: opts.sandbox }),
    artifactOnnxProvider,
    dockerProvider(opts.docker ?? true),
  ];
  const pools = new Set<ServerlessPool>();
  // One budget of busy workers for every endpoint's pool: the CPUs are the server's, not a pool's.
  const cores = new CoreBudget();
  let closed = false;

  async function selectRuntime(ctx: RuntimeContext): Promise<Runtime> {
    for (const p of providers) {
      const r = await p.select(ctx);
      if (r) {
        log.debug({ endpoint: ctx.spec.endpointName, image: ctx.container.image, runtime: r.kind }, 'runtime chosen');
        return r;
      }
    }
    throw new DeploymentError(
      `Image "${ctx.container.image}" cannot be run: no runtime serves it (not an XGBoost or ONNX image, not in the containers file${
        containers.path ? ` ${containers.path}` : ' (SLIPWAY_CONTAINERS_FILE is not set)'
      }, and no Docker engine is available).`,
    );
  }

  return {
    get threadCount() {
      return threads.threadCount;
    },

    async deploy(spec: VariantSpec): Promise<DeployedVariant> {
      if (closed) throw new DeploymentError('The inference engine is shutting down.');
      const container = spec.containers[0];
      if (!container) throw new DeploymentError('The model has no container.');
      const { maxConcurrency, memorySizeInMB } = spec.serverless;
      if (!(Number.isInteger(maxConcurrency) && maxConcurrency >= 1)) {
        throw new DeploymentError(`MaxConcurrency must be a positive integer, not ${maxConcurrency}.`);
      }
      let entry: ReturnType<typeof findContainerEntry>;
      try {
        entry = findContainerEntry(containers.read(), container.image);
      } catch (e) {
        if (e instanceof ContainersFileError) throw new DeploymentError(e.message.slice(0, 1024));
        throw e;
      }
      const artifact = container.modelDataUrl ? await cache.fetch(container.modelDataUrl) : await cache.empty();
      const ctx: RuntimeContext = {
        spec,
        container,
        artifact,
        hasModelData: container.modelDataUrl !== undefined,
        entry,
        threads,
        log,
        memoryMB: memorySizeInMB > 0 ? memorySizeInMB : DEFAULT_MEMORY_MB,
        startupTimeoutMs,
      };
      const runtime = await selectRuntime(ctx);
      const pool = new ServerlessPool({
        spec,
        runtime,
        metrics,
        idleMs,
        invocationTimeoutMs,
        log,
        limiter: opts.limiter,
        cores,
        onStopped: (p) => pools.delete(p),
      });
      pools.add(pool);
      await pool.warmUp();
      log.info(
        { endpoint: spec.endpointName, variant: spec.variantName, runtime: runtime.kind, digest: artifact.digest },
        'variant deployed',
      );
      return pool;
    },

    metrics(): string {
      return metrics.render();
    },

    exposition(): Buffer {
      return metrics.exposition();
    },

    async close(): Promise<void> {
      closed = true;
      await Promise.all([...pools].map((p) => p.stop()));
      await threads.close();
    },
  };
}
