// Resource kinds stored in a ResourceTable (models, and the jobs to come): found by name (any case),
// listed with the filters every SageMaker List* of named resources shares (NameContains, creation
// and modification windows, StatusEquals) sorted by Name, CreationTime or Status.
import type { Partition } from '../../domain/arn.js';
import type { SqlValue } from '../../storage/db/types.js';
import type { ListQuery, ResourceRow, ResourceTable } from '../../storage/repositories/resource-table.js';
import type { ServiceDeps } from './deps.js';
import type { ListRequest } from './listing.js';
import { sortKey } from './listing.js';
import { type KindStore, ResourceKind } from './resource-kind.js';

/** A new row of a table kind: its name and ARN, a status if the kind has one, and its own columns. */
export interface TableDraft {
  readonly arn: string;
  readonly name: string;
  readonly status?: string | null;
  readonly columns?: Readonly<Record<string, SqlValue>>;
}

export type TableQuery = Omit<ListQuery, 'after' | 'limit'>;

export interface TableListInput extends ListRequest {
  readonly SortBy?: string;
  readonly SortOrder?: string;
  readonly StatusEquals?: string;
}

/** The query of a List* request over a table kind; `dflt` is the API's default sort. */
export function tableQuery(
  input: TableListInput,
  dflt: { sortBy: 'name' | 'created' | 'status'; descending: boolean },
  where?: ListQuery['where'],
): TableQuery {
  return {
    nameContains: input.NameContains,
    createdAfter: input.CreationTimeAfter?.getTime(),
    createdBefore: input.CreationTimeBefore?.getTime(),
    modifiedAfter: input.LastModifiedTimeAfter?.getTime(),
    modifiedBefore: input.LastModifiedTimeBefore?.getTime(),
    status: input.StatusEquals,
    where,
    sortBy: sortKey(input.SortBy, dflt.sortBy),
    descending: input.SortOrder === undefined ? dflt.descending : input.SortOrder !== 'Ascending',
  };
}

export function tableKind<Doc, Row extends ResourceRow = ResourceRow>(
  deps: ServiceDeps,
  table: ResourceTable<Row>,
  errors: { notFound(p: Partition, name: string): Error; taken(p: Partition, arn: string): Error },
): ResourceKind<Doc, Row, TableDraft, TableQuery> {
  const { repos } = deps;
  const store: KindStore<Row, TableDraft, TableQuery> = {
    async insert(q, p, draft, doc, at) {
      const row = {
        ...draft.columns,
        name_key: draft.name.toLowerCase(),
        name: draft.name,
        arn: draft.arn,
        status: draft.status ?? null,
        doc,
        created_at: at,
        last_modified_at: at,
      } as unknown as Row;
      await table.insert(q, p, row);
    },
    find: (q, p, name, lock) => table.get(q, p, name.toLowerCase(), lock),
    holder: async (q, p, draft) => (await table.get(q, p, draft.name.toLowerCase()))?.arn,
    save: async (q, p, row, set) => {
      await table.update(q, p, row.name_key, set);
    },
    async remove(q, p, row) {
      await table.delete(q, p, row.name_key);
      await repos.tags.removeAll(q, row.arn);
    },
    list: (q, p, query, after, limit) => table.list(q, p, { ...query, after, limit }),
    position: (row, query) => [table.sortValue(row, query.sortBy), row.name_key],
  };
  return new ResourceKind(deps, { store, ...errors });
}
