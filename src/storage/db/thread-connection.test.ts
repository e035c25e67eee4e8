// SqliteDatabase.threadTransaction: a transaction on a connection of its own on a worker thread.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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

  it('SLIPWAY_SQL_PROFILE: the time per statement, and with =spans each one, written to stderr at close', () => {
    // In a process of its own: the setting is read when the thread's module loads.
    const script = `
      import { mkdtempSync } from 'node:fs';
      import { tmpdir } from 'node:os';
      import { join } from 'node:path';
      import { openSqlite } from ${JSON.stringify(new URL('./sqlite.js', import.meta.url).href)};
      const db = await openSqlite({ dataDir: mkdtempSync(join(tmpdir(), 'slipway-sql-profile-')) });
      await db.run('CREATE TABLE p (k TEXT)');
      await db.threadTransaction(async (tx) => {
        for (let i = 0; i < 3; i++) await tx.run('INSERT INTO p (k) VALUES (?)', [String(i)]);
      });
      await db.close();`;
    const file = join(dir, 'profile.mjs');
    writeFileSync(file, script);
    // (Without the test runner's own variables: the child is not a test file.)
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const r = spawnSync(process.execPath, [file], { env: { ...env, SLIPWAY_SQL_PROFILE: 'spans' }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /^SQL +\d+ ms +3x INSERT INTO p \(k\) VALUES \(\?\)$/m);
    const spans = r.stderr.split('\n').find((l) => l.startsWith('SQL spans '));
    // BEGIN, three inserts, COMMIT, close: a start and a duration each.
    assert.equal((JSON.parse(spans!.slice('SQL spans '.length)) as number[]).length, 12);
  });
});
