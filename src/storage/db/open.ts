// openDatabase: picks SQLite or PostgreSQL from the options, opens it and applies migrations.

import { migrate } from './migrate.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';
import type { Database, DialectName, OpenDatabaseOptions } from './types.js';

/** 'postgres' for postgres:// and postgresql:// URLs, 'sqlite' when there is no URL. */
export function dialectOf(url: string | undefined): DialectName {
  if (url === undefined || url === '') return 'sqlite';
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  throw new Error(
    `unsupported database URL scheme in ${JSON.stringify(url.split(':')[0])}: use postgres:// or postgresql://, or no URL for SQLite`,
  );
}

/** Opens the configured database and brings its schema up to date; closes it again if that fails. */
export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  const db =
    dialectOf(opts.url) === 'postgres'
      ? await openPostgres({ url: opts.url!, schema: opts.schema, poolSize: opts.poolSize })
      : await openSqlite({
          dataDir: opts.dataDir,
          fileName: opts.fileName,
          ...(opts.sqlitePageSize !== undefined ? { pageSize: opts.sqlitePageSize } : {}),
        });
  try {
    await migrate(db, opts.migrations);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return db;
}
