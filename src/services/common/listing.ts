// Keyset pagination shared by every List* operation over a ResourceTable: filters, sort, and an
// opaque NextToken bound to the filters it was issued for.
import type { PageTokens } from '../../domain/page-token.js';
import type { RequestContext } from '../../protocol/context.js';
import type { Queryable } from '../../storage/db/types.js';
import type { ListQuery, ResourceRow, ResourceTable, SortKey } from '../../storage/repositories/resource-table.js';

export interface ListRequest {
  readonly NextToken?: string;
  readonly MaxResults?: number;
  readonly NameContains?: string;
  readonly CreationTimeAfter?: Date;
  readonly CreationTimeBefore?: Date;
  readonly LastModifiedTimeAfter?: Date;
  readonly LastModifiedTimeBefore?: Date;
}

export async function listPage<R extends ResourceRow>(
  q: Queryable,
  tokens: PageTokens,
  ctx: RequestContext,
  table: ResourceTable<R>,
  input: ListRequest,
  options: { sortBy: SortKey; descending: boolean; status?: string; where?: ListQuery['where']; defaultMax?: number },
): Promise<{ rows: R[]; NextToken?: string }> {
  const limit = input.MaxResults ?? options.defaultMax ?? 10;
  const query = {
    nameContains: input.NameContains,
    createdAfter: input.CreationTimeAfter?.getTime(),
    createdBefore: input.CreationTimeBefore?.getTime(),
    modifiedAfter: input.LastModifiedTimeAfter?.getTime(),
    modifiedBefore: input.LastModifiedTimeBefore?.getTime(),
    status: options.status,
    where: options.where,
    sortBy: options.sortBy,
    descending: options.descending,
  };
  const scope = `${table.table}|${ctx.accountId}|${ctx.region}|${JSON.stringify(query)}`;
  const after = input.NextToken ? tokens.decode<[string | number | null, string]>(scope, input.NextToken) : undefined;
  const rows = await table.list(q, ctx, { ...query, after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page,
    NextToken:
      rows.length > limit && last
        ? tokens.encode(scope, [table.sortValue(last, options.sortBy), last.name_key])
        : undefined,
  };
}

/** SortBy values of the API mapped to the table's sort keys. */
export function sortKey(sortBy: string | undefined, dflt: SortKey): SortKey {
  switch (sortBy) {
    case 'Name':
      return 'name';
    case 'CreationTime':
      return 'created';
    case 'Status':
      return 'status';
    default:
      return dflt;
  }
}
