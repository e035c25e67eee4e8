// Endpoint configurations: CreateEndpointConfig, DescribeEndpointConfig, ListEndpointConfigs,
// DeleteEndpointConfig. https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateEndpointConfig.html
import { sagemakerArn, type Partition } from '../../domain/arn.js';
import type {
  CreateEndpointConfigInput,
  CreateEndpointConfigOutput,
  DeleteEndpointConfigInput,
  DescribeEndpointConfigInput,
  DescribeEndpointConfigOutput,
  ListEndpointConfigsInput,
  ListEndpointConfigsOutput,
  ProductionVariant,
} from '../../generated/sagemaker/shapes.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { RequestContext } from '../../protocol/context.js';
import type { ServiceDeps } from '../common/deps.js';
import { listPage, sortKey } from '../common/listing.js';
import { concurrentlyTaken } from '../common/resource-kind.js';
import { modelNotFound } from './models.js';

export type EndpointConfigDoc = Omit<CreateEndpointConfigInput, 'EndpointConfigName' | 'Tags'>;

export const endpointConfigNotFound = (p: Partition, name: string) =>
  new ValidationException(`Could not find endpoint configuration "${sagemakerArn(p, 'endpoint-config', name)}".`);

/** Serverless rules the model cannot express. https://docs.aws.amazon.com/sagemaker/latest/dg/serverless-endpoints-create-config.html */
function checkVariants(variants: readonly ProductionVariant[]): void {
  const serverless = variants.filter((v) => v.ServerlessConfig);
  if (serverless.length > 0 && variants.length > 1) {
    throw new ValidationException(
      'An endpoint configuration with a serverless variant can have only one production variant.',
    );
  }
  const names = new Set<string>();
  for (const v of variants) {
    if (names.has(v.VariantName.toLowerCase())) {
      throw new ValidationException(`The variant name "${v.VariantName}" is used more than once.`);
    }
    names.add(v.VariantName.toLowerCase());
    const s = v.ServerlessConfig;
    if (s) {
      if (s.MemorySizeInMB % 1024 !== 0) {
        throw new ValidationException(
          `MemorySizeInMB ${s.MemorySizeInMB} is not supported. Supported values are 1024, 2048, 3072, 4096, 5120 and 6144.`,
        );
      }
      if (s.ProvisionedConcurrency !== undefined && s.ProvisionedConcurrency > s.MaxConcurrency) {
        throw new ValidationException(
          `ProvisionedConcurrency (${s.ProvisionedConcurrency}) must be less than or equal to MaxConcurrency (${s.MaxConcurrency}).`,
        );
      }
      if (v.InstanceType || v.InitialInstanceCount !== undefined) {
        throw new ValidationException('A serverless variant cannot specify InstanceType or InitialInstanceCount.');
      }
    } else if (!v.InstanceType || v.InitialInstanceCount === undefined) {
      throw new ValidationException(
        `Variant "${v.VariantName}" must specify either ServerlessConfig, or InstanceType and InitialInstanceCount.`,
      );
    }
  }
}

export function endpointConfigHandlers(deps: ServiceDeps) {
  const { db, repos, tokens } = deps;
  return {
    async createEndpointConfig(
      input: CreateEndpointConfigInput,
      ctx: RequestContext,
    ): Promise<CreateEndpointConfigOutput> {
      const { EndpointConfigName, Tags, ...doc } = input;
      const arn = sagemakerArn(ctx, 'endpoint-config', EndpointConfigName);
      checkVariants(doc.ProductionVariants);
      const taken = () => new ValidationException(`Cannot create already existing endpoint configuration "${arn}".`);
      await db
        .transaction(async (tx) => {
          for (const v of doc.ProductionVariants) {
            if (!v.ModelName || !(await repos.models.get(tx, ctx, v.ModelName.toLowerCase()))) {
              throw modelNotFound(ctx, v.ModelName ?? '');
            }
          }
          if (await repos.endpointConfigs.get(tx, ctx, EndpointConfigName.toLowerCase())) throw taken();
          await repos.endpointConfigs.insert(tx, ctx, {
            name_key: EndpointConfigName.toLowerCase(),
            name: EndpointConfigName,
            arn,
            status: null,
            doc: JSON.stringify(doc),
            created_at: ctx.receivedAt,
            last_modified_at: ctx.receivedAt,
          });
          if (Tags?.length) await repos.tags.put(tx, arn, Tags);
        })
        .catch(concurrentlyTaken(() => repos.endpointConfigs.get(db, ctx, EndpointConfigName.toLowerCase()), taken));
      return { EndpointConfigArn: arn };
    },

    async describeEndpointConfig(
      input: DescribeEndpointConfigInput,
      ctx: RequestContext,
    ): Promise<DescribeEndpointConfigOutput> {
      const row = await repos.endpointConfigs.get(db, ctx, input.EndpointConfigName.toLowerCase());
      if (!row) throw endpointConfigNotFound(ctx, input.EndpointConfigName);
      return {
        ...(JSON.parse(row.doc) as EndpointConfigDoc),
        EndpointConfigName: row.name,
        EndpointConfigArn: row.arn,
        CreationTime: new Date(row.created_at),
      };
    },

    async listEndpointConfigs(
      input: ListEndpointConfigsInput,
      ctx: RequestContext,
    ): Promise<ListEndpointConfigsOutput> {
      const page = await listPage(db, tokens, ctx, repos.endpointConfigs, input, {
        sortBy: sortKey(input.SortBy, 'created'),
        descending: input.SortOrder !== 'Ascending',
      });
      return {
        EndpointConfigs: page.rows.map((r) => ({
          EndpointConfigName: r.name,
          EndpointConfigArn: r.arn,
          CreationTime: new Date(r.created_at),
        })),
        NextToken: page.NextToken,
      };
    },

    async deleteEndpointConfig(input: DeleteEndpointConfigInput, ctx: RequestContext): Promise<void> {
      await db.transaction(async (tx) => {
        const row = await repos.endpointConfigs.get(tx, ctx, input.EndpointConfigName.toLowerCase());
        if (!row) throw endpointConfigNotFound(ctx, input.EndpointConfigName);
        await repos.endpointConfigs.delete(tx, ctx, row.name_key);
        await repos.tags.removeAll(tx, row.arn);
      });
    },
  };
}
