// SageMaker Runtime: InvokeEndpoint.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html
import type { SageMakerRuntimeHandlers } from '../../generated/sagemaker-runtime/handlers.js';
import { ValidationError } from '../../generated/sagemaker-runtime/errors.js';
import type { ServiceDeps } from '../common/deps.js';

export function createRuntimeHandlers(_deps: ServiceDeps): SageMakerRuntimeHandlers {
  return {
    async invokeEndpoint(input, ctx) {
      // No endpoint can be deployed yet (hosting arrives with the endpoint operations), so every
      // name is unknown; this is SageMaker's answer for an endpoint that does not exist.
      throw new ValidationError(`Endpoint ${input.EndpointName} of account ${ctx.accountId} not found.`);
    },
  };
}
