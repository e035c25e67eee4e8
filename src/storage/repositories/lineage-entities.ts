// Lineage and experiment entities (artifacts, actions, contexts, trial components, experiments,
// trials) in one table: columns for what is looked up, filtered and sorted; the rest as a JSON doc.
// https://docs.aws.amazon.com/sagemaker/latest/dg/lineage-tracking-entities.html
import type { Partition } from '../../domain/arn.js';
import type { EntityKind } from '../../lineage/entities.js';
import type { Queryable, SqlValue } from '../db/types.js';

export interface LineageEntityRow {
  readonly arn: string;
  readonly kind: EntityKind;
  /** lower(name); null for an artifact created without a name. */
  readonly name_key: string | null;
  readonly name: string | null;
  /** ArtifactType, ActionType, ContextType, or a trial component's job type. */
  readonly entity_type: string | null;
  /** sourceKey() of the SourceUri (or a trial component's SourceArn). */
  readonly source_key: string | null;
  /** Artifacts only: artifactSourceKey(), unique per account and region. */
  readonly unique_source: string | null;
  /** Trials only: name_key of their experiment. */
  readonly parent_key: string | null;
  /** JSON text: the entity's API fields (times as epoch ms). */
  readonly doc: string;
  readonly created_at: number;
  readonly last_modified_at: number;
}

export interface EntityListQuery {
  readonly kind: EntityKind;
  readonly sourceKey?: string;
  readonly entityType?: string;
  readonly parentKey?: string;
  /** Only entities whose ARN is in this sub-select (SQL text and its parameters). */
  readonly arnIn?: { readonly sql: string; readonly params: readonly SqlValue[] };
  readonly createdAfter?: number;
  readonly createdBefore?: number;
  readonly sortBy: 'Name' | 'CreationTime';
  readonly descending: boolean;
  /** Position after the last row of the previous page: [created_at or name_key, arn]. */
  readonly after?: readonly [number | string | null, string];
  readonly limit: number;
}

const COLUMNS =
  'arn, kind, name_key, name, entity_type, source_key, unique_source, parent_key, doc, created_at, last_modified_at';
const COLUMN_LIST = COLUMNS.split(', ');

/** Rows per `IN (...)` list: well under both dialects' bound-parameter limits. */
export const IN_CHUNK = 500;

export class LineageEntityRepository {
  async insert(q: Queryable, p: Partition, row: LineageEntityRow): Promise<void> {
    await q.run(
      `INSERT INTO lineage_entities (account_id, region, ${COLUMNS}) VALUES (?, ?, ${COLUMN_LIST.map(() => '?').join(', ')})`,
      [p.accountId, p.region, ...COLUMN_LIST.map((c) => (row as unknown as Record<string, SqlValue>)[c] ?? null)],
    );
  }

  async getByArn(q: Queryable, p: Partition, arn: string, lock = false): Promise<LineageEntityRow | undefined> {
    return q.get<LineageEntityRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM lineage_entities WHERE arn = ? AND account_id = ? AND region = ?${lock && q.dialect === 'postgres' ? ' FOR UPDATE' : ''}`,
      [arn, p.accountId, p.region],
    );
  }

  async getByName(
    q: Queryable,
    p: Partition,
    kind: EntityKind,
    name: string,
    lock = false,
  ): Promise<LineageEntityRow | undefined> {
    return q.get<LineageEntityRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM lineage_entities WHERE account_id = ? AND region = ? AND kind = ? AND name_key = ?${lock && q.dialect === 'postgres' ? ' FOR UPDATE' : ''}`,
      [p.accountId, p.region, kind, name.toLowerCase()],
    );
  }

  /** The artifact with this artifactSourceKey(), if any. */
  async getArtifactBySource(q: Queryable, p: Partition, uniqueSource: string): Promise<LineageEntityRow | undefined> {
    return q.get<LineageEntityRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM lineage_entities WHERE account_id = ? AND region = ? AND unique_source = ?`,
      [p.accountId, p.region, uniqueSource],
    );
  }

  /** The oldest entity of a kind and type with this sourceKey(), if any. */
  async getBySource(
    q: Queryable,
    p: Partition,
    kind: EntityKind,
    key: string,
    entityType: string,
  ): Promise<LineageEntityRow | undefined> {
    return q.get<LineageEntityRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM lineage_entities WHERE account_id = ? AND region = ? AND kind = ? AND source_key = ? AND entity_type = ?
       ORDER BY source_key, entity_type, created_at, arn LIMIT 1`,
      [p.accountId, p.region, kind, key, entityType],
    );
  }

  /** The newest entity of a kind and type with this sourceKey(), if any (the same index, read backwards). */
  async getNewestBySource(
    q: Queryable,
    p: Partition,
    kind: EntityKind,
    key: string,
    entityType: string,
  ): Promise<LineageEntityRow | undefined> {
    return q.get<LineageEntityRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM lineage_entities WHERE account_id = ? AND region = ? AND kind = ? AND source_key = ? AND entity_type = ?
       ORDER BY source_key DESC, entity_type DESC, created_at DESC, arn DESC LIMIT 1`,
      [p.accountId, p.region, kind, key, entityType],
    );
  }

  /** Entities by ARN, in batches (QueryLineage vertices). Unknown ARNs are simply absent. */
  async getMany(q: Queryable, p: Partition, arns: readonly string[]): Promise<LineageEntityRow[]> {
    const out: LineageEntityRow[] = [];
    for (let i = 0; i < arns.length; i += IN_CHUNK) {
      const chunk = arns.slice(i, i + IN_CHUNK);
      out.push(
        ...(await q.all<LineageEntityRow & Record<string, unknown>>(
          `SELECT ${COLUMNS} FROM lineage_entities WHERE arn IN (${chunk.map(() => '?').join(', ')}) AND account_id = ? AND region = ?`,
          [...chunk, p.accountId, p.region],
        )),
      );
    }
    return out;
  }

  /** Name_keys of a kind equal to `base` or starting with `base-` (to pick a free generated name). */
  async namesLike(q: Queryable, p: Partition, kind: EntityKind, base: string): Promise<Set<string>> {
    const key = base.toLowerCase();
    const rows = await q.all<{ name_key: string }>(
      `SELECT name_key FROM lineage_entities WHERE account_id = ? AND region = ? AND kind = ? AND name_key >= ? AND name_key < ? ORDER BY name_key`,
      // Every key with the prefix `key` sorts in [key, key + U+FFFF) bytewise (SORTED_TEXT).
      [p.accountId, p.region, kind, key, `${key}\uffff`],
    );
    return new Set(rows.map((r) => r.name_key));
  }

  async update(
    q: Queryable,
    arn: string,
    set: Readonly<Partial<Record<keyof LineageEntityRow, SqlValue>>>,
  ): Promise<void> {
    const cols = Object.keys(set);
    await q.run(`UPDATE lineage_entities SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE arn = ?`, [
      ...cols.map((c) => (set as Record<string, SqlValue>)[c]!),
      arn,
    ]);
  }

  async delete(q: Queryable, arn: string): Promise<boolean> {
    return (await q.run(`DELETE FROM lineage_entities WHERE arn = ?`, [arn])).changes > 0;
  }

  async count(q: Queryable, p: Partition, kind: EntityKind, parentKey: string): Promise<number> {
    const row = await q.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM lineage_entities WHERE account_id = ? AND region = ? AND kind = ? AND parent_key = ?`,
      [p.accountId, p.region, kind, parentKey],
    );
    return Number(row?.n ?? 0);
  }

  /** One page in the requested order; ties are broken by ARN so pages never overlap. */
  async list(q: Queryable, p: Partition, query: EntityListQuery): Promise<LineageEntityRow[]> {
    const where = ['account_id = ?', 'region = ?', 'kind = ?'];
    const params: SqlValue[] = [p.accountId, p.region, query.kind];
    const add = (sql: string, ...v: SqlValue[]) => {
      where.push(sql);
      params.push(...v);
    };
    if (query.sourceKey !== undefined) add('source_key = ?', query.sourceKey);
    if (query.entityType !== undefined) add('entity_type = ?', query.entityType);
    if (query.parentKey !== undefined) add('parent_key = ?', query.parentKey);
    if (query.arnIn) add(`arn IN (${query.arnIn.sql})`, ...query.arnIn.params);
    if (query.createdAfter !== undefined) add('created_at > ?', query.createdAfter);
    if (query.createdBefore !== undefined) add('created_at < ?', query.createdBefore);
    const dir = query.descending ? 'DESC' : 'ASC';
    const cmp = query.descending ? '<' : '>';
    const col = query.sortBy === 'Name' ? 'name_key' : 'created_at';
    if (query.after)
      add(`(${col} ${cmp} ? OR (${col} = ? AND arn ${cmp} ?))`, query.after[0], query.after[0], query.after[1]);
    params.push(query.limit);
    return q.all<LineageEntityRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM lineage_entities WHERE ${where.join(' AND ')} ORDER BY ${col} ${dir}, arn ${dir} LIMIT ?`,
      params,
    );
  }

  /**
   * Every entity of the given kinds in one account and region, in pages of `pageSize` ordered by
   * ARN (the primary key): for exporters that must not hold a whole account in memory.
   */
  async *iterate(
    q: Queryable,
    p: Partition,
    kinds: readonly EntityKind[],
    pageSize = 1000,
  ): AsyncGenerator<LineageEntityRow[], void, undefined> {
    for (const kind of kinds) {
      let after = '';
      for (;;) {
        const rows = await q.all<LineageEntityRow & Record<string, unknown>>(
          `SELECT ${COLUMNS} FROM lineage_entities WHERE account_id = ? AND region = ? AND kind = ? AND arn > ? ORDER BY arn LIMIT ?`,
          [p.accountId, p.region, kind, after, pageSize],
        );
        if (rows.length === 0) break;
        yield rows;
        if (rows.length < pageSize) break;
        after = rows[rows.length - 1]!.arn;
      }
    }
  }
}
