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
import type { ServiceDeps } from '../common/deps.js';
import { entityKind, entityQuery, MAX_PROPERTIES, mergeMap } from './lineage-common.js';

/** What CreateAction was given (all but Tags), kept as is: DescribeAction echoes it. */
type ActionDoc = Omit<CreateActionRequest, 'Tags'>;

export function lineageActionHandlers(deps: ServiceDeps) {
  const actions = entityKind<ActionDoc>(deps, 'action', 'name');
  return {
    async createAction(input: CreateActionRequest, ctx: RequestContext): Promise<CreateActionResponse> {
      const { Tags, ...doc } = input;
      const arn = entityArn(ctx, 'action', input.ActionName);
      const draft = {
        arn,
        name: input.ActionName,
        entity_type: input.ActionType,
        source_key: sourceKey(input.Source.SourceUri),
      };
      await actions.create(ctx, draft, doc, Tags);
      return { ActionArn: arn };
    },

    async describeAction(input: DescribeActionRequest, ctx: RequestContext): Promise<DescribeActionResponse> {
      const row = await actions.get(deps.db, ctx, input.ActionName);
      return { ...actions.doc(row), ActionArn: row.arn, ...actions.audit(row) };
    },

    async listActions(input: ListActionsRequest, ctx: RequestContext): Promise<ListActionsResponse> {
      const query = entityQuery('action', input, {
        sourceKey: input.SourceUri === undefined ? undefined : sourceKey(input.SourceUri),
        entityType: input.ActionType,
      });
      const { rows, NextToken } = await actions.list(ctx, 'ListActions', input, query);
      const ActionSummaries = rows.map(
        (row): ActionSummary => ({
          ActionArn: row.arn,
          ...actions.summary(row, ['ActionName', 'Source', 'ActionType', 'Status']),
        }),
      );
      return { ActionSummaries, NextToken };
    },

    async updateAction(input: UpdateActionRequest, ctx: RequestContext): Promise<UpdateActionResponse> {
      const row = await actions.update(ctx, input.ActionName, (d) => {
        if (input.Description !== undefined) d.Description = input.Description;
        if (input.Status !== undefined) d.Status = input.Status;
        d.Properties = mergeMap(d.Properties, input.Properties, input.PropertiesToRemove, MAX_PROPERTIES, 'properties');
      });
      return { ActionArn: row.arn };
    },

    async deleteAction(input: DeleteActionRequest, ctx: RequestContext): Promise<DeleteActionResponse> {
      return { ActionArn: (await actions.delete(ctx, input.ActionName)).arn };
    },
  };
}
