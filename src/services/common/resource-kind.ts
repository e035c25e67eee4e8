// One building block for SageMaker resources stored as documents: a kind is declared (where its
// rows live, how it words "not found" and "already exists") and gets Create (with its tags, in one
// transaction), Get, Update, Delete and List (keyset pages, NextToken bound to the filters) from here.
// Its handlers keep only what really differs: which fields go into the document, the checks the
// API documents, the shape of Describe and of a summary.
import type { Partition } from '../../domain/arn.js';
import type { RequestContext } from '../../protocol/context.js';
import { type Queryable, type SqlValue, UniqueViolationError } from '../../storage/db/types.js';
import type { ServiceDeps } from './deps.js';

/** What every stored resource row has: an ARN, the JSON document and its two times (epoch ms). */
export interface DocRow {
  readonly arn: string;
  readonly doc: string;
  readonly created_at: number;
  readonly last_modified_at: number;
}

/** What Create knows of a new row beyond its document: at least its ARN. */
export interface Draft {
  readonly arn: string;
}

/** A page position: the sort value of the last row of the previous page, then its tie-breaker. */
export type PagePosition = readonly [string | number | null, string];

/**
 * Where a kind's rows live (the lineage entity table, a ResourceTable, ...). `D` is what Create
 * knows of a new row beyond its document; `Query` is the kind's list filters and order.
 */
export interface KindStore<Row extends DocRow, D extends Draft, Query> {
  insert(q: Queryable, p: Partition, draft: D, doc: string, at: number): Promise<void>;
  /** The row an identifier designates (a name, a name-or-ARN or an ARN, as the kind's API addresses it). */
  find(q: Queryable, p: Partition, id: string, lock: boolean): Promise<Row | undefined>;
  /** After a unique violation on insert: the ARN of the resource holding the name (or other unique key). */
  holder(q: Queryable, p: Partition, draft: D): Promise<string | undefined>;
  /** Writes the document, the modification time and any other columns in `set`. */
  save(q: Queryable, p: Partition, row: Row, set: Readonly<Record<string, SqlValue>>): Promise<void>;
  /** Removes the row and whatever hangs off it (tags, associations). */
  remove(q: Queryable, p: Partition, row: Row): Promise<void>;
  list(q: Queryable, p: Partition, query: Query, after: PagePosition | undefined, limit: number): Promise<Row[]>;
  /** The position of `row` in `query`'s order, for the next page's token. */
  position(row: Row, query: Query): PagePosition;
}

export interface KindSpec<Row extends DocRow, D extends Draft, Query> {
  readonly store: KindStore<Row, D, Query>;
  /** The error for an identifier that designates nothing, in the API's words. */
  notFound(p: Partition, id: string): Error;
  /** The error for a name (or unique key) already held by the resource `holderArn`. */
  taken(p: Partition, holderArn: string): Error;
  /** MaxResults when the request gives none (the API's documented default). */
  readonly defaultMaxResults?: number;
}

export interface PageRequest {
  readonly NextToken?: string;
  readonly MaxResults?: number;
}

type Tags = readonly { Key: string; Value: string }[] | undefined;

/**
 * CreatedBy / LastModifiedBy of lineage entities, experiments and the like: SageMaker names a Studio
 * user profile there and nothing else (IamIdentity is recorded for model packages and groups only,
 * see user-context.ts); Slipway has no Studio user profiles to name.
 */
export const NO_USER = {};

export function toDate(ms: number | undefined | null): Date | undefined {
  return ms === undefined || ms === null ? undefined : new Date(ms);
}

/** CreationTime, CreatedBy, LastModifiedTime, LastModifiedBy as Describe* returns them. */
export function audit(row: DocRow) {
  return {
    CreationTime: toDate(row.created_at),
    CreatedBy: NO_USER,
    LastModifiedTime: toDate(row.last_modified_at),
    LastModifiedBy: NO_USER,
  };
}

export class ResourceKind<Doc, Row extends DocRow, D extends Draft, Query> {
  readonly store: KindStore<Row, D, Query>;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly spec: KindSpec<Row, D, Query>,
  ) {
    this.store = spec.store;
  }

  doc(row: Row): Doc {
    return JSON.parse(row.doc) as Doc;
  }

  /** A List* summary's common part: the named document fields and the two times. */
  summary<K extends keyof Doc>(
    row: Row,
    fields: readonly K[],
  ): Pick<Doc, K> & { CreationTime?: Date; LastModifiedTime?: Date } {
    const doc = this.doc(row);
    const picked = {} as Pick<Doc, K>;
    for (const k of fields) picked[k] = doc[k];
    return { ...picked, CreationTime: toDate(row.created_at), LastModifiedTime: toDate(row.last_modified_at) };
  }

  /** CreationTime, CreatedBy, LastModifiedTime, LastModifiedBy as Describe* returns them. */
  audit(row: Row) {
    return audit(row);
  }

  /**
   * Inserts a new resource and its tags in one transaction; `within` runs in that transaction too
   * (checks that must hold when the row is written). A taken name is refused naming its holder.
   */
  async create(
    ctx: RequestContext,
    draft: D,
    doc: Doc,
    tags: Tags,
    within?: (tx: Queryable) => Promise<void>,
  ): Promise<void> {
    const { db, repos } = this.deps;
    try {
      await db.transaction(async (tx) => {
        await this.store.insert(tx, ctx, draft, JSON.stringify(doc), ctx.receivedAt);
        if (tags?.length) await repos.tags.put(tx, draft.arn, tags);
        if (within) await within(tx);
      });
    } catch (err) {
      if (!(err instanceof UniqueViolationError)) throw err;
      const holder = await this.store.holder(db, ctx, draft);
      throw this.spec.taken(ctx, holder ?? draft.arn);
    }
  }

  /** The row `id` designates, or the kind's not-found error. */
  async get(q: Queryable, p: Partition, id: string, lock = false): Promise<Row> {
    const row = await this.store.find(q, p, id, lock);
    if (!row) throw this.spec.notFound(p, id);
    return row;
  }

  /**
   * Reads, changes and writes back a resource's document in one transaction. `mutate` changes the
   * document in place and may return other columns to write with it.
   */
  async update(
    ctx: RequestContext,
    id: string,
    mutate: (
      doc: Doc,
      row: Row,
      tx: Queryable,
      // biome-ignore lint/suspicious/noConfusingVoidType: a mutator that changes only the document returns nothing
    ) => void | Record<string, SqlValue> | Promise<void | Record<string, SqlValue>>,
  ): Promise<Row> {
    return this.deps.db.transaction(async (tx) => {
      const row = await this.get(tx, ctx, id, true);
      const doc = this.doc(row);
      const extra = (await mutate(doc, row, tx)) ?? {};
      await this.store.save(tx, ctx, row, { ...extra, doc: JSON.stringify(doc), last_modified_at: ctx.receivedAt });
      return row;
    });
  }

  /** Deletes a resource with what hangs off it, after `guard` (which throws to refuse) passes. */
  async delete(ctx: RequestContext, id: string, guard?: (tx: Queryable, row: Row) => Promise<void>): Promise<Row> {
    return this.deps.db.transaction(async (tx) => {
      const row = await this.get(tx, ctx, id, true);
      if (guard) await guard(tx, row);
      await this.store.remove(tx, ctx, row);
      return row;
    });
  }

  /**
   * One page of a List* operation. The NextToken is bound to the operation, the caller's
   * partition and the query, so it cannot be replayed with other filters.
   */
  async list(
    ctx: RequestContext,
    operation: string,
    input: PageRequest,
    query: Query,
  ): Promise<{ rows: Row[]; NextToken?: string }> {
    const { db, tokens } = this.deps;
    const limit = input.MaxResults ?? this.spec.defaultMaxResults ?? 10;
    const scope = `${operation}|${ctx.accountId}|${ctx.region}|${JSON.stringify(query)}`;
    const after = input.NextToken ? tokens.decode<PagePosition>(scope, input.NextToken) : undefined;
    const rows = await this.store.list(db, ctx, query, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      rows: page,
      NextToken: rows.length > limit && last ? tokens.encode(scope, this.store.position(last, query)) : undefined,
    };
  }
}
