// Model package groups. https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateModelPackageGroup.html
import type { Partition } from '../../domain/arn.js';
import type { Queryable, SqlValue } from '../db/types.js';

export interface ModelPackageGroupRow {
  readonly name_key: string;
  readonly name: string;
  readonly arn: string;
  readonly description: string | null;
  readonly status: string;
  readonly created_by: string;
  readonly created_at: number;
}

export interface GroupListQuery {
  readonly nameContains?: string;
  readonly createdAfter?: number;
  readonly createdBefore?: number;
  readonly sortBy: 'Name' | 'CreationTime';
  readonly descending: boolean;
  /** Sort key of the last row of the previous page: [created_at or name_key, name_key]. */
  readonly after?: readonly [number | string, string];
  readonly limit: number;
}

const COLUMNS = 'name_key, name, arn, description, status, created_by, created_at';

/** LIKE pattern matching `s` anywhere, with LIKE's wildcards escaped. */
export function containsPattern(s: string): string {
  return `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export class ModelPackageGroupRepository {
  async insert(q: Queryable, p: Partition, row: ModelPackageGroupRow): Promise<void> {
    await q.run(
      `INSERT INTO model_package_groups (account_id, region, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        p.accountId,
        p.region,
        row.name_key,
        row.name,
        row.arn,
        row.description,
        row.status,
        row.created_by,
        row.created_at,
      ],
    );
  }

  /** `lock` takes a row lock on PostgreSQL (SQLite's single writer already serialises). */
  async get(q: Queryable, p: Partition, name: string, lock = false): Promise<ModelPackageGroupRow | undefined> {
    return q.get<ModelPackageGroupRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM model_package_groups WHERE account_id = ? AND region = ? AND name_key = ?${lock && q.dialect === 'postgres' ? ' FOR UPDATE' : ''}`,
      [p.accountId, p.region, name.toLowerCase()],
    );
  }

  async delete(q: Queryable, p: Partition, name: string): Promise<boolean> {
    const r = await q.run(`DELETE FROM model_package_groups WHERE account_id = ? AND region = ? AND name_key = ?`, [
      p.accountId,
      p.region,
      name.toLowerCase(),
    ]);
    return r.changes > 0;
  }

  /** One page in the requested order; ties in the sort key are broken by name so pages never overlap. */
  async list(q: Queryable, p: Partition, query: GroupListQuery): Promise<ModelPackageGroupRow[]> {
    const where = ['account_id = ?', 'region = ?'];
    const params: SqlValue[] = [p.accountId, p.region];
    if (query.nameContains !== undefined) {
      where.push(`name_key LIKE ? ESCAPE '\\'`);
      params.push(containsPattern(query.nameContains));
    }
    if (query.createdAfter !== undefined) {
      where.push('created_at > ?');
      params.push(query.createdAfter);
    }
    if (query.createdBefore !== undefined) {
      where.push('created_at < ?');
      params.push(query.createdBefore);
    }
    const dir = query.descending ? 'DESC' : 'ASC';
    const cmp = query.descending ? '<' : '>';
    const sortCol = query.sortBy === 'Name' ? 'name_key' : 'created_at';
    if (query.after) {
      if (query.sortBy === 'Name') {
        where.push(`name_key ${cmp} ?`);
        params.push(query.after[1]);
      } else {
        where.push(`(created_at ${cmp} ? OR (created_at = ? AND name_key ${cmp} ?))`);
        params.push(query.after[0], query.after[0], query.after[1]);
      }
    }
    params.push(query.limit);
    const order = query.sortBy === 'Name' ? `name_key ${dir}` : `${sortCol} ${dir}, name_key ${dir}`;
    return q.all<ModelPackageGroupRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM model_package_groups WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ?`,
      params,
    );
  }
}
