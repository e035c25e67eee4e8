// What the lineage and experiment handlers share: errors in SageMaker's words, creating an entity
// (names unique per kind, tags in the same transaction), resolving names and ARNs, and listing.
// https://docs.aws.amazon.com/sagemaker/latest/dg/lineage-tracking.html
import type { Partition } from '../../domain/arn.js';
import { ResourceNotFound } from '../../generated/sagemaker/errors.js';
import { type EntityKind, entityArn, KIND_LABEL, nameFromNameOrArn } from '../../lineage/entities.js';
import type { RequestContext } from '../../protocol/context.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { Queryable } from '../../storage/db/types.js';
import { UniqueViolationError } from '../../storage/db/types.js';
import type { EntityListQuery, LineageEntityRow } from '../../storage/repositories/lineage-entities.js';
import type { ServiceDeps } from '../common/deps.js';

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

/** CreatedBy / LastModifiedBy: Slipway has no IAM identities or Studio users to name. */
export const NO_USER = {};

export function toDate(ms: number | undefined | null): Date | undefined {
  return ms === undefined || ms === null ? undefined : new Date(ms);
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

/**
 * Inserts a new entity and its tags in one transaction; a taken name (any case) or, for artifacts,
 * a taken source is refused with the ARN of the entity that holds it.
 */
/** A new entity as a Create* handler describes it; insertNew() derives the rest of the row. */
export type NewEntity = Pick<LineageEntityRow, 'arn' | 'kind' | 'name' | 'entity_type' | 'source_key'> &
  Partial<Pick<LineageEntityRow, 'unique_source' | 'parent_key'>> & { readonly doc: unknown };

export async function insertNew(
  { db, repos }: ServiceDeps,
  ctx: RequestContext,
  entity: NewEntity,
  tags: readonly { Key: string; Value: string }[] | undefined,
  after?: (tx: Queryable) => Promise<void>,
): Promise<void> {
  const row: LineageEntityRow = {
    ...entity,
    name_key: entity.name?.toLowerCase() ?? null,
    unique_source: entity.unique_source ?? null,
    parent_key: entity.parent_key ?? null,
    doc: JSON.stringify(entity.doc),
    created_at: ctx.receivedAt,
    last_modified_at: ctx.receivedAt,
  };
  try {
    await db.transaction(async (tx) => {
      await repos.lineageEntities.insert(tx, ctx, row);
      if (tags?.length) await repos.tags.put(tx, row.arn, tags);
      if (after) await after(tx);
    });
  } catch (err) {
    if (!(err instanceof UniqueViolationError)) throw err;
    const holder =
      (row.name !== null ? await repos.lineageEntities.getByName(db, ctx, row.kind, row.name) : undefined) ??
      (row.unique_source !== null
        ? await repos.lineageEntities.getArtifactBySource(db, ctx, row.unique_source)
        : undefined);
    throw alreadyExists(row.kind, holder?.arn ?? row.arn);
  }
}

/** The entity a name (or name-or-ARN) designates, or ResourceNotFound. */
export async function mustGetByName(
  q: Queryable,
  deps: ServiceDeps,
  p: Partition,
  kind: EntityKind,
  nameOrArn: string,
  lock = false,
): Promise<LineageEntityRow> {
  const name = nameFromNameOrArn(p, kind, nameOrArn);
  const row = name === undefined ? undefined : await deps.repos.lineageEntities.getByName(q, p, kind, name, lock);
  if (!row) throw notFound(kind, name === undefined ? nameOrArn : entityArn(p, kind, name));
  return row;
}

/** The entity an ARN designates if it is of `kind`, or ResourceNotFound. */
export async function mustGetByArn(
  q: Queryable,
  deps: ServiceDeps,
  p: Partition,
  kind: EntityKind,
  arn: string,
  lock = false,
): Promise<LineageEntityRow> {
  const row = await deps.repos.lineageEntities.getByArn(q, p, arn, lock);
  if (!row || row.kind !== kind) throw notFound(kind, arn);
  return row;
}

/** Deletes an entity with its tags and every association into or out of it (no edge dangles). */
export async function deleteEntity(tx: Queryable, deps: ServiceDeps, row: LineageEntityRow): Promise<void> {
  await deps.repos.lineageAssociations.deleteAllOf(tx, row.arn);
  await deps.repos.tags.removeAll(tx, row.arn);
  await deps.repos.lineageEntities.delete(tx, row.arn);
}

export interface EntityListInput {
  readonly CreatedAfter?: Date;
  readonly CreatedBefore?: Date;
  readonly SortBy?: string;
  readonly SortOrder?: string;
  readonly NextToken?: string;
  readonly MaxResults?: number;
}

/**
 * One page of a List* operation. Defaults as documented: SortBy CreationTime, SortOrder
 * Descending, MaxResults 10. The NextToken is bound to the operation and its filters.
 */
export async function listEntities(
  { db, repos, tokens }: ServiceDeps,
  ctx: RequestContext,
  operation: string,
  input: EntityListInput,
  filters: Omit<EntityListQuery, 'createdAfter' | 'createdBefore' | 'sortBy' | 'descending' | 'after' | 'limit'>,
): Promise<{ rows: LineageEntityRow[]; NextToken?: string }> {
  const limit = input.MaxResults ?? DEFAULT_MAX_RESULTS;
  const query = {
    ...filters,
    createdAfter: input.CreatedAfter?.getTime(),
    createdBefore: input.CreatedBefore?.getTime(),
    sortBy: input.SortBy === 'Name' ? ('Name' as const) : ('CreationTime' as const),
    descending: input.SortOrder !== 'Ascending',
  };
  const scope = `${operation}|${ctx.accountId}|${ctx.region}|${JSON.stringify(query)}`;
  const after = input.NextToken ? tokens.decode<[number | string, string]>(scope, input.NextToken) : undefined;
  const rows = await repos.lineageEntities.list(db, ctx, { ...query, after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page,
    NextToken:
      rows.length > limit && last
        ? tokens.encode(scope, [query.sortBy === 'Name' ? last.name_key! : last.created_at, last.arn])
        : undefined,
  };
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
