// The thread behind ThreadConnection (thread-connection.ts): one connection of its own to a SQLite
// WAL database, running the statements it is sent, in order, and answering each.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { type ThreadReply, type ThreadRequest, unpack } from './thread-connection.js';

const { path, busyTimeoutMs, journalSizeLimit } = workerData as {
  path: string;
  busyTimeoutMs: number;
  journalSizeLimit: number;
};
const db = new BetterSqlite3(path);
// The settings of the database's own connections (sqlite.ts, configure()).
db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`);
db.pragma('synchronous = NORMAL');
db.pragma(`journal_size_limit = ${journalSizeLimit}`);
db.pragma('foreign_keys = ON');
db.pragma('case_sensitive_like = ON');
// Checkpoints stay with the database's checkpoint thread, as for its writer.
db.pragma('wal_autocheckpoint = 0');

type Statement = BetterSqlite3.Statement<unknown[], unknown>;
const statements = new Map<string, Statement>();

function prepare(sql: string): Statement {
  let stmt = statements.get(sql);
  if (stmt === undefined) {
    stmt = db.prepare(sql);
    if (statements.size >= 500) statements.clear();
    statements.set(sql, stmt);
  }
  return stmt;
}

function toParams(params: readonly unknown[] | undefined): unknown[] {
  if (!params) return [];
  const out = new Array<unknown>(params.length);
  for (let i = 0; i < params.length; i++) {
    const v = params[i];
    // As Conn's toParam: booleans as integers, byte arrays as Buffers (BLOBs).
    if (typeof v === 'boolean') out[i] = v ? 1 : 0;
    else if (v === undefined) out[i] = null;
    else if (v instanceof Uint8Array && !Buffer.isBuffer(v)) out[i] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    else out[i] = v;
  }
  return out;
}

function execute(m: ThreadRequest): ThreadReply {
  if ((m.op === 'run' || m.op === 'all' || m.op === 'get') && m.packed) {
    m = { op: m.op, sql: m.sql, params: unpack(m.packed) };
  }
  switch (m.op) {
    case 'rollback':
      if (db.inTransaction) db.exec('ROLLBACK');
      return { ok: true, value: undefined };
    case 'close':
      db.close();
      return { ok: true, value: undefined };
    case 'run':
      return { ok: true, value: { changes: prepare(m.sql).run(...toParams(m.params)).changes } };
    case 'all':
    case 'get': {
      const stmt = prepare(m.sql);
      // Statements without result columns return no rows, as Conn does.
      if (!stmt.reader) {
        stmt.run(...toParams(m.params));
        return { ok: true, value: m.op === 'all' ? [] : undefined };
      }
      const value = m.op === 'all' ? stmt.all(...toParams(m.params)) : stmt.get(...toParams(m.params));
      return { ok: true, value };
    }
  }
}

/**
 * SLIPWAY_SQL_PROFILE=1 (a diagnostic for bulk loads): the time SQLite spent on each statement
 * text (its first 70 characters), summed, is written to stderr when the connection closes;
 * `spans` adds every statement's start (epoch ms) and duration, as one JSON line, to lay beside
 * the loader's debug log.
 */
const PROFILE = process.env.SLIPWAY_SQL_PROFILE;
const profile = new Map<string, { ms: number; n: number }>();
const spans: number[] = [];

function profiled(m: ThreadRequest): ThreadReply {
  const t = performance.now();
  try {
    return execute(m);
  } finally {
    const ms = performance.now() - t;
    const key = 'sql' in m ? m.sql.slice(0, 70) : m.op;
    const entry = profile.get(key) ?? { ms: 0, n: 0 };
    entry.ms += ms;
    entry.n++;
    profile.set(key, entry);
    if (PROFILE === 'spans') spans.push(performance.timeOrigin + t, ms);
    if (m.op === 'close') {
      for (const [k, e] of [...profile].sort((a, b) => b[1].ms - a[1].ms)) {
        process.stderr.write(`SQL ${e.ms.toFixed(0).padStart(6)} ms ${String(e.n).padStart(6)}x ${k}\n`);
      }
      if (PROFILE === 'spans') process.stderr.write(`SQL spans ${JSON.stringify(spans)}\n`);
    }
  }
}

parentPort!.on('message', (m: ThreadRequest) => {
  let reply: ThreadReply;
  try {
    reply = PROFILE ? profiled(m) : execute(m);
  } catch (err) {
    const e = err as { message?: string; code?: string };
    reply = { ok: false, message: String(e.message ?? err), code: e.code };
  }
  parentPort!.postMessage(reply);
  if (m.op === 'close') parentPort!.close();
});
