// The database's size on disk as Prometheus gauges for GET /metrics: what a burst of writes (a job
// printing a gigabyte) costs, and whether the WAL gives its space back afterwards.
import type { Database } from './types.js';

/** `slipway_database_bytes` and `slipway_database_wal_bytes` (the WAL only when it can be read). */
export async function databaseGauges(db: Database): Promise<string> {
  if (!db.sizes) return '';
  let sizes: Awaited<ReturnType<NonNullable<Database['sizes']>>>;
  try {
    sizes = await db.sizes();
  } catch {
    return '';
  }
  const lines = [
    "# HELP slipway_database_bytes Bytes of the database on disk (SQLite: the database file; PostgreSQL: this schema's tables and indexes).",
    '# TYPE slipway_database_bytes gauge',
    `slipway_database_bytes{dialect="${db.dialect}"} ${sizes.databaseBytes}`,
  ];
  if (sizes.walBytes !== undefined) {
    lines.push(
      "# HELP slipway_database_wal_bytes Bytes of the write-ahead log on disk (SQLite: the -wal file; PostgreSQL: the cluster's pg_wal).",
      '# TYPE slipway_database_wal_bytes gauge',
      `slipway_database_wal_bytes{dialect="${db.dialect}"} ${sizes.walBytes}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
