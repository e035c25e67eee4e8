// SageMaker Runtime: InvokeEndpoint.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html
import type { SageMakerRuntimeHandlers } from '../../generated/sagemaker-runtime/handlers.js';
import { ModelNotReadyException, ValidationError } from '../../generated/sagemaker-runtime/errors.js';
import type { EndpointDeployments } from '../sagemaker/endpoint-deployments.js';

/** Serverless endpoints take at most 4 MB per request (real-time ones 6 MB, the HTTP layer's cap). */
export const SERVERLESS_MAX_BODY = 4 * 1024 * 1024;

export function createRuntimeHandlers(deployments: EndpointDeployments): SageMakerRuntimeHandlers {
  return {
    async invokeEndpoint(input, ctx) {
      const state = await deployments.endpointState(ctx, input.EndpointName.toLowerCase());
      if (!state || state.row.status === 'Deleting') {
        throw new ValidationError(`Endpoint ${input.EndpointName} of account ${ctx.accountId} not found.`);
      }
      const { row, doc } = state;
      // An endpoint being updated keeps serving its current configuration.
      if (row.status !== 'InService' && row.status !== 'Updating') {
        throw new ModelNotReadyException(
          `Endpoint ${input.EndpointName} of account ${ctx.accountId} is not ready to serve (status ${row.status}).`,
        );
      }
      const serverless = doc.ProductionVariants.some((v) => v.CurrentServerlessConfig);
      if (serverless && input.Body.length > SERVERLESS_MAX_BODY) {
        throw new ValidationError(`Request ${ctx.requestId} has oversize body.`);
      }
      const live = await deployments.serving(ctx, state);
      if (!live || live.variants.length === 0) {
        throw new ModelNotReadyException(
          `Endpoint ${input.EndpointName} of account ${ctx.accountId} is not ready to serve.`,
        );
      }
      let variant = live.variants[0]!;
      if (input.TargetVariant) {
        const wanted = live.variants.find((v) => v.name === input.TargetVariant);
        if (!wanted) {
          throw new ValidationError(
            `The variant ${input.TargetVariant} does not exist for endpoint ${input.EndpointName} of account ${ctx.accountId}.`,
          );
        }
        variant = wanted;
      } else if (live.variants.length > 1) {
        // Traffic splits by the variants' current weights, as SageMaker routes it; the endpoint's
        // row (read through a one-second cache) has them after UpdateEndpointWeightsAndCapacities.
        const current = new Map(doc.ProductionVariants.map((v) => [v.VariantName, v.CurrentWeight]));
        const weights = live.variants.map((v) => current.get(v.name) ?? v.weight);
        let r = Math.random() * weights.reduce((s, w) => s + w, 0);
        for (const [i, v] of live.variants.entries()) {
          r -= weights[i]!;
          if (r < 0) {
            variant = v;
            break;
          }
        }
      }
      const result = await variant.deployed.invoke({
        body: input.Body,
        contentType: input.ContentType,
        accept: input.Accept,
        customAttributes: input.CustomAttributes,
        inferenceId: input.InferenceId,
      });
      return {
        Body: result.body,
        ContentType: result.contentType,
        InvokedProductionVariant: variant.name,
        CustomAttributes: result.customAttributes,
      };
    },
  };
}
