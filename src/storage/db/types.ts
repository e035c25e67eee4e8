// The one SQL seam: every repository talks to SQLite or PostgreSQL through this interface.
// SQL is written once with `?` placeholders in the common subset of both dialects; the
// PostgreSQL adapter rewrites placeholders to $1..$n. Integers come back as JS numbers on both.

export type SqlValue = string | number | bigint | boolean | null | Uint8Array;
export type Row = Record<string, unknown>;

export type DialectName = 'sqlite' | 'postgres';

/** What both a database handle and a transaction can do. */
export interface Queryable {
  readonly dialect: DialectName;
  /** All rows of a SELECT (or of a statement with RETURNING). */
  all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** First row or undefined. */
  get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** INSERT/UPDATE/DELETE/DDL: number of rows changed (0 for DDL). */
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
}

export interface Database extends Queryable {
  /**
   * Runs fn inside one transaction: committed when fn resolves, rolled back when it throws.
   * A failed statement aborts the transaction on both dialects (catching its error inside fn
   * still ends in rollback and a TransactionAbortedError). Inside fn use only `tx`: calling
   * this database's methods there throws. Under READ COMMITTED, select rows you will update
   * with forUpdate() (or update atomically) to avoid lost updates on PostgreSQL.
   * Writes are serialised (SQLite: one writer connection behind a mutex, BEGIN IMMEDIATE;
   * PostgreSQL: one pooled client, READ COMMITTED). Reads outside a transaction never see
   * another transaction's uncommitted writes.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * SQLite database files only (elsewhere the same as transaction()): the transaction runs on a
   * connection of its own on a worker thread, holding the writer's place meanwhile; tx's
   * statements are answered in order, and the event loop runs while SQLite works. For long
   * writes (a bulk load) that have JavaScript of their own to overlap with SQLite's.
   */
  threadTransaction?<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Closes every connection; pending transactions finish first. */
  close(): Promise<void>;
  /**
   * Bytes on disk: SQLite's database file and its WAL; PostgreSQL's tables and indexes of this
   * schema, and the cluster's WAL when the role may read it (pg_ls_waldir). For /metrics.
   */
  sizes?(): Promise<DatabaseSizes>;
  /**
   * PostgreSQL only: a dedicated connection outside the pool, for what lives as long as a session
   * (LISTEN/NOTIFY, session advisory locks). Its owner ends it.
   */
  openSession?(): Promise<DatabaseSession>;
  /** PostgreSQL only: the pool's connections now. */
  poolStats?(): { total: number; idle: number; waiting: number; max: number };
}

export interface DatabaseSizes {
  readonly databaseBytes: number;
  readonly walBytes?: number;
}

/** One connection of its own (see Database.openSession). */
export interface DatabaseSession {
  /** Runs one statement ($1.. placeholders, the session's own numbering) and returns its rows. */
  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** NOTIFY payloads of channels this session LISTENs to. */
  onNotification(listener: (channel: string, payload: string) => void): void;
  /** Called once if the connection breaks (not after end()). */
  onLost(listener: (err: Error) => void): void;
  end(): Promise<void>;
}

/** Error thrown for a unique-constraint violation, whatever the dialect. */
export class UniqueViolationError extends Error {
  override readonly name = 'UniqueViolationError';
}

/**
 * One schema migration: SQL per dialect (use `both` when the statement is identical). Each
 * string is exactly one statement. `both` runs first, then the current dialect's list, all in
 * one transaction; split into two migrations when a shared statement must follow a
 * dialect-specific one (e.g. CREATE INDEX on a table whose BLOB/BYTEA column differs).
 */
export interface Migration {
  /** Monotonic id, e.g. '0001_model_package_groups'; ids must be unique and ascending. */
  readonly id: string;
  readonly both?: readonly string[];
  readonly sqlite?: readonly string[];
  readonly postgres?: readonly string[];
}

export interface OpenDatabaseOptions {
  /** `postgres://...` selects PostgreSQL; absent selects SQLite. */
  readonly url?: string;
  /** SQLite: directory holding the database file (created if missing). */
  readonly dataDir?: string;
  /** SQLite file name within dataDir (default `slipway.db`); ':memory:' for tests. */
  readonly fileName?: string;
  /** SQLite: page size of a database file created by this open (default 4096). */
  readonly sqlitePageSize?: number;
  /**
   * PostgreSQL: schema to use (created if missing, lower-case letters, digits and _), set as the
   * only entry of every connection's search_path. Default: the server's search_path (`public`).
   */
  readonly schema?: string;
  /** PostgreSQL: maximum pooled connections (default 10). */
  readonly poolSize?: number;
  /** Migrations to apply at open, in order. */
  readonly migrations: readonly Migration[];
}
