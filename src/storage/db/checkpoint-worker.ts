// The thread that checkpoints one SQLite WAL database for sqlite.ts, through a connection of its
// own, so copying committed pages back into the database file (and syncing it) never runs inside a
// COMMIT on the event loop. PASSIVE: it never waits for readers or the writer. When writes have
// paused, 'truncate' also gives the WAL file's space back (TRUNCATE, waiting at most a moment).
// https://www.sqlite.org/c3ref/wal_checkpoint_v2.html
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

const { path, journalSizeLimit } = workerData as { path: string; journalSizeLimit: number };
const db = new BetterSqlite3(path);
db.pragma('busy_timeout = 5000');
// A WAL this connection resets is cut back to this size.
db.pragma(`journal_size_limit = ${journalSizeLimit}`);
// The writer's durability setting: a checkpoint syncs the WAL before and the database after copying.
db.pragma('synchronous = NORMAL');

type Result = { busy: number; log: number; checkpointed: number };

parentPort!.on('message', (m: 'checkpoint' | 'truncate' | 'close') => {
  if (m === 'close') {
    db.close();
    parentPort!.close();
    return;
  }
  try {
    let [r] = db.pragma('wal_checkpoint(PASSIVE)') as Result[];
    if (m === 'truncate' && r && r.busy === 0 && r.log === r.checkpointed) {
      // Every frame is in the database file: truncating only waits for readers of older
      // snapshots, and writers wait for it, so it may wait 50 ms at most (else: next pause).
      db.pragma('busy_timeout = 50');
      try {
        [r] = db.pragma('wal_checkpoint(TRUNCATE)') as Result[];
      } finally {
        db.pragma('busy_timeout = 5000');
      }
    }
    parentPort!.postMessage({ ok: true, log: r?.log ?? 0, checkpointed: r?.checkpointed ?? 0 });
  } catch (err) {
    parentPort!.postMessage({ ok: false, message: (err as Error).message });
  }
});
