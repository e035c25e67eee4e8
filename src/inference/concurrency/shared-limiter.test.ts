import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import pino from 'pino';
import { DIALECTS, TEST_POSTGRES_URL, type TestDatabase } from '../../../test/support/databases.js';
import { MIGRATIONS } from '../../storage/migrations.js';
import { SlotHoldRepository } from '../../storage/repositories/slot-holds.js';
import type { Database, DatabaseSession } from '../../storage/db/types.js';
import { LocalLimiter } from './limiter.js';
import { SharedLimiter } from './shared-limiter.js';

const log = pino({ level: 'silent' });
const postgres = DIALECTS.find((d) => d.name === 'postgres')!;
const SCOPE = { key: '111122223333|us-east-1|ep|AllTraffic', max: 2, account: '111122223333|us-east-1' };

/** Ends a limiter's PostgreSQL session from outside, as a replica's kill -9 or a network cut does. */
async function terminateSession(l: SharedLimiter): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    const [lockA, lockB] = l.holderId!.split('-').map(Number);
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid::bigint = $1 AND objid::bigint = $2`,
      [lockA, lockB],
    );
  } finally {
    await admin.end();
  }
}

describe('endpoint concurrency shared by two replicas (PostgreSQL)', () => {
  let t: TestDatabase;
  let dbB: Database;
  const limiters: SharedLimiter[] = [];
  const open = async (db: Database, leaseMs = 2000) => {
    const l = await SharedLimiter.open({ db, log, leaseMs, accountConcurrency: 3, lingerMs: 5000 });
    limiters.push(l);
    return l;
  };
  before(async () => {
    t = await postgres.open(MIGRATIONS);
    dbB = await t.reopen(MIGRATIONS);
  });
  after(async () => {
    for (const l of limiters) await l.close();
    await t?.cleanup();
  });

  it('holds MaxConcurrency for the endpoint: what one replica holds the other cannot take', async () => {
    const a = await open(t.db);
    const b = await open(dbB);
    const ha = a.handle(SCOPE);
    const hb = b.handle(SCOPE);
    assert.equal(ha.tryTake(), false, 'nothing is held before the first invocation');
    assert.deepEqual(await Promise.all([ha.take(), ha.take()]), [true, true]);
    assert.equal(await hb.take(), false, 'the endpoint is at its MaxConcurrency');
    // A's invocations end; its slots linger on A (5 s here) but B's ask makes A give them back now.
    ha.give();
    ha.give();
    assert.equal(ha.tryTake(), true, 'a lingering slot serves A without a round trip');
    ha.give();
    const t0 = performance.now();
    assert.equal(await hb.take(), true);
    assert.ok(performance.now() - t0 < 1000);
    assert.equal(await hb.take(), true);
    assert.equal(await ha.take(), false);
    hb.give();
    hb.give();
  });

  it("holds the account's serverless concurrency across endpoints", async () => {
    const a = await open(t.db);
    const b = await open(dbB);
    // An account of its own: the first test's replicas still hold its account's slots (lingering
    // 5 s), and giving them back on request races with this test's first asks.
    const account = '444455556666|us-east-1';
    const one = a.handle({ ...SCOPE, key: 'acct-1', account });
    const two = b.handle({ ...SCOPE, key: 'acct-2', account });
    assert.deepEqual(await Promise.all([one.take(), one.take(), two.take()]), [true, true, true]);
    assert.equal(await two.take(), false, 'the account (3) is at its limit though endpoint two (2) is not');
    one.give();
    assert.equal(await two.take(), true);
  });

  it("frees a dead replica's slots as soon as PostgreSQL sees its connection close", async () => {
    const a = await open(t.db, 60_000);
    const b = await open(dbB, 60_000);
    const scope = { ...SCOPE, key: 'dead', account: 'other-account' };
    const ha = a.handle(scope);
    assert.deepEqual(await Promise.all([ha.take(), ha.take()]), [true, true]);
    const hb = b.handle(scope);
    assert.equal(await hb.take(), false);
    // What kill -9 does to A's session: the connection goes; its rows stay behind.
    await terminateSession(a);
    await sleep(100);
    assert.deepEqual(await Promise.all([hb.take(), hb.take()]), [true, true], 'the lease (60 s) need not run out');
    assert.equal(await new SlotHoldRepository().total(dbB, 'e|dead', Date.now()), 2);
  });

  it('a replica closed while it reconnects leaves no session behind (it would keep the process alive)', async () => {
    // openSession held at a gate, so that close() comes while the reconnection is on its way.
    let blocked = false;
    let release: (() => void) | undefined;
    let opened = 0;
    const sessions: { real: DatabaseSession; ended: boolean }[] = [];
    const base = t.db;
    const db = new Proxy(base, {
      get(target, prop) {
        if (prop === 'openSession') {
          return async (): Promise<DatabaseSession> => {
            opened++;
            if (blocked) await new Promise<void>((r) => (release = r));
            const real = await target.openSession!();
            const entry = { real, ended: false };
            sessions.push(entry);
            return {
              query: (sql, params) => real.query(sql, params),
              onNotification: (l) => real.onNotification(l),
              onLost: (l) => real.onLost(l),
              end: async () => {
                entry.ended = true;
                await real.end();
              },
            };
          };
        }
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const l = await SharedLimiter.open({ db, log, leaseMs: 60_000, accountConcurrency: 3 });
    try {
      blocked = true;
      await terminateSession(l);
      // The session is lost; the limiter reconnects 200 ms later and waits at the gate.
      for (let i = 0; i < 150 && !release; i++) await sleep(20);
      assert.ok(release, 'the limiter reconnects after losing its session');
      await l.close();
      release();
      for (let i = 0; i < 150 && sessions.length < 2; i++) await sleep(20);
      assert.equal(sessions.length, 2, 'the reconnection completes');
      for (let i = 0; i < 50 && !sessions[1]!.ended; i++) await sleep(20);
      assert.equal(sessions[1]!.ended, true, 'the session made after close() is ended');
      assert.equal(opened, 2);
    } finally {
      await l.close();
      for (const s of sessions) if (!s.ended) await s.real.end().catch(() => undefined);
    }
  });

  it('splits ProvisionedConcurrency and takes over the share of a replica that stops', async () => {
    const a = await open(t.db, 300);
    const b = await open(dbB, 300);
    const shareA = await a.warm('warm-ep', 2, () => {});
    let grantedB = -1;
    const shareB = await b.warm('warm-ep', 2, (n) => (grantedB = n));
    assert.equal(shareA.granted, 2);
    assert.equal(shareB.granted, 0);
    shareA.close();
    const deadline = Date.now() + 3000;
    while (grantedB !== 2 && Date.now() < deadline) await sleep(20);
    assert.equal(grantedB, 2, 'B warms the whole ProvisionedConcurrency once A gave it up');
  });
});

describe('one replica (SQLite)', () => {
  it('counts exactly in memory', async () => {
    const l = new LocalLimiter({ accountConcurrency: 3 });
    const a = l.handle({ key: 'a', max: 2, account: 'acct' });
    const b = l.handle({ key: 'b', max: 2, account: 'acct' });
    assert.deepEqual([a.tryTake(), a.tryTake(), a.tryTake()], [true, true, false]);
    assert.deepEqual([b.tryTake(), b.tryTake()], [true, false]);
    a.give();
    assert.equal(await b.take(), true);
    assert.equal((await l.warm('w', 4)).granted, 4);
  });
});
