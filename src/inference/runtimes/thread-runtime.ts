// A runtime whose instances are pooled worker threads (XGBoost, ONNX): a cold start takes a thread
// from the pool and loads the model in it; scale-in unloads it and gives the thread back.
import type { InvocationRequest, InvocationResult } from '../engine.js';
import { ContainerFailure, type FailureKind } from '../failure.js';
import type { Instance, Runtime } from '../runtime.js';
import type { ThreadLoadArgs } from '../threads/protocol.js';
import type { PooledThread, ThreadPool } from '../threads/thread-pool.js';

/** An instance: a pooled thread with one model loaded. */
class ThreadInstance implements Instance {
  private released = false;

  constructor(
    private readonly thread: PooledThread,
    private readonly pool: ThreadPool,
  ) {}

  async invoke(req: InvocationRequest): Promise<InvocationResult> {
    const m = await this.thread.call({ t: 'invoke', req: shareBody(req) });
    return m.result!;
  }

  kill(kind: FailureKind): void {
    this.thread.terminate(kind);
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    try {
      await this.thread.call({ t: 'unload' });
      this.pool.recycle(this.thread);
    } catch {
      this.thread.terminate('crash');
    }
  }

  onDeath(listener: (kind: FailureKind, message: string) => void): void {
    this.thread.onDeath(listener);
  }
}

export interface ThreadRuntimeOptions {
  readonly kind: Runtime['kind'];
  readonly resolvedImage: string;
  /** URL of the module implementing ThreadRuntimeModule. */
  readonly module: URL;
  readonly args: ThreadLoadArgs;
  readonly threads: ThreadPool;
  readonly memoryMB: number;
  readonly startupTimeoutMs: number;
}

/** A runtime whose instances are worker threads running `module`. */
export function threadRuntime(o: ThreadRuntimeOptions): Runtime {
  return {
    kind: o.kind,
    resolvedImage: o.resolvedImage,
    async start(): Promise<Instance> {
      let thread: PooledThread;
      try {
        thread = await o.threads.acquire(o.memoryMB);
      } catch (e) {
        throw new ContainerFailure('startup', 500, `The model worker did not start: ${(e as Error).message}`);
      }
      const timer = setTimeout(
        () => thread.terminate('startup', `The model did not load within ${o.startupTimeoutMs / 1000} s.`),
        o.startupTimeoutMs,
      );
      try {
        await thread.call({ t: 'load', module: o.module.href, args: o.args });
      } catch (e) {
        thread.terminate('startup');
        const f = e as ContainerFailure;
        throw new ContainerFailure(
          'startup',
          500,
          f.kind === 'memory' ? f.message : `The model could not be loaded: ${f.message}`,
        );
      } finally {
        clearTimeout(timer);
      }
      return new ThreadInstance(thread, o.threads);
    },
  };
}

/** Bodies from this size on reach the thread through shared memory. */
const SHARE_FROM_BYTES = 64 * 1024;

/**
 * postMessage clones a Buffer through the serializer, which costs tens of milliseconds for a 6 MB
 * batch transform payload; one copy into a SharedArrayBuffer, which the thread then reads in place,
 * costs about one. The caller keeps its own bytes untouched (a transfer would take them away).
 */
function shareBody(req: InvocationRequest): InvocationRequest {
  const body = req.body;
  if (body.byteLength < SHARE_FROM_BYTES || body.buffer instanceof SharedArrayBuffer) return req;
  const shared = new Uint8Array(new SharedArrayBuffer(body.byteLength));
  shared.set(body);
  return { ...req, body: shared };
}
