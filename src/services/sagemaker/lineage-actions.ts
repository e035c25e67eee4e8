// CreateAction, DescribeAction, ListActions, UpdateAction, DeleteAction.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateAction.html
import type {
  ActionSummary,
  CreateActionRequest,
  CreateActionResponse,
  DeleteActionRequest,
  DeleteActionResponse,
  DescribeActionRequest,
  DescribeActionResponse,
  ListActionsRequest,
  ListActionsResponse,
  UpdateActionRequest,
  UpdateActionResponse,
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

/** What CreateAction was given (all but Tags), kept as is: DescribeAction echoes it. */
type ActionDoc = Omit<CreateActionRequest, 'Tags'>;

function summary(row: LineageEntityRow): ActionSummary {
  const d = parseDoc<ActionDoc>(row);
  return {
    ActionArn: row.arn,
    ActionName: d.ActionName,
    Source: d.Source,
    ActionType: d.ActionType,
    Status: d.Status,
    CreationTime: toDate(row.created_at),
    LastModifiedTime: toDate(row.last_modified_at),
  };
}

export function lineageActionHandlers(deps: ServiceDeps) {
  const { db, repos } = deps;
  return {
    async createAction(input: CreateActionRequest, ctx: RequestContext): Promise<CreateActionResponse> {
      const { Tags, ...doc } = input;
      const arn = entityArn(ctx, 'action', input.ActionName);
      await insertNew(
        deps,
        ctx,
        {
          arn,
          kind: 'action',
          name: input.ActionName,
          entity_type: input.ActionType,
          source_key: sourceKey(input.Source.SourceUri),
          doc,
        },
        Tags,
      );
      return { ActionArn: arn };
    },

    async describeAction(input: DescribeActionRequest, ctx: RequestContext): Promise<DescribeActionResponse> {
      const row = await mustGetByName(db, deps, ctx, 'action', input.ActionName);
      const d = parseDoc<ActionDoc>(row);
      return {
        ...d,
        ActionArn: row.arn,
        CreationTime: toDate(row.created_at),
        CreatedBy: NO_USER,
        LastModifiedTime: toDate(row.last_modified_at),
        LastModifiedBy: NO_USER,
      };
    },

    async listActions(input: ListActionsRequest, ctx: RequestContext): Promise<ListActionsResponse> {
      const { rows, NextToken } = await listEntities(deps, ctx, 'ListActions', input, {
        kind: 'action',
        sourceKey: input.SourceUri === undefined ? undefined : sourceKey(input.SourceUri),
        entityType: input.ActionType,
      });
      return { ActionSummaries: rows.map(summary), NextToken };
    },

    async updateAction(input: UpdateActionRequest, ctx: RequestContext): Promise<UpdateActionResponse> {
      const arn = await db.transaction(async (tx) => {
        const row = await mustGetByName(tx, deps, ctx, 'action', input.ActionName, true);
        const d = parseDoc<ActionDoc>(row);
        if (input.Description !== undefined) d.Description = input.Description;
        if (input.Status !== undefined) d.Status = input.Status;
        d.Properties = mergeMap(d.Properties, input.Properties, input.PropertiesToRemove, MAX_PROPERTIES, 'properties');
        await repos.lineageEntities.update(tx, row.arn, { doc: JSON.stringify(d), last_modified_at: ctx.receivedAt });
        return row.arn;
      });
      return { ActionArn: arn };
    },

    async deleteAction(input: DeleteActionRequest, ctx: RequestContext): Promise<DeleteActionResponse> {
      const arn = await db.transaction(async (tx) => {
        const row = await mustGetByName(tx, deps, ctx, 'action', input.ActionName, true);
        await deleteEntity(tx, deps, row);
        return row.arn;
      });
      return { ActionArn: arn };
    },
  };
}
