// Search's index (migration 0040_search): the values at each property path of every searchable
// resource, and the queue of resources written since they were last indexed (filled by triggers).
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_Search.html
import type { Partition } from '../../domain/arn.js';
import type { Queryable, SqlValue } from '../db/types.js';

/** One indexed value: a number (timestamps as epoch ms) or a text. */
export type IndexValue =
  | { readonly num: number; readonly str?: undefined }
  | { readonly str: string; readonly num?: undefined };

/** A row of a driving scan: the resource, and its value at the scanned path (the page position). */
export interface ScanRow {
  readonly doc_id: number;
  readonly arn: string;
  readonly n: number | null;
  readonly s: string | null;
}

export type Bound = { readonly op: '>' | '>=' | '<' | '<=' | '='; readonly value: number | string };

/** A scan of one path's values in order, optionally restricted to the resources where another path equals a value. */
export interface ScanQuery {
  readonly pathId: number;
  readonly column: 'num' | 'str';
  readonly bounds: readonly Bound[];
  readonly descending: boolean;
  readonly where?: { readonly pathId: number; readonly column: 'num' | 'str'; readonly value: number | string };
  /** The position of the last row already seen: [value, doc_id]. */
  readonly after?: readonly [number | string, number];
  readonly limit: number;
}

/** Values per INSERT statement: 4 parameters each, under both dialects' limits (SQLite 32766, PostgreSQL 65535). */
const INSERT_CHUNK = 2000;

/** Rows per `IN (...)` list or multi-row INSERT of resources. */
const CHUNK = 500;

function chunks<T>(xs: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += CHUNK) out.push(xs.slice(i, i + CHUNK));
  return out;
}

export class SearchIndexRepository {
  /** Path ids by partition, resource type and path; dropped when an indexing transaction fails. */
  private readonly paths = new Map<string, number>();

  async hasDirty(q: Queryable): Promise<boolean> {
    return (await q.get('SELECT arn FROM search_dirty LIMIT 1')) !== undefined;
  }

  /** Up to `limit` dirty ARNs, locked so that concurrent indexers (other replicas) take others. */
  async takeDirty(q: Queryable, limit: number): Promise<string[]> {
    const lock = q.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    const rows = await q.all<{ arn: string }>(`SELECT arn FROM search_dirty ORDER BY arn LIMIT ?${lock}`, [limit]);
    return rows.map((r) => r.arn);
  }

  async clearDirty(q: Queryable, arns: readonly string[]): Promise<void> {
    for (const c of chunks(arns))
      await q.run(`DELETE FROM search_dirty WHERE arn IN (${c.map(() => '?').join(', ')})`, c);
  }

  forgetPaths(): void {
    this.paths.clear();
  }

  /** The id of a path, created when `create` (indexing) or undefined when no resource ever had it. */
  async pathId(q: Queryable, p: Partition, type: string, path: string, create: boolean): Promise<number | undefined> {
    const key = `${p.accountId}|${p.region}|${type}|${path}`;
    const cached = this.paths.get(key);
    if (cached !== undefined) return cached;
    const find = () =>
      q.get<{ id: number }>(
        'SELECT id FROM search_paths WHERE account_id = ? AND region = ? AND resource_type = ? AND path = ?',
        [p.accountId, p.region, type, path],
      );
    let row = await find();
    if (!row && create) {
      await q.run(
        'INSERT INTO search_paths (account_id, region, resource_type, path) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
        [p.accountId, p.region, type, path],
      );
      row = await find();
    }
    if (!row) return undefined;
    this.paths.set(key, Number(row.id));
    return Number(row.id);
  }

  /**
   * Replaces every indexed value of these resources (all of one type and partition), and forgets
   * the resources in `gone`: a few statements per batch, whatever its size.
   */
  async replace(
    q: Queryable,
    p: Partition,
    type: string,
    docs: ReadonlyArray<readonly [arn: string, values: ReadonlyArray<readonly [path: string, value: IndexValue]>]>,
    gone: readonly string[] = [],
  ): Promise<void> {
    const all = [...docs.map(([arn]) => arn), ...gone];
    if (all.length === 0) return;
    const list = (n: number) => Array.from({ length: n }, () => '?').join(', ');
    const ids = new Map<string, number>();
    for (const c of chunks(all)) {
      const existing = await q.all<{ id: number; arn: string }>(
        `SELECT id, arn FROM search_docs WHERE arn IN (${list(c.length)})`,
        c,
      );
      for (const r of existing) ids.set(r.arn, Number(r.id));
      const old = existing.map((r) => Number(r.id));
      if (old.length > 0) await q.run(`DELETE FROM search_values WHERE doc_id IN (${list(old.length)})`, old);
    }
    const goneIds = gone.flatMap((arn) => (ids.has(arn) ? [ids.get(arn)!] : []));
    for (const c of chunks(goneIds)) await q.run(`DELETE FROM search_docs WHERE id IN (${list(c.length)})`, c);
    for (const c of chunks(docs.filter(([arn]) => !ids.has(arn)).map(([arn]) => arn))) {
      const created = await q.all<{ id: number; arn: string }>(
        `INSERT INTO search_docs (account_id, region, resource_type, arn) VALUES ${c.map(() => '(?, ?, ?, ?)').join(', ')} RETURNING id, arn`,
        c.flatMap((arn) => [p.accountId, p.region, type, arn]),
      );
      for (const r of created) ids.set(r.arn, Number(r.id));
    }
    const rows: SqlValue[] = [];
    for (const [arn, values] of docs) {
      for (const [path, v] of values) {
        rows.push((await this.pathId(q, p, type, path, true))!, v.num ?? null, v.str ?? null, ids.get(arn)!);
      }
    }
    for (let i = 0; i < rows.length; i += INSERT_CHUNK * 4) {
      const chunk = rows.slice(i, i + INSERT_CHUNK * 4);
      await q.run(
        `INSERT INTO search_values (path_id, num, str, doc_id) VALUES ${Array.from({ length: chunk.length / 4 }, () => '(?, ?, ?, ?)').join(', ')}`,
        chunk,
      );
    }
  }

  /**
   * One batch of a driving scan: an index range over (path, value, doc) in the requested order,
   * after the last position seen. With `where`, only resources having that other value, whose
   * set is collected first (an index range too) and then ordered by the scanned path.
   */
  async scan(q: Queryable, s: ScanQuery): Promise<ScanRow[]> {
    const col = `v.${s.column}`;
    const where = ['v.path_id = ?', `${col} IS NOT NULL`];
    const params: SqlValue[] = [s.pathId];
    for (const b of s.bounds) {
      where.push(`${col} ${b.op} ?`);
      params.push(b.value);
    }
    if (s.after) {
      where.push(`(${col}, v.doc_id) ${s.descending ? '<' : '>'} (?, ?)`);
      params.push(s.after[0], s.after[1]);
    }
    let from = 'search_values v';
    if (s.where) {
      from = `(SELECT DISTINCT doc_id FROM search_values WHERE path_id = ? AND ${s.where.column} = ?) f
              JOIN search_values v ON v.doc_id = f.doc_id`;
      params.unshift(s.where.pathId, s.where.value);
    }
    const dir = s.descending ? 'DESC' : 'ASC';
    params.push(s.limit);
    return q.all<ScanRow & Record<string, unknown>>(
      `SELECT v.doc_id AS doc_id, d.arn AS arn, v.num AS n, v.str AS s FROM ${from} JOIN search_docs d ON d.id = v.doc_id
       WHERE ${where.join(' AND ')} ORDER BY ${col} ${dir}, v.doc_id ${dir} LIMIT ?`,
      params,
    );
  }
}
