// The thread that checkpoints one SQLite WAL database for sqlite.ts, through a connection of its
// own, so copying committed pages back into the database file (and syncing it) never runs inside a
// COMMIT on the event loop. PASSIVE: it never waits for readers or the writer.
// https://www.sqlite.org/c3ref/wal_checkpoint_v2.html
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

const { path } = workerData as { path: string };
const db = new BetterSqlite3(path);
db.pragma('busy_timeout = 5000');
// The writer's durability setting: a checkpoint syncs the WAL before and the database after copying.
db.pragma('synchronous = NORMAL');

parentPort!.on('message', (m: 'checkpoint' | 'close') => {
  if (m === 'close') {
    db.close();
    parentPort!.close();
    return;
  }
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    parentPort!.postMessage({ ok: true, log: r?.log ?? 0, checkpointed: r?.checkpointed ?? 0 });
  } catch (err) {
    parentPort!.postMessage({ ok: false, message: (err as Error).message });
  }
});
