// A small history-API router: every page and selected entity is a URL under /console/, so deep
// links, reloads (the server answers index.html) and back/forward all work.
import { createElement, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';

export interface Location {
  /** Path below /console, without trailing slash: '' for the home page, '/registry/g' … */
  readonly path: string;
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
}

function current(): Location {
  let path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  if (path.endsWith('/')) path = path.slice(0, -1);
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decodeURIComponent(s));
  return { path, segments, query: new URLSearchParams(location.search) };
}

const listeners = new Set<() => void>();
const notify = () => {
  for (const l of listeners) l();
};
addEventListener('popstate', notify);

/** Goes to a console URL (`/registry/my-group`, with a query if any), adding a history entry. */
export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = href(to);
  if (url === location.pathname + location.search) return;
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  notify();
}

/** The full URL of a console path. */
export function href(to: string): string {
  return BASE + (to.startsWith('/') ? to : `/${to}`);
}

/** Builds `/path?k=v` leaving out empty values. */
export function withQuery(path: string, q: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `${path}?${s}` : path;
}

/** Replaces some query parameters of the current URL (a new history entry unless `replace`). */
export function setQuery(changes: Record<string, string | number | undefined>, replace = false): void {
  const l = current();
  const q: Record<string, string> = Object.fromEntries(l.query);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === '') delete q[k];
    else q[k] = String(v);
  }
  navigate(withQuery(l.path || '/', q), { replace });
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const l = () => setLoc(current());
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
  return loc;
}

/** An in-app link: a real <a href> (open in a new tab works) that navigates without reloading. */
export function Link(props: { to: string; class?: string; title?: string; children?: ComponentChildren }) {
  return createElement(
    'a',
    {
      href: href(props.to),
      class: props.class,
      title: props.title,
      onClick: (e: MouseEvent) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(props.to);
      },
    },
    props.children,
  );
}
