// Object metadata of the embedded S3 store; the bytes are blobs named in `segments`.
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html
import { forUpdate } from '../db/dialect.js';
import type { Queryable, SqlValue } from '../db/types.js';

/** One stored blob of an object, in order (a single-part object has one). */
export type Segment = readonly [blobId: string, size: number];

export interface StoredObject {
  readonly bucket: string;
  readonly key: string;
  readonly size: number;
  /** Quoted, as S3 sends it: `"<md5>"` or `"<md5-of-md5s>-<parts>"`. */
  readonly etag: string;
  readonly lastModified: number;
  /** Standard headers stored with the object (content-type, cache-control, expires...), lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** x-amz-meta-* values by lower-case name without the prefix. */
  readonly userMetadata: Readonly<Record<string, string>>;
  readonly checksum?: { readonly algorithm: string; readonly value: string; readonly type: string };
  readonly partsCount?: number;
  readonly segments: readonly Segment[];
}

interface Row {
  bucket: string;
  object_key: string;
  size: number;
  etag: string;
  last_modified: number;
  headers: string;
  user_metadata: string;
  checksum_algorithm: string | null;
  checksum_value: string | null;
  checksum_type: string | null;
  parts_count: number | null;
  segments: string;
}

const COLUMNS =
  'bucket, object_key, size, etag, last_modified, headers, user_metadata, checksum_algorithm, checksum_value, checksum_type, parts_count, segments';

function fromRow(r: Row): StoredObject {
  return {
    bucket: r.bucket,
    key: r.object_key,
    size: Number(r.size),
    etag: r.etag,
    lastModified: Number(r.last_modified),
    headers: JSON.parse(r.headers),
    userMetadata: JSON.parse(r.user_metadata),
    ...(r.checksum_algorithm && r.checksum_value
      ? {
          checksum: {
            algorithm: r.checksum_algorithm,
            value: r.checksum_value,
            type: r.checksum_type ?? 'FULL_OBJECT',
          },
        }
      : {}),
    ...(r.parts_count !== null && r.parts_count !== undefined ? { partsCount: Number(r.parts_count) } : {}),
    segments: JSON.parse(r.segments),
  };
}

function params(o: StoredObject): SqlValue[] {
  return [
    o.size,
    o.etag,
    o.lastModified,
    JSON.stringify(o.headers),
    JSON.stringify(o.userMetadata),
    o.checksum?.algorithm ?? null,
    o.checksum?.value ?? null,
    o.checksum?.type ?? null,
    o.partsCount ?? null,
    JSON.stringify(o.segments),
  ];
}

/** Where a listing page starts: after a key, or at a bound (inclusive) that skips a rolled-up prefix. */
export type ListFrom = { readonly after: string } | { readonly atOrAfter: string };

export class S3ObjectRepository {
  async get(q: Queryable, bucket: string, key: string): Promise<StoredObject | undefined> {
    const r = await q.get<Row & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM s3_objects WHERE bucket = ? AND object_key = ?`,
      [bucket, key],
    );
    return r && fromRow(r);
  }

  private async getLocked(q: Queryable, bucket: string, key: string): Promise<StoredObject | undefined> {
    const r = await q.get<Row & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM s3_objects WHERE bucket = ? AND object_key = ?${forUpdate(q)}`,
      [bucket, key],
    );
    return r && fromRow(r);
  }

  /**
   * Creates or replaces the object (inside a transaction) and returns the one it replaced, whose
   * blobs the caller removes after commit. Concurrent writers of one key never orphan a blob: the
   * row is locked before it is read, and an insert race is resolved by re-reading the winner.
   */
  async put(q: Queryable, o: StoredObject): Promise<StoredObject | undefined> {
    let previous = await this.getLocked(q, o.bucket, o.key);
    if (!previous) {
      const r = await q.run(
        `INSERT INTO s3_objects (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (bucket, object_key) DO NOTHING`,
        [o.bucket, o.key, ...params(o)],
      );
      if (r.changes > 0) return undefined;
      previous = await this.getLocked(q, o.bucket, o.key);
    }
    await q.run(
      `UPDATE s3_objects SET size = ?, etag = ?, last_modified = ?, headers = ?, user_metadata = ?, checksum_algorithm = ?,
        checksum_value = ?, checksum_type = ?, parts_count = ?, segments = ? WHERE bucket = ? AND object_key = ?`,
      [...params(o), o.bucket, o.key],
    );
    return previous;
  }

  /** Deletes the object; returns it (for its blobs) or undefined when there was none. */
  async delete(q: Queryable, bucket: string, key: string): Promise<StoredObject | undefined> {
    const previous = await this.getLocked(q, bucket, key);
    if (previous) await q.run(`DELETE FROM s3_objects WHERE bucket = ? AND object_key = ?`, [bucket, key]);
    return previous;
  }

  /**
   * The blob ids of a page of objects in (bucket, key) order after `after` (garbage collection reads
   * every object this way, a page at a time); `next` is where the following page starts.
   */
  async blobIdsPage(
    q: Queryable,
    after: { bucket: string; key: string } | undefined,
    limit: number,
  ): Promise<{ ids: string[]; next?: { bucket: string; key: string } }> {
    const rows = await q.all<{ bucket: string; object_key: string; segments: string }>(
      after
        ? `SELECT bucket, object_key, segments FROM s3_objects WHERE bucket > ? OR (bucket = ? AND object_key > ?)
           ORDER BY bucket, object_key LIMIT ?`
        : `SELECT bucket, object_key, segments FROM s3_objects ORDER BY bucket, object_key LIMIT ?`,
      after ? [after.bucket, after.bucket, after.key, limit] : [limit],
    );
    const ids: string[] = [];
    for (const r of rows) for (const [id] of JSON.parse(r.segments) as Segment[]) ids.push(id);
    const last = rows[rows.length - 1];
    return { ids, next: rows.length === limit && last ? { bucket: last.bucket, key: last.object_key } : undefined };
  }

  async anyIn(q: Queryable, bucket: string): Promise<boolean> {
    return (await q.get(`SELECT 1 AS one FROM s3_objects WHERE bucket = ? LIMIT 1`, [bucket])) !== undefined;
  }

  /**
   * Up to `limit` objects in UTF-8 byte order (the columns sort bytewise on both dialects),
   * from `from`, within [prefix, below).
   */
  async page(
    q: Queryable,
    bucket: string,
    opts: { from?: ListFrom; prefix?: string; below?: string; limit: number },
  ): Promise<StoredObject[]> {
    const where = ['bucket = ?'];
    const p: SqlValue[] = [bucket];
    if (opts.from && 'after' in opts.from) {
      where.push('object_key > ?');
      p.push(opts.from.after);
    } else if (opts.from) {
      where.push('object_key >= ?');
      p.push(opts.from.atOrAfter);
    }
    if (opts.prefix) {
      where.push('object_key >= ?');
      p.push(opts.prefix);
    }
    if (opts.below !== undefined) {
      where.push('object_key < ?');
      p.push(opts.below);
    }
    p.push(opts.limit);
    const rows = await q.all<Row & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM s3_objects WHERE ${where.join(' AND ')} ORDER BY object_key LIMIT ?`,
      p,
    );
    return rows.map(fromRow);
  }
}
