// Object bytes on disk: one file per blob, <root>/blobs/<32 hex>, named by a random id
// and never by the object key, so no key (`../../etc/passwd`, NUL bytes) can address a path.
// A blob is written under its final name and synced (bytes and directory entry) before its object's
// metadata row commits; only that row makes it visible, so an object exists whole or not at all.
// Uploads take files from a pool created ahead of time, whose directory entries are already durable
// (one directory sync per batch): a PUT then waits only for its own bytes' fdatasync.
import { randomBytes } from 'node:crypto';
import { close, closeSync, createReadStream, fdatasync, ftruncate, open as openCb, unlinkSync, writev } from 'node:fs';
import { mkdir, open, readdir, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PassThrough, type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GroupSync } from '../group-sync.js';

const BLOB_ID = /^[0-9a-f]{32}$/;
const READ_CHUNK = 256 * 1024;
const WRITE_BUFFER = 1024 * 1024;
/** Files kept ready for uploads, and the level below which more are made (in one batch). */
const POOL_SIZE = 64;
const POOL_LOW = 48;

/** A created, empty blob file whose directory entry is durable, open for writing. */
interface Ready {
  readonly id: string;
  readonly fd: number;
}

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
   * Directory syncs shared by the callers waiting together. One directory (no fan-out) lets
   * concurrent uploads share a sync: every file created before a sync starts is covered by it.
   */
  private readonly dirSync = new GroupSync(() => syncDir(this.blobs));
  private readonly pool: Ready[] = [];
  /** Ids of files in the pool, being made for it, or being written: not (yet) blobs for list(). */
  private readonly unfinished = new Set<string>();
  /** Ids being written (for temporaryFiles()). */
  private readonly writing = new Set<string>();
  private refilling = false;
  private closed = false;

  constructor(private readonly root: string) {
    this.blobs = join(root, 'blobs');
    this.tmp = join(root, 'tmp');
  }

  /**
   * Creates the directories (durably: blob files are synced into them) and drops temporary files
   * older versions, which wrote to <root>/tmp first, may have left behind.
   */
  async init(): Promise<void> {
    await mkdir(this.blobs, { recursive: true });
    await rm(this.tmp, { recursive: true, force: true });
    await mkdir(this.tmp, { recursive: true });
    await syncDir(this.root);
    await syncDir(dirname(this.root));
    await this.refill().catch(() => {});
  }

  /**
   * Closes and removes the pooled files (at shutdown, when no write is running). A crash leaves
   * them behind as empty files no metadata names: invisible, like a blob whose commit never came.
   */
  close(): void {
    this.closed = true;
    for (const r of this.pool.splice(0)) {
      try {
        closeSync(r.fd);
        unlinkSync(join(this.blobs, r.id));
      } catch {
        // already gone
      }
      this.unfinished.delete(r.id);
    }
  }

  private maybeRefill(): void {
    if (!this.refilling && !this.closed && this.pool.length < POOL_LOW) void this.refill().catch(() => {});
  }

  /** Creates files up to POOL_SIZE, then one directory sync makes all their entries durable. */
  private async refill(): Promise<void> {
    if (this.refilling) return;
    this.refilling = true;
    const made: Ready[] = [];
    try {
      // Created on the thread pool, never with openSync: under load a file creation waits for the
      // journal commit that concurrent fdatasyncs started (ext4 measured 0.8 ms per create, a fifth
      // of the main thread), and the main thread must not wait with it.
      const opened = await Promise.allSettled(
        Array.from({ length: POOL_SIZE - this.pool.length }, async () => made.push(await this.create())),
      );
      const failed = opened.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      await this.syncBlobDir();
      if (this.closed) throw new Error('closed');
      this.pool.push(...made);
    } catch (err) {
      await Promise.all(made.map((r) => this.drop(r)));
      throw err;
    } finally {
      this.refilling = false;
    }
  }

  /** Creates an empty blob file, open for writing, under a new id (not a blob until written). */
  private async create(): Promise<Ready> {
    const id = FileStore.newId();
    this.unfinished.add(id);
    try {
      return { id, fd: await fdOpen(join(this.blobs, id)) };
    } catch (err) {
      this.unfinished.delete(id);
      throw err;
    }
  }

  /** Closes and removes a file that will never hold a blob. */
  private async drop(r: Ready): Promise<void> {
    await fdClose(r.fd).catch(() => {});
    await unlink(join(this.blobs, r.id)).catch(() => {});
    this.unfinished.delete(r.id);
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
   * client that went away) the file is emptied and returned to the pool (or removed) and the error
   * rethrown: a failed write leaves no blob behind.
   *
   * The file has its final name from the start: what makes an object appear is its metadata row,
   * committed only after this returns, so a blob file no row names is invisible (a crash mid-write
   * leaves such a file behind, as a crash between rename and commit did before). Before returning,
   * both the bytes (fdatasync: data, size and block map) and the directory entry are durable, so a
   * committed row never names a file a crash could lose. A pooled file's entry was made durable
   * when the pool was filled; a file created here (pool empty) waits for a directory sync that
   * started after its creation and ran while the body streamed in.
   */
  async write(source: Readable): Promise<WrittenBlob> {
    let target = this.pool.pop();
    let dirSynced: Promise<void> | undefined;
    if (!target) {
      this.maybeRefill();
      target = await this.create();
      dirSynced = this.syncBlobDir();
      // Awaited below; a rejection before then must not count as unhandled.
      dirSynced.catch(() => {});
    }
    const { id, fd } = target;
    this.writing.add(id);
    let size = 0;
    // The write or sync in flight: a failed upload waits for it before the fd is reused or closed.
    let busy: Promise<void> = Promise.resolve();
    const track = (start: (done: (err?: Error | null) => void) => void, cb: (err?: Error | null) => void) => {
      busy = new Promise((settled) =>
        start((err) => {
          settled();
          cb(err);
        }),
      );
    };
    try {
      // writev hands the kernel every chunk buffered while the previous write ran: few syscalls, no copies.
      const out = new Writable({
        highWaterMark: WRITE_BUFFER,
        writev(chunks, cb) {
          const bufs = chunks.map((c) => c.chunk as Buffer);
          const at = size;
          for (const b of bufs) size += b.length;
          track((done) => writeAll(fd, bufs, at, done), cb);
        },
        final(cb) {
          // fdatasync: the bytes and the length, without a journal commit for timestamps.
          track((done) => fdatasync(fd, done), cb);
        },
      });
      await pipeline(source, out);
      if (dirSynced) await dirSynced;
    } catch (err) {
      await busy;
      this.writing.delete(id);
      // A pooled file goes back, emptied: a failed upload changes nothing on disk.
      if (dirSynced || this.closed || !(await fdTruncate(fd))) await this.drop(target);
      else this.pool.push(target);
      throw err;
    }
    this.writing.delete(id);
    this.unfinished.delete(id);
    this.maybeRefill();
    // Closing a synced file is a few microseconds: not worth a thread-pool round trip.
    closeSync(fd);
    return { id, size };
  }

  /** Makes files created in the blob directory so far durable, sharing a sync with concurrent callers. */
  private syncBlobDir(): Promise<void> {
    return this.dirSync.request();
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

  /** Every blob id on disk whose write has finished (for tests and garbage collection). */
  async list(): Promise<string[]> {
    const out: string[] = [];
    for (const f of await readdir(this.blobs)) if (BLOB_ID.test(f) && !this.unfinished.has(f)) out.push(f);
    return out;
  }

  /**
   * Blob files last written before `before` (ms since epoch), with their sizes: garbage collection's
   * candidates. Files this process is creating, pooling or writing are never among them.
   */
  async olderThan(before: number): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const names = (await readdir(this.blobs)).filter((f) => BLOB_ID.test(f) && !this.unfinished.has(f));
    for (let i = 0; i < names.length; i += 256) {
      await Promise.all(
        names.slice(i, i + 256).map(async (id) => {
          const s = await stat(join(this.blobs, id)).catch(() => undefined);
          if (s && s.mtimeMs < before && !this.unfinished.has(id)) out.set(id, s.size);
        }),
      );
    }
    return out;
  }

  /** Whether this process is writing (or pooling) the blob right now. */
  isUnfinished(id: string): boolean {
    return this.unfinished.has(id);
  }

  /** Blobs being written, and files left in the old temporary directory (a finished or failed write leaves none). */
  async temporaryFiles(): Promise<string[]> {
    return [...this.writing, ...(await readdir(this.tmp))];
  }
}

// Plain file descriptors and callbacks: the FileHandle promise API costs measurably more main-thread
// time per call, and an upload makes several.
function fdOpen(path: string): Promise<number> {
  return new Promise((resolve, reject) => openCb(path, 'wx', 0o600, (err, fd) => (err ? reject(err) : resolve(fd))));
}

function fdClose(fd: number): Promise<void> {
  return new Promise((resolve, reject) => close(fd, (err) => (err ? reject(err) : resolve())));
}

/** Empties a file for reuse; false when that failed. */
function fdTruncate(fd: number): Promise<boolean> {
  return new Promise((resolve) => ftruncate(fd, 0, (err) => resolve(!err)));
}

/** writev at `position`, continuing after a short write. */
function writeAll(fd: number, bufs: Buffer[], position: number, cb: (err?: Error | null) => void): void {
  writev(fd, bufs, position, (err, written) => {
    if (err) return cb(err);
    if (written === 0) return cb(new Error('writev wrote nothing'));
    let rest = written;
    let i = 0;
    while (i < bufs.length && rest >= bufs[i]!.length) rest -= bufs[i++]!.length;
    if (i === bufs.length) return cb();
    writeAll(fd, [bufs[i]!.subarray(rest), ...bufs.slice(i + 1)], position + written, cb);
  });
}

/** fsync a directory so the entries created in it survive a power loss. */
async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
