// Tiny helpers for the few places where portable SQL needs a per-dialect spelling.

import type { Queryable } from './types.js';

/** Picks the SQL text for q's dialect. Prefer the common subset; use this only where it runs out. */
export function dialectSql(q: Queryable, sql: { readonly sqlite: string; readonly postgres: string }): string {
  return sql[q.dialect];
}

/**
 * ' FOR UPDATE' on PostgreSQL, '' on SQLite (whose transactions already hold the only write lock).
 * Append to a SELECT inside a transaction that will update what it read: under PostgreSQL's
 * READ COMMITTED a plain SELECT-then-UPDATE loses concurrent updates.
 */
export function forUpdate(q: Queryable): string {
  return q.dialect === 'postgres' ? ' FOR UPDATE' : '';
}

/** The ESCAPE clause matching escapeLike(), identical in both dialects: `col LIKE ? ${LIKE_ESCAPE}`. */
export const LIKE_ESCAPE = "ESCAPE '\\'";

/** Escapes %, _ and \ so s matches literally inside a LIKE pattern used with LIKE_ESCAPE. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
