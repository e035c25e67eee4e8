// The console's files as the AWS port serves them (content types, caching, compression, deep-link
// fallback, no way out of the build directory) and CORS on the graph port for the console's origin.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from '../support/server.js';

/** A raw GET (fetch would decode the body and normalise `..` in the path). */
function get(url: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const u = new URL(url);
      const req = request(
        { host: u.hostname, port: u.port, path: url.slice(u.origin.length), method, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end();
    },
  );
}

describe('console static files', () => {
  let server: TestServer;
  let index: string;
  before(async () => {
    server = await startServer();
    index = (await get(`${server.endpoint}/console/`)).body.toString();
  });
  after(() => server.close());

  test('/console redirects to /console/, which is the app page, never cached stale', async () => {
    const r = await get(`${server.endpoint}/console`);
    assert.equal(r.status, 301);
    assert.equal(r.headers.location, '/console/');
    const page = await get(`${server.endpoint}/console/`);
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.headers['cache-control'], 'no-cache');
    assert.match(page.body.toString(), /<div id="app">/);
    const again = await get(`${server.endpoint}/console/`, { 'if-none-match': String(page.headers.etag) });
    assert.equal(again.status, 304);
  });

  test('deep links answer the app page, so a reload on any page works', async () => {
    for (const path of [
      '/console/registry/my-group/3',
      '/console/lineage?arn=arn%3Aaws%3Asagemaker%3Ax',
      '/console/endpoints/',
    ]) {
      const r = await get(server.endpoint + path);
      assert.equal(r.status, 200, path);
      assert.equal(r.body.toString(), index);
    }
  });

  test('hashed assets: right type, cached for a year, brotli or gzip as the client accepts', async () => {
    // Absolute URLs, so the same page works when served for a deep link.
    const js = /src="\/console\/(assets\/main-[^"]+\.js)"/.exec(index)![1]!;
    const css = /href="\/console\/(assets\/main-[^"]+\.css)"/.exec(index)![1]!;
    const plain = await get(`${server.endpoint}/console/${js}`);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(plain.headers['content-encoding'], undefined);
    const br = await get(`${server.endpoint}/console/${js}`, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'accept-encoding');
    assert.deepEqual(brotliDecompressSync(br.body), plain.body);
    assert.ok(br.body.length < plain.body.length / 2);
    const gz = await get(`${server.endpoint}/console/${js}`, { 'accept-encoding': 'gzip;q=1, br;q=0' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gz.body), plain.body);
    const style = await get(`${server.endpoint}/console/${css}`);
    assert.equal(style.headers['content-type'], 'text/css; charset=utf-8');
    const head = await get(`${server.endpoint}/console/${js}`, {}, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    assert.equal(head.headers['content-length'], String(plain.body.length));
  });

  test('a missing asset is a 404, and no path leads out of the build directory', async () => {
    assert.equal((await get(`${server.endpoint}/console/assets/main-OLDHASH.js`)).status, 404);
    for (const path of [
      '/console/../../package.json',
      '/console/%2e%2e/%2e%2e/package.json',
      '/console/assets/..%2f..%2f..%2fpackage.json',
      '/console/..%5c..%5cpackage.json',
    ]) {
      const r = await get(server.endpoint + path);
      assert.ok(!r.body.toString().includes('"name": "slipway"'), path);
      assert.ok(r.status === 404 || r.body.toString() === index, `${path}: ${r.status}`);
    }
  });

  test('config.json tells the page the graph port and region', async () => {
    const r = await get(`${server.endpoint}/console/config.json`);
    const cfg = JSON.parse(r.body.toString());
    assert.equal(cfg.graphPort, Number(new URL(server.graphEndpoint).port));
    assert.equal(typeof cfg.region, 'string');
  });

  test('the graph port lets the console origin (and no other) read Gremlin answers', async () => {
    const consoleOrigin = server.endpoint;
    const pre = await fetch(`${server.graphEndpoint}/gremlin`, {
      method: 'OPTIONS',
      headers: {
        origin: consoleOrigin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, x-amz-date',
      },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), consoleOrigin);
    assert.match(pre.headers.get('access-control-allow-headers')!, /authorization/);
    const r = await fetch(`${server.graphEndpoint}/gremlin`, {
      method: 'POST',
      headers: { origin: consoleOrigin, 'content-type': 'application/json' },
      body: JSON.stringify({ gremlin: 'g.V().count()' }),
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), consoleOrigin);
    const other = await fetch(`${server.graphEndpoint}/gremlin`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ gremlin: 'g.V().count()' }),
    });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
  });
});
