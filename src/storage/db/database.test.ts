// Behaviour of the SQL seam, run identically against every dialect in test/support/databases.ts.

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep, setImmediate as tick } from 'node:timers/promises';
import { DIALECTS, type TestDatabase } from '../../../test/support/databases.js';
import {
  type Database,
  escapeLike,
  forUpdate,
  LIKE_ESCAPE,
  type Migration,
  MigrationError,
  openDatabase,
  TransactionAbortedError,
  UniqueViolationError,
} from './index.js';

const MIGRATIONS: Migration[] = [
  {
    id: '0001_things',
    both: [
      'CREATE TABLE things (id TEXT PRIMARY KEY, name TEXT NOT NULL, n BIGINT, f DOUBLE PRECISION, flag INTEGER)',
      'CREATE UNIQUE INDEX things_name ON things (name)',
    ],
  },
  {
    id: '0002_blobs',
    sqlite: ['CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)'],
    postgres: ['CREATE TABLE blobs (id TEXT PRIMARY KEY, data BYTEA)'],
  },
  { id: '0003_counters', both: ['CREATE TABLE counters (id TEXT PRIMARY KEY, n INTEGER NOT NULL)'] },
];

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

for (const d of DIALECTS) {
  describe(d.name, () => {
    let t: TestDatabase;
    let db: Database;
    beforeEach(async () => {
      t = await d.open(MIGRATIONS);
      db = t.db;
    });
    afterEach(async () => {
      await t.cleanup();
    });

    it('reports its dialect', () => {
      assert.equal(db.dialect, d.name);
    });

    it('reports its size on disk, and it grows with what is written', async () => {
      const before = (await db.sizes!()).databaseBytes;
      assert.ok(before > 0);
      await db.transaction(async (tx) => {
        for (let i = 0; i < 200; i++)
          await tx.run('INSERT INTO things (id, name) VALUES (?, ?)', [`s${i}`, 'y'.repeat(2000) + i]);
      });
      const after = await db.sizes!();
      // SQLite's rows sit in the WAL until a checkpoint: the two together grew.
      assert.ok(after.databaseBytes + (after.walBytes ?? 0) > before + 200_000, JSON.stringify({ before, after }));
    });

    it('all / get / run', async () => {
      assert.deepEqual(await db.run('INSERT INTO things (id, name, n) VALUES (?, ?, ?)', ['a', 'alpha', 1]), {
        changes: 1,
      });
      await db.run('INSERT INTO things (id, name, n) VALUES (?, ?, ?)', ['b', 'beta', 2]);
      assert.deepEqual(await db.all('SELECT id, n FROM things ORDER BY id'), [
        { id: 'a', n: 1 },
        { id: 'b', n: 2 },
      ]);
      assert.deepEqual(await db.get('SELECT name FROM things WHERE id = ?', ['b']), { name: 'beta' });
      assert.equal(await db.get('SELECT name FROM things WHERE id = ?', ['zzz']), undefined);
      assert.deepEqual(await db.run('UPDATE things SET n = n + 10', []), { changes: 2 });
      assert.deepEqual(await db.run('DELETE FROM things WHERE id = ?', ['nope']), { changes: 0 });
      // DDL reports no changes on both dialects (SQLite would otherwise repeat the last DML count).
      assert.deepEqual(await db.run('CREATE TABLE extra (x TEXT)'), { changes: 0 });
      // Plain writes through all() return no rows; RETURNING returns them.
      assert.deepEqual(await db.all("INSERT INTO extra (x) VALUES ('1')"), []);
      assert.deepEqual(await db.all('INSERT INTO extra (x) VALUES (?) RETURNING x', ['2']), [{ x: '2' }]);
      assert.deepEqual(await db.get('SELECT COUNT(*) AS c FROM extra'), { c: 2 });
    });

    it('binds and returns every parameter type', async () => {
      await db.run('INSERT INTO things (id, name, n, f, flag) VALUES (?, ?, ?, ?, ?)', [
        'x',
        "it's",
        2 ** 40,
        1.5,
        true,
      ]);
      await db.run('INSERT INTO things (id, name, n, f, flag) VALUES (?, ?, ?, ?, ?)', ['y', '', 7n, -0.25, false]);
      await db.run('INSERT INTO things (id, name, n, f, flag) VALUES (?, ?, ?, ?, ?)', [
        'z',
        'nulls',
        null,
        null,
        null,
      ]);
      const rows = await db.all('SELECT id, name, n, f, flag FROM things ORDER BY id');
      assert.deepEqual(rows, [
        { id: 'x', name: "it's", n: 2 ** 40, f: 1.5, flag: 1 },
        { id: 'y', name: '', n: 7, f: -0.25, flag: 0 },
        { id: 'z', name: 'nulls', n: null, f: null, flag: null },
      ]);
      assert.deepEqual(await db.get('SELECT id FROM things WHERE flag = ?', [true]), { id: 'x' });
      // Aggregates: COUNT is INT8 and SUM(BIGINT) NUMERIC on PostgreSQL; both parse to numbers.
      assert.deepEqual(await db.get('SELECT COUNT(*) AS c, SUM(n) AS s, MAX(f) AS m FROM things'), {
        c: 3,
        s: 2 ** 40 + 7,
        m: 1.5,
      });

      const bytes = new Uint8Array([0, 1, 2, 254, 255]);
      await db.run('INSERT INTO blobs (id, data) VALUES (?, ?)', ['u8', bytes]);
      // A view into a larger buffer must bind only its own bytes.
      const view = new Uint8Array(new Uint8Array([9, 9, 3, 4, 9]).buffer, 2, 2);
      await db.run('INSERT INTO blobs (id, data) VALUES (?, ?)', ['view', view]);
      await db.run('INSERT INTO blobs (id, data) VALUES (?, ?)', ['buf', Buffer.from('hi')]);
      const blobs = await db.all<{ id: string; data: Buffer }>('SELECT id, data FROM blobs ORDER BY id');
      for (const b of blobs) assert.ok(Buffer.isBuffer(b.data), `${b.id} should come back as a Buffer`);
      assert.deepEqual(
        blobs.map((b) => [b.id, [...b.data]]),
        [
          ['buf', [104, 105]],
          ['u8', [0, 1, 2, 254, 255]],
          ['view', [3, 4]],
        ],
      );
    });

    it('leaves ? inside string literals, identifiers and comments alone', async () => {
      await db.run("INSERT INTO things (id, name) VALUES (?, 'what? it''s ?') -- trailing ? comment", ['q']);
      const row = await db.get(`SELECT name, '?' AS "is?", ? AS p FROM things /* ? */ WHERE id = ? AND name <> '??'`, [
        'param',
        'q',
      ]);
      assert.deepEqual(row, { name: "what? it's ?", 'is?': '?', p: 'param' });
    });

    it('commits a transaction when fn resolves', async () => {
      const result = await db.transaction(async (tx) => {
        await tx.run('INSERT INTO things (id, name) VALUES (?, ?)', ['1', 'one']);
        await tx.run('INSERT INTO things (id, name) VALUES (?, ?)', ['2', 'two']);
        // A transaction sees its own writes.
        return (await tx.get<{ c: number }>('SELECT COUNT(*) AS c FROM things'))!.c;
      });
      assert.equal(result, 2);
      assert.deepEqual(await db.get('SELECT COUNT(*) AS c FROM things'), { c: 2 });
    });

    it('rolls back when fn throws and rethrows the same error', async () => {
      const boom = new Error('boom');
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.run('INSERT INTO things (id, name) VALUES (?, ?)', ['1', 'one']);
          await tick();
          throw boom;
        }),
        (err) => err === boom,
      );
      assert.deepEqual(await db.get('SELECT COUNT(*) AS c FROM things'), { c: 0 });
      // The connection is usable afterwards.
      await db.transaction((tx) => tx.run('INSERT INTO things (id, name) VALUES (?, ?)', ['2', 'two']));
      assert.deepEqual(await db.get('SELECT COUNT(*) AS c FROM things'), { c: 1 });
    });

    it('serialises 50 concurrent read-modify-write transactions', async () => {
      await db.run('INSERT INTO counters (id, n) VALUES (?, ?)', ['c', 0]);
      await Promise.all(
        Array.from({ length: 50 }, () =>
          db.transaction(async (tx) => {
            const row = await tx.get<{ n: number }>(`SELECT n FROM counters WHERE id = ?${forUpdate(tx)}`, ['c']);
            await tick(); // let other transactions interleave if they could
            await tx.run('UPDATE counters SET n = ? WHERE id = ?', [row!.n + 1, 'c']);
          }),
        ),
      );
      assert.deepEqual(await db.get('SELECT n FROM counters WHERE id = ?', ['c']), { n: 50 });
    });

    it("does not show a pending transaction's writes to reads outside it", async () => {
      const inserted = deferred();
      const release = deferred();
      const pending = db.transaction(async (tx) => {
        await tx.run('INSERT INTO things (id, name) VALUES (?, ?)', ['p', 'pending']);
        inserted.resolve();
        await release.promise;
      });
      await inserted.promise;
      // Both file-backed SQLite (separate reader connection) and PostgreSQL answer at once from
      // the last commit rather than waiting for the transaction.
      const outside = await Promise.race([
        db.get('SELECT id FROM things WHERE id = ?', ['p']),
        sleep(5000, undefined, { ref: false }).then(() => assert.fail('read outside the transaction waited for it')),
      ]);
      assert.equal(outside, undefined);
      release.resolve();
      await pending;
      assert.deepEqual(await db.get('SELECT id FROM things WHERE id = ?', ['p']), { id: 'p' });
    });

    it('maps unique and primary-key violations to UniqueViolationError', async () => {
      await db.run('INSERT INTO things (id, name) VALUES (?, ?)', ['1', 'one']);
      await assert.rejects(db.run('INSERT INTO things (id, name) VALUES (?, ?)', ['1', 'other']), UniqueViolationError);
      await assert.rejects(db.run('INSERT INTO things (id, name) VALUES (?, ?)', ['2', 'one']), UniqueViolationError);
      await assert.rejects(
        db.transaction((tx) => tx.run('INSERT INTO things (id, name) VALUES (?, ?)', ['1', 'x'])),
        UniqueViolationError,
      );
      // The portable way to ignore duplicates, usable inside a transaction.
      const r = await db.run('INSERT INTO things (id, name) VALUES (?, ?) ON CONFLICT (id) DO NOTHING', ['1', 'y']);
      assert.equal(r.changes, 0);
    });

    it('aborts the whole transaction when a failed statement is caught inside it', async () => {
      await db.run('INSERT INTO things (id, name) VALUES (?, ?)', ['1', 'one']);
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.run('INSERT INTO things (id, name) VALUES (?, ?)', ['2', 'two']);
          await tx.run('INSERT INTO things (id, name) VALUES (?, ?)', ['1', 'dup']).catch(() => {});
        }),
        (err) => err instanceof TransactionAbortedError && err.cause instanceof UniqueViolationError,
      );
      assert.deepEqual(await db.all('SELECT id FROM things'), [{ id: '1' }]);
    });

    it('refuses db.* inside its own transaction callback and tx use after the end', async () => {
      let leaked: Parameters<Parameters<Database['transaction']>[0]>[0] | undefined;
      await assert.rejects(
        db.transaction(async (tx) => {
          leaked = tx;
          await db.run('INSERT INTO things (id, name) VALUES (?, ?)', ['1', 'one']);
        }),
        /use the tx handle/,
      );
      await assert.rejects(
        db.transaction(() => db.transaction(async () => {})),
        /nested transactions are not supported/,
      );
      await assert.rejects(leaked!.get('SELECT 1 AS one'), /after its transaction finished/);
    });

    it('makes LIKE case-sensitive on both dialects and escapes wildcards', async () => {
      await db.run('INSERT INTO things (id, name) VALUES (?, ?)', ['1', 'Model_A']);
      await db.run('INSERT INTO things (id, name) VALUES (?, ?)', ['2', 'modelXa']);
      const like = (pattern: string) =>
        db.all(`SELECT id FROM things WHERE name LIKE ? ${LIKE_ESCAPE} ORDER BY id`, [pattern]);
      assert.deepEqual(await like('model%'), [{ id: '2' }]);
      assert.deepEqual(await like(`%${escapeLike('l_a')}%`), []);
      assert.deepEqual(await like(`%${escapeLike('l_A')}%`), [{ id: '1' }]);
      const ci = await db.all('SELECT id FROM things WHERE LOWER(name) LIKE LOWER(?) ORDER BY id', ['MODEL%']);
      assert.deepEqual(ci, [{ id: '1' }, { id: '2' }]);
    });

    it('orders by code point with COLLATE "binary" and NULLS LAST explicitly', async () => {
      for (const [id, name] of [
        ['1', 'b'],
        ['2', 'B'],
        ['3', 'a'],
        ['4', '_'],
      ]) {
        await db.run('INSERT INTO things (id, name, n) VALUES (?, ?, ?)', [id, name, id === '4' ? null : Number(id)]);
      }
      const names = await db.all('SELECT name FROM things ORDER BY name COLLATE "binary"');
      assert.deepEqual(
        names.map((r) => r.name),
        ['B', '_', 'a', 'b'],
      );
      const ns = await db.all('SELECT n FROM things ORDER BY n ASC NULLS LAST');
      assert.deepEqual(
        ns.map((r) => r.n),
        [1, 2, 3, null],
      );
    });

    it('applies migrations once and is idempotent across reopen', async () => {
      const withSeed: Migration[] = [
        ...MIGRATIONS,
        { id: '0004_seed', both: ["INSERT INTO counters (id, n) VALUES ('seed', 1)"] },
      ];
      const second = await t.reopen(withSeed);
      assert.deepEqual(await second.all('SELECT id FROM schema_migrations ORDER BY id'), [
        { id: '0001_things' },
        { id: '0002_blobs' },
        { id: '0003_counters' },
        { id: '0004_seed' },
      ]);
      await second.close();
      // Several handles starting at once (replicas) apply nothing twice.
      const more = await Promise.all([t.reopen(withSeed), t.reopen(withSeed), t.reopen(withSeed)]);
      const counts = await more[0]!.get('SELECT COUNT(*) AS c FROM counters');
      assert.deepEqual(counts, { c: 1 });
      const row = await more[0]!.get<{ applied_at: number }>('SELECT applied_at FROM schema_migrations WHERE id = ?', [
        '0004_seed',
      ]);
      assert.equal(typeof row!.applied_at, 'number');
      await Promise.all(more.map((h) => h.close()));
    });

    it('applies new migrations concurrently requested by several replicas exactly once', async () => {
      const next: Migration[] = [
        ...MIGRATIONS,
        { id: '0005_more', both: ["INSERT INTO counters (id, n) VALUES ('more', 1)"] },
      ];
      const handles = await Promise.all(Array.from({ length: 4 }, () => t.reopen(next)));
      assert.deepEqual(await db.get("SELECT COUNT(*) AS c FROM counters WHERE id = 'more'"), { c: 1 });
      await Promise.all(handles.map((h) => h.close()));
    });

    it('refuses to start on a schema migrated by a newer build', async () => {
      await assert.rejects(t.reopen(MIGRATIONS.slice(0, 2)), (err) => {
        assert.ok(err instanceof MigrationError);
        assert.match(err.message, /newer than this build.*0003_counters/);
        return true;
      });
    });

    it('rejects migration lists out of order and rolls back a failing migration', async () => {
      await assert.rejects(t.reopen([MIGRATIONS[1]!, MIGRATIONS[0]!, MIGRATIONS[2]!]), /unique and ascending/);
      const failing: Migration[] = [
        ...MIGRATIONS,
        { id: '0006_bad', both: ['CREATE TABLE half (x TEXT)', 'THIS IS NOT SQL'] },
      ];
      await assert.rejects(t.reopen(failing), /migration 0006_bad failed/);
      // Neither the table nor the record survived, so a fixed build can apply it.
      await db.run('CREATE TABLE half (x TEXT)');
      assert.equal(await db.get("SELECT id FROM schema_migrations WHERE id = '0006_bad'"), undefined);
    });

    it('keeps data across close and reopen', async () => {
      await db.run('INSERT INTO things (id, name) VALUES (?, ?)', ['kept', 'data']);
      await db.close();
      await db.close(); // idempotent
      await assert.rejects(db.get('SELECT 1 AS one'), /closed database/);
      const again = await t.reopen(MIGRATIONS);
      assert.deepEqual(await again.get('SELECT name FROM things WHERE id = ?', ['kept']), { name: 'data' });
    });

    it('lets pending transactions finish before close', async () => {
      const release = deferred();
      const pending = db.transaction(async (tx) => {
        await release.promise;
        await tx.run('INSERT INTO things (id, name) VALUES (?, ?)', ['late', 'commit']);
      });
      await tick();
      const closing = db.close();
      release.resolve();
      await pending;
      await closing;
      const again = await t.reopen(MIGRATIONS);
      assert.deepEqual(await again.get('SELECT id FROM things'), { id: 'late' });
    });
  });
}

describe('sqlite :memory:', () => {
  it('works and keeps pending transaction writes invisible to outside reads', async () => {
    const db = await openDatabase({ fileName: ':memory:', migrations: MIGRATIONS });
    try {
      const inserted = deferred();
      const release = deferred();
      const pending = db.transaction(async (tx) => {
        await tx.run('INSERT INTO things (id, name) VALUES (?, ?)', ['m', 'mem']);
        inserted.resolve();
        await release.promise;
        throw new Error('roll back');
      });
      await inserted.promise;
      // One connection: the read queues behind the transaction instead of seeing its insert.
      const outside = db.get('SELECT id FROM things WHERE id = ?', ['m']);
      release.resolve();
      await assert.rejects(pending, /roll back/);
      assert.equal(await outside, undefined);
    } finally {
      await db.close();
    }
  });
});

describe('sqlite file', () => {
  it('creates a new file with the requested page size and keeps an existing file as it is', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'slipway-pagesize-'));
    try {
      const pageSize = async (size: number | undefined) => {
        const db = await openDatabase({ dataDir: dir, sqlitePageSize: size, migrations: MIGRATIONS });
        try {
          await db.run('INSERT INTO things (id, name) VALUES (?, ?)', [`t${size}`, `n${size}`]);
          return (await db.get<{ page_size: number }>('PRAGMA page_size'))!.page_size;
        } finally {
          await db.close();
        }
      };
      assert.equal(await pageSize(16384), 16384);
      assert.equal(await pageSize(4096), 16384);
      assert.equal(await pageSize(undefined), 16384);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sqlite checkpoints', () => {
  it('are made off the event loop: COMMIT leaves pages in the WAL, the checkpoint thread copies them soon after', async () => {
    const { mkdtempSync, rmSync, statSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'slipway-checkpoint-'));
    try {
      const db = await openDatabase({ dataDir: dir, migrations: MIGRATIONS });
      try {
        const file = join(dir, 'slipway.db');
        const before = statSync(file).size;
        const big = 'x'.repeat(4000);
        for (let i = 0; i < 4; i++) {
          await db.transaction(async (tx) => {
            for (let j = 0; j < 500; j++) {
              await tx.run('INSERT INTO things (id, name) VALUES (?, ?)', [`${i}-${j}`, `${i}-${j}-${big}`]);
            }
          });
        }
        // 8 MB written, more than SQLite's 1000-page auto-checkpoint threshold: still all in the WAL.
        assert.ok(statSync(`${file}-wal`).size > 8_000_000);
        assert.ok(statSync(file).size < before + 1_000_000, 'no checkpoint inside COMMIT');
        const deadline = Date.now() + 5000;
        while (statSync(file).size < 8_000_000 && Date.now() < deadline) await sleep(50);
        assert.ok(statSync(file).size >= 8_000_000, 'the checkpoint thread copied the pages');
        assert.equal((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM things'))!.n, 2000);
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sqlite WAL after a burst', () => {
  it('is truncated once writes pause, and sizes() reports the files', async () => {
    const { mkdtempSync, rmSync, statSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'slipway-wal-'));
    try {
      const db = await openDatabase({ dataDir: dir, migrations: MIGRATIONS });
      try {
        const wal = join(dir, 'slipway.db-wal');
        const big = 'x'.repeat(4000);
        for (let i = 0; i < 3; i++) {
          await db.transaction(async (tx) => {
            for (let j = 0; j < 500; j++)
              await tx.run('INSERT INTO things (id, name) VALUES (?, ?)', [`${i}-${j}`, `${i}-${j}-${big}`]);
          });
        }
        const sizes = await db.sizes!();
        assert.ok(sizes.walBytes! > 6_000_000, `WAL after the burst: ${sizes.walBytes}`);
        assert.equal(sizes.databaseBytes, statSync(join(dir, 'slipway.db')).size);
        // Writes pause: within a few seconds the WAL's space is given back.
        const deadline = Date.now() + 8000;
        while (statSync(wal).size > 0 && Date.now() < deadline) await sleep(100);
        assert.equal(statSync(wal).size, 0, 'the WAL was truncated');
        assert.equal((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM things'))!.n, 1500);
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sqlite durability', () => {
  it('returns a write only after an fdatasync of the WAL that started after its COMMIT; waiting writes share one', async () => {
    const { default: fs, mkdtempSync, rmSync } = await import('node:fs');
    const { syncBuiltinESMExports } = await import('node:module');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'slipway-walsync-'));
    const db = await openDatabase({ dataDir: dir, migrations: MIGRATIONS });
    // Every fdatasync is held until the test lets it run.
    const original = fs.fdatasync;
    const held: Array<() => void> = [];
    (fs as { fdatasync: unknown }).fdatasync = (fd: number, cb: (err: Error | null) => void) =>
      held.push(() => original(fd, cb));
    syncBuiltinESMExports();
    const settled = new Set<string>();
    const track = (name: string, p: Promise<unknown>) => p.then(() => settled.add(name));
    const turns = async () => {
      for (let i = 0; i < 5; i++) await tick();
    };
    try {
      const first = track('first', db.run('INSERT INTO things (id, name) VALUES (?, ?)', ['1', 'one']));
      await turns();
      assert.equal(held.length, 1);
      assert.ok(!settled.has('first'), 'a committed write waits for its sync');
      // Committed while the first sync runs: they wait for the next one, which they share.
      const second = track('second', db.run('INSERT INTO things (id, name) VALUES (?, ?)', ['2', 'two']));
      const third = track(
        'third',
        db.transaction((tx) => tx.run('INSERT INTO things (id, name) VALUES (?, ?)', ['3', 'three'])),
      );
      await turns();
      assert.equal(held.length, 1);
      // Reads never wait for a sync (and see commits whose sync has not finished yet).
      assert.equal((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM things'))!.n, 3);
      held.shift()!();
      await first;
      await turns();
      assert.deepEqual([...settled], ['first']);
      assert.equal(held.length, 1, 'one sync for the two writes that waited');
      held.shift()!();
      await Promise.all([second, third]);
      assert.equal(held.length, 0);
    } finally {
      (fs as { fdatasync: unknown }).fdatasync = original;
      syncBuiltinESMExports();
      for (const run of held.splice(0)) run();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
