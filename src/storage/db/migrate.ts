// Schema migrations: applies Migration[] in order, one transaction each, recording ids in
// schema_migrations; refuses to run against a database migrated by a newer build.

import type { Database, Migration, Queryable } from './types.js';

export const MIGRATIONS_TABLE = 'schema_migrations';

/** PostgreSQL advisory lock key shared by schema bootstrap and migrations: replicas take turns. */
export const MIGRATION_LOCK_KEY = 0x51_1f_0a_57;

/** Thrown for invalid migration lists, unknown (newer) applied migrations and failed migrations. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

export interface MigrateResult {
  /** Ids applied by this call, in order (empty when the schema was already current). */
  readonly applied: string[];
}

/** Checks ids are non-empty, unique and strictly ascending, so order never depends on array order. */
export function validateMigrations(migrations: readonly Migration[]): void {
  let previous: string | undefined;
  for (const m of migrations) {
    if (typeof m.id !== 'string' || m.id.length === 0) throw new MigrationError('migration with an empty id');
    if (previous !== undefined && m.id <= previous) {
      throw new MigrationError(
        `migration ids must be unique and ascending: ${JSON.stringify(m.id)} comes after ${JSON.stringify(previous)}`,
      );
    }
    previous = m.id;
  }
}

/** The statements of m for db's dialect: `both` first, then the dialect-specific ones. */
export function migrationStatements(m: Migration, dialect: Database['dialect']): readonly string[] {
  return [...(m.both ?? []), ...(m[dialect] ?? [])];
}

async function lock(tx: Queryable): Promise<void> {
  // SQLite needs nothing: BEGIN IMMEDIATE already excludes every other writer, in any process.
  // PostgreSQL replicas starting together queue here; the lock ends with the transaction.
  if (tx.dialect === 'postgres') await tx.get('SELECT pg_advisory_xact_lock(?) AS locked', [MIGRATION_LOCK_KEY]);
}

/** Brings db's schema up to date with `migrations`. Safe to call on every start and from several replicas. */
export async function migrate(
  db: Database,
  migrations: readonly Migration[],
  options: { now?: () => number } = {},
): Promise<MigrateResult> {
  validateMigrations(migrations);
  const now = options.now ?? Date.now;
  const known = new Set(migrations.map((m) => m.id));

  const appliedBefore = await db.transaction(async (tx) => {
    await lock(tx);
    await tx.run(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`);
    const rows = await tx.all<{ id: string }>(`SELECT id FROM ${MIGRATIONS_TABLE} ORDER BY id`);
    return new Set(rows.map((r) => r.id));
  });

  const unknown = [...appliedBefore].filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new MigrationError(
      `the database schema is newer than this build: it has migration(s) ${unknown.join(', ')} that this build ` +
        `does not know. Refusing to start; run a Slipway version that includes them (downgrades are not supported).`,
    );
  }

  const applied: string[] = [];
  for (const m of migrations) {
    if (appliedBefore.has(m.id)) continue;
    try {
      const didApply = await db.transaction(async (tx) => {
        await lock(tx);
        // Another replica may have applied it between our check and taking the lock.
        if (await tx.get(`SELECT id FROM ${MIGRATIONS_TABLE} WHERE id = ?`, [m.id])) return false;
        for (const sql of migrationStatements(m, db.dialect)) await tx.run(sql);
        await tx.run(`INSERT INTO ${MIGRATIONS_TABLE} (id, applied_at) VALUES (?, ?)`, [m.id, now()]);
        return true;
      });
      if (didApply) applied.push(m.id);
    } catch (err) {
      throw new MigrationError(`migration ${m.id} failed (rolled back): ${(err as Error).message}`, { cause: err });
    }
  }
  return { applied };
}
