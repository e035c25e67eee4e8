// SageMaker Runtime: InvokeEndpoint.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html
import type { SageMakerRuntimeHandlers } from '../../generated/sagemaker-runtime/handlers.js';
import { ModelNotReadyException, ValidationError } from '../../generated/sagemaker-runtime/errors.js';
import type { ResourceRow } from '../../storage/repositories/resource-table.js';
import type { ServiceDeps } from '../common/deps.js';
import type { EndpointDeployments, EndpointDoc } from '../sagemaker/endpoint-deployments.js';

/** Serverless endpoints take at most 4 MB per request (real-time ones 6 MB, the HTTP layer's cap). */
export const SERVERLESS_MAX_BODY = 4 * 1024 * 1024;

/**
 * How long an endpoint row read from the database is trusted. Invocations are the hot path, so
 * they do not read the row every time; a change made by another replica is seen within this time.
 */
const ROW_TTL_MS = 1000;

export function createRuntimeHandlers(deps: ServiceDeps, deployments: EndpointDeployments): SageMakerRuntimeHandlers {
  const rows = new Map<string, { row: ResourceRow | undefined; doc?: EndpointDoc; at: number }>();

  const endpoint = async (accountId: string, region: string, name: string) => {
    const key = `${accountId}|${region}|${name.toLowerCase()}`;
    const now = Date.now();
    let hit = rows.get(key);
    if (!hit || now - hit.at > ROW_TTL_MS) {
      const row = await deps.repos.endpoints.get(deps.db, { accountId, region }, name.toLowerCase());
      hit = { row, doc: row ? (JSON.parse(row.doc) as EndpointDoc) : undefined, at: now };
      if (rows.size > 10_000) rows.clear();
      rows.set(key, hit);
    }
    return hit;
  };

  return {
    async invokeEndpoint(input, ctx) {
      const { row, doc } = await endpoint(ctx.accountId, ctx.region, input.EndpointName);
      if (!row || !doc || row.status === 'Deleting') {
        throw new ValidationError(`Endpoint ${input.EndpointName} of account ${ctx.accountId} not found.`);
      }
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
      const live = await deployments.serving(ctx, row);
      if (!live || live.variants.length === 0) {
        throw new ModelNotReadyException(`Endpoint ${input.EndpointName} of account ${ctx.accountId} is not ready to serve.`);
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
        // Traffic splits by variant weight, as SageMaker routes it.
        const total = live.variants.reduce((s, v) => s + v.weight, 0);
        let r = Math.random() * total;
        for (const v of live.variants) {
          r -= v.weight;
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
