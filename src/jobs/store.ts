// The job runner's SQL: work items with a lease, and their transitions (tables of migration 0020_jobs).
// Written once for SQLite and PostgreSQL; on PostgreSQL claims use FOR UPDATE SKIP LOCKED so
// replicas polling together never claim the same item.
import { dialectSql, forUpdate } from '../storage/db/dialect.js';
import type { Queryable } from '../storage/db/types.js';
import type { Transition } from './types.js';

export interface ItemRow {
  kind: string;
  item_id: string;
  payload: string;
  state: 'queued' | 'running' | 'done';
  status: string | null;
  generation: number;
  run_generation: number;
  stop_requested: number;
  attempts: number;
  claimed_by: string | null;
  claim_token: string | null;
  lease_until: number | null;
  deadline: number | null;
  submitted_at: number;
  started_at: number | null;
  finished_at: number | null;
}

/** A claim this replica holds (or is about to hold) on an item. */
export interface Claim {
  readonly by: string;
  readonly token: string;
  readonly leaseUntil: number;
  /** When the run must stop (maxRuntimeMs after its first start), if it has a limit. */
  readonly deadline?: number | null;
}

export async function getItem(q: Queryable, kind: string, id: string, lock = false): Promise<ItemRow | undefined> {
  return q.get<ItemRow & Record<string, unknown>>(
    `SELECT * FROM job_items WHERE kind = ? AND item_id = ?${lock ? forUpdate(q) : ''}`,
    [kind, id],
  );
}

/**
 * Inserts a new item, or replaces a finished one with the same id (its transitions are dropped).
 * `claim` makes it running on this replica at once (the submitting replica has a free slot).
 * Returns the active row instead when one is queued or running.
 */
export async function insertItem(
  tx: Queryable,
  kind: string,
  id: string,
  payload: string,
  now: number,
  claim: Claim | undefined,
): Promise<{ inserted: true } | { inserted: false; active: ItemRow }> {
  const values = [
    payload,
    claim ? 'running' : 'queued',
    claim ? 1 : 0,
    claim?.by ?? null,
    claim?.token ?? null,
    claim?.leaseUntil ?? null,
    now,
    claim ? now : null,
    claim?.deadline ?? null,
  ];
  const res = await tx.run(
    `INSERT INTO job_items (kind, item_id, payload, state, generation, run_generation, stop_requested, attempts,
       claimed_by, claim_token, lease_until, submitted_at, started_at, deadline)
     VALUES (?, ?, ?, ?, 0, 0, 0, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (kind, item_id) DO NOTHING`,
    [kind, id, ...values],
  );
  if (res.changes === 1) return { inserted: true };
  const existing = (await getItem(tx, kind, id, true))!;
  if (existing.state !== 'done') return { inserted: false, active: existing };
  await tx.run(
    `UPDATE job_items SET payload = ?, state = ?, status = NULL, generation = 0, run_generation = 0, stop_requested = 0,
       attempts = ?, claimed_by = ?, claim_token = ?, lease_until = ?, submitted_at = ?, started_at = ?, deadline = ?,
       finished_at = NULL
     WHERE kind = ? AND item_id = ?`,
    [...values, kind, id],
  );
  await tx.run('DELETE FROM job_transitions WHERE kind = ? AND item_id = ?', [kind, id]);
  return { inserted: true };
}

/** Asks for one more run after the current one (the item is queued or running). */
export async function bumpGeneration(tx: Queryable, kind: string, id: string): Promise<void> {
  await tx.run('UPDATE job_items SET generation = generation + 1 WHERE kind = ? AND item_id = ?', [kind, id]);
}

/** Appends a transition; the caller holds the item's row (locked, or inserted by this transaction). */
export async function insertTransition(
  tx: Queryable,
  kind: string,
  id: string,
  status: string,
  message: string | null,
  at: number,
): Promise<number> {
  const last = await tx.get<{ seq: number | null }>(
    'SELECT MAX(seq) AS seq FROM job_transitions WHERE kind = ? AND item_id = ?',
    [kind, id],
  );
  const seq = (last?.seq ?? 0) + 1;
  await tx.run('INSERT INTO job_transitions (kind, item_id, seq, status, message, at) VALUES (?, ?, ?, ?, ?, ?)', [
    kind,
    id,
    seq,
    status,
    message,
    at,
  ]);
  await tx.run('UPDATE job_items SET status = ? WHERE kind = ? AND item_id = ?', [status, kind, id]);
  return seq;
}

export async function listTransitions(q: Queryable, kind: string, id: string): Promise<Transition[]> {
  return q.all<Transition & Record<string, unknown>>(
    'SELECT seq, status, message, at FROM job_transitions WHERE kind = ? AND item_id = ? ORDER BY seq',
    [kind, id],
  );
}

/** Items not done, by kind and state (queued, running), across replicas: the metrics' job gauges. */
export async function countActive(q: Queryable): Promise<Array<{ kind: string; state: string; n: number }>> {
  const rows = await q.all<{ kind: string; state: string; n: number }>(
    `SELECT kind, state, COUNT(*) AS n FROM job_items WHERE state <> 'done' GROUP BY kind, state`,
  );
  return rows.map((r) => ({ kind: r.kind, state: r.state, n: Number(r.n) }));
}

/** Is there anything this replica could claim? A cheap read, so idle polling writes nothing. */
export async function hasClaimable(q: Queryable, kinds: readonly string[], now: number): Promise<boolean> {
  if (kinds.length === 0) return false;
  const row = await q.get(
    `SELECT 1 AS x FROM job_items WHERE (state = 'queued' OR (state = 'running' AND lease_until < ?))
       AND kind IN (${kinds.map(() => '?').join(', ')}) LIMIT 1`,
    [now, ...kinds],
  );
  return row !== undefined;
}

/**
 * Locks up to `limit` items of a kind this replica may claim: queued ones in submission order, and
 * running ones whose lease expired (their replica died). `orphansOf` also takes the running items
 * of that replica whatever their lease (at start-up: what this replica's previous process left).
 * Another replica's concurrent claim skips the rows locked here (PostgreSQL); SQLite has one writer.
 */
export async function lockClaimable(
  tx: Queryable,
  kind: string,
  now: number,
  limit: number,
  orphansOf: { by: string } | undefined,
): Promise<ItemRow[]> {
  const params: (string | number)[] = [kind, now];
  let orphans = '';
  if (orphansOf) {
    orphans = ` OR (state = 'running' AND claimed_by = ?)`;
    params.push(orphansOf.by);
  }
  params.push(limit);
  return tx.all<ItemRow & Record<string, unknown>>(
    `SELECT * FROM job_items WHERE kind = ? AND (state = 'queued' OR (state = 'running' AND lease_until < ?)${orphans})
     ORDER BY submitted_at, item_id LIMIT ?${dialectSql(tx, { sqlite: '', postgres: ' FOR UPDATE SKIP LOCKED' })}`,
    params,
  );
}

/** Makes a locked item running under `claim`. */
export async function takeItem(
  tx: Queryable,
  row: ItemRow,
  claim: Claim,
  now: number,
  deadline: number | null,
): Promise<void> {
  await tx.run(
    `UPDATE job_items SET state = 'running', attempts = attempts + 1, run_generation = generation, claimed_by = ?,
       claim_token = ?, lease_until = ?, started_at = COALESCE(started_at, ?), deadline = ?
     WHERE kind = ? AND item_id = ?`,
    [claim.by, claim.token, claim.leaseUntil, now, deadline, row.kind, row.item_id],
  );
}

/** Renews a lease; undefined when the claim is no longer this one's (taken over, or finished). */
export async function renewLease(
  q: Queryable,
  kind: string,
  id: string,
  token: string,
  leaseUntil: number,
): Promise<{ stopRequested: boolean } | undefined> {
  const row = await q.get<{ stop_requested: number }>(
    `UPDATE job_items SET lease_until = ? WHERE kind = ? AND item_id = ? AND claim_token = ? AND state = 'running'
     RETURNING stop_requested`,
    [leaseUntil, kind, id, token],
  );
  return row ? { stopRequested: row.stop_requested === 1 } : undefined;
}

/** Items this replica runs whose stop was requested (possibly through another replica). */
export async function stopRequestedAmong(q: Queryable, by: string): Promise<Array<{ kind: string; item_id: string }>> {
  return q.all(
    `SELECT kind, item_id FROM job_items WHERE claimed_by = ? AND state = 'running' AND stop_requested = 1`,
    [by],
  );
}

export async function markStopRequested(tx: Queryable, kind: string, id: string): Promise<void> {
  await tx.run('UPDATE job_items SET stop_requested = 1 WHERE kind = ? AND item_id = ?', [kind, id]);
}

export async function markDone(tx: Queryable, kind: string, id: string, now: number): Promise<void> {
  await tx.run(
    `UPDATE job_items SET state = 'done', claimed_by = NULL, claim_token = NULL, lease_until = NULL, finished_at = ?
     WHERE kind = ? AND item_id = ?`,
    [now, kind, id],
  );
}

/** Runs a rerun: the current run saw everything submitted up to `generation`. */
export async function startRerun(tx: Queryable, kind: string, id: string, generation: number): Promise<void> {
  await tx.run('UPDATE job_items SET run_generation = ? WHERE kind = ? AND item_id = ?', [generation, kind, id]);
}

/** Gives an item back to the queue (this replica is shutting down and the kind resumes), if the claim is still `token`. */
export async function releaseItem(q: Queryable, kind: string, id: string, token: string): Promise<void> {
  await q.run(
    `UPDATE job_items SET state = 'queued', claimed_by = NULL, claim_token = NULL, lease_until = NULL
     WHERE kind = ? AND item_id = ? AND claim_token = ?`,
    [kind, id, token],
  );
}
