// Database query latency (every statement and transaction the server runs) and, on PostgreSQL,
// the connection pool's use; a decorator over the one SQL seam, so both dialects are measured alike.
import { performance } from 'node:perf_hooks';
import type { Database, Queryable, Row, SqlValue } from '../storage/db/types.js';
import type { HistogramSeries, MetricsRegistry } from './registry.js';

class TimedQueryable implements Queryable {
  constructor(
    readonly inner: Queryable,
    private readonly statement: HistogramSeries,
  ) {}
  get dialect() {
    return this.inner.dialect;
  }
  async all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    const t0 = performance.now();
    try {
      return await this.inner.all<T>(sql, params);
    } finally {
      this.statement.observe((performance.now() - t0) / 1000);
    }
  }
  async get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    const t0 = performance.now();
    try {
      return await this.inner.get<T>(sql, params);
    } finally {
      this.statement.observe((performance.now() - t0) / 1000);
    }
  }
  async run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    const t0 = performance.now();
    try {
      return await this.inner.run(sql, params);
    } finally {
      this.statement.observe((performance.now() - t0) / 1000);
    }
  }
}

class TimedDatabase extends TimedQueryable implements Database {
  declare readonly inner: Database;
  constructor(
    inner: Database,
    statement: HistogramSeries,
    private readonly txStatement: HistogramSeries,
    private readonly tx: HistogramSeries,
  ) {
    super(inner, statement);
    if (inner.openSession) this.openSession = () => inner.openSession!();
    if (inner.poolStats) this.poolStats = () => inner.poolStats!();
    if (inner.sizes) this.sizes = () => inner.sizes!();
  }
  openSession?: Database['openSession'];
  poolStats?: Database['poolStats'];
  sizes?: Database['sizes'];
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await this.inner.transaction((q) => fn(new TimedQueryable(q, this.txStatement)));
    } finally {
      this.tx.observe((performance.now() - t0) / 1000);
    }
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** `db`, measured: statement latency (in and out of transactions), transaction latency, pool use. */
export function instrumentDatabase(db: Database, m: MetricsRegistry): Database {
  const h = m.histogram(
    'slipway_db_query_duration_seconds',
    'Time a database statement or transaction took, as the server waited for it.',
    ['dialect', 'kind'],
  );
  if (db.poolStats) {
    const stats = () => db.poolStats!();
    m.gauge(
      'slipway_db_pool_connections',
      'PostgreSQL pool connections: in use, idle, and the pool size.',
      ['state'],
      () => {
        const s = stats();
        return [
          [['busy'], s.total - s.idle],
          [['idle'], s.idle],
          [['max'], s.max],
        ];
      },
    );
    m.gauge('slipway_db_pool_waiting', 'Queries waiting for a PostgreSQL pool connection.', [], () => [
      [[], stats().waiting],
    ]);
  }
  return new TimedDatabase(
    db,
    h.with(db.dialect, 'statement'),
    h.with(db.dialect, 'statement'),
    h.with(db.dialect, 'transaction'),
  );
}
