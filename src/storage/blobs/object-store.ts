// The embedded object store: buckets, objects and multipart uploads as SQL metadata over blob files.
// Both the S3 API (src/services/s3) and the embedded BlobStore use it. Bytes are always written
// first (temporary file, fsync, rename) and become visible only when the metadata commits; blobs
// an object no longer uses are removed after that commit.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingObjects.html
import type { Readable } from 'node:stream';
import { Readable as ReadableStream } from 'node:stream';
import type { Database, Queryable } from '../db/types.js';
import { type BucketRow, S3BucketRepository } from '../repositories/s3-buckets.js';
import { type ListFrom, S3ObjectRepository, type StoredObject } from '../repositories/s3-objects.js';
import { type PartRow, S3UploadRepository, type UploadRow } from '../repositories/s3-uploads.js';
import { type BlobRange, FileStore, type WrittenBlob } from './file-store.js';

export type { BucketRow, ListFrom, PartRow, StoredObject, UploadRow, WrittenBlob, BlobRange };

export interface ObjectListing {
  readonly objects: StoredObject[];
  readonly commonPrefixes: string[];
  readonly truncated: boolean;
  /** Where the next page starts (when truncated). */
  readonly next?: ListFrom;
  /** The last key or common prefix of this page (S3's NextMarker). */
  readonly last?: string;
}

export interface UploadListing {
  readonly uploads: UploadRow[];
  readonly commonPrefixes: string[];
  readonly truncated: boolean;
  readonly nextKeyMarker?: string;
  readonly nextUploadIdMarker?: string;
}

/** Compares two strings in UTF-8 byte order (= code point order), the order S3 lists keys in. */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/**
 * The smallest string greater than every string that starts with `p` (undefined when none exists):
 * `p` with its last code point incremented. Code point order is UTF-8 byte order, so this is the
 * exclusive upper bound of a prefix range on a bytewise-sorted column.
 */
export function prefixUpperBound(p: string): string | undefined {
  const cps = Array.from(p);
  while (cps.length > 0) {
    const last = cps.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      cps.push(String.fromCodePoint(last + 1 === 0xd800 ? 0xe000 : last + 1));
      return cps.join('');
    }
  }
  return undefined;
}

const isEnoent = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT';

interface PendingCommit {
  readonly o: StoredObject;
  readonly check: ((existing: StoredObject | undefined) => void) | undefined;
  resolve(ok: boolean): void;
  reject(err: unknown): void;
}

type CommitOutcome =
  | { kind: 'ok'; replaced: StoredObject | undefined }
  | { kind: 'no-bucket' }
  | { kind: 'refused'; error: unknown };

/** Beyond this many segments an object's blobs are opened one at a time while streaming. */
const OPEN_AHEAD = 256;

export class LocalObjectStore {
  readonly buckets = new S3BucketRepository();
  readonly objects = new S3ObjectRepository();
  readonly uploads = new S3UploadRepository();

  constructor(
    readonly db: Database,
    readonly files: FileStore,
  ) {}

  static async open(db: Database, root: string): Promise<LocalObjectStore> {
    const files = new FileStore(root);
    await files.init();
    return new LocalObjectStore(db, files);
  }

  // ---- buckets

  /** Creates a bucket; returns the existing one instead when the name is taken. */
  async createBucket(row: BucketRow): Promise<{ created: boolean; bucket: BucketRow }> {
    const created = await this.buckets.insert(this.db, row);
    if (created) return { created, bucket: row };
    const existing = await this.buckets.get(this.db, row.name);
    return { created: false, bucket: existing ?? row };
  }

  getBucket(name: string): Promise<BucketRow | undefined> {
    return this.buckets.get(this.db, name);
  }

  listBuckets(accountId: string, opts: { prefix?: string; after?: string; limit: number }): Promise<BucketRow[]> {
    return this.buckets.list(this.db, accountId, opts);
  }

  /** Deletes an empty bucket (aborting its multipart uploads, as S3 does). */
  async deleteBucket(name: string): Promise<'deleted' | 'missing' | 'not-empty'> {
    const blobs: string[] = [];
    const result = await this.db.transaction(async (tx) => {
      if (!(await this.buckets.lockForDelete(tx, name))) return 'missing' as const;
      if (await this.objects.anyIn(tx, name)) return 'not-empty' as const;
      for (;;) {
        const page = await this.uploads.page(tx, name, { limit: 1000 });
        for (const u of page) for (const p of await this.uploads.delete(tx, u.uploadId)) blobs.push(p.blobId);
        if (page.length < 1000) break;
      }
      await this.buckets.delete(tx, name);
      return 'deleted' as const;
    });
    await this.files.remove(blobs);
    return result;
  }

  // ---- objects

  /** Streams bytes into a new, not yet visible blob. */
  writeBlob(source: Readable): Promise<WrittenBlob> {
    return this.files.write(source);
  }

  /** Removes blobs that will never be committed (a failed or refused upload). */
  discard(blobIds: readonly string[]): Promise<void> {
    return this.files.remove(blobIds);
  }

  /**
   * Makes an object visible, replacing any object at its key. Returns false (and discards its
   * blobs) when the bucket no longer exists; `check` may refuse the write by throwing.
   * Commits that arrive while one is running are grouped into the next transaction: a commit's
   * cost is mostly the fsync of the database log, and one fsync can cover many uploads.
   */
  commitObject(o: StoredObject, check?: (existing: StoredObject | undefined) => void): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.commitQueue.push({ o, check, resolve, reject });
      if (!this.committing) void this.drainCommits();
    });
  }

  private readonly commitQueue: PendingCommit[] = [];
  private committing = false;

  private async drainCommits(): Promise<void> {
    this.committing = true;
    try {
      while (this.commitQueue.length > 0) {
        // One turn of the event loop lets uploads whose bytes just finished join this group
        // (SQLite's commit blocks the loop while it syncs, so they arrive in bursts).
        await new Promise((resolve) => setImmediate(resolve));
        await this.commitBatch(this.commitQueue.splice(0, 128));
      }
    } finally {
      this.committing = false;
    }
  }

  private async commitBatch(batch: PendingCommit[]): Promise<void> {
    let outcomes: CommitOutcome[];
    try {
      outcomes = await this.db.transaction(async (tx) => {
        const out: CommitOutcome[] = [];
        for (const { o, check } of batch) {
          if (!(await this.buckets.getForWrite(tx, o.bucket))) {
            out.push({ kind: 'no-bucket' });
            continue;
          }
          // Conditional writes (If-None-Match: *) are decided against what is stored now, not at request start.
          if (check) {
            try {
              check(await this.objects.get(tx, o.bucket, o.key));
            } catch (error) {
              out.push({ kind: 'refused', error });
              continue;
            }
          }
          out.push({ kind: 'ok', replaced: await this.objects.put(tx, o) });
        }
        return out;
      });
    } catch (err) {
      // A failed statement aborts the whole group: commit each alone so only the culprit fails.
      if (batch.length > 1) {
        for (const item of batch) await this.commitBatch([item]);
        return;
      }
      outcomes = [{ kind: 'refused', error: err }];
    }
    // Settle without holding up the next group: removing files is not part of the commit.
    batch.forEach((item, i) => {
      const r = outcomes[i]!;
      const blobs = item.o.segments.map(([id]) => id);
      if (r.kind === 'ok') {
        const done = r.replaced ? this.discardReplaced(r.replaced, item.o) : Promise.resolve();
        done.then(
          () => item.resolve(true),
          () => item.resolve(true),
        );
      } else {
        this.discard(blobs)
          .catch(() => {})
          .then(() => (r.kind === 'no-bucket' ? item.resolve(false) : item.reject(r.error)));
      }
    });
  }

  /** Blobs of `old` that `current` does not reuse. */
  private discardReplaced(old: StoredObject, current?: StoredObject): Promise<void> {
    const keep = new Set(current?.segments.map(([id]) => id));
    return this.files.remove(old.segments.map(([id]) => id).filter((id) => !keep.has(id)));
  }

  getObject(bucket: string, key: string): Promise<StoredObject | undefined> {
    return this.objects.get(this.db, bucket, key);
  }

  /**
   * Looks an object up and opens its bytes. A concurrent overwrite may unlink the blobs between the
   * lookup and the open; the lookup is then repeated and finds the new object.
   */
  async readObject(
    bucket: string,
    key: string,
    range?: (o: StoredObject) => BlobRange | undefined,
  ): Promise<{ object: StoredObject; range?: BlobRange; stream: Readable } | undefined> {
    for (let attempt = 0; ; attempt++) {
      const object = await this.getObject(bucket, key);
      if (!object) return undefined;
      const r = range?.(object);
      try {
        return { object, ...(r ? { range: r } : {}), stream: await this.openObject(object, r) };
      } catch (err) {
        if (!isEnoent(err) || attempt >= 3) throw err;
      }
    }
  }

  /** The bytes of `o` (or of `range`), across its segments. */
  async openObject(o: StoredObject, range?: BlobRange): Promise<Readable> {
    const start = range?.start ?? 0;
    const end = range?.end ?? o.size - 1;
    const pieces: Array<{ id: string; range: BlobRange }> = [];
    let offset = 0;
    for (const [id, size] of o.segments) {
      const segStart = offset;
      const segEnd = offset + size - 1;
      offset += size;
      if (size === 0 || segEnd < start || segStart > end) continue;
      pieces.push({
        id,
        range: { start: Math.max(start, segStart) - segStart, end: Math.min(end, segEnd) - segStart },
      });
    }
    if (pieces.length === 0 || end < start) return ReadableStream.from([]);
    if (pieces.length === 1) return this.files.openRead(pieces[0]!.id, pieces[0]!.range);
    // Open the first blobs now: once open, a concurrent overwrite cannot take them away mid-stream.
    const opened = await Promise.all(pieces.slice(0, OPEN_AHEAD).map((p) => this.files.openRead(p.id, p.range)));
    const files = this.files;
    return ReadableStream.from(
      (async function* () {
        for (let i = 0; i < pieces.length; i++) {
          const s = opened[i] ?? (await files.openRead(pieces[i]!.id, pieces[i]!.range));
          try {
            yield* s;
          } finally {
            s.destroy();
          }
        }
      })(),
      { objectMode: false },
    ).on('close', () => {
      for (const s of opened) s.destroy();
    });
  }

  /** Deletes an object; true when there was one. */
  async deleteObject(bucket: string, key: string): Promise<boolean> {
    const old = await this.db.transaction((tx) => this.objects.delete(tx, bucket, key));
    if (old) await this.discardReplaced(old);
    return old !== undefined;
  }

  /**
   * One page of a listing in UTF-8 byte order. With a delimiter, keys that contain it after the
   * prefix roll up into one common prefix each; a page holds at most maxKeys keys and prefixes.
   * Common prefixes not after `from` (S3's marker / start-after) were on an earlier page and are skipped.
   */
  async listObjects(
    bucket: string,
    opts: { prefix?: string; delimiter?: string; from?: ListFrom; maxKeys: number },
  ): Promise<ObjectListing> {
    const prefix = opts.prefix ?? '';
    const delimiter = opts.delimiter || undefined;
    const below = prefix ? prefixUpperBound(prefix) : undefined;
    const marker = opts.from && 'after' in opts.from ? opts.from.after : undefined;
    const objects: StoredObject[] = [];
    const commonPrefixes: string[] = [];
    if (opts.maxKeys <= 0) return { objects, commonPrefixes, truncated: false };
    let cursor = opts.from;
    let last: string | undefined;
    let skipping: string | undefined;
    for (;;) {
      const want = opts.maxKeys - objects.length - commonPrefixes.length + 1;
      const limit = Math.min(Math.max(want, 100), 1000);
      const batch = await this.objects.page(this.db, bucket, { from: cursor, prefix, below, limit });
      for (const o of batch) {
        if (skipping !== undefined && o.key.startsWith(skipping)) continue;
        skipping = undefined;
        let cp: string | undefined;
        if (delimiter) {
          const i = o.key.indexOf(delimiter, prefix.length);
          if (i >= 0) cp = o.key.slice(0, i + delimiter.length);
        }
        if (cp !== undefined && marker !== undefined && compareUtf8(cp, marker) <= 0) {
          skipping = cp;
          continue;
        }
        if (objects.length + commonPrefixes.length === opts.maxKeys) {
          return { objects, commonPrefixes, truncated: true, next: cursor!, last };
        }
        if (cp !== undefined) {
          commonPrefixes.push(cp);
          skipping = cp;
          last = cp;
          const bound = prefixUpperBound(cp);
          cursor = bound === undefined ? { after: o.key } : { atOrAfter: bound };
        } else {
          objects.push(o);
          last = o.key;
          cursor = { after: o.key };
        }
      }
      if (batch.length === 0 || (batch.length < limit && skipping === undefined)) {
        return { objects, commonPrefixes, truncated: false, last };
      }
      // Keys inside a rolled-up prefix are not fetched again: continue from past the prefix.
      if (skipping !== undefined) {
        const bound = prefixUpperBound(skipping);
        if (bound === undefined) return { objects, commonPrefixes, truncated: false, last };
        cursor = { atOrAfter: bound };
        skipping = undefined;
      } else cursor = { after: batch[batch.length - 1]!.key };
    }
  }

  // ---- multipart uploads

  async createUpload(u: UploadRow): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (!(await this.buckets.getForWrite(tx, u.bucket))) return false;
      await this.uploads.insert(tx, u);
      return true;
    });
  }

  getUpload(uploadId: string): Promise<UploadRow | undefined> {
    return this.uploads.get(this.db, uploadId);
  }

  /** Records a written part; false (blob discarded) when the upload is gone. */
  async commitPart(uploadId: string, part: PartRow): Promise<boolean> {
    let replaced: PartRow | undefined;
    let ok = false;
    try {
      ok = await this.db.transaction(async (tx) => {
        if (!(await this.uploads.getLocked(tx, uploadId))) return false;
        replaced = await this.uploads.putPart(tx, uploadId, part);
        return true;
      });
    } catch (err) {
      await this.discard([part.blobId]).catch(() => {});
      throw err;
    }
    if (!ok) await this.discard([part.blobId]);
    else if (replaced) await this.discard([replaced.blobId]);
    return ok;
  }

  /**
   * Completes an upload: `build` turns the upload and its parts into the object (or throws, e.g.
   * InvalidPart, leaving everything as it was). Parts left out are removed, as S3 does.
   */
  async completeUpload(
    uploadId: string,
    build: (upload: UploadRow, parts: PartRow[]) => StoredObject,
  ): Promise<{ object: StoredObject } | 'no-upload' | 'no-bucket'> {
    let replaced: StoredObject | undefined;
    let unused: string[] = [];
    const result = await this.db.transaction(async (tx) => {
      const upload = await this.uploads.getLocked(tx, uploadId);
      if (!upload) return 'no-upload' as const;
      if (!(await this.buckets.getForWrite(tx, upload.bucket))) return 'no-bucket' as const;
      const parts = await this.uploads.parts(tx, uploadId);
      const object = build(upload, parts);
      const used = new Set(object.segments.map(([id]) => id));
      unused = parts.map((p) => p.blobId).filter((id) => !used.has(id));
      replaced = await this.objects.put(tx, object);
      await this.uploads.delete(tx, uploadId);
      return { object };
    });
    if (typeof result === 'object') {
      await this.discard(unused);
      if (replaced) await this.discardReplaced(replaced, result.object);
    }
    return result;
  }

  /** Aborts an upload and removes its parts; false when there was no such upload. */
  async abortUpload(uploadId: string): Promise<boolean> {
    const parts = await this.db.transaction(async (tx) => {
      if (!(await this.uploads.getLocked(tx, uploadId))) return undefined;
      return this.uploads.delete(tx, uploadId);
    });
    if (!parts) return false;
    await this.discard(parts.map((p) => p.blobId));
    return true;
  }

  listParts(uploadId: string, opts: { after?: number; limit: number }): Promise<PartRow[]> {
    return this.uploads.parts(this.db, uploadId, opts);
  }

  /** Uploads in (key, upload id) order, with the same delimiter roll-up as object listings. */
  async listUploads(
    bucket: string,
    opts: { prefix?: string; delimiter?: string; keyMarker?: string; uploadIdMarker?: string; maxUploads: number },
  ): Promise<UploadListing> {
    const prefix = opts.prefix ?? '';
    const delimiter = opts.delimiter || undefined;
    const below = prefix ? prefixUpperBound(prefix) : undefined;
    const uploads: UploadRow[] = [];
    const commonPrefixes: string[] = [];
    if (opts.maxUploads <= 0) return { uploads, commonPrefixes, truncated: false };
    let afterKey = opts.keyMarker || undefined;
    let afterUploadId = afterKey !== undefined ? opts.uploadIdMarker || undefined : undefined;
    let atOrAfterKey: string | undefined;
    let lastKey: string | undefined;
    let lastId: string | undefined;
    const q: Queryable = this.db;
    for (;;) {
      const batch = await this.uploads.page(q, bucket, {
        prefix,
        below,
        afterKey,
        afterUploadId,
        atOrAfterKey,
        limit: 1000,
      });
      let jumped = false;
      for (const u of batch) {
        let cp: string | undefined;
        if (delimiter) {
          const i = u.key.indexOf(delimiter, prefix.length);
          if (i >= 0) cp = u.key.slice(0, i + delimiter.length);
        }
        if (cp !== undefined && opts.keyMarker !== undefined && compareUtf8(cp, opts.keyMarker) <= 0) continue;
        if (uploads.length + commonPrefixes.length === opts.maxUploads) {
          return { uploads, commonPrefixes, truncated: true, nextKeyMarker: lastKey, nextUploadIdMarker: lastId };
        }
        if (cp !== undefined) {
          commonPrefixes.push(cp);
          lastKey = cp;
          lastId = undefined;
          const bound = prefixUpperBound(cp);
          if (bound !== undefined) {
            atOrAfterKey = bound;
            afterKey = undefined;
            afterUploadId = undefined;
            jumped = true;
            break;
          }
        } else {
          uploads.push(u);
          lastKey = u.key;
          lastId = u.uploadId;
        }
      }
      if (jumped) continue;
      if (batch.length < 1000) return { uploads, commonPrefixes, truncated: false };
      const tail = batch[batch.length - 1]!;
      afterKey = tail.key;
      afterUploadId = tail.uploadId;
      atOrAfterKey = undefined;
    }
  }
}
