// Object bytes on disk: one file per blob, <root>/blobs/<32 hex>, named by a random id
// and never by the object key, so no key (`../../etc/passwd`, NUL bytes) can address a path.
// A blob is written under its final name and synced (bytes and directory entry) before its object's
// metadata row commits; only that row makes it visible, so an object exists whole or not at all.
import { randomBytes } from 'node:crypto';
import { close, createReadStream, fdatasync, open as openCb, writev } from 'node:fs';
import { mkdir, open, readdir, rm, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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
   * a sync: every file created before a sync starts is covered by it.
   */
  private readonly dirSyncWaiters: Array<{ resolve(): void; reject(err: unknown): void }> = [];
  private dirSyncing = false;

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
   * client that went away) the file is removed and the error rethrown.
   *
   * The file is created under its final name: what makes an object appear is its metadata row,
   * committed only after this returns, so a blob file no row names is invisible (a crash mid-write
   * leaves such a file behind, as a crash between rename and commit did before). Before returning,
   * both the bytes (fdatasync: data, size and block map) and the directory entry (a directory sync
   * that started after the file was created) are durable, so a committed row never names a file
   * a crash could lose. The directory sync runs while the body streams in, and one sync covers
   * every file created before it started: no rename and no directory sync on the request's path.
   */
  async write(source: Readable): Promise<WrittenBlob> {
    const id = FileStore.newId();
    const path = join(this.blobs, id);
    const fd = await fdOpen(path);
    const dirSynced = this.syncBlobDir();
    // Awaited below; a rejection before then must not count as unhandled.
    dirSynced.catch(() => {});
    let size = 0;
    try {
      // writev hands the kernel every chunk buffered while the previous write ran: few syscalls, no copies.
      const out = new Writable({
        highWaterMark: WRITE_BUFFER,
        writev(chunks, cb) {
          const bufs = chunks.map((c) => c.chunk as Buffer);
          for (const b of bufs) size += b.length;
          writeAll(fd, bufs, cb);
        },
        final(cb) {
          // fdatasync: the bytes and the length, without a journal commit for timestamps.
          fdatasync(fd, cb);
        },
      });
      await pipeline(source, out);
      await dirSynced;
    } catch (err) {
      await fdClose(fd).catch(() => {});
      await unlink(path).catch(() => {});
      throw err;
    }
    await fdClose(fd);
    return { id, size };
  }

  /** Makes files created in the blob directory so far durable, sharing a sync with concurrent callers. */
  private syncBlobDir(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.dirSyncWaiters.push({ resolve, reject });
      if (!this.dirSyncing) void this.runDirSyncs();
    });
  }

  private async runDirSyncs(): Promise<void> {
    this.dirSyncing = true;
    while (this.dirSyncWaiters.length > 0) {
      // Everyone in this group created their file before the sync below starts, so it covers them all.
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

// Plain file descriptors and callbacks: the FileHandle promise API costs measurably more main-thread
// time per call, and an upload makes several.
function fdOpen(path: string): Promise<number> {
  return new Promise((resolve, reject) => openCb(path, 'wx', 0o600, (err, fd) => (err ? reject(err) : resolve(fd))));
}

function fdClose(fd: number): Promise<void> {
  return new Promise((resolve, reject) => close(fd, (err) => (err ? reject(err) : resolve())));
}

/** writev, continuing after a short write. */
function writeAll(fd: number, bufs: Buffer[], cb: (err?: Error | null) => void): void {
  writev(fd, bufs, (err, written) => {
    if (err) return cb(err);
    if (written === 0) return cb(new Error('writev wrote nothing'));
    let rest = written;
    let i = 0;
    while (i < bufs.length && rest >= bufs[i]!.length) rest -= bufs[i++]!.length;
    if (i === bufs.length) return cb();
    writeAll(fd, [bufs[i]!.subarray(rest), ...bufs.slice(i + 1)], cb);
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
