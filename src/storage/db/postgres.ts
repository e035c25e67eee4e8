// PostgreSQL implementation of the Database seam on a `pg` Pool: `?` placeholders rewritten to
// $n, INT8/NUMERIC parsed as numbers, optional dedicated schema, pooled-client transactions.

import pg from 'pg';
import { LruCache } from './lru-cache.js';
import { MIGRATION_LOCK_KEY } from './migrate.js';
import { rewritePlaceholders } from './placeholders.js';
import { assertNotInTransaction, runTransaction } from './transaction-scope.js';
import {
  type Database,
  type DatabaseSession,
  type DatabaseSizes,
  type Queryable,
  type Row,
  type SqlValue,
  UniqueViolationError,
} from './types.js';

export interface PostgresOptions {
  /** postgres:// or postgresql:// connection URL. */
  readonly url: string;
  /** Schema to create if missing and put alone on every connection's search_path. */
  readonly schema?: string;
  /** Maximum pooled connections (default 10). */
  readonly poolSize?: number;
  /** Placeholder rewrites cached by SQL text (default 500). */
  readonly statementCacheSize?: number;
}

const OID_INT8 = 20;
const OID_NUMERIC = 1700;

// Per-pool parsers (not the global pg.types registry, which would change other pg users).
// INT8 (COUNT(*), BIGINT columns) and NUMERIC (SUM/AVG of integers) come back as numbers, as on
// SQLite; values beyond ±2^53 lose precision on both dialects.
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if ((format ?? 'text') === 'text' && (oid === OID_INT8 || oid === OID_NUMERIC)) return Number;
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

// Lower case only: search_path folds unquoted names to lower case, and quoting inside the
// startup `options` string is fragile.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Connection URL with any password replaced, safe for error messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<unparseable database url>';
  }
}

function mapError(err: unknown): unknown {
  if (err instanceof Error && (err as { code?: unknown }).code === '23505') {
    const detail = (err as { detail?: string }).detail;
    return new UniqueViolationError(detail ? `${err.message} (${detail})` : err.message, { cause: err });
  }
  return err;
}

function toParam(v: SqlValue | undefined): unknown {
  // 1/0 are valid input for both INTEGER and BOOLEAN columns, whereas true/false is rejected by
  // INTEGER ones; portable schemas store booleans as INTEGER (as SQLite must).
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === undefined) return null;
  if (v instanceof Uint8Array && !Buffer.isBuffer(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return v;
}

type QueryTarget = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/** Queryable over either the pool (autocommit) or one checked-out client (transaction). */
class PgQueryable implements Queryable {
  readonly dialect = 'postgres' as const;
  constructor(
    readonly target: QueryTarget,
    readonly rewrites: LruCache<string, string>,
  ) {}

  async query(sql: string, params?: readonly SqlValue[]): Promise<pg.QueryResult> {
    const text = this.rewrites.getOrCreate(sql, rewritePlaceholders);
    // Extended protocol always: it rejects several statements in one string, as SQLite does,
    // so SQL that works on one dialect does not silently differ on the other.
    const config = { text, values: params ? params.map(toParam) : [], queryMode: 'extended' } as pg.QueryConfig;
    try {
      return await this.target.query(config);
    } catch (err) {
      throw mapError(err);
    }
  }

  async all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }

  async get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }

  async run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }
}

/** Opens a pool (creating the schema if asked). Does not run migrations; see openDatabase. */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const { url, schema } = options;
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new Error(`not a PostgreSQL URL: ${redactUrl(url)}`);
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`invalid PostgreSQL schema name ${JSON.stringify(schema)}: use lower-case letters, digits and _`);
  }
  const poolSize = options.poolSize ?? 10;
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new Error(`poolSize must be a positive integer`);

  let connectionString = url;
  let startupOptions: string | undefined;
  if (schema !== undefined) {
    // search_path as a startup option applies to every pooled connection before its first
    // query. pg lets the URL's own `options` override the config, so merge them ourselves.
    const u = new URL(url);
    const existing = u.searchParams.get('options');
    u.searchParams.delete('options');
    connectionString = u.toString();
    startupOptions = [existing, `-c search_path=${schema}`].filter(Boolean).join(' ');
  }

  await bootstrap(connectionString, startupOptions, schema);

  const pool = new pg.Pool({
    connectionString,
    options: startupOptions,
    max: poolSize,
    types: typeParsers,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection (server restart) is discarded by the pool and the next
  // query reconnects; without a listener the 'error' event would crash the process.
  pool.on('error', (err) => {
    process.emitWarning(`PostgreSQL idle client error: ${err.message}`, 'SlipwayDatabaseWarning');
  });
  const session = async (): Promise<DatabaseSession> => {
    const client = new pg.Client({
      connectionString,
      options: startupOptions,
      types: typeParsers,
      connectionTimeoutMillis: 10_000,
    });
    await client.connect();
    let ended = false;
    const lost: Array<(err: Error) => void> = [];
    const fail = (err: Error) => {
      if (ended) return;
      ended = true;
      for (const l of lost) l(err);
    };
    client.on('error', fail);
    client.on('end', () => fail(new Error('the PostgreSQL session ended')));
    return {
      query: async <T extends Row>(sql: string, params?: readonly unknown[]) =>
        (await client.query(sql, params ? [...params] : [])).rows as T[],
      onNotification: (listener) => client.on('notification', (n) => listener(n.channel, n.payload ?? '')),
      onLost: (listener) => void lost.push(listener),
      end: async () => {
        ended = true;
        await client.end().catch(() => {});
      },
    };
  };
  return new PostgresDatabase(pool, options.statementCacheSize ?? 500, session, poolSize);
}

/**
 * Creates the schema and the portable "binary" collation (SQLite's default BINARY; PostgreSQL's
 * default collation follows the server locale), under the migration advisory lock because
 * concurrent CREATE ... IF NOT EXISTS can still fail with a unique violation on the catalogs.
 */
async function bootstrap(connectionString: string, options: string | undefined, schema: string | undefined) {
  const client = new pg.Client({ connectionString, options, types: typeParsers, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`cannot connect to PostgreSQL at ${redactUrl(connectionString)}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    // Unqualified: goes to the first schema on search_path, i.e. `schema` when given. Checked
    // first because CREATE ... IF NOT EXISTS still needs CREATE privilege on the schema.
    const found = await client.query(
      `SELECT 1 FROM pg_collation WHERE collname = 'binary' AND collnamespace = current_schema()::regnamespace`,
    );
    if (found.rowCount === 0) await client.query(`CREATE COLLATION IF NOT EXISTS "binary" FROM "C"`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    await client.end().catch(() => {});
  }
}

class PostgresDatabase implements Database {
  readonly dialect = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #rewrites: LruCache<string, string>;
  readonly #autocommit: PgQueryable;
  /** In-flight operations, awaited by close() so pending transactions finish first. */
  readonly #inFlight = new Set<Promise<unknown>>();
  #closing: Promise<void> | undefined;

  constructor(
    pool: pg.Pool,
    cacheSize: number,
    readonly openSession: () => Promise<DatabaseSession>,
    readonly poolSize: number,
  ) {
    this.#pool = pool;
    this.#rewrites = new LruCache(cacheSize);
    this.#autocommit = new PgQueryable(pool, this.#rewrites);
  }

  #track<T>(method: string, op: () => Promise<T>): Promise<T> {
    if (this.#closing) return Promise.reject(new Error(`db.${method}() called on a closed database`));
    try {
      assertNotInTransaction(this, method);
    } catch (err) {
      return Promise.reject(err);
    }
    const p = op();
    this.#inFlight.add(p);
    const forget = () => this.#inFlight.delete(p);
    p.then(forget, forget);
    return p;
  }

  all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.#track('all', () => this.#autocommit.all<T>(sql, params));
  }

  get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.#track('get', () => this.#autocommit.get<T>(sql, params));
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.#track('run', () => this.#autocommit.run(sql, params));
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#track('transaction', async () => {
      const client = await this.#pool.connect();
      try {
        await client.query('BEGIN');
      } catch (err) {
        client.release(err as Error);
        throw err;
      }
      // A client whose ROLLBACK failed may be mid-transaction: destroy it instead of reusing it.
      let broken: Error | undefined;
      try {
        return await runTransaction(this, new PgQueryable(client, this.#rewrites), fn, {
          commit: async () => {
            try {
              const res = await client.query('COMMIT');
              // PostgreSQL answers COMMIT of an aborted transaction with ROLLBACK, not an error.
              if (res.command === 'ROLLBACK') throw new Error('transaction was aborted by the server and rolled back');
            } catch (err) {
              // Deferred constraints are checked at COMMIT.
              throw mapError(err);
            }
          },
          rollback: async () => {
            try {
              await client.query('ROLLBACK');
            } catch (err) {
              broken = err as Error;
              throw err;
            }
          },
        });
      } finally {
        client.release(broken);
      }
    });
  }

  poolStats() {
    const p = this.#pool;
    return { total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount, max: this.poolSize };
  }

  sizes(): Promise<DatabaseSizes> {
    return this.#track('sizes', async () => {
      // Tables (with their indexes and TOAST) of this schema: what Slipway keeps here.
      const { rows } = await this.#pool.query<{ bytes: number }>(
        `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::int8 AS bytes FROM pg_class c
           JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')`,
      );
      let walBytes: number | undefined;
      try {
        // The cluster's WAL, for a role allowed to read it (superuser or pg_monitor).
        walBytes = Number(
          (await this.#pool.query('SELECT COALESCE(SUM(size), 0)::int8 AS b FROM pg_ls_waldir()')).rows[0].b,
        );
      } catch {
        walBytes = undefined;
      }
      return { databaseBytes: Number(rows[0]?.bytes ?? 0), walBytes };
    });
  }

  close(): Promise<void> {
    if (!this.#closing) {
      this.#closing = (async () => {
        await Promise.allSettled([...this.#inFlight]);
        await this.#pool.end();
      })();
    }
    return this.#closing;
  }
}
