// The errors InvokeEndpoint answers for a serverless variant, with SageMaker Runtime's texts.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html#API_runtime_InvokeEndpoint_Errors

import { ModelError, ServiceUnavailable } from '../generated/sagemaker-runtime/errors.js';
import { ServiceError } from '../protocol/service-error.js';
import type { FailureKind } from './failure.js';

/** The one container of a serverless variant is called "primary" in SageMaker's messages. */
const CONTAINER = 'primary';

export const TIMEOUT_MESSAGE = `Your invocation timed out while waiting for a response from container ${CONTAINER}. Review the latency metrics for each container in Amazon CloudWatch, resolve the issue, and try again.`;

/**
 * ModelError (424) for a container answer that was not a success. Status 0 means no answer at all
 * (timeout). Below 500 is a "client error", as SageMaker words it.
 */
// DEVIATION(aws): SageMaker appends "See https://<region>.console.aws.amazon.com/cloudwatch/...
// in account <id> for more information." and sets LogStreamArn; Slipway has no CloudWatch logs, so
// the message ends after the container's text and LogStreamArn is absent.
export function modelError(status: number, message: string): ModelError {
  const kind = status > 0 && status < 500 ? 'client' : 'server';
  return new ModelError(`Received ${kind} error (${status}) from ${CONTAINER} with message "${message}".`, {
    OriginalStatusCode: status,
    OriginalMessage: message,
  });
}

export function timeoutError(): ModelError {
  return modelError(0, TIMEOUT_MESSAGE);
}

/** What SageMaker answers when a serverless endpoint is already at its MaxConcurrency. */
export function throttlingError(maxConcurrency: number): ServiceError {
  // ThrottlingException is not in the SageMaker Runtime model (it is a common AWS error).
  return new ServiceError(
    'ThrottlingException',
    `Rate exceeded: the endpoint is already serving its MaxConcurrency of ${maxConcurrency} concurrent invocations.`,
    429,
    'client',
  );
}

export function stoppedError(endpoint: string): ServiceUnavailable {
  return new ServiceUnavailable(`Endpoint ${endpoint} is being updated or deleted; retry the request.`);
}

/** The status a failed instance is reported with, per kind of failure. */
export function failureStatus(kind: FailureKind, status: number): number {
  return kind === 'timeout' ? 0 : kind === 'response' ? status : 500;
}
