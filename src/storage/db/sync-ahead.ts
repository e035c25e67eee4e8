// Syncs a file over and over while a long write goes on, so that the sync its caller must wait for
// at the end has only the last part left to write. A bulk load into SQLite writes ~500 MB to the
// WAL in one transaction; the kernel keeps it all dirty (writeback starts at 10 % of memory or
// after 30 s), and the fdatasync after its COMMIT then took ~1.1 s of a 10 s load, the disk
// idle until then.

/** Time between the end of one background sync and the start of the next. */
export const SYNC_AHEAD_INTERVAL_MS = 200;

export interface SyncAhead {
  /**
   * Stops syncing; resolves once the sync under way (if any) has ended. Rejects with the first
   * background sync's failure: on Linux a write-back error is reported to one fsync only, so the
   * caller's own sync afterwards could succeed although data was lost.
   */
  stop(): Promise<void>;
}

/** Runs `sync` every `intervalMs` (after the previous one ended) until stop(). */
export function syncAhead(sync: () => Promise<void>, intervalMs = SYNC_AHEAD_INTERVAL_MS): SyncAhead {
  let stopped = false;
  let failure: unknown;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, intervalMs);
        // Never what keeps a process alive.
        timer.unref();
      });
      if (stopped) break;
      try {
        await sync();
      } catch (err) {
        failure = err;
        break;
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
      await loop;
      if (failure !== undefined) throw failure;
    },
  };
}
