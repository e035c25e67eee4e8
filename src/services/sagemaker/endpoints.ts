// Endpoints: CreateEndpoint, DescribeEndpoint, ListEndpoints, UpdateEndpoint, DeleteEndpoint.
// The calls record the requested transition and enqueue it in the same transaction, then return at
// once; EndpointDeployments (a kind of the job runner) carries it out.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateEndpoint.html
import { sagemakerArn, type Partition } from '../../domain/arn.js';
import type {
  CreateEndpointInput,
  CreateEndpointOutput,
  DeleteEndpointInput,
  DescribeEndpointInput,
  DescribeEndpointOutput,
  EndpointStatus,
  ListEndpointsInput,
  ListEndpointsOutput,
  ProductionVariantSummary,
  UpdateEndpointInput,
  UpdateEndpointOutput,
} from '../../generated/sagemaker/shapes.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { RequestContext } from '../../protocol/context.js';
import type { Queryable } from '../../storage/db/types.js';
import type { ResourceRow } from '../../storage/repositories/resource-table.js';
import type { ServiceDeps } from '../common/deps.js';
import { listPage, sortKey } from '../common/listing.js';
import { concurrentlyTaken } from '../common/resource-kind.js';
import { endpointConfigNotFound, type EndpointConfigDoc } from './endpoint-configs.js';
import {
  desiredVariants,
  type EndpointDeployments,
  type EndpointDoc,
  type StoredVariant,
} from './endpoint-deployments.js';
import { resolveModelContainers, type ResolvedContainer } from './models.js';

export const endpointNotFound = (p: Partition, name: string) =>
  new ValidationException(`Could not find endpoint "${sagemakerArn(p, 'endpoint', name)}".`);

function variantSummary(v: StoredVariant): ProductionVariantSummary {
  return {
    VariantName: v.VariantName,
    DeployedImages: v.DeployedImages?.map((d) => ({ ...d, ResolutionTime: new Date(d.ResolutionTime) })),
    CurrentWeight: v.CurrentWeight,
    DesiredWeight: v.DesiredWeight,
    CurrentInstanceCount: v.CurrentInstanceCount,
    DesiredInstanceCount: v.DesiredInstanceCount,
    CurrentServerlessConfig: v.CurrentServerlessConfig,
    DesiredServerlessConfig: v.DesiredServerlessConfig,
    VariantStatus: v.VariantStatus?.map((s) => ({
      Status: s.Status as NonNullable<ProductionVariantSummary['VariantStatus']>[number]['Status'],
      StatusMessage: s.StatusMessage,
      StartTime: new Date(s.StartTime),
    })),
  };
}

/** DescribeEndpoint's answer for a stored endpoint (also the base of Search's Endpoint record). */
export function endpointDocument(row: ResourceRow): DescribeEndpointOutput {
  const doc = JSON.parse(row.doc) as EndpointDoc;
  return {
    EndpointName: row.name,
    EndpointArn: row.arn,
    EndpointConfigName: doc.EndpointConfigName,
    ProductionVariants: doc.ProductionVariants.map(variantSummary),
    EndpointStatus: row.status as EndpointStatus,
    FailureReason: doc.FailureReason,
    CreationTime: new Date(row.created_at),
    LastModifiedTime: new Date(row.last_modified_at),
    LastDeploymentConfig: doc.LastDeploymentConfig,
    PendingDeploymentSummary: doc.PendingConfigName
      ? {
          EndpointConfigName: doc.PendingConfigName,
          StartTime: doc.PendingSince ? new Date(doc.PendingSince) : undefined,
        }
      : undefined,
  };
}

export function endpointHandlers(deps: ServiceDeps, deployments: EndpointDeployments) {
  const { db, repos, tokens } = deps;

  /** Lineage of a deployment, in the transaction of the call that asks for it (Create/UpdateEndpoint). */
  const recordDeployment = async (
    tx: Queryable,
    ctx: RequestContext,
    name: string,
    arn: string,
    createdAt: number,
    config: EndpointConfigDoc,
  ) => {
    if (!deps.lineage) return;
    const containers: ResolvedContainer[] = [];
    for (const v of config.ProductionVariants) {
      containers.push(...(await resolveModelContainers(deps, tx, ctx, v.ModelName ?? '')).containers);
    }
    await deps.lineage.endpointDeployed(tx, ctx, {
      name,
      arn,
      modelPackageArns: [...new Set(containers.flatMap((c) => (c.modelPackageArn ? [c.modelPackageArn] : [])))],
      containers: containers.map((c) => ({ image: c.image, modelDataUrl: c.modelDataUrl })),
      createdAt,
      at: ctx.receivedAt,
    });
  };

  const loadConfig = async (q: Queryable, ctx: RequestContext, name: string) => {
    const row = await repos.endpointConfigs.get(q, ctx, name.toLowerCase());
    if (!row) throw endpointConfigNotFound(ctx, name);
    return { row, doc: JSON.parse(row.doc) as EndpointConfigDoc };
  };

  return {
    async createEndpoint(input: CreateEndpointInput, ctx: RequestContext): Promise<CreateEndpointOutput> {
      const arn = sagemakerArn(ctx, 'endpoint', input.EndpointName);
      const nameKey = input.EndpointName.toLowerCase();
      const taken = () => new ValidationException(`Cannot create already existing endpoint "${arn}".`);
      await db
        .transaction(async (tx) => {
          const config = await loadConfig(tx, ctx, input.EndpointConfigName);
          if (await repos.endpoints.get(tx, ctx, nameKey)) throw taken();
          const doc: EndpointDoc = {
            EndpointConfigName: config.row.name,
            ProductionVariants: desiredVariants(config.doc, 'Creating', ctx.receivedAt),
            LastDeploymentConfig: input.DeploymentConfig,
          };
          await repos.endpoints.insert(tx, ctx, {
            name_key: nameKey,
            name: input.EndpointName,
            arn,
            status: 'Creating',
            doc: JSON.stringify(doc),
            created_at: ctx.receivedAt,
            last_modified_at: ctx.receivedAt,
          });
          if (input.Tags?.length) await repos.tags.put(tx, arn, input.Tags);
          await recordDeployment(tx, ctx, input.EndpointName, arn, ctx.receivedAt, config.doc);
          await deployments.submit(tx, ctx, nameKey, 'Creating');
        })
        .catch(concurrentlyTaken(() => repos.endpoints.get(db, ctx, nameKey), taken));
      deployments.schedule(ctx, nameKey);
      return { EndpointArn: arn };
    },

    async describeEndpoint(input: DescribeEndpointInput, ctx: RequestContext): Promise<DescribeEndpointOutput> {
      const row = await repos.endpoints.get(db, ctx, input.EndpointName.toLowerCase());
      if (!row) throw endpointNotFound(ctx, input.EndpointName);
      return endpointDocument(row);
    },

    async listEndpoints(input: ListEndpointsInput, ctx: RequestContext): Promise<ListEndpointsOutput> {
      const page = await listPage(db, tokens, ctx, repos.endpoints, input, {
        sortBy: sortKey(input.SortBy, 'created'),
        // ListEndpoints sorts newest first unless asked otherwise.
        descending: input.SortOrder !== 'Ascending',
        status: input.StatusEquals,
      });
      return {
        Endpoints: page.rows.map((r) => ({
          EndpointName: r.name,
          EndpointArn: r.arn,
          CreationTime: new Date(r.created_at),
          LastModifiedTime: new Date(r.last_modified_at),
          EndpointStatus: r.status as EndpointStatus,
        })),
        NextToken: page.NextToken,
      };
    },

    async updateEndpoint(input: UpdateEndpointInput, ctx: RequestContext): Promise<UpdateEndpointOutput> {
      const nameKey = input.EndpointName.toLowerCase();
      let arn = '';
      await db.transaction(async (tx) => {
        const row = await repos.endpoints.get(tx, ctx, nameKey, true);
        if (!row) throw endpointNotFound(ctx, input.EndpointName);
        arn = row.arn;
        if (row.status === 'Failed') {
          throw new ValidationException(`Cannot update failed endpoint "${row.arn}". Delete it and create it again.`);
        }
        if (row.status !== 'InService')
          throw new ValidationException(`Cannot update in-progress endpoint "${row.arn}".`);
        const config = await loadConfig(tx, ctx, input.EndpointConfigName);
        const doc = JSON.parse(row.doc) as EndpointDoc;
        const next: EndpointDoc = {
          ...doc,
          FailureReason: undefined,
          PendingConfigName: config.row.name,
          PendingSince: ctx.receivedAt,
          LastDeploymentConfig: input.RetainDeploymentConfig ? doc.LastDeploymentConfig : input.DeploymentConfig,
          ProductionVariants: doc.ProductionVariants.map((v) => ({
            ...v,
            VariantStatus: [{ Status: 'Updating', StartTime: ctx.receivedAt }],
          })),
        };
        await repos.endpoints.update(tx, ctx, nameKey, {
          status: 'Updating',
          doc: JSON.stringify(next),
          last_modified_at: ctx.receivedAt,
        });
        await recordDeployment(tx, ctx, row.name, row.arn, row.created_at, config.doc);
        await deployments.submit(tx, ctx, nameKey, 'Updating');
      });
      deployments.schedule(ctx, nameKey);
      return { EndpointArn: arn };
    },

    async deleteEndpoint(input: DeleteEndpointInput, ctx: RequestContext): Promise<void> {
      const nameKey = input.EndpointName.toLowerCase();
      await db.transaction(async (tx) => {
        const row = await repos.endpoints.get(tx, ctx, nameKey, true);
        if (!row) throw endpointNotFound(ctx, input.EndpointName);
        if (row.status === 'Deleting') return;
        // Each variant's status follows the endpoint's while it is taken down.
        const doc = JSON.parse(row.doc) as EndpointDoc;
        doc.ProductionVariants = doc.ProductionVariants.map((v) => ({
          ...v,
          VariantStatus: [{ Status: 'Deleting', StartTime: ctx.receivedAt }],
        }));
        await repos.endpoints.update(tx, ctx, nameKey, {
          status: 'Deleting',
          doc: JSON.stringify(doc),
          last_modified_at: ctx.receivedAt,
        });
        await deployments.submit(tx, ctx, nameKey, 'Deleting');
      });
      deployments.schedule(ctx, nameKey);
    },
  };
}
