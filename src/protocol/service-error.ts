// The one error base of Slipway: every error a client may see is a ServiceError; each protocol
// decides how to write it (json `__type`, S3 `<Error>`, Neptune `{code, detailedMessage}`).

import type { RequestContext } from './context.js';

export type Fault = 'client' | 'server';

export class ServiceError extends Error {
  constructor(
    /** The error code on the wire (`__type`, `<Code>`, `code`). */
    readonly code: string,
    message: string,
    readonly httpStatus: number = 400,
    readonly fault: Fault = 'client',
  ) {
    super(message);
    this.name = code;
  }

  /** Modelled members beyond the message (e.g. ModelError's OriginalStatusCode). */
  extraFields(): Record<string, unknown> {
    return {};
  }
}

/** Anything that is not a ServiceError is logged with the request id and answered as InternalFailure. */
export function toServiceError(err: unknown, ctx: RequestContext): ServiceError {
  if (err instanceof ServiceError) return err;
  ctx.log.error({ err, requestId: ctx.requestId }, 'unhandled error');
  return new ServiceError('InternalFailure', 'We encountered an internal error. Please try again.', 500, 'server');
}
