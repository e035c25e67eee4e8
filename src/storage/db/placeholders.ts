// Rewrites the portable `?` placeholders to PostgreSQL's `$1..$n`, leaving `?` alone inside
// string literals, quoted identifiers, comments and dollar-quoted bodies.

const isIdentChar = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_$]/.test(c);

/**
 * Returns sql with every placeholder `?` replaced by `$1`, `$2`, ... in order of appearance.
 * Recognises: '...' (with '' escapes), E'...' (backslash escapes), "..." identifiers,
 * -- line comments, nested block comments and $tag$...$tag$ bodies.
 * Not supported: PostgreSQL's jsonb `?`, `?|`, `?&` operators (use jsonb_exists* functions).
 */
export function rewritePlaceholders(sql: string): string {
  if (!sql.includes('?')) return sql;
  let out = '';
  let n = 0;
  let i = 0;
  const len = sql.length;
  while (i < len) {
    const c = sql[i]!;
    if (c === '?') {
      out += `$${++n}`;
      i++;
      continue;
    }
    let end = i + 1;
    if (c === "'") {
      // E'...' strings honour backslash escapes; standard strings only the doubled quote.
      const prev = sql[i - 1];
      const escapes = (prev === 'E' || prev === 'e') && !isIdentChar(sql[i - 2]);
      end = skipQuoted(sql, i, "'", escapes);
    } else if (c === '"') {
      end = skipQuoted(sql, i, '"', false);
    } else if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      end = nl === -1 ? len : nl + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      end = skipBlockComment(sql, i);
    } else if (c === '$' && !isIdentChar(sql[i - 1])) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        end = close === -1 ? len : close + tag[0].length;
      }
    }
    out += sql.slice(i, end);
    i = end;
  }
  return out;
}

/** Index just past the closing quote (or end of input when unterminated). */
function skipQuoted(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i];
    if (backslashEscapes && c === '\\') {
      i += 2;
      continue;
    }
    if (c === quote) {
      // A doubled quote is an escaped quote, not the end of the literal.
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return sql.length;
}

function skipBlockComment(sql: string, start: number): number {
  // PostgreSQL block comments nest.
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return sql.length;
}
