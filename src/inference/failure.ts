// How an inference instance fails: the one error type that runtimes, the thread pool and the
// serverless pool all speak. It sits below all of them so none imports another for it.

/**
 * Why an instance did not answer with a success:
 *   response — the model answered with an error status (the instance is fine);
 *   crash — the worker died; memory — it went over MemorySizeInMB and was killed;
 *   timeout — it did not answer in time and was killed; startup — it could not load the model.
 */
export type FailureKind = 'response' | 'crash' | 'memory' | 'timeout' | 'startup';

export class ContainerFailure extends Error {
  override readonly name = 'ContainerFailure';
  constructor(
    readonly kind: FailureKind,
    /** The container's HTTP status for `response`; 500 otherwise. */
    readonly status: number,
    message: string,
  ) {
    super(message);
  }

  /** The instance cannot serve again. */
  get fatal(): boolean {
    return this.kind !== 'response';
  }
}
