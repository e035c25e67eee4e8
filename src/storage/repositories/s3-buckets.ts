// S3 buckets of the embedded object store. https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateBucket.html
import { dialectSql } from '../db/dialect.js';
import type { Queryable } from '../db/types.js';

export interface BucketRow {
  readonly name: string;
  readonly account_id: string;
  readonly region: string;
  readonly created_at: number;
}

export class S3BucketRepository {
  /** Inserts the bucket; false when the name is taken. */
  async insert(q: Queryable, row: BucketRow): Promise<boolean> {
    const r = await q.run(
      `INSERT INTO s3_buckets (name, account_id, region, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
      [row.name, row.account_id, row.region, row.created_at],
    );
    return r.changes > 0;
  }

  async get(q: Queryable, name: string): Promise<BucketRow | undefined> {
    return q.get<BucketRow & Record<string, unknown>>(
      `SELECT name, account_id, region, created_at FROM s3_buckets WHERE name = ?`,
      [name],
    );
  }

  /**
   * Reads the bucket inside a write transaction and keeps it from being deleted until commit
   * (PostgreSQL FOR SHARE; SQLite's single writer already excludes a concurrent DeleteBucket).
   */
  async getForWrite(q: Queryable, name: string): Promise<BucketRow | undefined> {
    const lock = dialectSql(q, { sqlite: '', postgres: ' FOR SHARE' });
    return q.get<BucketRow & Record<string, unknown>>(
      `SELECT name, account_id, region, created_at FROM s3_buckets WHERE name = ?${lock}`,
      [name],
    );
  }

  /** Locks the bucket row against concurrent writers (DeleteBucket). */
  async lockForDelete(q: Queryable, name: string): Promise<BucketRow | undefined> {
    const lock = dialectSql(q, { sqlite: '', postgres: ' FOR UPDATE' });
    return q.get<BucketRow & Record<string, unknown>>(
      `SELECT name, account_id, region, created_at FROM s3_buckets WHERE name = ?${lock}`,
      [name],
    );
  }

  async delete(q: Queryable, name: string): Promise<void> {
    await q.run(`DELETE FROM s3_buckets WHERE name = ?`, [name]);
  }

  /** Buckets of an account in name order, after `after` (exclusive). */
  async list(
    q: Queryable,
    accountId: string,
    opts: { prefix?: string; after?: string; limit: number },
  ): Promise<BucketRow[]> {
    const where = ['account_id = ?'];
    const params: (string | number)[] = [accountId];
    if (opts.after !== undefined) {
      where.push('name > ?');
      params.push(opts.after);
    }
    if (opts.prefix) {
      where.push('substr(name, 1, ?) = ?');
      params.push(opts.prefix.length, opts.prefix);
    }
    params.push(opts.limit);
    return q.all<BucketRow & Record<string, unknown>>(
      `SELECT name, account_id, region, created_at FROM s3_buckets WHERE ${where.join(' AND ')} ORDER BY name LIMIT ?`,
      params,
    );
  }
}
