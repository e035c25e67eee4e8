// Background upkeep of the metrics store, as CloudWatch keeps its data: ingest rows folded into one
// point per series, second or minute, unit and step (compaction, every few seconds); then, as data
// ages, high-resolution points into minutes after 3 hours, minutes into 5 minutes after 15 days,
// 5 minutes into hours after 63 days, and everything older than the retention period dropped.
// Points carrying a step (SageMaker Metrics) are kept whole: their iterations are what they say.
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_concepts.html#metrics-retention
// Several replicas may run this: on PostgreSQL each pass holds a transaction-level advisory lock
// and a replica that finds it taken skips its turn.
import type { Logger } from 'pino';
import type { Database, Queryable, Row, SqlValue } from '../storage/db/types.js';
import { type Aggregate, mergeAggregates } from './series.js';
import { pointParams, toStoredPoint } from './store.js';
import { DAY_MS } from './statistics.js';

const HOUR_MS = 3_600_000;
/** The advisory lock key of the metrics upkeep (PostgreSQL), an arbitrary constant. */
const LOCK_KEY = 0x5e7a_1029;
const COLUMNS = 'series_id, ts, resolution, unit, step, sample_count, sum, min, max, has_dist, dist';

/** Roll-up tiers: points of `from` seconds older than `after` become points of `to` seconds. */
export const TIERS = [
  { from: 1, to: 60, after: 3 * HOUR_MS },
  { from: 60, to: 300, after: 15 * DAY_MS },
  { from: 300, to: 3600, after: 63 * DAY_MS },
] as const;

export interface MaintenanceOptions {
  readonly db: Database;
  readonly log: Logger;
  /** Points older than this many days are deleted (CloudWatch keeps 455). */
  readonly retentionDays: number;
  /** Ingest rows folded per transaction. */
  readonly batch?: number;
  readonly now?: () => number;
}

/** Takes the upkeep lock for this transaction; false when another replica holds it. */
async function lock(tx: Queryable): Promise<boolean> {
  if (tx.dialect !== 'postgres') return true;
  const r = await tx.get<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(${LOCK_KEY}) AS ok`);
  return r?.ok === true;
}

interface Group {
  series_id: number;
  ts: number;
  resolution: number;
  unit: string;
  step: number;
  parts: Aggregate[];
}

/** Adds `g` to the point of the same key (merging with one already there). */
async function upsert(tx: Queryable, g: Group): Promise<void> {
  const existing = await tx.get(
    `SELECT ${COLUMNS} FROM metric_points WHERE series_id = ? AND ts = ? AND resolution = ? AND unit = ? AND step = ?`,
    [g.series_id, g.ts, g.resolution, g.unit, g.step],
  );
  const parts = existing ? [toStoredPoint(existing, true).agg, ...g.parts] : g.parts;
  const agg = parts.length === 1 ? parts[0]! : mergeAggregates(parts);
  const params = pointParams(g.series_id, { ts: g.ts, resolution: g.resolution, unit: g.unit, step: g.step, agg });
  if (existing) {
    await tx.run(
      `UPDATE metric_points SET sample_count = ?, sum = ?, min = ?, max = ?, has_dist = ?, dist = ?
       WHERE series_id = ? AND ts = ? AND resolution = ? AND unit = ? AND step = ?`,
      [...params.slice(5), g.series_id, g.ts, g.resolution, g.unit, g.step],
    );
  } else {
    await tx.run(`INSERT INTO metric_points (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, params);
  }
}

/** Rows grouped by series, bucket (`bucketOf` their time), resolution, unit and step. */
function group(rows: readonly Row[], bucketOf: (ts: number) => number = (ts) => ts, resolution?: number): Group[] {
  const groups = new Map<string, Group>();
  for (const r of rows) {
    const p = toStoredPoint(r, true);
    const series_id = Number(r.series_id);
    const ts = bucketOf(p.ts);
    const res = resolution ?? p.resolution;
    const key = `${series_id}|${ts}|${res}|${p.unit}|${p.step}`;
    const found = groups.get(key);
    if (found) found.parts.push(p.agg);
    else groups.set(key, { series_id, ts, resolution: res, unit: p.unit, step: p.step, parts: [p.agg] });
  }
  return [...groups.values()];
}

export class MetricsMaintenance {
  private readonly batch: number;
  private readonly now: () => number;
  private compactTimer: NodeJS.Timeout | undefined;
  private rollupTimer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly o: MaintenanceOptions) {
    this.batch = o.batch ?? 1000;
    this.now = o.now ?? Date.now;
  }

  /** Compacts every `compactMs`, rolls up and applies retention every `rollupMs`. */
  start(compactMs = 2000, rollupMs = 600_000): void {
    const tick = (what: () => Promise<unknown>) => () => {
      this.running = this.running.then(what).catch((err) => this.o.log.error({ err }, 'metrics upkeep failed'));
    };
    this.compactTimer = setInterval(
      tick(() => this.compactAll()),
      compactMs,
    );
    this.compactTimer.unref();
    this.rollupTimer = setInterval(
      tick(() => this.rollupAll()),
      rollupMs,
    );
    this.rollupTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.compactTimer);
    clearInterval(this.rollupTimer);
    await this.running;
  }

  /** Folds ingest rows into points until none are left (or the store closes). */
  async compactAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.compact();
      total += n;
      if (n < this.batch || this.closed) return total;
      // Requests waiting meanwhile go first: a backlog is worked off in short turns.
      await new Promise((r) => setImmediate(r));
    }
  }

  /** Folds one batch of ingest rows into points; returns how many rows it took. */
  async compact(): Promise<number> {
    return this.o.db.transaction(async (tx) => {
      if (!(await lock(tx))) return 0;
      const claim =
        tx.dialect === 'postgres'
          ? `DELETE FROM metric_ingest WHERE id IN (SELECT id FROM metric_ingest ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING ${COLUMNS}`
          : `DELETE FROM metric_ingest WHERE id IN (SELECT id FROM metric_ingest ORDER BY id LIMIT ?) RETURNING ${COLUMNS}`;
      const rows = await tx.all(claim, [this.batch]);
      for (const g of group(rows)) await upsert(tx, g);
      return rows.length;
    });
  }

  /** Every roll-up tier, then retention. */
  async rollupAll(): Promise<void> {
    await this.compactAll();
    for (const tier of TIERS) {
      while (!this.closed && (await this.rollup(tier)) === this.batch) {
        // another batch of this tier
      }
    }
    await this.retain();
  }

  /** Rolls one batch of a tier's aged points up; returns how many points it read. */
  async rollup(tier: (typeof TIERS)[number]): Promise<number> {
    const toMs = tier.to * 1000;
    // Only whole target buckets that lie entirely before the cut-off.
    const cutoff = Math.floor((this.now() - tier.after) / toMs) * toMs;
    return this.o.db.transaction(async (tx) => {
      if (!(await lock(tx))) return 0;
      const rows = await tx.all(
        `SELECT ${COLUMNS} FROM metric_points WHERE resolution = ? AND ts < ? AND step = -1 ORDER BY series_id, ts LIMIT ?`,
        [tier.from, cutoff, this.batch],
      );
      if (rows.length === 0) return 0;
      const bucket = (ts: number) => ts - (ts % toMs);
      let take = rows;
      if (rows.length === this.batch) {
        // The last (series, bucket) may continue past this batch: leave it for the next one.
        const last = rows[rows.length - 1]!;
        const cut = rows.findIndex(
          (r) => r.series_id === last.series_id && bucket(Number(r.ts)) === bucket(Number(last.ts)),
        );
        if (cut > 0) take = rows.slice(0, cut);
      }
      const spans = new Set<string>();
      for (const r of take) spans.add(`${r.series_id}\u0000${bucket(Number(r.ts))}`);
      for (const span of spans) {
        const [series, start] = span.split('\u0000').map(Number) as [number, number];
        await tx.run(
          `DELETE FROM metric_points WHERE series_id = ? AND resolution = ? AND ts >= ? AND ts < ? AND step = -1`,
          [series, tier.from, start, start + toMs],
        );
      }
      for (const g of group(take, bucket, tier.to)) await upsert(tx, g);
      return take.length === rows.length ? rows.length : this.batch;
    });
  }

  /** Deletes points past the retention period, a day at a time from the oldest. */
  async retain(): Promise<number> {
    const cutoff = this.now() - this.o.retentionDays * DAY_MS;
    let deleted = 0;
    for (;;) {
      if (this.closed) return deleted;
      const oldest = await this.o.db.get<{ ts: number | null }>(
        `SELECT MIN(ts) AS ts FROM metric_points WHERE step = -1`,
      );
      const from = oldest?.ts === null || oldest?.ts === undefined ? undefined : Number(oldest.ts);
      if (from === undefined || from >= cutoff) return deleted;
      const to = Math.min(cutoff, from + DAY_MS);
      const params: SqlValue[] = [to];
      const n = await this.o.db.transaction(async (tx) => {
        if (!(await lock(tx))) return -1;
        return (await tx.run(`DELETE FROM metric_points WHERE ts < ? AND step = -1`, params)).changes;
      });
      // Another replica is at it.
      if (n < 0) return deleted;
      deleted += n;
    }
  }
}
