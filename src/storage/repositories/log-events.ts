// CloudWatch Logs storage: log groups, their streams, and each stream's events in the order they
// were written. Jobs append to it; the Logs API (DescribeLogStreams, GetLogEvents, FilterLogEvents)
// reads it. https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/Welcome.html
import type { Partition } from '../../domain/arn.js';
import { escapeLike, LIKE_ESCAPE } from '../db/dialect.js';
import type { Queryable, SqlValue } from '../db/types.js';

export interface LogLine {
  /** The event's own time, epoch ms. */
  readonly timestamp: number;
  readonly message: string;
}

export interface LogStreamRow {
  readonly log_group: string;
  readonly name: string;
  readonly created_at: number;
  readonly first_event: number | null;
  readonly last_event: number | null;
  readonly last_ingestion: number | null;
  readonly stored_bytes: number;
}

export interface LogEventRow {
  readonly log_stream: string;
  readonly seq: number;
  readonly event_time: number;
  readonly ingestion_time: number;
  readonly message: string;
}

const STREAM_COLUMNS = 'log_group, name, created_at, first_event, last_event, last_ingestion, stored_bytes';
const EVENT_COLUMNS = 'log_stream, seq, event_time, ingestion_time, message';

/**
 * Names starting with `prefix`, case-sensitively on both dialects (SQLite's LIKE ignores ASCII case):
 * every such name sorts bytewise in [prefix, prefix + U+FFFF).
 */
const prefixRange = (prefix: string): [string, string] => [prefix, `${prefix}\uffff`];

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const streamRow = (r: Record<string, unknown>): LogStreamRow => ({
  log_group: r.log_group as string,
  name: r.name as string,
  created_at: Number(r.created_at),
  first_event: num(r.first_event),
  last_event: num(r.last_event),
  last_ingestion: num(r.last_ingestion),
  stored_bytes: Number(r.stored_bytes),
});
const eventRow = (r: Record<string, unknown>): LogEventRow => ({
  log_stream: r.log_stream as string,
  seq: Number(r.seq),
  event_time: Number(r.event_time),
  ingestion_time: Number(r.ingestion_time),
  message: r.message as string,
});

export class LogRepository {
  /**
   * Appends events to a stream, creating its group and the stream when missing. Run it inside a
   * transaction: the stream row is locked while its next sequence number is taken.
   */
  async append(tx: Queryable, p: Partition, group: string, stream: string, lines: readonly LogLine[], now: number) {
    await tx.run(
      `INSERT INTO log_groups (account_id, region, name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [p.accountId, p.region, group, now],
    );
    await tx.run(
      `INSERT INTO log_streams (account_id, region, log_group, name, created_at, stored_bytes, next_seq)
       VALUES (?, ?, ?, ?, ?, 0, 0) ON CONFLICT DO NOTHING`,
      [p.accountId, p.region, group, stream, now],
    );
    if (lines.length === 0) return;
    const key = [p.accountId, p.region, group, stream];
    const row = await tx.get<{ next_seq: number }>(
      `SELECT next_seq FROM log_streams WHERE account_id = ? AND region = ? AND log_group = ? AND name = ?${tx.dialect === 'postgres' ? ' FOR UPDATE' : ''}`,
      key,
    );
    let seq = Number(row!.next_seq);
    let bytes = 0;
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    // Multi-row inserts, well under both dialects' bound-parameter limits.
    for (let i = 0; i < lines.length; i += 100) {
      const chunk = lines.slice(i, i + 100);
      const params: SqlValue[] = [];
      for (const l of chunk) {
        params.push(...key, seq++, l.timestamp, now, l.message);
        bytes += Buffer.byteLength(l.message) + 26;
        first = Math.min(first, l.timestamp);
        last = Math.max(last, l.timestamp);
      }
      await tx.run(
        `INSERT INTO log_events (account_id, region, log_group, log_stream, seq, event_time, ingestion_time, message)
         VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        params,
      );
    }
    await tx.run(
      `UPDATE log_streams SET next_seq = ?, stored_bytes = stored_bytes + ?, last_ingestion = ?,
         first_event = CASE WHEN first_event IS NULL OR first_event > ? THEN ? ELSE first_event END,
         last_event = CASE WHEN last_event IS NULL OR last_event < ? THEN ? ELSE last_event END
       WHERE account_id = ? AND region = ? AND log_group = ? AND name = ?`,
      [seq, bytes, now, first, first, last, last, ...key],
    );
  }

  async groupCreatedAt(q: Queryable, p: Partition, group: string): Promise<number | undefined> {
    const r = await q.get<{ created_at: number }>(
      `SELECT created_at FROM log_groups WHERE account_id = ? AND region = ? AND name = ?`,
      [p.accountId, p.region, group],
    );
    return r ? Number(r.created_at) : undefined;
  }

  /** Groups by name with an optional prefix or substring, after `after`, in name order. */
  async groups(
    q: Queryable,
    p: Partition,
    filter: { prefix?: string; contains?: string },
    after: string | undefined,
    limit: number,
  ): Promise<Array<{ name: string; created_at: number; stored_bytes: number }>> {
    const where = ['g.account_id = ?', 'g.region = ?'];
    const params: SqlValue[] = [p.accountId, p.region];
    if (filter.prefix) {
      where.push('g.name >= ? AND g.name < ?');
      params.push(...prefixRange(filter.prefix));
    }
    if (filter.contains) {
      where.push(`LOWER(g.name) LIKE ? ${LIKE_ESCAPE}`);
      params.push(`%${escapeLike(filter.contains.toLowerCase())}%`);
    }
    if (after !== undefined) {
      where.push('g.name > ?');
      params.push(after);
    }
    params.push(limit);
    const rows = await q.all(
      `SELECT g.name, g.created_at, (SELECT COALESCE(SUM(s.stored_bytes), 0) FROM log_streams s
         WHERE s.account_id = g.account_id AND s.region = g.region AND s.log_group = g.name) AS stored_bytes
       FROM log_groups g WHERE ${where.join(' AND ')} ORDER BY g.name LIMIT ?`,
      params,
    );
    return rows.map((r) => ({
      name: r.name as string,
      created_at: Number(r.created_at),
      stored_bytes: Number(r.stored_bytes),
    }));
  }

  async stream(q: Queryable, p: Partition, group: string, name: string): Promise<LogStreamRow | undefined> {
    const r = await q.get(
      `SELECT ${STREAM_COLUMNS} FROM log_streams WHERE account_id = ? AND region = ? AND log_group = ? AND name = ?`,
      [p.accountId, p.region, group, name],
    );
    return r ? streamRow(r) : undefined;
  }

  /** A group's streams by name (optionally with a prefix) or by last event time. */
  async streams(
    q: Queryable,
    p: Partition,
    group: string,
    o: { prefix?: string; byLastEvent: boolean; descending: boolean },
    after: readonly [number | string | null, string] | undefined,
    limit: number,
  ): Promise<LogStreamRow[]> {
    const where = ['account_id = ?', 'region = ?', 'log_group = ?'];
    const params: SqlValue[] = [p.accountId, p.region, group];
    if (o.prefix) {
      where.push('name >= ? AND name < ?');
      params.push(...prefixRange(o.prefix));
    }
    const dir = o.descending ? 'DESC' : 'ASC';
    const cmp = o.descending ? '<' : '>';
    // Streams with no event yet sort as time 0.
    const col = o.byLastEvent ? 'COALESCE(last_event, 0)' : 'name';
    if (after) {
      if (o.byLastEvent) {
        where.push(`(${col} ${cmp} ? OR (${col} = ? AND name ${cmp} ?))`);
        params.push(after[0], after[0], after[1]);
      } else {
        where.push(`name ${cmp} ?`);
        params.push(after[1]);
      }
    }
    params.push(limit);
    const order = o.byLastEvent ? `${col} ${dir}, name ${dir}` : `name ${dir}`;
    const rows = await q.all(
      `SELECT ${STREAM_COLUMNS} FROM log_streams WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ?`,
      params,
    );
    return rows.map(streamRow);
  }

  /**
   * One stream's events in write order, forwards from after `afterSeq` or backwards from before
   * `beforeSeq`, within [startTime, endTime).
   */
  async streamEvents(
    q: Queryable,
    p: Partition,
    group: string,
    stream: string,
    o: { startTime?: number; endTime?: number; afterSeq?: number; beforeSeq?: number; backwards: boolean },
    limit: number,
  ): Promise<LogEventRow[]> {
    const where = ['account_id = ?', 'region = ?', 'log_group = ?', 'log_stream = ?'];
    const params: SqlValue[] = [p.accountId, p.region, group, stream];
    const add = (sql: string, v: SqlValue) => {
      where.push(sql);
      params.push(v);
    };
    if (o.startTime !== undefined) add('event_time >= ?', o.startTime);
    if (o.endTime !== undefined) add('event_time < ?', o.endTime);
    if (o.afterSeq !== undefined) add('seq > ?', o.afterSeq);
    if (o.beforeSeq !== undefined) add('seq < ?', o.beforeSeq);
    params.push(limit);
    const rows = await q.all(
      `SELECT ${EVENT_COLUMNS} FROM log_events WHERE ${where.join(' AND ')} ORDER BY seq ${o.backwards ? 'DESC' : 'ASC'} LIMIT ?`,
      params,
    );
    const out = rows.map(eventRow);
    return o.backwards ? out.reverse() : out;
  }

  /** A group's events in time order across the chosen streams, after position `after`. */
  async groupEvents(
    q: Queryable,
    p: Partition,
    group: string,
    o: { streams?: readonly string[]; prefix?: string; startTime?: number; endTime?: number },
    after: readonly [number, string, number] | undefined,
    limit: number,
  ): Promise<LogEventRow[]> {
    const where = ['account_id = ?', 'region = ?', 'log_group = ?'];
    const params: SqlValue[] = [p.accountId, p.region, group];
    if (o.streams?.length) {
      where.push(`log_stream IN (${o.streams.map(() => '?').join(', ')})`);
      params.push(...o.streams);
    }
    if (o.prefix) {
      where.push('log_stream >= ? AND log_stream < ?');
      params.push(...prefixRange(o.prefix));
    }
    if (o.startTime !== undefined) {
      where.push('event_time >= ?');
      params.push(o.startTime);
    }
    if (o.endTime !== undefined) {
      where.push('event_time <= ?');
      params.push(o.endTime);
    }
    if (after) {
      where.push('(event_time > ? OR (event_time = ? AND (log_stream > ? OR (log_stream = ? AND seq > ?))))');
      params.push(after[0], after[0], after[1], after[1], after[2]);
    }
    params.push(limit);
    const rows = await q.all(
      `SELECT ${EVENT_COLUMNS} FROM log_events WHERE ${where.join(' AND ')} ORDER BY event_time, log_stream, seq LIMIT ?`,
      params,
    );
    return rows.map(eventRow);
  }
}
