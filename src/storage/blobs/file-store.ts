// Object bytes on disk: one file per blob, <root>/blobs/<32 hex>, named by a random id
// and never by the object key, so no key (`../../etc/passwd`, NUL bytes) can address a path.
// Writes go to <root>/tmp, are fsynced and only then renamed into place: a blob exists whole or not at all.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const BLOB_ID = /^[0-9a-f]{32}$/;
const READ_CHUNK = 256 * 1024;
const WRITE_BUFFER = 1024 * 1024;

export interface WrittenBlob {
  readonly id: string;
  readonly size: number;
}

/** A byte range within a blob, both ends inclusive (HTTP Range semantics). */
export interface BlobRange {
  readonly start: number;
  readonly end: number;
}

export class FileStore {
  private readonly blobs: string;
  private readonly tmp: string;
  /**
   * Callers waiting for a directory sync. One directory (no fan-out) lets concurrent uploads share
   * a sync: every rename done before a sync starts is covered by it.
   */
  private readonly dirSyncWaiters: Array<{ resolve(): void; reject(err: unknown): void }> = [];
  private dirSyncing = false;

  constructor(root: string) {
    this.blobs = join(root, 'blobs');
    this.tmp = join(root, 'tmp');
  }

  /** Creates the directories and drops temporary files a crash may have left behind. */
  async init(): Promise<void> {
    await mkdir(this.blobs, { recursive: true });
    await rm(this.tmp, { recursive: true, force: true });
    await mkdir(this.tmp, { recursive: true });
  }

  static newId(): string {
    return randomBytes(16).toString('hex');
  }

  private pathOf(id: string): string {
    // Ids come from newId() or our own database; checking anyway keeps a corrupted row from naming a path.
    if (!BLOB_ID.test(id)) throw new Error(`not a blob id: ${JSON.stringify(id)}`);
    return join(this.blobs, id);
  }

  /**
   * Streams `source` into a new blob. On any error (the source's included: a failed checksum, a
   * client that went away) the temporary file is removed and the error rethrown.
   */
  async write(source: Readable): Promise<WrittenBlob> {
    const id = FileStore.newId();
    const tmpPath = join(this.tmp, id);
    const fh = await open(tmpPath, 'wx', 0o600);
    let size = 0;
    try {
      // writev hands the kernel every chunk buffered while the previous write ran: few syscalls, no copies.
      const out = new Writable({
        highWaterMark: WRITE_BUFFER,
        writev(chunks, cb) {
          const bufs = chunks.map((c) => c.chunk as Buffer);
          for (const b of bufs) size += b.length;
          fh.writev(bufs).then(() => cb(), cb);
        },
        final(cb) {
          // fdatasync: the bytes and the length, without a journal commit for timestamps.
          fh.datasync().then(() => cb(), cb);
        },
      });
      await pipeline(source, out);
    } catch (err) {
      await fh.close().catch(() => {});
      await unlink(tmpPath).catch(() => {});
      throw err;
    }
    await fh.close();
    try {
      await rename(tmpPath, this.pathOf(id));
      await this.syncBlobDir();
    } catch (err) {
      await unlink(tmpPath).catch(() => {});
      throw err;
    }
    return { id, size };
  }

  /** Makes renames into the blob directory durable, sharing a sync with concurrent callers. */
  private syncBlobDir(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.dirSyncWaiters.push({ resolve, reject });
      if (!this.dirSyncing) void this.runDirSyncs();
    });
  }

  private async runDirSyncs(): Promise<void> {
    this.dirSyncing = true;
    while (this.dirSyncWaiters.length > 0) {
      // Everyone in this group renamed before the sync below starts, so it covers them all.
      const group = this.dirSyncWaiters.splice(0);
      try {
        await syncDir(this.blobs);
        for (const w of group) w.resolve();
      } catch (err) {
        for (const w of group) w.reject(err);
      }
    }
    this.dirSyncing = false;
  }

  /** Writes a buffer as a blob (small objects written by Slipway itself). */
  writeBuffer(data: Buffer): Promise<WrittenBlob> {
    const s = new PassThrough();
    s.end(data);
    return this.write(s);
  }

  /**
   * Opens a blob now (so a concurrent overwrite that unlinks it cannot break this read) and
   * returns a stream of `range`. Throws ENOENT when the blob is gone.
   */
  async openRead(id: string, range?: BlobRange): Promise<Readable> {
    const fh = await open(this.pathOf(id), 'r');
    return createReadStream('', {
      fd: fh,
      start: range?.start,
      end: range?.end,
      highWaterMark: READ_CHUNK,
    });
  }

  /** Removes blobs; missing ones are fine (already removed by a concurrent delete). */
  async remove(ids: readonly string[]): Promise<void> {
    await Promise.all(
      ids.map((id) =>
        unlink(this.pathOf(id)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
        }),
      ),
    );
  }

  /** Every blob id on disk (for tests and garbage collection). */
  async list(): Promise<string[]> {
    const out: string[] = [];
    for (const f of await readdir(this.blobs)) if (BLOB_ID.test(f)) out.push(f);
    return out;
  }

  /** Names of the temporary files (a finished or failed write leaves none). */
  async temporaryFiles(): Promise<string[]> {
    return readdir(this.tmp);
  }
}

/** fsync a directory so the rename into it survives a power loss. */
async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
