// Building blocks shared by the pages: loading and error states, status badges, paginated and
// sortable tables, code snippets.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, refusedCredentials } from '../api/client';
import { Link, setQuery, useLocation } from '../router';

export interface Async<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly loading: boolean;
  reload(): void;
}

/** Runs `fn` when `deps` change; a newer run supersedes an older one still in flight. */
export function useAsync<T>(fn: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): Async<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ctl = new AbortController();
    setState((s) => ({ data: s.data, loading: true }));
    fn(ctl.signal).then(
      (data) => !ctl.signal.aborted && setState({ data, loading: false }),
      (error) => !ctl.signal.aborted && setState({ error, loading: false }),
    );
    return () => ctl.abort();
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export function describeError(err: unknown): string {
  if (err instanceof ApiError) return `${err.code}: ${err.message}`;
  if (err instanceof Error) return err.message;
  return String(err);
}

export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  return (
    <div class="error" role="alert">
      <strong>{title ?? 'The request failed'}</strong>
      <div>{describeError(error)}</div>
      {refusedCredentials(error) ? (
        <div>
          The server does not accept this tab's credentials: <Link to="/settings">sign in</Link> with a key from its
          credentials file.
        </div>
      ) : null}
    </div>
  );
}

export function Loading({ what }: { what?: string }) {
  return <div class="loading">Loading{what ? ` ${what}` : ''}…</div>;
}

const STATUS_CLASS: Record<string, string> = {
  Approved: 'ok',
  InService: 'ok',
  Completed: 'ok',
  Rejected: 'bad',
  Failed: 'bad',
  OutOfService: 'bad',
  PendingManualApproval: 'wait',
  Creating: 'wait',
  Updating: 'wait',
  InProgress: 'wait',
  Deleting: 'wait',
  SystemUpdating: 'wait',
  RollingBack: 'wait',
  // Pipelines and their steps.
  Succeeded: 'ok',
  Executing: 'wait',
  Starting: 'wait',
  Stopping: 'wait',
};

export function Badge({ status }: { status?: string }) {
  if (!status) return <span class="badge">—</span>;
  return <span class={`badge ${STATUS_CLASS[status] ?? ''}`}>{status}</span>;
}

export function when(t: unknown): string {
  if (t === undefined || t === null) return '—';
  // The JSON protocol sends timestamps as epoch seconds.
  const d = typeof t === 'number' ? new Date(t * 1000) : new Date(String(t));
  return Number.isNaN(d.getTime()) ? String(t) : d.toLocaleString();
}

export function Snippet({ title, code }: { title: string; code: string }) {
  return (
    <div class="snippet">
      <div class="snippet-title">{title}</div>
      <pre>
        <code>{code}</code>
      </pre>
    </div>
  );
}

export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly next?: string;
}

/**
 * A list read one page at a time with the API's NextToken. The current page's token is in the URL
 * (`?page=`), so a page can be linked to and back/forward move between pages.
 */
export function usePaged<T>(
  key: string,
  fetchPage: (token: string | undefined, signal: AbortSignal) => Promise<Page<T>>,
) {
  const loc = useLocation();
  const token = loc.query.get('page') ?? undefined;
  const trail = useRef<{ key: string; tokens: (string | undefined)[] }>({ key, tokens: [] });
  if (trail.current.key !== key) trail.current = { key, tokens: [] };
  const page = useAsync((signal) => fetchPage(token, signal), [key, token]);
  const tokens = trail.current.tokens;
  const index = tokens.indexOf(token);
  const prev = index > 0 ? tokens[index - 1] : undefined;
  return {
    ...page,
    first: token === undefined,
    hasPrev: index > 0 || token !== undefined,
    goNext() {
      if (!page.data?.next) return;
      if (index < 0) tokens.push(token);
      tokens.splice(tokens.indexOf(token) + 1, tokens.length, page.data.next);
      setQuery({ page: page.data.next });
    },
    goPrev() {
      setQuery({ page: index > 0 ? prev : undefined });
    },
  };
}

export function Pager(p: { hasPrev: boolean; next?: string; goPrev(): void; goNext(): void; count: number }) {
  return (
    <div class="pager">
      <button type="button" disabled={!p.hasPrev} onClick={p.goPrev}>
        ← Previous
      </button>
      <span>{p.count} shown</span>
      <button type="button" disabled={!p.next} onClick={p.goNext}>
        Next →
      </button>
    </div>
  );
}

export interface Column<T> {
  readonly key: string;
  readonly label: ComponentChildren;
  readonly value: (row: T) => string | number | undefined;
  readonly render?: (row: T) => ComponentChildren;
  readonly class?: string;
  /** The rows arrive sorted by this column when it is the sort (the API sorted every page). */
  readonly server?: boolean;
}

export interface SortState {
  readonly key: string;
  readonly desc: boolean;
}

/**
 * A table sortable by any column (click a header; again to reverse). The sort is the table's own,
 * or the page's when it passes `sort` and `onSort` (to keep it in the URL, or to have the API sort).
 */
export function SortableTable<T>(p: {
  columns: readonly Column<T>[];
  rows: readonly T[];
  rowKey: (r: T) => string;
  empty?: string;
  sort?: SortState;
  onSort?: (s: SortState) => void;
}) {
  const [own, setOwn] = useState<SortState | undefined>();
  const sort = p.onSort ? p.sort : own;
  const setSort = (f: (s: SortState | undefined) => SortState) => (p.onSort ? p.onSort(f(p.sort)) : setOwn(f));
  const rows = useMemo(() => {
    if (!sort) return p.rows;
    const col = p.columns.find((c) => c.key === sort.key);
    if (!col || col.server) return p.rows;
    const sorted = [...p.rows].sort((a, b) => compare(col.value(a), col.value(b)));
    return sort.desc ? sorted.reverse() : sorted;
  }, [p.rows, p.columns, sort]);
  if (p.rows.length === 0 && p.empty) return <p class="muted">{p.empty}</p>;
  return (
    <table class="grid">
      <thead>
        <tr>
          {p.columns.map((c) => (
            <th
              key={c.key}
              class={`sortable ${c.class ?? ''}`}
              aria-sort={sort?.key === c.key ? (sort.desc ? 'descending' : 'ascending') : undefined}
              onClick={() => setSort((s) => ({ key: c.key, desc: s?.key === c.key ? !s.desc : false }))}
            >
              {c.label}
              {sort?.key === c.key ? (sort.desc ? ' ▼' : ' ▲') : ''}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={p.rowKey(r)}>
            {p.columns.map((c) => (
              <td key={c.key} class={c.class}>
                {c.render ? c.render(r) : (c.value(r) ?? '—')}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function compare(a: string | number | undefined, b: string | number | undefined): number {
  if (a === undefined) return b === undefined ? 0 : 1;
  if (b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

/** Polls `fn` every `ms` while `active`. */
export function useInterval(fn: () => void, ms: number, active = true): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => saved.current(), ms);
    return () => clearInterval(t);
  }, [ms, active]);
}
