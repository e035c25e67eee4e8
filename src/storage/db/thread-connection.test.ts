// SqliteDatabase.threadTransaction: a transaction on a connection of its own on a worker thread.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openSqlite } from './sqlite.js';
import { type Database, UniqueViolationError } from './types.js';

describe('SQLite threadTransaction', () => {
  let dir: string;
  let db: Database;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'slipway-thread-tx-'));
    db = await openSqlite({ dataDir: dir });
    await db.run('CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT, n REAL)');
  });
  after(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('commits what the callback wrote; reads inside see it, in the order sent', async () => {
    const rows: (string | number | null)[] = [];
    // 300 parameters: sent packed (strings, numbers and nulls, an empty string and non-ASCII text).
    for (let i = 0; i < 100; i++) rows.push(`k${i}`, i % 7 === 0 ? null : i % 3 === 0 ? '' : `välue ${i} ✓`, i * 1.5);
    const n = await db.threadTransaction!(async (tx) => {
      const written = tx.run(`INSERT INTO t (k, v, n) VALUES ${new Array(100).fill('(?,?,?)').join(',')}`, rows);
      // Sent before the insert is answered, answered after it.
      const count = tx.get<{ c: number }>('SELECT count(*) AS c FROM t');
      assert.equal((await written).changes, 100);
      return (await count)!.c;
    });
    assert.equal(n, 100);
    const back = await db.all<{ k: string; v: string | null; n: number }>('SELECT k, v, n FROM t ORDER BY rowid');
    assert.deepEqual(
      back.flatMap((r) => [r.k, r.v, r.n]),
      rows,
    );
  });

  it('rolls back when the callback throws, and maps a unique violation', async () => {
    await assert.rejects(
      db.threadTransaction!(async (tx) => {
        await tx.run('INSERT INTO t (k, v) VALUES (?, ?)', ['new', 'x']);
        await tx.run('INSERT INTO t (k, v) VALUES (?, ?)', ['k1', 'again']);
      }),
      UniqueViolationError,
    );
    assert.equal(await db.get('SELECT k FROM t WHERE k = ?', ['new']), undefined);
    // The writer is free again.
    await db.run('INSERT INTO t (k, v) VALUES (?, ?)', ['after', 'y']);
    assert.equal((await db.get<{ v: string }>('SELECT v FROM t WHERE k = ?', ['after']))!.v, 'y');
  });

  it('holds the writer: a write through the database waits for the transaction', async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const tx = db.threadTransaction!(async (q) => {
      await q.run('INSERT INTO t (k, v) VALUES (?, ?)', ['tx', '1']);
      await gate;
      order.push('tx');
    });
    const write = db.run('INSERT INTO t (k, v) VALUES (?, ?)', ['plain', '2']).then(() => order.push('plain'));
    setTimeout(release, 50);
    await Promise.all([tx, write]);
    assert.deepEqual(order, ['tx', 'plain']);
  });
});
