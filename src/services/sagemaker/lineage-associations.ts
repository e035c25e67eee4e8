// AddAssociation, DeleteAssociation, ListAssociations.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_AddAssociation.html
import type {
  AddAssociationRequest,
  AddAssociationResponse,
  AssociationSummary,
  DeleteAssociationRequest,
  DeleteAssociationResponse,
  ListAssociationsRequest,
  ListAssociationsResponse,
} from '../../generated/sagemaker/shapes.js';
import { ResourceNotFound } from '../../generated/sagemaker/errors.js';
import { EXPERIMENT_KINDS, parseEntityArn } from '../../lineage/entities.js';
import { insertAssociation } from '../../lineage/graph-writes.js';
import type { RequestContext } from '../../protocol/context.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { Queryable } from '../../storage/db/types.js';
import type { AssociationRow, AssociationSort } from '../../storage/repositories/lineage-associations.js';
import type { ServiceDeps } from '../common/deps.js';
import { concurrentlyTaken } from '../common/resource-kind.js';
import { DEFAULT_MAX_RESULTS, mustGetByArn, NO_USER } from './lineage-common.js';

function summary(row: AssociationRow): AssociationSummary {
  return {
    SourceArn: row.source_arn,
    DestinationArn: row.destination_arn,
    SourceType: row.source_type || undefined,
    DestinationType: row.destination_type || undefined,
    AssociationType: (row.association_type ?? undefined) as AssociationSummary['AssociationType'],
    SourceName: row.source_name ?? undefined,
    DestinationName: row.destination_name ?? undefined,
    CreationTime: new Date(row.created_at),
    CreatedBy: NO_USER,
  };
}

export function lineageAssociationHandlers(deps: ServiceDeps) {
  const { db, repos, tokens } = deps;

  /** The entity an association end names; ARNs outside the caller's account and region name nothing. */
  const end = async (q: Queryable, ctx: RequestContext, arn: string) => {
    const parsed = parseEntityArn(ctx, arn);
    if (!parsed) throw new ResourceNotFound(`Resource '${arn}' does not exist.`);
    return mustGetByArn(q, deps, ctx, parsed.kind, arn);
  };

  return {
    async addAssociation(input: AddAssociationRequest, ctx: RequestContext): Promise<AddAssociationResponse> {
      const { SourceArn: src, DestinationArn: dst } = input;
      if (src === dst) throw new ValidationException('An entity cannot be associated with itself.');
      const taken = () => new ValidationException(`Association between '${src}' and '${dst}' already exists.`);
      await db
        .transaction(async (tx) => {
          const source = await end(tx, ctx, src);
          const destination = await end(tx, ctx, dst);
          if (EXPERIMENT_KINDS.has(source.kind) && EXPERIMENT_KINDS.has(destination.kind)) {
            throw new ValidationException('An association cannot be created between two experiment entities.');
          }
          if (await repos.lineageAssociations.get(tx, src, dst)) throw taken();
          await insertAssociation(
            tx,
            repos.lineageAssociations,
            ctx,
            source,
            destination,
            input.AssociationType ?? null,
            ctx.receivedAt,
          );
        })
        .catch(concurrentlyTaken(() => repos.lineageAssociations.get(db, src, dst), taken));
      return { SourceArn: src, DestinationArn: dst };
    },

    async deleteAssociation(input: DeleteAssociationRequest, ctx: RequestContext): Promise<DeleteAssociationResponse> {
      const { SourceArn: src, DestinationArn: dst } = input;
      const deleted =
        parseEntityArn(ctx, src) !== undefined &&
        parseEntityArn(ctx, dst) !== undefined &&
        (await db.transaction((tx) => repos.lineageAssociations.delete(tx, src, dst)));
      if (!deleted) throw new ResourceNotFound(`Association between '${src}' and '${dst}' does not exist.`);
      return { SourceArn: src, DestinationArn: dst };
    },

    async listAssociations(input: ListAssociationsRequest, ctx: RequestContext): Promise<ListAssociationsResponse> {
      // An ARN of another account or region has no associations here (rather than everyone's).
      for (const arn of [input.SourceArn, input.DestinationArn]) {
        if (arn !== undefined && !parseEntityArn(ctx, arn)) return { AssociationSummaries: [] };
      }
      const limit = input.MaxResults ?? DEFAULT_MAX_RESULTS;
      const query = {
        sourceArn: input.SourceArn,
        destinationArn: input.DestinationArn,
        sourceType: input.SourceType,
        destinationType: input.DestinationType,
        associationType: input.AssociationType,
        createdAfter: input.CreatedAfter?.getTime(),
        createdBefore: input.CreatedBefore?.getTime(),
        sortBy: (input.SortBy ?? 'CreationTime') as AssociationSort,
        descending: input.SortOrder !== 'Ascending',
      };
      const scope = `ListAssociations|${ctx.accountId}|${ctx.region}|${JSON.stringify(query)}`;
      const after = input.NextToken
        ? tokens.decode<[string | number, string, string]>(scope, input.NextToken)
        : undefined;
      const rows = await repos.lineageAssociations.list(db, ctx, { ...query, after, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      let NextToken: string | undefined;
      if (rows.length > limit && last) {
        const sortValue =
          query.sortBy === 'CreationTime'
            ? last.created_at
            : query.sortBy === 'SourceType'
              ? last.source_type
              : query.sortBy === 'DestinationType'
                ? last.destination_type
                : '';
        NextToken = tokens.encode(scope, [sortValue, last.source_arn, last.destination_arn]);
      }
      return { AssociationSummaries: page.map(summary), NextToken };
    },
  };
}
