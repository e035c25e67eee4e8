// One repository for SageMaker resources that share a shape: named per account and region, an
// ARN, an optional status, timestamps, and the rest of the resource as a JSON document (the
// validated API input), so Describe echoes what Create was given without copying fields by hand.
import type { Partition } from '../../domain/arn.js';
import { escapeLike, LIKE_ESCAPE } from '../db/dialect.js';
import type { Queryable, SqlValue } from '../db/types.js';

export interface ResourceRow {
  readonly name_key: string;
  readonly name: string;
  readonly arn: string;
  readonly status: string | null;
  /** JSON text. */
  readonly doc: string;
  readonly created_at: number;
  readonly last_modified_at: number;
}

export type SortKey = 'name' | 'created' | 'status';

export interface ListQuery {
  readonly nameContains?: string;
  /** Names starting with this (any case). */
  readonly namePrefix?: string;
  readonly createdAfter?: number;
  readonly createdBefore?: number;
  readonly modifiedAfter?: number;
  readonly modifiedBefore?: number;
  readonly status?: string;
  /** Extra equality filters on table-specific columns. */
  readonly where?: Readonly<Record<string, SqlValue>>;
  readonly sortBy: SortKey;
  readonly descending: boolean;
  /** The last row of the previous page: [sort value, name_key]. */
  readonly after?: readonly [string | number | null, string];
  readonly limit: number;
}

const BASE = ['name_key', 'name', 'arn', 'status', 'doc', 'created_at', 'last_modified_at'] as const;
const SORT_COLUMN: Record<SortKey, string> = { name: 'name_key', created: 'created_at', status: 'status' };

export class ResourceTable<Row extends ResourceRow = ResourceRow> {
  private readonly columns: string;

  /** `extra` lists the table's own columns beyond the shared ones. */
  constructor(
    readonly table: string,
    private readonly extra: readonly string[] = [],
  ) {
    this.columns = [...BASE, ...extra].join(', ');
  }

  async insert(q: Queryable, p: Partition, row: Row): Promise<void> {
    const cols = [...BASE, ...this.extra];
    const values = cols.map((c) => (row as unknown as Record<string, SqlValue>)[c] ?? null);
    await q.run(
      `INSERT INTO ${this.table} (account_id, region, ${cols.join(', ')}) VALUES (?, ?, ${cols.map(() => '?').join(', ')})`,
      [p.accountId, p.region, ...values],
    );
  }

  async get(q: Queryable, p: Partition, nameKey: string, lock = false): Promise<Row | undefined> {
    return q.get<Row & Record<string, unknown>>(
      `SELECT ${this.columns} FROM ${this.table} WHERE account_id = ? AND region = ? AND name_key = ?${lock && q.dialect === 'postgres' ? ' FOR UPDATE' : ''}`,
      [p.accountId, p.region, nameKey],
    );
  }

  /** Rows of these names (absent ones are left out), up to 500 names per query. */
  async getMany(q: Queryable, p: Partition, nameKeys: readonly string[]): Promise<Row[]> {
    const out: Row[] = [];
    for (let i = 0; i < nameKeys.length; i += 500) {
      const chunk = nameKeys.slice(i, i + 500);
      out.push(
        ...(await q.all<Row & Record<string, unknown>>(
          `SELECT ${this.columns} FROM ${this.table} WHERE account_id = ? AND region = ? AND name_key IN (${chunk.map(() => '?').join(', ')})`,
          [p.accountId, p.region, ...chunk],
        )),
      );
    }
    return out;
  }

  async getByArn(q: Queryable, p: Partition, arn: string): Promise<Row | undefined> {
    return q.get<Row & Record<string, unknown>>(
      `SELECT ${this.columns} FROM ${this.table} WHERE account_id = ? AND region = ? AND arn = ?`,
      [p.accountId, p.region, arn],
    );
  }

  /** Updates the given columns; returns whether the row existed. */
  async update(q: Queryable, p: Partition, nameKey: string, set: Readonly<Record<string, SqlValue>>): Promise<boolean> {
    const cols = Object.keys(set);
    const r = await q.run(
      `UPDATE ${this.table} SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE account_id = ? AND region = ? AND name_key = ?`,
      [...cols.map((c) => set[c]!), p.accountId, p.region, nameKey],
    );
    return r.changes > 0;
  }

  async delete(q: Queryable, p: Partition, nameKey: string): Promise<boolean> {
    const r = await q.run(`DELETE FROM ${this.table} WHERE account_id = ? AND region = ? AND name_key = ?`, [
      p.accountId,
      p.region,
      nameKey,
    ]);
    return r.changes > 0;
  }

  async count(q: Queryable, p: Partition, where: Readonly<Record<string, SqlValue>>): Promise<number> {
    const cols = Object.keys(where);
    const row = await q.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM ${this.table} WHERE account_id = ? AND region = ?${cols.map((c) => ` AND ${c} = ?`).join('')}`,
      [p.accountId, p.region, ...cols.map((c) => where[c]!)],
    );
    return Number(row?.n ?? 0);
  }

  /** Rows in any state of a partition-independent status set (for resuming work after a restart). */
  async withStatus(
    q: Queryable,
    statuses: readonly string[],
  ): Promise<Array<Row & { account_id: string; region: string }>> {
    return q.all<Row & { account_id: string; region: string } & Record<string, unknown>>(
      `SELECT account_id, region, ${this.columns} FROM ${this.table} WHERE status IN (${statuses.map(() => '?').join(', ')})`,
      statuses,
    );
  }

  /** One page in the requested order; ties in the sort key are broken by name_key so pages never overlap. */
  async list(q: Queryable, p: Partition, query: ListQuery): Promise<Row[]> {
    const where = ['account_id = ?', 'region = ?'];
    const params: SqlValue[] = [p.accountId, p.region];
    const add = (sql: string, ...v: SqlValue[]) => {
      where.push(sql);
      params.push(...v);
    };
    if (query.nameContains !== undefined)
      add(`name_key LIKE ? ${LIKE_ESCAPE}`, `%${escapeLike(query.nameContains.toLowerCase())}%`);
    if (query.namePrefix !== undefined)
      add(`name_key LIKE ? ${LIKE_ESCAPE}`, `${escapeLike(query.namePrefix.toLowerCase())}%`);
    if (query.createdAfter !== undefined) add('created_at > ?', query.createdAfter);
    if (query.createdBefore !== undefined) add('created_at < ?', query.createdBefore);
    if (query.modifiedAfter !== undefined) add('last_modified_at > ?', query.modifiedAfter);
    if (query.modifiedBefore !== undefined) add('last_modified_at < ?', query.modifiedBefore);
    if (query.status !== undefined) add('status = ?', query.status);
    for (const [col, v] of Object.entries(query.where ?? {})) add(`${col} = ?`, v);
    const col = SORT_COLUMN[query.sortBy];
    const dir = query.descending ? 'DESC' : 'ASC';
    const cmp = query.descending ? '<' : '>';
    if (query.after) {
      if (col === 'name_key') add(`name_key ${cmp} ?`, query.after[1]);
      else
        add(`(${col} ${cmp} ? OR (${col} = ? AND name_key ${cmp} ?))`, query.after[0], query.after[0], query.after[1]);
    }
    const order = col === 'name_key' ? `name_key ${dir}` : `${col} ${dir}, name_key ${dir}`;
    params.push(query.limit);
    return q.all<Row & Record<string, unknown>>(
      `SELECT ${this.columns} FROM ${this.table} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ?`,
      params,
    );
  }

  /** The sort value of a row, for the next page's position. */
  sortValue(row: Row, sortBy: SortKey): string | number | null {
    return sortBy === 'name' ? row.name_key : sortBy === 'created' ? row.created_at : row.status;
  }
}
