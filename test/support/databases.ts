// Test databases for every dialect, Kysely-style: `for (const d of DIALECTS) describe(d.name, ...)`.
// SQLite gets a fresh temp dir, PostgreSQL a fresh random schema; cleanup removes them.

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, redactUrl } from '../../src/storage/db/index.js';
import type { Database, DialectName, Migration } from '../../src/storage/db/types.js';

export const TEST_POSTGRES_URL = process.env.SLIPWAY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  readonly db: Database;
  /**
   * Opens another handle on the same storage (same SQLite dir, same PostgreSQL schema), e.g. to
   * test restarts or several replicas. Handles are closed by cleanup() if still open.
   */
  reopen(migrations: readonly Migration[]): Promise<Database>;
  /** Closes every handle and deletes the storage. */
  cleanup(): Promise<void>;
}

export interface TestDialect {
  readonly name: DialectName;
  open(migrations?: readonly Migration[]): Promise<TestDatabase>;
}

const sqlite: TestDialect = {
  name: 'sqlite',
  async open(migrations = []) {
    const dataDir = await mkdtemp(join(tmpdir(), 'slipway-db-'));
    const handles: Database[] = [];
    const reopen = async (m: readonly Migration[]) => {
      const db = await openDatabase({ dataDir, migrations: m });
      handles.push(db);
      return db;
    };
    const cleanup = async () => {
      await Promise.allSettled(handles.map((h) => h.close()));
      await rm(dataDir, { recursive: true, force: true });
    };
    try {
      return { db: await reopen(migrations), reopen, cleanup };
    } catch (err) {
      await cleanup();
      throw err;
    }
  },
};

const postgres: TestDialect = {
  name: 'postgres',
  async open(migrations = []) {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    const handles: Database[] = [];
    const reopen = async (m: readonly Migration[]) => {
      const db = await openDatabase({ url: TEST_POSTGRES_URL, schema, migrations: m, poolSize: 5 });
      handles.push(db);
      return db;
    };
    const cleanup = async () => {
      await Promise.allSettled(handles.map((h) => h.close()));
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    };
    await assertPostgresReachable();
    try {
      return { db: await reopen(migrations), reopen, cleanup };
    } catch (err) {
      await cleanup().catch(() => {});
      throw err;
    }
  },
};

let reachable: Promise<void> | undefined;

/** Fails loudly (never skips) when the test PostgreSQL server is down. */
function assertPostgresReachable(): Promise<void> {
  reachable ??= (async () => {
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
    } catch (err) {
      throw new Error(
        `PostgreSQL tests need a server at ${redactUrl(TEST_POSTGRES_URL)} (${(err as Error).message}). ` +
          'Start it with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` ' +
          'or set SLIPWAY_TEST_DATABASE_URL.',
        { cause: err },
      );
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return reachable;
}

export const DIALECTS: TestDialect[] = [sqlite, postgres];
