// A SQLite connection on a worker thread of its own (thread-connection-worker.ts): statements are
// sent to it and answered in order, so the event loop goes on (parsing the next batch of a bulk
// load, say) while SQLite works. Used by SqliteDatabase.threadTransaction for one transaction.
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { type Queryable, type Row, type SqlValue, UniqueViolationError } from './types.js';

export type ThreadRequest =
  | {
      readonly op: 'run' | 'all' | 'get';
      readonly sql: string;
      readonly params?: readonly SqlValue[];
      readonly packed?: PackedParams;
    }
  | { readonly op: 'rollback' | 'close' };

/**
 * Many parameters of strings, numbers and nulls, as one string and two arrays: copying one string
 * to the thread costs a fraction of copying thousands (each is a value of its own for
 * postMessage's serializer, and a new string to allocate on the other side).
 */
export interface PackedParams {
  /** The strings, one after another. */
  readonly text: string;
  /** Per parameter: its length in text, NULL_PARAM or NUMBER_PARAM. */
  readonly lengths: Int32Array;
  /** Per parameter: its value when a number. */
  readonly numbers: Float64Array;
}

export const NULL_PARAM = -1;
export const NUMBER_PARAM = -2;

/** Packs params when they are many and only strings, numbers and nulls; else undefined. */
function pack(params: readonly SqlValue[] | undefined): PackedParams | undefined {
  if (!params || params.length < 64) return undefined;
  const lengths = new Int32Array(params.length);
  const numbers = new Float64Array(params.length);
  const strings = new Array<string>(params.length);
  let count = 0;
  for (let i = 0; i < params.length; i++) {
    const v = params[i];
    if (typeof v === 'string') {
      strings[count++] = v;
      lengths[i] = v.length;
    } else if (v === null) lengths[i] = NULL_PARAM;
    else if (typeof v === 'number') {
      lengths[i] = NUMBER_PARAM;
      numbers[i] = v;
    } else return undefined;
  }
  strings.length = count;
  // join() writes one flat string; += would build a rope of thousands of pieces to flatten.
  return { text: strings.join(''), lengths, numbers };
}

/** The thread's side of pack(). */
export function unpack(p: PackedParams): (string | number | null)[] {
  const out = new Array<string | number | null>(p.lengths.length);
  let at = 0;
  for (let i = 0; i < out.length; i++) {
    const n = p.lengths[i]!;
    if (n >= 0) {
      out[i] = p.text.slice(at, at + n);
      at += n;
    } else out[i] = n === NULL_PARAM ? null : p.numbers[i]!;
  }
  return out;
}

export type ThreadReply =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string; readonly code: string | undefined };

function request(op: 'run' | 'all' | 'get', sql: string, params: readonly SqlValue[] | undefined): ThreadRequest {
  const packed = pack(params);
  return packed ? { op, sql, packed } : { op, sql, params };
}

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
      // The packed arrays are handed over, not copied.
      const packed = 'packed' in m ? m.packed : undefined;
      this.#worker.postMessage(
        m,
        packed ? [packed.lengths.buffer as ArrayBuffer, packed.numbers.buffer as ArrayBuffer] : [],
      );
    });
  }

  async all<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return (await this.#send(request('all', sql, params))) as T[];
  }

  async get<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return (await this.#send(request('get', sql, params))) as T | undefined;
  }

  async run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return (await this.#send(request('run', sql, params))) as { changes: number };
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
