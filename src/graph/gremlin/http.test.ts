// POST/GET /gremlin on the modern graph: the TinkerPop envelope, GraphSON v3 types, Neptune's
// error shape, the query timeout and the bound on the answer's size.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { Database } from '../../storage/db/types.js';
import { gremlinHttpListener } from './http.js';
import { openModernGraph } from './modern-graph.js';
import { DEFAULT_GREMLIN_LIMITS, GremlinService } from './service.js';

describe('gremlin HTTP endpoint', () => {
  let db: Database;
  let server: Server;
  let base: string;

  before(async () => {
    db = await openModernGraph();
    const service = new GremlinService(db, { ...DEFAULT_GREMLIN_LIMITS, timeoutMs: 2_000, maxResponseBytes: 4096 });
    server = createServer(gremlinHttpListener(service, pino({ level: 'silent' })));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gremlin`;
  });
  after(async () => {
    server.close();
    await db.close();
  });

  const post = async (body: unknown) => {
    const res = await fetch(base, { method: 'POST', body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const data = (b: Record<string, unknown>) => (b.result as { data: { '@value': unknown[] } }).data['@value'];

  it('answers with GraphSON v3 types: Int64 counts, Int32/Double properties, vertices, edges, paths', async () => {
    const count = await post({ gremlin: 'g.V().count()' });
    assert.equal(count.status, 200);
    assert.deepEqual(count.body.result, {
      data: { '@type': 'g:List', '@value': [{ '@type': 'g:Int64', '@value': 6 }] },
      meta: { '@type': 'g:Map', '@value': [] },
    });
    assert.deepEqual(data((await post({ gremlin: "g.V('1').values('age')" })).body), [
      { '@type': 'g:Int32', '@value': 29 },
    ]);
    assert.deepEqual(data((await post({ gremlin: "g.E('7').values('weight')" })).body), [
      { '@type': 'g:Double', '@value': 0.5 },
    ]);
    assert.deepEqual(data((await post({ gremlin: "g.V('1')" })).body), [
      { '@type': 'g:Vertex', '@value': { id: '1', label: 'person' } },
    ]);
    assert.deepEqual(data((await post({ gremlin: "g.V('1').outE('knows').has('weight', 0.5)" })).body), [
      {
        '@type': 'g:Edge',
        '@value': { id: '7', label: 'knows', inVLabel: 'person', outVLabel: 'person', inV: '2', outV: '1' },
      },
    ]);
    assert.deepEqual(data((await post({ gremlin: "g.V('1').as('a').out('created').path()" })).body), [
      {
        '@type': 'g:Path',
        '@value': {
          labels: {
            '@type': 'g:List',
            '@value': [
              { '@type': 'g:Set', '@value': ['a'] },
              { '@type': 'g:Set', '@value': [] },
            ],
          },
          objects: {
            '@type': 'g:List',
            '@value': [
              { '@type': 'g:Vertex', '@value': { id: '1', label: 'person' } },
              { '@type': 'g:Vertex', '@value': { id: '3', label: 'software' } },
            ],
          },
        },
      },
    ]);
    assert.deepEqual(data((await post({ gremlin: "g.V('1').valueMap(true)" })).body), [
      {
        '@type': 'g:Map',
        '@value': [
          { '@type': 'g:T', '@value': 'id' },
          '1',
          { '@type': 'g:T', '@value': 'label' },
          'person',
          'age',
          { '@type': 'g:List', '@value': [{ '@type': 'g:Int32', '@value': 29 }] },
          'name',
          { '@type': 'g:List', '@value': ['marko'] },
        ],
      },
    ]);
  });

  it("accepts Neptune's query hints", async () => {
    const r = await post({ gremlin: "g.withSideEffect('Neptune#repeatMode', 'BFS').V().count()" });
    assert.equal(r.status, 200);
    assert.deepEqual(data(r.body), [{ '@type': 'g:Int64', '@value': 6 }]);
  });

  it('serves GET /gremlin?gremlin=...', async () => {
    const res = await fetch(`${base}?gremlin=${encodeURIComponent("g.V().has('name','marko').values('name')")}`);
    assert.equal(res.status, 200);
    assert.deepEqual(data((await res.json()) as Record<string, unknown>), ['marko']);
  });

  it("answers malformed queries with Neptune's error shape", async () => {
    const r = await post({ gremlin: "g.V().has('name'" });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'MalformedQueryException');
    assert.match(r.body.detailedMessage as string, /Query parsing failed at line 1/);
    assert.match(r.body.requestId as string, /^[0-9a-f-]{36}$/);
    const m = await post({ gremlin: 'g.V().sack()' });
    assert.equal(m.status, 400);
    assert.match(m.body.detailedMessage as string, /Unsupported Gremlin step: sack\(\)/);
  });

  it('stops a query past its timeout with TimeLimitExceededException (500)', async () => {
    // Every loop multiplies the traversers; the query cannot finish in 2 s (or 100 ms).
    const t = Date.now();
    const r = await post({ gremlin: "g.with('evaluationTimeout', 100).V().repeat(both()).times(40).count()" });
    assert.equal(r.status, 500);
    assert.equal(r.body.code, 'TimeLimitExceededException');
    assert.ok(Date.now() - t < 1_900, 'the per-query evaluationTimeout applies');
    const s = await post({ gremlin: 'g.V().repeat(both()).times(40).count()' });
    assert.ok(
      s.body.code === 'TimeLimitExceededException' || s.body.code === 'MemoryLimitExceededException',
      String(s.body.code),
    );
    // The server still answers.
    assert.equal((await post({ gremlin: 'g.V().count()' })).status, 200);
  });

  it('refuses an answer larger than the bound with a clear error', async () => {
    const r = await post({ gremlin: 'g.V().repeat(both()).times(4).path()' });
    assert.equal(r.status, 500);
    assert.equal(r.body.code, 'MemoryLimitExceededException');
    assert.match(r.body.detailedMessage as string, /larger than 4096 bytes/);
  });
});
