// Public API of the SQL seam: open a database, run queries and transactions, write migrations.

export { dialectSql, escapeLike, forUpdate, LIKE_ESCAPE } from './dialect.js';
export { MIGRATION_LOCK_KEY, MIGRATIONS_TABLE, type MigrateResult, MigrationError, migrate } from './migrate.js';
export { dialectOf, openDatabase } from './open.js';
export { openPostgres, type PostgresOptions, redactUrl } from './postgres.js';
export { DEFAULT_SQLITE_FILE, openSqlite, type SqliteOptions } from './sqlite.js';
export { TransactionAbortedError } from './transaction-scope.js';
export {
  type Database,
  type DialectName,
  type Migration,
  type OpenDatabaseOptions,
  type Queryable,
  type Row,
  type SqlValue,
  UniqueViolationError,
} from './types.js';
