// A SQLite connection on a worker thread of its own (thread-connection-worker.ts): statements are
// sent to it and answered in order, so the event loop goes on (parsing the next batch of a bulk
// load, say) while SQLite works. Used by SqliteDatabase.threadTransaction for one transaction.
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { type Queryable, type Row, type SqlValue, UniqueViolationError } from './types.js';

export type ThreadRequest =
  | { readonly op: 'run' | 'all' | 'get'; readonly sql: string; readonly params?: readonly SqlValue[] }
  | { readonly op: 'rollback' | 'close' };

export type ThreadReply =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string; readonly code: string | undefined };

const UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

export class ThreadConnection implements Queryable {
  readonly dialect = 'sqlite' as const;
  readonly #worker: Worker;
  /** Callers waiting for an answer, in the order their requests were sent (the thread keeps it). */
  readonly #waiting: { resolve(v: unknown): void; reject(e: unknown): void }[] = [];
  #failure: Error | undefined;

  constructor(path: string, options: { busyTimeoutMs: number; journalSizeLimit: number }) {
    this.#worker = new Worker(new URL('./thread-connection-worker.js', import.meta.url), {
      workerData: { path, ...options },
    });
    this.#worker.on('message', (r: ThreadReply) => {
      const w = this.#waiting.shift();
      if (!w) return;
      if (r.ok) w.resolve(r.value);
      else {
        const err = new BetterSqlite3.SqliteError(r.message, r.code ?? 'SQLITE_ERROR');
        w.reject(UNIQUE_CODES.has(err.code) ? new UniqueViolationError(err.message, { cause: err }) : err);
      }
    });
    const fail = (err: Error) => {
      this.#failure ??= err;
      for (const w of this.#waiting.splice(0)) w.reject(err);
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', () => fail(new Error('the SQLite connection thread exited')));
  }

  #send(m: ThreadRequest): Promise<unknown> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#worker.postMessage(m);
    });
  }

  async all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return (await this.#send({ op: 'all', sql, params })) as T[];
  }

  async get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return (await this.#send({ op: 'get', sql, params })) as T | undefined;
  }

  async run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return (await this.#send({ op: 'run', sql, params })) as { changes: number };
  }

  /** ROLLBACK if a transaction is open. */
  async rollback(): Promise<void> {
    await this.#send({ op: 'rollback' });
  }

  /** Closes the connection and ends the thread. */
  async close(): Promise<void> {
    if (this.#failure) return;
    const exited = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
    await this.#send({ op: 'close' }).catch(() => {});
    await exited;
  }
}
