// SQLite implementation of the Database seam on better-sqlite3: WAL file with one writer
// connection (behind an async mutex) and one reader connection; ':memory:' for unit tests.
//
// Durability (synchronous FULL, the default) is SQLite's FULL without its blocking fsync: the
// connections run with synchronous=NORMAL, and a write returns only after an fdatasync of the WAL
// file that started after its COMMIT, run on libuv's thread pool and shared by every commit that
// was waiting for it (group commit). SQLite's own FULL fsyncs inside COMMIT, on the event loop:
// under a stream of S3 uploads that was a quarter of the event loop's time. What an acknowledged
// write survives is unchanged (power loss as well as kill -9); the difference is that between a
// COMMIT and its sync, a few milliseconds, other readers can already see the rows.
//
// Checkpoints (copying committed pages from the WAL into the database file, then syncing it) run
// on a worker thread with its own connection (Checkpointer), at most once a second, instead of
// inside whichever COMMIT crossed SQLite's 1000-page threshold on the event loop.

import { closeSync, fdatasync, mkdirSync, openSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { GroupSync } from '../group-sync.js';
import { AsyncMutex } from './async-mutex.js';
import { LruCache } from './lru-cache.js';
import { ThreadConnection } from './thread-connection.js';
import { assertNotInTransaction, runTransaction } from './transaction-scope.js';
import {
  type Database,
  type DatabaseSizes,
  type Queryable,
  type Row,
  type SqlValue,
  UniqueViolationError,
} from './types.js';

type Connection = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement<unknown[], unknown>;

export interface SqliteOptions {
  /** Directory holding the database file, created recursively. Not needed for ':memory:'. */
  readonly dataDir?: string;
  /** File name within dataDir (default `slipway.db`) or ':memory:'. */
  readonly fileName?: string;
  /**
   * FULL (default): every write is synced to disk (WAL fdatasync, grouped across concurrent
   * commits) before it returns, so an acknowledged write survives power loss as well as kill -9;
   * NORMAL (PRAGMA synchronous=NORMAL, no sync per commit) survives kill -9 only.
   */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** How long a connection waits for another process's lock before SQLITE_BUSY (default 5000). */
  readonly busyTimeoutMs?: number;
  /** Prepared statements cached per connection (default 500). */
  readonly statementCacheSize?: number;
  /** PRAGMA page_size of a database this call creates (an existing file keeps its own). */
  readonly pageSize?: number;
}

export const DEFAULT_SQLITE_FILE = 'slipway.db';

/** Opens (creating if needed) a SQLite database. Does not run migrations; see openDatabase. */
export async function openSqlite(options: SqliteOptions = {}): Promise<Database> {
  return SqliteDatabase.open(options);
}

const UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

function mapError(err: unknown): unknown {
  if (err instanceof BetterSqlite3.SqliteError && UNIQUE_CODES.has(err.code)) {
    return new UniqueViolationError(err.message, { cause: err });
  }
  return err;
}

function toParam(v: SqlValue | undefined): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === undefined) return null;
  // better-sqlite3 binds only Buffers as BLOBs; a plain Uint8Array would be rejected.
  if (v instanceof Uint8Array && !Buffer.isBuffer(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return v;
}

const toParams = (params: readonly SqlValue[] | undefined): unknown[] => (params ? params.map(toParam) : []);

/** One better-sqlite3 connection plus its statement cache. */
class Conn implements Queryable {
  readonly dialect = 'sqlite' as const;
  readonly #stmts: LruCache<string, Statement>;
  /** A statement that may have written ran since the last takeDirty(). */
  #dirty = false;

  constructor(
    readonly raw: Connection,
    cacheSize: number,
  ) {
    this.#stmts = new LruCache(cacheSize);
  }

  prepare(sql: string): Statement {
    try {
      const stmt = this.#stmts.getOrCreate(sql, (s) => this.raw.prepare(s));
      if (!stmt.readonly) this.#dirty = true;
      return stmt;
    } catch (err) {
      throw mapError(err);
    }
  }

  /** Whether anything may have been written since the last call. */
  takeDirty(): boolean {
    const d = this.#dirty;
    this.#dirty = false;
    return d;
  }

  allSync<T>(sql: string, params?: readonly SqlValue[], stmt = this.prepare(sql)): T[] {
    try {
      // Statements without result columns (plain INSERT/UPDATE) return no rows, as on PostgreSQL.
      if (!stmt.reader) {
        stmt.run(...toParams(params));
        return [];
      }
      return stmt.all(...toParams(params)) as T[];
    } catch (err) {
      throw mapError(err);
    }
  }

  getSync<T>(sql: string, params?: readonly SqlValue[], stmt = this.prepare(sql)): T | undefined {
    try {
      if (!stmt.reader) {
        stmt.run(...toParams(params));
        return undefined;
      }
      return stmt.get(...toParams(params)) as T | undefined;
    } catch (err) {
      throw mapError(err);
    }
  }

  runSync(sql: string, params?: readonly SqlValue[]): { changes: number } {
    try {
      return { changes: this.prepare(sql).run(...toParams(params)).changes };
    } catch (err) {
      throw mapError(err);
    }
  }

  async all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.allSync<T>(sql, params);
  }

  async get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.getSync<T>(sql, params);
  }

  async run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.runSync(sql, params);
  }
}

function configure(
  raw: Connection,
  o: { synchronous: string; busyTimeoutMs: number; wal: boolean; pageSize?: number },
): void {
  raw.pragma(`busy_timeout = ${Math.max(0, Math.trunc(o.busyTimeoutMs))}`);
  // Only takes effect before the first table exists, so it must precede the switch to WAL.
  if (o.pageSize !== undefined) raw.pragma(`page_size = ${Math.trunc(o.pageSize)}`);
  if (o.wal) raw.pragma('journal_mode = WAL');
  // FULL's syncs are done by WalSync, off the event loop (see the top of this file).
  raw.pragma('synchronous = NORMAL');
  // A burst of writes (a job's log) must not leave a WAL of its size behind once checkpointed.
  if (o.wal) raw.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
  raw.pragma('foreign_keys = ON');
  // SQLite's LIKE ignores ASCII case by default, PostgreSQL's does not: make both case-sensitive
  // so repository SQL behaves the same (use LOWER(x) LIKE LOWER(?) for case-insensitive matching).
  raw.pragma('case_sensitive_like = ON');
}

/**
 * Writer mutexes shared by every handle on the same file in this process. A second handle's
 * BEGIN IMMEDIATE would otherwise busy-wait synchronously, blocking the event loop that the
 * first handle's transaction needs in order to finish: a deadlock until busy_timeout expires.
 */
const fileMutexes = new Map<string, { mutex: AsyncMutex; refs: number }>();

function acquireFileMutex(path: string): AsyncMutex {
  const entry = fileMutexes.get(path) ?? { mutex: new AsyncMutex(), refs: 0 };
  entry.refs++;
  fileMutexes.set(path, entry);
  return entry.mutex;
}

function releaseFileMutex(path: string): void {
  const entry = fileMutexes.get(path);
  if (entry && --entry.refs === 0) fileMutexes.delete(path);
}

/** Syncs of one WAL file, grouped: sync() resolves once an fdatasync that started after the call has finished. */
class WalSync {
  #fd: number | undefined;
  readonly #group = new GroupSync(() => {
    // Opened once: the WAL keeps its inode while any connection is open (a checkpoint rewinds or
    // truncates it, never replaces it).
    this.#fd ??= openSync(this.path, 'r');
    const fd = this.#fd;
    return new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
  });

  constructor(private readonly path: string) {}

  sync(): Promise<void> {
    return this.#group.request();
  }

  /** Once no write is left to sync (the connections are closed first; SQLite may then remove the WAL). */
  async close(): Promise<void> {
    await this.#group.idle();
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/** Size of a file, 0 when it does not exist (the WAL between connections). */
function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** WAL size from which checkpoints start being made by the thread. */
const START_AT_WAL_BYTES = 4 * 1024 * 1024;

/** Least time between two checkpoints; the WAL holds what is written in between. */
const CHECKPOINT_INTERVAL_MS = 1000;

/** A WAL reset after a checkpoint is cut back to this size (PRAGMA journal_size_limit). */
export const JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;

/** Writes paused this long: the WAL file is truncated (its space given back) if it grew. */
const IDLE_TRUNCATE_MS = 2000;

/**
 * Checkpoints one database file from a worker thread (checkpoint-worker.ts), on request after
 * writes, at most one at a time and one per CHECKPOINT_INTERVAL_MS. The thread starts when the WAL
 * first reaches START_AT_WAL_BYTES, and no sooner than an interval after opening. If the thread
 * fails, onFailure hands checkpoints back to SQLite (wal_autocheckpoint).
 */
class Checkpointer {
  #worker: Worker | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #pending = false;
  #last = Date.now();
  #stopped = false;
  /** When the last write asked for a checkpoint, and the timer that looks for a pause after it. */
  #lastWrite = 0;
  #idle: NodeJS.Timeout | undefined;
  #truncate = false;
  #truncating = false;

  constructor(
    private readonly path: string,
    private readonly onFailure: () => void,
  ) {}

  /** After a write. */
  request(): void {
    if (this.#stopped) return;
    this.#lastWrite = Date.now();
    this.#idle ??= setTimeout(() => this.#onIdle(), IDLE_TRUNCATE_MS).unref();
    this.#schedule();
  }

  #schedule(): void {
    this.#pending = true;
    if (this.#running || this.#timer) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#run();
      },
      Math.max(0, this.#last + CHECKPOINT_INTERVAL_MS - Date.now()),
    );
    this.#timer.unref();
  }

  /** Writes paused: a WAL that grew past the first checkpoint's threshold is truncated. */
  #onIdle(): void {
    this.#idle = undefined;
    if (this.#stopped) return;
    const quiet = Date.now() - this.#lastWrite;
    if (quiet < IDLE_TRUNCATE_MS) {
      this.#idle = setTimeout(() => this.#onIdle(), IDLE_TRUNCATE_MS - quiet).unref();
      return;
    }
    if (fileBytes(`${this.path}-wal`) < START_AT_WAL_BYTES) return;
    this.#truncate = true;
    this.#pending = true;
    if (!this.#running && !this.#timer) this.#run();
  }

  #run(): void {
    if (this.#stopped) return;
    this.#pending = false;
    // The thread (≈ 9 MB) starts once the WAL holds as much as SQLite's own 1000-page threshold:
    // a server that has only run its migrations, or a process that only reads (lineage export),
    // never starts one.
    if (!this.#worker && fileBytes(`${this.path}-wal`) < START_AT_WAL_BYTES) {
      this.#last = Date.now();
      return;
    }
    this.#running = true;
    if (!this.#worker) {
      const w = new Worker(new URL('./checkpoint-worker.js', import.meta.url), {
        workerData: { path: this.path, journalSizeLimit: JOURNAL_SIZE_LIMIT },
      });
      w.unref();
      w.on('message', () => {
        this.#running = false;
        this.#last = Date.now();
        if (this.#pending) this.#schedule();
        // A truncation a reader held off is tried again at the next pause.
        else if (this.#truncating && fileBytes(`${this.path}-wal`) >= START_AT_WAL_BYTES)
          this.#idle ??= setTimeout(() => this.#onIdle(), IDLE_TRUNCATE_MS).unref();
        this.#truncating = false;
      });
      w.on('error', () => this.#fail());
      w.on('exit', () => {
        if (!this.#stopped) this.#fail();
      });
      this.#worker = w;
    }
    this.#truncating = this.#truncate;
    this.#worker.postMessage(this.#truncate ? 'truncate' : 'checkpoint');
    this.#truncate = false;
  }

  #fail(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#worker = undefined;
    this.onFailure();
  }

  /** Stops the thread, after the checkpoint it may be running. */
  async close(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#idle);
    const w = this.#worker;
    this.#worker = undefined;
    if (!w) return;
    await new Promise<void>((resolve) => {
      w.once('exit', () => resolve());
      // Referenced while closing: the caller is waiting for the exit.
      w.ref();
      w.postMessage('close');
    });
  }
}

class SqliteDatabase implements Database {
  readonly dialect = 'sqlite' as const;
  readonly #writer: Conn;
  /** Same object as #writer in ':memory:' mode. */
  readonly #reader: Conn;
  readonly #memory: boolean;
  readonly #mutex: AsyncMutex;
  /** Key into fileMutexes; undefined for ':memory:'. */
  readonly #path: string | undefined;
  /** Undefined for ':memory:' and synchronous NORMAL: writes return without a sync. */
  readonly #walSync: WalSync | undefined;
  /** Undefined for ':memory:'. */
  readonly #checkpointer: Checkpointer | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  #busyTimeoutMs = 5000;

  private constructor(writer: Conn, reader: Conn, path: string | undefined, durable: boolean) {
    this.#writer = writer;
    this.#reader = reader;
    this.#memory = path === undefined;
    this.#path = path;
    this.#walSync = path !== undefined && durable ? new WalSync(`${path}-wal`) : undefined;
    if (path !== undefined) {
      writer.raw.pragma('wal_autocheckpoint = 0');
      this.#checkpointer = new Checkpointer(path, () => {
        if (!this.#closed) writer.raw.pragma('wal_autocheckpoint = 1000');
      });
    }
    this.#mutex = path === undefined ? new AsyncMutex() : acquireFileMutex(path);
  }

  static open(options: SqliteOptions): SqliteDatabase {
    const fileName = options.fileName ?? DEFAULT_SQLITE_FILE;
    const cacheSize = options.statementCacheSize ?? 500;
    const settings = {
      synchronous: options.synchronous ?? 'FULL',
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
    };
    if (settings.synchronous !== 'FULL' && settings.synchronous !== 'NORMAL') {
      throw new Error(`unsupported SQLite synchronous mode: ${String(settings.synchronous)}`);
    }
    if (fileName === ':memory:') {
      // Two ':memory:' connections would be two databases, and a shared-cache URI makes readers
      // fail with SQLITE_LOCKED instead of waiting. One connection serves both roles; reads then
      // queue on the mutex so they still never see a pending transaction's writes.
      const raw = new BetterSqlite3(':memory:');
      configure(raw, { ...settings, wal: false });
      const conn = new Conn(raw, cacheSize);
      return new SqliteDatabase(conn, conn, undefined, false);
    }
    if (!options.dataDir) throw new Error('SQLite needs a dataDir (or fileName ":memory:")');
    mkdirSync(options.dataDir, { recursive: true });
    const path = join(options.dataDir, fileName);
    const writerRaw = new BetterSqlite3(path);
    let readerRaw: Connection | undefined;
    try {
      // The writer switches the file to WAL first, so the reader opens an existing WAL database.
      configure(writerRaw, {
        ...settings,
        wal: true,
        ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
      });
      readerRaw = new BetterSqlite3(path);
      configure(readerRaw, { ...settings, wal: true });
      // Belt and braces: the reader must never write (writes would bypass the mutex).
      readerRaw.pragma('query_only = ON');
    } catch (err) {
      readerRaw?.close();
      writerRaw.close();
      throw err;
    }
    const db = new SqliteDatabase(
      new Conn(writerRaw, cacheSize),
      new Conn(readerRaw, cacheSize),
      realpathSync(path),
      settings.synchronous === 'FULL',
    );
    db.#busyTimeoutMs = settings.busyTimeoutMs;
    return db;
  }

  #checkOpen(method: string): void {
    if (this.#closed) throw new Error(`db.${method}() called on a closed database`);
    assertNotInTransaction(this, method);
  }

  async all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    this.#checkOpen('all');
    if (this.#memory) return this.#write(() => this.#writer.allSync<T>(sql, params));
    const stmt = this.#reader.prepare(sql);
    // e.g. INSERT ... RETURNING through all(): writes belong to the writer.
    if (!stmt.readonly) return this.#write(() => this.#writer.allSync<T>(sql, params));
    return this.#reader.allSync<T>(sql, params, stmt);
  }

  async get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    this.#checkOpen('get');
    if (this.#memory) return this.#write(() => this.#writer.getSync<T>(sql, params));
    const stmt = this.#reader.prepare(sql);
    if (!stmt.readonly) return this.#write(() => this.#writer.getSync<T>(sql, params));
    return this.#reader.getSync<T>(sql, params, stmt);
  }

  async run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    this.#checkOpen('run');
    return this.#write(() => this.#writer.runSync(sql, params));
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    this.#checkOpen('transaction');
    const w = this.#writer;
    return this.#write(async () => {
      // IMMEDIATE takes the write lock up front: a deferred transaction that reads then writes
      // could fail with SQLITE_BUSY when another process wrote in between.
      w.runSync('BEGIN IMMEDIATE');
      return runTransaction(this, w, fn, {
        commit: async () => {
          w.runSync('COMMIT');
        },
        rollback: async () => {
          if (w.raw.inTransaction) w.runSync('ROLLBACK');
        },
      });
    });
  }

  /** See Database.threadTransaction. */
  async threadTransaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    this.#checkOpen('threadTransaction');
    const path = this.#path;
    if (path === undefined) return this.transaction(fn);
    const result = await this.#mutex.run(async () => {
      const conn = new ThreadConnection(path, {
        busyTimeoutMs: this.#busyTimeoutMs,
        journalSizeLimit: JOURNAL_SIZE_LIMIT,
      });
      try {
        await conn.run('BEGIN IMMEDIATE');
        return await runTransaction(this, conn, fn, {
          commit: async () => {
            await conn.run('COMMIT');
          },
          rollback: () => conn.rollback(),
        });
      } finally {
        await conn.close();
      }
    });
    // Committed: synced and checkpointed as the writer's transactions are (see #write).
    if (this.#walSync) await this.#walSync.sync();
    this.#checkpointer?.request();
    return result;
  }

  /**
   * Runs fn on the writer under the mutex; when it may have written, returns only once the WAL
   * has been synced after it (the mutex is released first, so the next writer's statements overlap
   * this one's sync and share the one after).
   */
  async #write<T>(fn: () => T | Promise<T>): Promise<T> {
    let dirty = false;
    const result = await this.#mutex.run(async () => {
      try {
        return await fn();
      } finally {
        dirty = this.#writer.takeDirty();
      }
    });
    if (dirty) {
      if (this.#walSync) await this.#walSync.sync();
      this.#checkpointer?.request();
    }
    return result;
  }

  async sizes(): Promise<DatabaseSizes> {
    if (this.#path === undefined) return { databaseBytes: 0, walBytes: 0 };
    return { databaseBytes: fileBytes(this.#path), walBytes: fileBytes(`${this.#path}-wal`) };
  }

  close(): Promise<void> {
    if (!this.#closing) {
      this.#closed = true;
      // Queued on the mutex, so transactions and writes already requested finish first.
      this.#closing = this.#mutex
        .run(async () => {
          // First: the writer's connection, closed last, makes the final checkpoint itself.
          await this.#checkpointer?.close();
          if (this.#reader !== this.#writer) this.#reader.raw.close();
          this.#writer.raw.close();
          if (this.#path !== undefined) releaseFileMutex(this.#path);
        })
        .then(() => this.#walSync?.close());
    }
    return this.#closing;
  }
}
