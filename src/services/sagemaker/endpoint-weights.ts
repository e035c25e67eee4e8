// UpdateEndpointWeightsAndCapacities: new weights (traffic shares) and capacities (instance counts,
// or a serverless variant's concurrency) for an InService endpoint's variants. The call records the
// desired values, sets the endpoint Updating and returns; EndpointDeployments redeploys the variants
// whose capacity changed and moves the endpoint back to InService with the desired values current.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_UpdateEndpointWeightsAndCapacities.html
import type {
  DesiredWeightAndCapacity,
  UpdateEndpointWeightsAndCapacitiesInput,
  UpdateEndpointWeightsAndCapacitiesOutput,
} from '../../generated/sagemaker/shapes.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { RequestContext } from '../../protocol/context.js';
import type { ServiceDeps } from '../common/deps.js';
import type { EndpointDeployments, EndpointDoc, StoredVariant } from './endpoint-deployments.js';
import { endpointNotFound } from './endpoints.js';

/** The variant as it will be once `d` is applied (its Desired* fields and an Updating status). */
function desired(v: StoredVariant, d: DesiredWeightAndCapacity, at: number): StoredVariant {
  const serverless = v.CurrentServerlessConfig;
  if (d.DesiredWeight === undefined && d.DesiredInstanceCount === undefined && d.ServerlessUpdateConfig === undefined) {
    throw new ValidationException(
      `Variant "${d.VariantName}": specify DesiredWeight, DesiredInstanceCount or ServerlessUpdateConfig.`,
    );
  }
  if (serverless && d.DesiredInstanceCount !== undefined) {
    throw new ValidationException(
      `Variant "${d.VariantName}" is serverless: change its capacity with ServerlessUpdateConfig, not DesiredInstanceCount.`,
    );
  }
  if (!serverless && d.ServerlessUpdateConfig !== undefined) {
    throw new ValidationException(
      `Variant "${d.VariantName}" is not serverless: ServerlessUpdateConfig does not apply to it.`,
    );
  }
  // DEVIATION(aws): an instance-based variant needs at least one instance here; SageMaker scales
  // to zero only endpoints with inference components, which Slipway does not serve.
  if (d.DesiredInstanceCount === 0) {
    throw new ValidationException(`Variant "${d.VariantName}": DesiredInstanceCount must be at least 1.`);
  }
  let nextServerless = v.DesiredServerlessConfig;
  if (serverless && d.ServerlessUpdateConfig) {
    const max = d.ServerlessUpdateConfig.MaxConcurrency ?? serverless.MaxConcurrency;
    const provisioned = d.ServerlessUpdateConfig.ProvisionedConcurrency ?? serverless.ProvisionedConcurrency;
    if (provisioned !== undefined && provisioned > max) {
      throw new ValidationException(
        `ProvisionedConcurrency (${provisioned}) must be less than or equal to MaxConcurrency (${max}).`,
      );
    }
    nextServerless = { ...serverless, MaxConcurrency: max, ProvisionedConcurrency: provisioned };
  }
  return {
    ...v,
    DesiredWeight: d.DesiredWeight ?? v.CurrentWeight,
    DesiredInstanceCount: d.DesiredInstanceCount ?? v.CurrentInstanceCount,
    DesiredServerlessConfig: nextServerless,
    VariantStatus: [{ Status: 'Updating', StartTime: at }],
  };
}

export function endpointWeightHandlers(deps: ServiceDeps, deployments: EndpointDeployments) {
  const { db, repos } = deps;
  return {
    async updateEndpointWeightsAndCapacities(
      input: UpdateEndpointWeightsAndCapacitiesInput,
      ctx: RequestContext,
    ): Promise<UpdateEndpointWeightsAndCapacitiesOutput> {
      const nameKey = input.EndpointName.toLowerCase();
      let arn = '';
      await db.transaction(async (tx) => {
        const row = await repos.endpoints.get(tx, ctx, nameKey, true);
        if (!row) throw endpointNotFound(ctx, input.EndpointName);
        arn = row.arn;
        const doc = JSON.parse(row.doc) as EndpointDoc;
        // The request's own mistakes are named before the endpoint's state (moto records these words).
        const seen = new Set<string>();
        for (const d of input.DesiredWeightsAndCapacities) {
          if (seen.has(d.VariantName)) {
            throw new ValidationException(`The variant name "${d.VariantName}" was non-unique within the request.`);
          }
          seen.add(d.VariantName);
        }
        const missing = [...seen].filter((n) => !doc.ProductionVariants.some((v) => v.VariantName === n));
        if (missing.length) {
          throw new ValidationException(
            `The variant name(s) "${missing.join('", "')}" is/are not present within endpoint configuration "${doc.EndpointConfigName}".`,
          );
        }
        if (row.status === 'Failed') {
          throw new ValidationException(`Cannot update failed endpoint "${row.arn}". Delete it and create it again.`);
        }
        if (row.status !== 'InService')
          throw new ValidationException(`Cannot update in-progress endpoint "${row.arn}".`);
        const asked = new Map(input.DesiredWeightsAndCapacities.map((d) => [d.VariantName, d]));
        const variants = doc.ProductionVariants.map((v) => {
          const d = asked.get(v.VariantName);
          return d ? desired(v, d, ctx.receivedAt) : v;
        });
        if (variants.reduce((sum, v) => sum + (v.DesiredWeight ?? 0), 0) <= 0) {
          throw new ValidationException('The sum of the variant weights must be greater than 0.');
        }
        await repos.endpoints.update(tx, ctx, nameKey, {
          status: 'Updating',
          doc: JSON.stringify({ ...doc, FailureReason: undefined, ProductionVariants: variants } satisfies EndpointDoc),
          last_modified_at: ctx.receivedAt,
        });
        await deployments.submit(tx, ctx, nameKey, 'Updating');
      });
      deployments.schedule(ctx, nameKey);
      return { EndpointArn: arn };
    },
  };
}
