// Replicas' holds of shared concurrency slots (migration 0100_slot_holds), PostgreSQL only: a hold
// counts while its lease runs and while the session that owns it holds its advisory lock, so the
// slots of a replica killed with -9 are free as soon as PostgreSQL sees its connection close.
// https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS
import type { Queryable } from '../db/types.js';

export interface Holder {
  readonly id: string;
  /** The two int4 keys of the session-level advisory lock that proves the holder alive. */
  readonly lockA: number;
  readonly lockB: number;
}

/** A live hold is one whose owner's advisory lock is granted (pg_locks lists every session's locks). */
const DEAD = `(h.lease_until <= ? OR NOT EXISTS (
  SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
    AND l.classid::bigint = h.lock_a AND l.objid::bigint = h.lock_b))`;

export class SlotHoldRepository {
  /** Serializes changes to these scopes until the transaction ends (call with the scopes sorted). */
  async lock(tx: Queryable, scopes: readonly string[]): Promise<void> {
    for (const s of scopes)
      await tx.get(`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':' || CAST(? AS TEXT))) AS l`, [s]);
  }

  /** Other holders' live holds of a scope; dead and expired holds are deleted on the way. */
  async others(
    tx: Queryable,
    scope: string,
    me: string,
    now: number,
  ): Promise<Array<{ holder: string; slots: number }>> {
    await tx.run(`DELETE FROM slot_holds h WHERE h.scope = ? AND ${DEAD}`, [scope, now]);
    return tx.all<{ holder: string; slots: number }>(
      `SELECT holder, slots FROM slot_holds WHERE scope = ? AND holder <> ? AND slots > 0`,
      [scope, me],
    );
  }

  /** Sets this holder's slots of a scope (0 deletes the row). */
  async put(q: Queryable, scope: string, h: Holder, slots: number, leaseUntil: number): Promise<void> {
    if (slots <= 0) {
      await q.run(`DELETE FROM slot_holds WHERE scope = ? AND holder = ?`, [scope, h.id]);
      return;
    }
    await q.run(
      `INSERT INTO slot_holds (scope, holder, slots, lock_a, lock_b, lease_until) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope, holder) DO UPDATE SET slots = excluded.slots, lease_until = excluded.lease_until`,
      [scope, h.id, slots, h.lockA, h.lockB, leaseUntil],
    );
  }

  /** Extends every hold of a holder (the heartbeat). */
  async renew(q: Queryable, holder: string, leaseUntil: number): Promise<void> {
    await q.run(`UPDATE slot_holds SET lease_until = ? WHERE holder = ?`, [leaseUntil, holder]);
  }

  async removeHolder(q: Queryable, holder: string): Promise<void> {
    await q.run(`DELETE FROM slot_holds WHERE holder = ?`, [holder]);
  }

  /** Live slots held of a scope by everyone (tests, metrics). */
  async total(q: Queryable, scope: string, now: number): Promise<number> {
    const r = await q.get<{ n: number | null }>(
      `SELECT SUM(slots) AS n FROM slot_holds h WHERE h.scope = ? AND NOT ${DEAD}`,
      [scope, now],
    );
    return Number(r?.n ?? 0);
  }
}
