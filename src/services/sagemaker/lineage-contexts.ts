// CreateContext, DescribeContext, ListContexts, UpdateContext, DeleteContext.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateContext.html
import type {
  ContextSummary,
  CreateContextRequest,
  CreateContextResponse,
  DeleteContextRequest,
  DeleteContextResponse,
  DescribeContextRequest,
  DescribeContextResponse,
  ListContextsRequest,
  ListContextsResponse,
  UpdateContextRequest,
  UpdateContextResponse,
} from '../../generated/sagemaker/shapes.js';
import { entityArn, sourceKey } from '../../lineage/entities.js';
import type { RequestContext } from '../../protocol/context.js';
import type { LineageEntityRow } from '../../storage/repositories/lineage-entities.js';
import type { ServiceDeps } from '../common/deps.js';
import {
  deleteEntity,
  insertNew,
  listEntities,
  MAX_PROPERTIES,
  mergeMap,
  mustGetByName,
  NO_USER,
  parseDoc,
  toDate,
} from './lineage-common.js';

/** What CreateContext was given (all but Tags), kept as is: DescribeContext echoes it. */
type ContextDoc = Omit<CreateContextRequest, 'Tags'>;

function summary(row: LineageEntityRow): ContextSummary {
  const d = parseDoc<ContextDoc>(row);
  return {
    ContextArn: row.arn,
    ContextName: d.ContextName,
    Source: d.Source,
    ContextType: d.ContextType,
    CreationTime: toDate(row.created_at),
    LastModifiedTime: toDate(row.last_modified_at),
  };
}

export function lineageContextHandlers(deps: ServiceDeps) {
  const { db, repos } = deps;
  return {
    async createContext(input: CreateContextRequest, ctx: RequestContext): Promise<CreateContextResponse> {
      const { Tags, ...doc } = input;
      const arn = entityArn(ctx, 'context', input.ContextName);
      await insertNew(
        deps,
        ctx,
        {
          arn,
          kind: 'context',
          name: input.ContextName,
          entity_type: input.ContextType,
          source_key: sourceKey(input.Source.SourceUri),
          doc,
        },
        Tags,
      );
      return { ContextArn: arn };
    },

    async describeContext(input: DescribeContextRequest, ctx: RequestContext): Promise<DescribeContextResponse> {
      const row = await mustGetByName(db, deps, ctx, 'context', input.ContextName);
      const d = parseDoc<ContextDoc>(row);
      return {
        ...d,
        ContextArn: row.arn,
        CreationTime: toDate(row.created_at),
        CreatedBy: NO_USER,
        LastModifiedTime: toDate(row.last_modified_at),
        LastModifiedBy: NO_USER,
      };
    },

    async listContexts(input: ListContextsRequest, ctx: RequestContext): Promise<ListContextsResponse> {
      const { rows, NextToken } = await listEntities(deps, ctx, 'ListContexts', input, {
        kind: 'context',
        sourceKey: input.SourceUri === undefined ? undefined : sourceKey(input.SourceUri),
        entityType: input.ContextType,
      });
      return { ContextSummaries: rows.map(summary), NextToken };
    },

    async updateContext(input: UpdateContextRequest, ctx: RequestContext): Promise<UpdateContextResponse> {
      const arn = await db.transaction(async (tx) => {
        const row = await mustGetByName(tx, deps, ctx, 'context', input.ContextName, true);
        const d = parseDoc<ContextDoc>(row);
        if (input.Description !== undefined) d.Description = input.Description;
        d.Properties = mergeMap(d.Properties, input.Properties, input.PropertiesToRemove, MAX_PROPERTIES, 'properties');
        await repos.lineageEntities.update(tx, row.arn, { doc: JSON.stringify(d), last_modified_at: ctx.receivedAt });
        return row.arn;
      });
      return { ContextArn: arn };
    },

    async deleteContext(input: DeleteContextRequest, ctx: RequestContext): Promise<DeleteContextResponse> {
      const arn = await db.transaction(async (tx) => {
        const row = await mustGetByName(tx, deps, ctx, 'context', input.ContextName, true);
        await deleteEntity(tx, deps, row);
        return row.arn;
      });
      return { ContextArn: arn };
    },
  };
}
