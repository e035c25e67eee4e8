// Dialect-independent transaction bookkeeping: the tx handle given to callbacks, detection of
// misuse (db.* called from inside a transaction callback), and "a failed statement aborts the
// transaction" semantics identical on SQLite and PostgreSQL.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { Queryable, Row, SqlValue } from './types.js';

/** Thrown when a transaction is rolled back because a statement inside it failed and fn went on. */
export class TransactionAbortedError extends Error {
  override readonly name = 'TransactionAbortedError';
}

class TxState {
  active = true;
  failed = false;
  failure: unknown;
  constructor(
    readonly owner: object,
    readonly parent: TxState | undefined,
  ) {}
}

/**
 * Detecting db.* calls inside a transaction needs AsyncLocalStorage, which turns on promise hooks
 * for the whole process and taxes every promise on hot paths (InvokeEndpoint). The check guards
 * against programming errors, so it runs where they are caught: in tests (scripts/run-tests.mjs
 * sets SLIPWAY_CHECK_TX_SCOPE=1) and whenever that variable is set.
 */
const CHECK_SCOPE = process.env.SLIPWAY_CHECK_TX_SCOPE === '1';
const scope = new AsyncLocalStorage<TxState>();

/**
 * Throws when called from inside a live transaction callback of `owner`. Using the database
 * handle instead of the tx handle there would deadlock on SQLite (the writer is held by the
 * transaction) and silently run outside the transaction on PostgreSQL.
 */
export function assertNotInTransaction(owner: object, method: string): void {
  if (!CHECK_SCOPE) return;
  for (let s = scope.getStore(); s; s = s.parent) {
    if (s.active && s.owner === owner) {
      throw new Error(
        `db.${method}() called inside a transaction callback of the same database; use the tx handle passed to the callback (nested transactions are not supported)`,
      );
    }
  }
}

export interface TransactionHooks {
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/**
 * Runs fn with a guarded tx handle over `conn` (a Queryable bound to the transaction's
 * connection, BEGIN already issued), then commits or rolls back through hooks.
 */
export async function runTransaction<T>(
  owner: object,
  conn: Queryable,
  fn: (tx: Queryable) => Promise<T>,
  hooks: TransactionHooks,
): Promise<T> {
  const state = new TxState(owner, CHECK_SCOPE ? scope.getStore() : undefined);
  const tx = guardedQueryable(state, conn);
  let result: T;
  try {
    result = await (CHECK_SCOPE ? scope.run(state, () => fn(tx)) : fn(tx));
    if (state.failed) {
      // PostgreSQL cannot commit after a failed statement while SQLite could; refusing on both
      // keeps behaviour identical. Use INSERT ... ON CONFLICT instead of catching errors in a tx.
      throw new TransactionAbortedError(
        'transaction rolled back: a statement inside it failed and the callback continued; ' +
          'a failed statement aborts the whole transaction (use ON CONFLICT rather than catching)',
        { cause: state.failure },
      );
    }
  } catch (err) {
    state.active = false;
    await hooks.rollback().catch(() => {
      // The original error is what the caller needs; a failed ROLLBACK leaves nothing committed.
    });
    throw err;
  }
  state.active = false;
  try {
    await hooks.commit();
  } catch (err) {
    await hooks.rollback().catch(() => {});
    throw err;
  }
  return result;
}

function guardedQueryable(state: TxState, conn: Queryable): Queryable {
  const check = (): void => {
    if (!state.active) throw new Error('transaction handle used after its transaction finished');
    if (state.failed) {
      throw new TransactionAbortedError('transaction is aborted: an earlier statement in it failed', {
        cause: state.failure,
      });
    }
  };
  const track = async <R>(op: () => Promise<R>): Promise<R> => {
    check();
    try {
      return await op();
    } catch (err) {
      if (!state.failed) {
        state.failed = true;
        state.failure = err;
      }
      throw err;
    }
  };
  return {
    dialect: conn.dialect,
    all: <T extends Row = Row>(sql: string, params?: readonly SqlValue[]) => track(() => conn.all<T>(sql, params)),
    get: <T extends Row = Row>(sql: string, params?: readonly SqlValue[]) => track(() => conn.get<T>(sql, params)),
    run: (sql: string, params?: readonly SqlValue[]) => track(() => conn.run(sql, params)),
  };
}
