// Serves the web console's built files (dist/public/console, written by scripts/build-console.mjs)
// at /console/: hashed assets cached for a year, index.html for every other path (deep links),
// precompressed .br/.gz chosen by Accept-Encoding. The console itself talks to the public APIs.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';

export const CONSOLE_PREFIX = '/console';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

interface Asset {
  readonly type: string;
  readonly identity: Buffer;
  readonly br?: Buffer;
  readonly gzip?: Buffer;
  /** Names carry a content hash: the file at this URL never changes. */
  readonly immutable: boolean;
  readonly etag: string;
}

/** Facts the page needs that no public API tells it (which port the graph API listens on). */
export interface ConsoleRuntimeConfig {
  readonly graphPort: number;
  readonly region: string;
  readonly accountId: string;
  readonly version: string;
  /** 'sigv4' when a credentials file is in force: the console then asks its user to sign in. */
  readonly authentication: 'none' | 'sigv4';
}

/** Whether a request is the console's: unsigned GET/HEAD of /console or below. */
export function isConsolePath(path: string): boolean {
  return path === CONSOLE_PREFIX || path.startsWith(`${CONSOLE_PREFIX}/`);
}

/**
 * Every servable file is listed once, from the build directory, into a map keyed by URL path:
 * a request can only ever name one of those entries, so no path (`..`, `%2e%2e`, symlinks) can
 * reach outside the directory.
 */
function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (abs: string, rel: string): void => {
    for (const name of readdirSync(abs)) {
      const file = join(abs, name);
      const st = statSync(file);
      if (st.isDirectory()) walk(file, `${rel}/${name}`);
      else if (!name.endsWith('.br') && !name.endsWith('.gz')) {
        const maybe = (suffix: string) => {
          try {
            return readFileSync(file + suffix);
          } catch {
            return undefined;
          }
        };
        const identity = readFileSync(file);
        assets.set(`${rel}/${name}`, {
          type: TYPES[extname(name)] ?? 'application/octet-stream',
          identity,
          br: maybe('.br'),
          gzip: maybe('.gz'),
          immutable: rel.startsWith('/assets'),
          etag: `"${identity.length.toString(36)}-${Math.floor(st.mtimeMs).toString(36)}"`,
        });
      }
    }
  };
  walk(dir, '');
  return assets;
}

/** Picks the encoding the client accepts that we have: br, then gzip, then none (q=0 excludes). */
export function chooseEncoding(
  accept: string | undefined,
  have: { br?: unknown; gzip?: unknown },
): 'br' | 'gzip' | undefined {
  if (!accept) return undefined;
  const ok = new Map<string, number>();
  for (const part of accept.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    ok.set(name!.trim(), q ? Number(q.slice(2)) : 1);
  }
  const accepts = (enc: string) => (ok.get(enc) ?? ok.get('*') ?? 0) > 0;
  if (have.br && accepts('br')) return 'br';
  if (have.gzip && accepts('gzip')) return 'gzip';
  return undefined;
}

export class ConsoleAssets {
  private assets?: Map<string, Asset>;

  constructor(
    private readonly dir: string,
    private readonly runtimeConfig: () => ConsoleRuntimeConfig,
  ) {}

  handle(req: IncomingMessage, res: ServerResponse, path: string): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' });
      res.end('Method Not Allowed');
      return;
    }
    if (path === CONSOLE_PREFIX) {
      res.writeHead(301, { location: `${CONSOLE_PREFIX}/`, 'content-length': '0' });
      res.end();
      return;
    }
    const rel = path.slice(CONSOLE_PREFIX.length);
    if (rel === '/config.json') {
      const body = JSON.stringify(this.runtimeConfig());
      res.writeHead(200, {
        'content-type': 'application/json',
        'cache-control': 'no-store',
        'content-length': Buffer.byteLength(body),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    if (!this.assets) {
      try {
        this.assets = loadAssets(this.dir);
      } catch {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('The console is not built: run `npm run build`.\n');
        return;
      }
    }
    let asset = this.assets.get(rel);
    if (!asset) {
      // A missing file under /assets/ is a real 404 (a stale hashed name); anything else is a page
      // of the single-page app, answered with index.html so deep links and reloads work.
      if (rel.startsWith('/assets/')) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('Not Found\n');
        return;
      }
      asset = this.assets.get('/index.html');
      if (!asset) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('The console is not built: run `npm run build`.\n');
        return;
      }
    }
    const headers: Record<string, string> = {
      'content-type': asset.type,
      'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      vary: 'accept-encoding',
      etag: asset.etag,
      'x-content-type-options': 'nosniff',
    };
    if (asset.type.startsWith('text/html')) {
      // The page loads only its own scripts and styles; it may talk to this origin and the graph port.
      headers['content-security-policy'] =
        "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self' http: https:; frame-ancestors 'none'";
    }
    if (!asset.immutable && req.headers['if-none-match'] === asset.etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    const encoding = chooseEncoding(req.headers['accept-encoding'] as string | undefined, asset);
    const body = encoding === 'br' ? asset.br! : encoding === 'gzip' ? asset.gzip! : asset.identity;
    if (encoding) headers['content-encoding'] = encoding;
    headers['content-length'] = String(body.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}
