// Storage hygiene of the embedded object store, run in the background: blob files no object and no
// upload part refers to (a crash mid-upload, a crash between a delete's commit and its unlink, a
// failed cleanup) are removed, and multipart uploads left open longer than the configured time are
// aborted, as S3's AbortIncompleteMultipartUpload lifecycle rule does.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpu-abort-incomplete-mpu-lifecycle-config.html
//
// Why it never removes a blob a writer is about to reference: a blob is written (and synced) before
// the row naming it commits, so a blob that will be referenced was written moments ago. Only files
// last written longer ago than the grace period are candidates, the database is read after they
// were listed (a row that commits before the read keeps its blob), and files this process is
// creating or writing are never listed. A commit that waits longer than the grace period after its
// blob's last write would lose it: the default grace (15 minutes) is far beyond any commit.
import type { Logger } from 'pino';
import type { LocalObjectStore } from './object-store.js';

export interface BlobGcOptions {
  /** Files last written within this long are never collected (ms). */
  readonly graceMs: number;
  /** Time between runs (ms); the first runs shortly after start. */
  readonly intervalMs: number;
  /** Uploads initiated longer ago than this are aborted (ms); 0 keeps them forever. */
  readonly uploadExpiryMs: number;
  readonly log: Logger;
  /** Told what each run did (metrics). */
  readonly onRun?: (r: BlobGcResult) => void;
}

export interface BlobGcResult {
  readonly expiredUploads: number;
  readonly removedBlobs: number;
  readonly removedBytes: number;
}

/** Objects read from the database per query while collecting. */
const PAGE = 1000;
/** Delay of the first run after start: the server takes its first requests before this work. */
const FIRST_RUN_MS = 2000;

export class BlobCollector {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<BlobGcResult> | undefined;
  #closed = false;

  constructor(
    private readonly store: LocalObjectStore,
    private readonly o: BlobGcOptions,
  ) {}

  start(): void {
    if (this.#closed || this.#timer) return;
    const schedule = (ms: number) => {
      this.#timer = setTimeout(() => {
        void this.run()
          .catch((err) => this.o.log.error({ err }, 'storage cleanup failed; it runs again later'))
          .finally(() => {
            if (!this.#closed) schedule(this.o.intervalMs);
          });
      }, ms);
      this.#timer.unref();
    };
    schedule(Math.min(FIRST_RUN_MS, this.o.intervalMs));
  }

  /** One pass (runs never overlap: a call during a run returns that run's result). */
  run(now = Date.now()): Promise<BlobGcResult> {
    this.#running ??= this.#pass(now).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running?.catch(() => undefined);
  }

  async #pass(now: number): Promise<BlobGcResult> {
    const expiredUploads = this.o.uploadExpiryMs > 0 ? await this.#expireUploads(now - this.o.uploadExpiryMs) : 0;
    const { removedBlobs, removedBytes } = await this.#collect(now - this.o.graceMs);
    const r = { expiredUploads, removedBlobs, removedBytes };
    if (expiredUploads > 0 || removedBlobs > 0) this.o.log.info(r, 'storage cleanup');
    this.o.onRun?.(r);
    return r;
  }

  async #expireUploads(before: number): Promise<number> {
    const { db, uploads } = this.store;
    let n = 0;
    for (;;) {
      const ids = await uploads.initiatedBefore(db, before, 100);
      for (const id of ids) if (!this.#closed && (await this.store.abortUpload(id))) n++;
      if (ids.length < 100 || this.#closed) return n;
    }
  }

  async #collect(writtenBefore: number): Promise<{ removedBlobs: number; removedBytes: number }> {
    const { db, objects, uploads, files } = this.store;
    // Listed first: whatever commits from now on is in the reads below.
    const candidates = await files.olderThan(writtenBefore);
    if (candidates.size === 0) return { removedBlobs: 0, removedBytes: 0 };
    for (const id of await uploads.partBlobIds(db)) candidates.delete(id);
    let after: { bucket: string; key: string } | undefined;
    do {
      const page = await objects.blobIdsPage(db, after, PAGE);
      for (const id of page.ids) candidates.delete(id);
      after = page.next;
    } while (after && candidates.size > 0 && !this.#closed);
    if (this.#closed) return { removedBlobs: 0, removedBytes: 0 };
    const orphans = [...candidates.keys()].filter((id) => !files.isUnfinished(id));
    await files.remove(orphans);
    let removedBytes = 0;
    for (const id of orphans) removedBytes += candidates.get(id) ?? 0;
    return { removedBlobs: orphans.length, removedBytes };
  }
}
