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
import type { ServiceDeps } from '../common/deps.js';
import { entityKind, entityQuery, MAX_PROPERTIES, mergeMap } from './lineage-common.js';

/** What CreateContext was given (all but Tags), kept as is: DescribeContext echoes it. */
type ContextDoc = Omit<CreateContextRequest, 'Tags'>;

export function lineageContextHandlers(deps: ServiceDeps) {
  const contexts = entityKind<ContextDoc>(deps, 'context', 'name');
  return {
    async createContext(input: CreateContextRequest, ctx: RequestContext): Promise<CreateContextResponse> {
      const { Tags, ...doc } = input;
      const arn = entityArn(ctx, 'context', input.ContextName);
      const draft = {
        arn,
        name: input.ContextName,
        entity_type: input.ContextType,
        source_key: sourceKey(input.Source.SourceUri),
      };
      await contexts.create(ctx, draft, doc, Tags);
      return { ContextArn: arn };
    },

    async describeContext(input: DescribeContextRequest, ctx: RequestContext): Promise<DescribeContextResponse> {
      const row = await contexts.get(deps.db, ctx, input.ContextName);
      return { ...contexts.doc(row), ContextArn: row.arn, ...contexts.audit(row) };
    },

    async listContexts(input: ListContextsRequest, ctx: RequestContext): Promise<ListContextsResponse> {
      const query = entityQuery('context', input, {
        sourceKey: input.SourceUri === undefined ? undefined : sourceKey(input.SourceUri),
        entityType: input.ContextType,
      });
      const { rows, NextToken } = await contexts.list(ctx, 'ListContexts', input, query);
      const ContextSummaries = rows.map(
        (row): ContextSummary => ({
          ContextArn: row.arn,
          ...contexts.summary(row, ['ContextName', 'Source', 'ContextType']),
        }),
      );
      return { ContextSummaries, NextToken };
    },

    async updateContext(input: UpdateContextRequest, ctx: RequestContext): Promise<UpdateContextResponse> {
      const row = await contexts.update(ctx, input.ContextName, (d) => {
        if (input.Description !== undefined) d.Description = input.Description;
        d.Properties = mergeMap(d.Properties, input.Properties, input.PropertiesToRemove, MAX_PROPERTIES, 'properties');
      });
      return { ContextArn: row.arn };
    },

    async deleteContext(input: DeleteContextRequest, ctx: RequestContext): Promise<DeleteContextResponse> {
      return { ContextArn: (await contexts.delete(ctx, input.ContextName)).arn };
    },
  };
}
