// The durable time-series store every metric goes through (CloudWatch's PutMetricData, endpoint
// counters, training-job metrics, SageMaker Metrics' BatchPutMetrics): series, an append-only
// ingest table a write commits to at once, and compacted points (src/metrics/maintenance.ts folds
// ingest rows into them). Reads see both, so a write is visible as soon as it is acknowledged.
// Layout after Prometheus' TSDB: a small series index, samples by (series, time), compaction and
// downsampling in the background. https://prometheus.io/docs/prometheus/latest/storage/
import type { Partition } from '../domain/arn.js';
import type { Database, Queryable, Row, SqlValue } from '../storage/db/types.js';
import { type Distribution, decode, encode, single } from './distribution.js';
import { type Aggregate, dimensionsKey, mergeAggregates, type SeriesKey } from './series.js';

/** One value (or statistic set) for a series, as written. */
export interface PointInput {
  readonly series: SeriesKey;
  /** Epoch ms; stored truncated to the resolution. */
  readonly timestamp: number;
  readonly unit: string;
  /** Seconds: 1 (high resolution) or 60 (standard). */
  readonly resolution: number;
  /** SageMaker Metrics' iteration number. */
  readonly step?: number;
  readonly agg: Aggregate;
}

/** A stored point as reads return it. */
export interface StoredPoint {
  readonly ts: number;
  readonly resolution: number;
  readonly unit: string;
  /** -1 when the point has no step. */
  readonly step: number;
  readonly agg: Aggregate;
}

export interface SeriesRow {
  readonly id: number;
  readonly namespace: string;
  readonly metric_name: string;
  readonly dimensions: string;
  readonly last_seen: number;
}

/** Rows per multi-row INSERT (10 parameters each: far below both databases' limits). */
const INSERT_CHUNK = 64;
const POINT_COLUMNS = 'series_id, ts, resolution, unit, step, sample_count, sum, min, max, has_dist, dist';
const NO_STEP = -1;
/** last_seen is rewritten at most this often per series (ListMetrics reads it to the hour). */
const LAST_SEEN_GRANULARITY_MS = 60_000;

const insertSql = (table: string, rows: number) =>
  `INSERT INTO ${table} (${POINT_COLUMNS}) VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`;
const INSERT_INGEST_CHUNK = insertSql('metric_ingest', INSERT_CHUNK);
const INSERT_INGEST_ONE = insertSql('metric_ingest', 1);

/**
 * A point's row values. Samples that were all one value (min = max: every single value, and most
 * endpoint counts) need no stored distribution: it is implied, and rebuilt when read.
 */
export function pointParams(seriesId: number, p: Omit<StoredPoint, 'agg'> & { agg: Aggregate }): SqlValue[] {
  const a = p.agg;
  const known = a.dist !== null || a.min === a.max;
  const dist = a.dist !== null && a.min !== a.max ? encode(a.dist) : null;
  return [seriesId, p.ts, p.resolution, p.unit, p.step, a.count, a.sum, a.min, a.max, known ? 1 : 0, dist];
}

/** Says "percentiles are known" on reads that did not ask for the distributions themselves. */
const KNOWN_NOT_READ: Distribution = { values: new Float64Array(0), counts: new Float64Array(0) };

export function toStoredPoint(r: Row, withDist: boolean): StoredPoint {
  const count = Number(r.sample_count);
  const min = Number(r.min);
  const max = Number(r.max);
  let dist: Distribution | null = null;
  if (Number(r.has_dist) === 1) {
    if (!withDist) dist = KNOWN_NOT_READ;
    else dist = r.dist ? decode(r.dist as Uint8Array) : single(min, count);
  }
  return {
    ts: Number(r.ts),
    resolution: Number(r.resolution),
    unit: r.unit as string,
    step: Number(r.step),
    agg: { count, sum: Number(r.sum), min, max, dist },
  };
}

/** Series ids a transaction made or found, cached once it commits. */
export type FreshSeries = Map<string, { id: number; lastSeen: number }>;

export class MetricStore {
  /** Series ids by partition and key: a series, once made, is never deleted, so ids stay valid. */
  private readonly ids = new Map<string, { id: number; lastSeen: number }>();

  private cacheKey(p: Partition, s: SeriesKey, dims: string): string {
    return `${p.accountId}\u0000${p.region}\u0000${s.namespace}\u0000${s.metricName}\u0000${dims}`;
  }

  /**
   * The id of a series, made on first use inside the caller's transaction. A series this call
   * made (or found made by the same, uncommitted transaction) goes into `fresh`, not the cache:
   * the caller hands it to remember() once the transaction committed, so a rollback leaves no id
   * behind that names nothing.
   */
  async seriesId(q: Queryable, p: Partition, s: SeriesKey, now: number, fresh: FreshSeries): Promise<number> {
    const dims = dimensionsKey(s.dimensions);
    const key = this.cacheKey(p, s, dims);
    const known = this.ids.get(key) ?? fresh.get(key);
    if (known) {
      if (now - known.lastSeen >= LAST_SEEN_GRANULARITY_MS) {
        await q.run(`UPDATE metric_series SET last_seen = ? WHERE id = ? AND last_seen < ?`, [now, known.id, now]);
        known.lastSeen = now;
      }
      return known.id;
    }
    await q.run(
      `INSERT INTO metric_series (account_id, region, namespace, metric_name, dimensions, created_at, last_seen)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (account_id, region, namespace, metric_name, dimensions) DO NOTHING`,
      [p.accountId, p.region, s.namespace, s.metricName, dims, now, now],
    );
    const row = await q.get<{ id: number; last_seen: number }>(
      `SELECT id, last_seen FROM metric_series WHERE account_id = ? AND region = ? AND namespace = ? AND metric_name = ? AND dimensions = ?`,
      [p.accountId, p.region, s.namespace, s.metricName, dims],
    );
    const id = Number(row!.id);
    if (Number(row!.last_seen) < now) {
      await q.run(`UPDATE metric_series SET last_seen = ? WHERE id = ? AND last_seen < ?`, [now, id, now]);
    }
    fresh.set(key, { id, lastSeen: now });
    return id;
  }

  /** Caches the series a committed transaction made or found (see seriesId). */
  remember(fresh: FreshSeries): void {
    if (this.ids.size + fresh.size > 100_000) this.ids.clear();
    for (const [k, v] of fresh) this.ids.set(k, v);
  }

  /** Appends points in a transaction of their own. */
  async write(db: Database, p: Partition, points: readonly PointInput[], now: number): Promise<void> {
    const fresh: FreshSeries = new Map();
    await db.transaction((tx) => this.append(tx, p, points, now, fresh));
    this.remember(fresh);
  }

  /** The id of an existing series (reads never create one). */
  async findSeries(q: Queryable, p: Partition, s: SeriesKey): Promise<number | undefined> {
    const dims = dimensionsKey(s.dimensions);
    const cached = this.ids.get(this.cacheKey(p, s, dims));
    if (cached) return cached.id;
    const row = await q.get<{ id: number }>(
      `SELECT id FROM metric_series WHERE account_id = ? AND region = ? AND namespace = ? AND metric_name = ? AND dimensions = ?`,
      [p.accountId, p.region, s.namespace, s.metricName, dims],
    );
    return row ? Number(row.id) : undefined;
  }

  /**
   * Appends points inside the caller's transaction (they commit or fail together); hand `fresh`
   * to remember() after the commit. Points of one series, bucket, unit and step are written as one
   * row (their merged statistic set): a request of 1,000 values for 20 series writes 20 rows.
   */
  async append(
    q: Queryable,
    p: Partition,
    points: readonly PointInput[],
    now: number,
    fresh: FreshSeries,
  ): Promise<void> {
    if (points.length === 0) return;
    const groups = new Map<
      string,
      { series: SeriesKey; ts: number; resolution: number; unit: string; step: number; parts: Aggregate[] }
    >();
    for (const pt of points) {
      const ms = pt.resolution * 1000;
      const ts = pt.timestamp - (((pt.timestamp % ms) + ms) % ms);
      const step = pt.step ?? NO_STEP;
      const key = `${pt.series.namespace}\u0000${pt.series.metricName}\u0000${dimensionsKey(pt.series.dimensions)}\u0000${ts}\u0000${pt.resolution}\u0000${pt.unit}\u0000${step}`;
      const g = groups.get(key);
      if (g) g.parts.push(pt.agg);
      else groups.set(key, { series: pt.series, ts, resolution: pt.resolution, unit: pt.unit, step, parts: [pt.agg] });
    }
    const params: SqlValue[] = [];
    let rows = 0;
    for (const g of groups.values()) {
      const id = await this.seriesId(q, p, g.series, now, fresh);
      const agg = g.parts.length === 1 ? g.parts[0]! : mergeAggregates(g.parts);
      for (const v of pointParams(id, { ts: g.ts, resolution: g.resolution, unit: g.unit, step: g.step, agg }))
        params.push(v);
      if (++rows === INSERT_CHUNK) {
        await q.run(INSERT_INGEST_CHUNK, params);
        params.length = 0;
        rows = 0;
      }
    }
    for (let i = 0; i < rows; i++) await q.run(INSERT_INGEST_ONE, params.slice(i * 11, i * 11 + 11));
  }

  /**
   * The points of a series with `from <= ts < to`, compacted and not yet compacted, in no order.
   * Distributions are decoded only when asked for (percentiles).
   */
  async read(
    q: Queryable,
    seriesId: number,
    range: { from: number; to: number; unit?: string; withDist?: boolean; steppedOnly?: boolean },
  ): Promise<StoredPoint[]> {
    const cols = `ts, resolution, unit, step, sample_count, sum, min, max, has_dist${range.withDist ? ', dist' : ''}`;
    const params: SqlValue[] = [seriesId, range.from, range.to];
    let where = 'series_id = ? AND ts >= ? AND ts < ?';
    if (range.unit !== undefined) {
      where += ' AND unit = ?';
      params.push(range.unit);
    }
    if (range.steppedOnly) where += ' AND step >= 0';
    const rows = await q.all(
      `SELECT ${cols} FROM metric_points WHERE ${where} UNION ALL SELECT ${cols} FROM metric_ingest WHERE ${where}`,
      [...params, ...params],
    );
    return rows.map((r) => toStoredPoint(r, range.withDist === true));
  }

  /**
   * Series of a partition in (namespace, metric name, dimensions) order after `after`, filtered by
   * namespace and metric name, seen since `seenSince`; internal namespaces (`:`) are left out.
   */
  async listSeries(
    q: Queryable,
    p: Partition,
    f: {
      namespace?: string;
      metricName?: string;
      seenSince: number;
      after?: readonly [string, string, string];
      limit: number;
    },
  ): Promise<SeriesRow[]> {
    const params: SqlValue[] = [p.accountId, p.region, f.seenSince];
    let where = `account_id = ? AND region = ? AND last_seen >= ? AND namespace NOT LIKE ':%'`;
    if (f.namespace !== undefined) {
      where += ' AND namespace = ?';
      params.push(f.namespace);
    }
    if (f.metricName !== undefined) {
      where += ' AND metric_name = ?';
      params.push(f.metricName);
    }
    if (f.after) {
      where += ` AND (namespace > ? OR (namespace = ? AND (metric_name > ? OR (metric_name = ? AND dimensions > ?))))`;
      params.push(f.after[0], f.after[0], f.after[1], f.after[1], f.after[2]);
    }
    params.push(f.limit);
    const rows = await q.all(
      `SELECT id, namespace, metric_name, dimensions, last_seen FROM metric_series WHERE ${where}
       ORDER BY namespace, metric_name, dimensions LIMIT ?`,
      params,
    );
    return rows.map((r) => ({
      id: Number(r.id),
      namespace: r.namespace as string,
      metric_name: r.metric_name as string,
      dimensions: r.dimensions as string,
      last_seen: Number(r.last_seen),
    }));
  }

  /** Every series (any namespace) a name and dimension carry, e.g. a job's or trial component's. */
  async seriesWithDimension(q: Queryable, p: Partition, namespace: string, dims: string): Promise<SeriesRow[]> {
    const rows = await q.all(
      `SELECT id, namespace, metric_name, dimensions, last_seen FROM metric_series
       WHERE account_id = ? AND region = ? AND namespace = ? AND dimensions = ? ORDER BY metric_name`,
      [p.accountId, p.region, namespace, dims],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      namespace: r.namespace as string,
      metric_name: r.metric_name as string,
      dimensions: r.dimensions as string,
      last_seen: Number(r.last_seen),
    }));
  }
}
