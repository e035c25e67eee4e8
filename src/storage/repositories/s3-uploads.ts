// Multipart uploads in progress and their parts. https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html
import { forUpdate } from '../db/dialect.js';
import type { Queryable, SqlValue } from '../db/types.js';

export interface UploadRow {
  readonly uploadId: string;
  readonly bucket: string;
  readonly key: string;
  readonly initiated: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly userMetadata: Readonly<Record<string, string>>;
  readonly checksumAlgorithm?: string;
}

export interface PartRow {
  readonly partNumber: number;
  readonly size: number;
  /** Quoted MD5 of the part. */
  readonly etag: string;
  readonly blobId: string;
  readonly checksum?: string;
  readonly lastModified: number;
}

interface RawUpload {
  upload_id: string;
  bucket: string;
  object_key: string;
  initiated: number;
  headers: string;
  user_metadata: string;
  checksum_algorithm: string | null;
}

interface RawPart {
  part_number: number;
  size: number;
  etag: string;
  blob_id: string;
  checksum_value: string | null;
  last_modified: number;
}

const UPLOAD_COLUMNS = 'upload_id, bucket, object_key, initiated, headers, user_metadata, checksum_algorithm';
const PART_COLUMNS = 'part_number, size, etag, blob_id, checksum_value, last_modified';

const upload = (r: RawUpload): UploadRow => ({
  uploadId: r.upload_id,
  bucket: r.bucket,
  key: r.object_key,
  initiated: Number(r.initiated),
  headers: JSON.parse(r.headers),
  userMetadata: JSON.parse(r.user_metadata),
  ...(r.checksum_algorithm ? { checksumAlgorithm: r.checksum_algorithm } : {}),
});

const part = (r: RawPart): PartRow => ({
  partNumber: Number(r.part_number),
  size: Number(r.size),
  etag: r.etag,
  blobId: r.blob_id,
  ...(r.checksum_value ? { checksum: r.checksum_value } : {}),
  lastModified: Number(r.last_modified),
});

export class S3UploadRepository {
  async insert(q: Queryable, u: UploadRow): Promise<void> {
    await q.run(`INSERT INTO s3_uploads (${UPLOAD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`, [
      u.uploadId,
      u.bucket,
      u.key,
      u.initiated,
      JSON.stringify(u.headers),
      JSON.stringify(u.userMetadata),
      u.checksumAlgorithm ?? null,
    ]);
  }

  async get(q: Queryable, uploadId: string): Promise<UploadRow | undefined> {
    const r = await q.get<RawUpload & Record<string, unknown>>(
      `SELECT ${UPLOAD_COLUMNS} FROM s3_uploads WHERE upload_id = ?`,
      [uploadId],
    );
    return r && upload(r);
  }

  /** Reads and locks the upload: parts can no longer be added once Complete or Abort holds it. */
  async getLocked(q: Queryable, uploadId: string): Promise<UploadRow | undefined> {
    const r = await q.get<RawUpload & Record<string, unknown>>(
      `SELECT ${UPLOAD_COLUMNS} FROM s3_uploads WHERE upload_id = ?${forUpdate(q)}`,
      [uploadId],
    );
    return r && upload(r);
  }

  /** Deletes the upload and its part rows; returns the parts (their blobs are the caller's to keep or remove). */
  async delete(q: Queryable, uploadId: string): Promise<PartRow[]> {
    const parts = await this.parts(q, uploadId);
    await q.run(`DELETE FROM s3_parts WHERE upload_id = ?`, [uploadId]);
    await q.run(`DELETE FROM s3_uploads WHERE upload_id = ?`, [uploadId]);
    return parts;
  }

  /** Stores a part (inside a transaction holding the upload); returns the part it replaced. */
  async putPart(q: Queryable, uploadId: string, p: PartRow): Promise<PartRow | undefined> {
    const prev = await q.get<RawPart & Record<string, unknown>>(
      `SELECT ${PART_COLUMNS} FROM s3_parts WHERE upload_id = ? AND part_number = ?${forUpdate(q)}`,
      [uploadId, p.partNumber],
    );
    const values: SqlValue[] = [p.size, p.etag, p.blobId, p.checksum ?? null, p.lastModified];
    if (prev) {
      await q.run(
        `UPDATE s3_parts SET size = ?, etag = ?, blob_id = ?, checksum_value = ?, last_modified = ? WHERE upload_id = ? AND part_number = ?`,
        [...values, uploadId, p.partNumber],
      );
      return part(prev);
    }
    await q.run(
      `INSERT INTO s3_parts (upload_id, part_number, size, etag, blob_id, checksum_value, last_modified) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [uploadId, p.partNumber, ...values],
    );
    return undefined;
  }

  /** The blob ids of every part of every open upload (garbage collection keeps them). */
  async partBlobIds(q: Queryable): Promise<string[]> {
    return (await q.all<{ blob_id: string }>(`SELECT blob_id FROM s3_parts`)).map((r) => r.blob_id);
  }

  /** Ids of uploads initiated before `before` (ms), oldest first: AbortIncompleteMultipartUpload's candidates. */
  async initiatedBefore(q: Queryable, before: number, limit: number): Promise<string[]> {
    const rows = await q.all<{ upload_id: string }>(
      `SELECT upload_id FROM s3_uploads WHERE initiated < ? ORDER BY initiated LIMIT ?`,
      [before, limit],
    );
    return rows.map((r) => r.upload_id);
  }

  /** Parts in part-number order, after `after`. */
  async parts(q: Queryable, uploadId: string, opts: { after?: number; limit?: number } = {}): Promise<PartRow[]> {
    const rows = await q.all<RawPart & Record<string, unknown>>(
      `SELECT ${PART_COLUMNS} FROM s3_parts WHERE upload_id = ? AND part_number > ? ORDER BY part_number LIMIT ?`,
      [uploadId, opts.after ?? 0, opts.limit ?? 100_000],
    );
    return rows.map(part);
  }

  /** Uploads of a bucket ordered by key then upload id (ids sort by creation time), after a (key, id) marker. */
  async page(
    q: Queryable,
    bucket: string,
    opts: {
      prefix?: string;
      below?: string;
      afterKey?: string;
      afterUploadId?: string;
      atOrAfterKey?: string;
      limit: number;
    },
  ): Promise<UploadRow[]> {
    const where = ['bucket = ?'];
    const p: SqlValue[] = [bucket];
    if (opts.afterKey !== undefined) {
      if (opts.afterUploadId !== undefined) {
        where.push('(object_key > ? OR (object_key = ? AND upload_id > ?))');
        p.push(opts.afterKey, opts.afterKey, opts.afterUploadId);
      } else {
        where.push('object_key > ?');
        p.push(opts.afterKey);
      }
    }
    if (opts.atOrAfterKey !== undefined) {
      where.push('object_key >= ?');
      p.push(opts.atOrAfterKey);
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
    const rows = await q.all<RawUpload & Record<string, unknown>>(
      `SELECT ${UPLOAD_COLUMNS} FROM s3_uploads WHERE ${where.join(' AND ')} ORDER BY object_key, upload_id LIMIT ?`,
      p,
    );
    return rows.map(upload);
  }
}
