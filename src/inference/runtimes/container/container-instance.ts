// The life of an instance that is a process or a container: why it is stopping, its death and who
// waits for it; how it is reached (HTTP, Slipway's channel) is the subclass's.

import type { InvocationRequest, InvocationResult } from '../../engine.js';
import type { Instance } from '../../runtime.js';
import { ContainerFailure, type FailureKind } from '../../failure.js';

/** SageMaker's real-time response limit; a container answering more fails the invocation. */
export const MAX_RESPONSE_BYTES = 6 * 1024 * 1024;
export const MAX_ERROR_TEXT = 4096;

export interface ContainerHandle {
  /** Stops the process or container; `graceful` gives it a moment to exit on its own. */
  stop(graceful: boolean): void;
}

type DeathListener = (kind: FailureKind, message: string) => void;

export abstract class ContainerInstance implements Instance {
  protected death: { kind: FailureKind; message: string } | undefined;
  private pendingKind: FailureKind | undefined;
  private listeners: DeathListener[] = [];
  protected readonly deathWaiters: (() => void)[] = [];

  constructor(private readonly handle: ContainerHandle) {}

  abstract invoke(req: InvocationRequest): Promise<InvocationResult>;
  /** Resolves once the model is loaded; rejects with ContainerFailure('startup'). */
  abstract waitReady(timeoutMs: number): Promise<void>;
  /** What to let go of when it dies (connections). */
  protected abstract closed(): void;

  /** Why the owner is stopping it, if it is. */
  get dyingKind(): FailureKind | undefined {
    return this.pendingKind;
  }

  /** Whether the container has died. */
  get dead(): boolean {
    return this.death !== undefined;
  }

  /** Called by the owner when the process or container ended. */
  exited(message: string): void {
    if (this.death) return;
    const kind = this.pendingKind ?? 'crash';
    this.death = { kind, message };
    this.closed();
    for (const w of this.deathWaiters.splice(0)) w();
    const ls = this.listeners;
    this.listeners = [];
    for (const l of ls) l(kind, message);
  }

  /** Records why the owner is about to stop it (memory, timeout), before the exit arrives. */
  dying(kind: FailureKind): void {
    this.pendingKind ??= kind;
  }

  /** A broken connection usually means the container died: report why, if it did. */
  protected failed(e: Error, reject: (f: ContainerFailure) => void): void {
    const report = (): void => {
      if (this.death) reject(new ContainerFailure(this.death.kind, 500, this.death.message));
      else reject(new ContainerFailure('crash', 500, `The container closed the connection: ${e.message}`));
    };
    if (this.death) report();
    else {
      const t = setTimeout(report, 500);
      this.deathWaiters.push(() => {
        clearTimeout(t);
        report();
      });
    }
  }

  kill(kind: FailureKind): void {
    if (this.death) return;
    this.dying(kind);
    this.handle.stop(false);
  }

  async release(): Promise<void> {
    if (this.death) return;
    this.dying('crash');
    const gone = new Promise<void>((r) => this.deathWaiters.push(r));
    this.handle.stop(true);
    await gone;
  }

  onDeath(listener: DeathListener): void {
    if (this.death) listener(this.death.kind, this.death.message);
    else this.listeners.push(listener);
  }
}
