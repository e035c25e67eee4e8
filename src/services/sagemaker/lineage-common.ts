// The six lineage and experiment kinds (artifacts, actions, contexts, experiments, trials, trial
// components) declared as resource kinds over the one lineage_entities table: how each is found,
// how SageMaker words "does not exist" and "already exists", and their list filters.
// https://docs.aws.amazon.com/sagemaker/latest/dg/lineage-tracking.html
import type { Partition } from '../../domain/arn.js';
import { ResourceNotFound } from '../../generated/sagemaker/errors.js';
import { type EntityKind, entityArn, KIND_LABEL, nameFromNameOrArn } from '../../lineage/entities.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { Queryable, SqlValue } from '../../storage/db/types.js';
import type { EntityListQuery, LineageEntityRow } from '../../storage/repositories/lineage-entities.js';
import type { ServiceDeps } from '../common/deps.js';
import { type KindStore, type PagePosition, ResourceKind } from '../common/resource-kind.js';

export { NO_USER, toDate } from '../common/resource-kind.js';

/** Entities per listing page unless MaxResults says otherwise (the API's documented default). */
export const DEFAULT_MAX_RESULTS = 10;
/** Properties per artifact, action or context (the model's ArtifactProperties/LineageEntityParameters max). */
export const MAX_PROPERTIES = 30;

export function notFound(kind: EntityKind, arn: string): ResourceNotFound {
  return new ResourceNotFound(`${KIND_LABEL[kind]} '${arn}' does not exist.`);
}

export function alreadyExists(kind: EntityKind, arn: string): ValidationException {
  return new ValidationException(`${KIND_LABEL[kind]} '${arn}' already exists.`);
}

export function parseDoc<T = Record<string, unknown>>(row: LineageEntityRow): T {
  return JSON.parse(row.doc) as T;
}

/** A string map with `add` merged in and `remove` taken out; more than `max` keys is refused. */
export function mergeMap<V>(
  current: Readonly<Record<string, V>> | undefined,
  add: Readonly<Record<string, V>> | undefined,
  remove: readonly string[] | undefined,
  max: number,
  what: string,
): Record<string, V> | undefined {
  const out: Record<string, V> = { ...current, ...add };
  for (const k of remove ?? []) delete out[k];
  if (Object.keys(out).length > max) throw new ValidationException(`An entity cannot have more than ${max} ${what}.`);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A new entity as a Create* handler describes it (its document aside). */
export type EntityDraft = Pick<LineageEntityRow, 'arn' | 'name' | 'entity_type' | 'source_key'> &
  Partial<Pick<LineageEntityRow, 'unique_source' | 'parent_key'>>;

/** A List* request's filters and order over one kind (what its NextToken is bound to). */
export type EntityQuery = Omit<EntityListQuery, 'after' | 'limit'>;

export interface EntityListInput {
  readonly CreatedAfter?: Date;
  readonly CreatedBefore?: Date;
  readonly SortBy?: string;
  readonly SortOrder?: string;
}

/** The query of a List* request: SortBy CreationTime and SortOrder Descending unless it says otherwise. */
export function entityQuery(
  kind: EntityKind,
  input: EntityListInput,
  filters: Pick<EntityListQuery, 'sourceKey' | 'entityType' | 'parentKey' | 'arnIn'> = {},
): EntityQuery {
  return {
    kind,
    ...filters,
    createdAfter: input.CreatedAfter?.getTime(),
    createdBefore: input.CreatedBefore?.getTime(),
    sortBy: input.SortBy === 'Name' ? 'Name' : 'CreationTime',
    descending: input.SortOrder !== 'Ascending',
  };
}

export type EntityKindHandle<Doc> = ResourceKind<Doc, LineageEntityRow, EntityDraft, EntityQuery>;

/**
 * A lineage or experiment kind. `lookup` is how its API designates one: by name or ARN
 * (actions, contexts, experiments, trials, trial components) or by ARN only (artifacts).
 */
export function entityKind<Doc>(deps: ServiceDeps, kind: EntityKind, lookup: 'name' | 'arn'): EntityKindHandle<Doc> {
  const { repos } = deps;
  const store: KindStore<LineageEntityRow, EntityDraft, EntityQuery> = {
    async insert(q, p, draft, doc, at) {
      await repos.lineageEntities.insert(q, p, {
        ...draft,
        kind,
        name_key: draft.name?.toLowerCase() ?? null,
        unique_source: draft.unique_source ?? null,
        parent_key: draft.parent_key ?? null,
        doc,
        created_at: at,
        last_modified_at: at,
      });
    },
    find: (q, p, id, lock) => findEntity(q, deps, p, kind, lookup, id, lock),
    async holder(q, p, draft) {
      const byName = draft.name ? await repos.lineageEntities.getByName(q, p, kind, draft.name) : undefined;
      const bySource =
        !byName && draft.unique_source
          ? await repos.lineageEntities.getArtifactBySource(q, p, draft.unique_source)
          : undefined;
      return (byName ?? bySource)?.arn;
    },
    save: (q, _p, row, set) => repos.lineageEntities.update(q, row.arn, set as Record<string, SqlValue>),
    remove: (q, _p, row) => deleteEntity(q, deps, row),
    list: (q, p, query, after, limit) => repos.lineageEntities.list(q, p, { ...query, after, limit }),
    position: (row, query): PagePosition => [query.sortBy === 'Name' ? row.name_key : row.created_at, row.arn],
  };
  return new ResourceKind(deps, {
    store,
    defaultMaxResults: DEFAULT_MAX_RESULTS,
    notFound: (p, id) => {
      if (lookup === 'arn') return notFound(kind, id);
      const name = nameFromNameOrArn(p, kind, id);
      return notFound(kind, name === undefined ? id : entityArn(p, kind, name));
    },
    taken: (_p, holderArn) => alreadyExists(kind, holderArn),
  });
}

async function findEntity(
  q: Queryable,
  { repos }: ServiceDeps,
  p: Partition,
  kind: EntityKind,
  lookup: 'name' | 'arn',
  id: string,
  lock: boolean,
): Promise<LineageEntityRow | undefined> {
  if (lookup === 'arn') {
    const row = await repos.lineageEntities.getByArn(q, p, id, lock);
    return row?.kind === kind ? row : undefined;
  }
  const name = nameFromNameOrArn(p, kind, id);
  return name === undefined ? undefined : repos.lineageEntities.getByName(q, p, kind, name, lock);
}

/** The entity an ARN designates if it is of `kind`, or ResourceNotFound (associations, QueryLineage). */
export async function mustGetByArn(
  q: Queryable,
  deps: ServiceDeps,
  p: Partition,
  kind: EntityKind,
  arn: string,
  lock = false,
): Promise<LineageEntityRow> {
  const row = await findEntity(q, deps, p, kind, 'arn', arn, lock);
  if (!row) throw notFound(kind, arn);
  return row;
}

/** Deletes an entity with its tags and every association into or out of it (no edge dangles). */
async function deleteEntity(tx: Queryable, deps: ServiceDeps, row: LineageEntityRow): Promise<void> {
  await deps.repos.lineageAssociations.deleteAllOf(tx, row.arn);
  await deps.repos.tags.removeAll(tx, row.arn);
  await deps.repos.lineageEntities.delete(tx, row.arn);
}

/** Taggable lineage and experiment resource types for the `taggable` map of AddTags/ListTags/DeleteTags. */
export function lineageTaggable(
  deps: ServiceDeps,
): Array<[string, (q: Queryable, p: Partition, resource: string) => Promise<string | undefined>]> {
  const kinds: EntityKind[] = [
    'artifact',
    'action',
    'context',
    'experiment',
    'experiment-trial',
    'experiment-trial-component',
  ];
  return kinds.map((kind) => [
    kind,
    async (q, p, resource) => {
      const row = await deps.repos.lineageEntities.getByArn(q, p, entityArn(p, kind, resource));
      return row?.kind === kind ? row.arn : undefined;
    },
  ]);
}
