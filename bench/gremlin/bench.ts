// Issue 9 figures on the 1,000,000-edge lineage graph (the lineage bench's synthetic account:
// 200,270 entities, 1,000,000 associations, exported with `slipway lineage export` and bulk
// loaded into graph.db):
//  1. a 3-hop out() traversal from one vertex (p50/p95, ≤ 5 ms);
//  2. g.V().count() (≤ 50 ms);
//  3. the AWS notebook's path query over all artifacts: streamed through the engine and written
//     as GraphSON (as the WebSocket endpoint does), and its count.
// Each query is timed in-process (engine + GraphSON) and over POST /gremlin on a keep-alive socket.
// Run: npm run build && node dist/bench/gremlin/bench.js [--units 20000] [--runs 200] [--data-dir DIR]
// (with --data-dir, a graph already loaded there by an earlier run is reused).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import WebSocket from 'ws';
import { gremlinHttpListener } from '../../src/graph/gremlin/http.js';
import { gremlinWebSocket } from '../../src/graph/gremlin/websocket.js';
import { toGraphSON } from '../../src/graph/gremlin/graphson.js';
import { GremlinService } from '../../src/graph/gremlin/service.js';
import { LoadJobs } from '../../src/graph/loader/load-jobs.js';
import { GraphReader, openGraphDatabase } from '../../src/graph/store/graph-store.js';
import { MemoryBlobStore } from '../../src/graph/testing/memory-blob-store.js';
import { nodeId } from '../../src/lineage/export/exporter.js';
import { openDatabase } from '../../src/storage/db/index.js';
import { MIGRATIONS } from '../../src/storage/migrations.js';
import { seedSyntheticAccount } from '../lineage/seed.js';

const { values } = parseArgs({
  options: {
    units: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '200' },
    'data-dir': { type: 'string' },
  },
});
const units = Number(values.units);
const runs = Number(values.runs);
const ACCOUNT = '000000000000';
const REGION = 'us-east-1';
const keep = values['data-dir'] !== undefined;
const dataDir = values['data-dir'] ?? mkdtempSync(join(tmpdir(), 'slipway-bench-gremlin-'));
mkdirSync(dataDir, { recursive: true });
const graphDir = join(dataDir, 'graph');
const ms = (x: number) => `${x.toFixed(2)} ms`;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const arnOf = (u: number, role: number) =>
  `arn:aws:sagemaker:${REGION}:${ACCOUNT}:artifact/${(u * 16 + role).toString(16).padStart(32, '0')}`;

async function build(): Promise<void> {
  let t = performance.now();
  const db = await openDatabase({ dataDir, migrations: MIGRATIONS });
  const s = await seedSyntheticAccount(db, { accountId: ACCOUNT, region: REGION }, units);
  await db.run('ANALYZE');
  await db.close();
  console.log(
    `seeded ${s.entities} entities, ${s.associations} associations in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  t = performance.now();
  const out = join(dataDir, 'export');
  const r = spawnSync(
    process.execPath,
    [
      'bin/slipway.js',
      'lineage',
      'export',
      '--out',
      out,
      '--data-dir',
      dataDir,
      '--account-id',
      ACCOUNT,
      '--region',
      REGION,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`export failed: ${r.stderr}`);
  console.log(`exported in ${((performance.now() - t) / 1000).toFixed(1)} s: ${r.stdout.trim()}`);
  t = performance.now();
  const blobs = new MemoryBlobStore({ chunkSize: 64 * 1024 });
  await blobs.ensureBucket('export');
  for (const f of readdirSync(out)) await blobs.put(`s3://export/lineage/${f}`, readFileSync(join(out, f)));
  const gdb = await openGraphDatabase({ dataDir: graphDir });
  const jobs = new LoadJobs({ db: gdb, blobs, log: pino({ level: 'silent' }) });
  await jobs.init();
  const id = await jobs.start({
    source: 's3://export/lineage/',
    format: 'csv',
    region: REGION,
    iamRoleArn: '',
    mode: 'NEW',
    failOnError: true,
    parallelism: 'OVERSUBSCRIBE',
    parserConfiguration: {},
    updateSingleCardinalityProperties: false,
    queueRequest: false,
    dependencies: [],
  });
  for (;;) {
    const p = (await jobs.status(id, { details: false, errors: false, page: 1, errorsPerPage: 1 })) as {
      overallStatus: { status: string };
    };
    if (!['LOAD_NOT_STARTED', 'LOAD_IN_QUEUE', 'LOAD_IN_PROGRESS'].includes(p.overallStatus.status)) {
      if (p.overallStatus.status !== 'LOAD_COMPLETED') throw new Error(`load ended ${p.overallStatus.status}`);
      break;
    }
    await new Promise((res) => setTimeout(res, 50));
  }
  await gdb.run('ANALYZE');
  await jobs.close();
  await gdb.close();
  rmSync(out, { recursive: true, force: true });
  console.log(`loaded into graph.db in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

try {
  if (!existsSync(join(graphDir, 'graph.db'))) await build();
  const gdb = await openGraphDatabase({ dataDir: graphDir });
  const counts = await new GraphReader(gdb).counts();
  console.log(
    `graph: ${counts.vertices} vertices, ${counts.edges} edges, ${counts.vertexProperties} vertex properties`,
  );
  const service = new GremlinService(gdb, {
    timeoutMs: 600_000,
    maxResults: 10_000_000,
    maxBarrier: 10_000_000,
    maxResponseBytes: 64 * 1024 * 1024,
  });
  const server = createServer({ keepAliveTimeout: 65_000 }, gremlinHttpListener(service, pino({ level: 'silent' })));
  const ws = gremlinWebSocket(service, pino({ level: 'silent' }));
  server.on('upgrade', ws.upgrade);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const http = (gremlin: string) =>
    new Promise<{ status: number; bytes: number }>((resolve, reject) => {
      const body = JSON.stringify({ gremlin });
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/gremlin',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let bytes = 0;
          res.on('data', (c: Buffer) => {
            bytes += c.length;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  /** Engine + GraphSON in-process: results, serialized bytes. */
  const engine = async (gremlin: string) => {
    let n = 0;
    let bytes = 0;
    for await (const b of service.stream({ kind: 'groovy', text: gremlin })) {
      for (const v of b) {
        n++;
        bytes += JSON.stringify(toGraphSON(v)).length;
      }
    }
    return { n, bytes };
  };
  const timeIt = async (label: string, queries: string[], f: (q: string) => Promise<unknown>) => {
    for (const q of queries.slice(0, 20)) await f(q);
    const t: number[] = [];
    for (let i = 0; i < runs; i++) {
      const s = performance.now();
      await f(queries[i % queries.length]!);
      t.push(performance.now() - s);
    }
    console.log(`${label}: p50 ${ms(pct(t, 0.5))}, p95 ${ms(pct(t, 0.95))}, p99 ${ms(pct(t, 0.99))} (${runs} runs)`);
  };

  // 1. 3-hop out() from a unit's raw DataSet (its lineage downstream: 84 paths, 9 distinct ends).
  const spread = Array.from({ length: 200 }, (_, i) => (i * 7919) % units);
  const threeHop = spread.map((u) => `g.V('${nodeId(arnOf(u, 0))}').out().out().out()`);
  const sample = await engine(threeHop[0]!);
  console.log(`3-hop out() from one vertex returns ${sample.n} traversers`);
  await timeIt('3-hop out(), engine + GraphSON', threeHop, engine);
  await timeIt('3-hop out(), POST /gremlin', threeHop, http);

  // 2. g.V().count() (and g.E().count()).
  await timeIt('g.V().count(), POST /gremlin', ['g.V().count()'], http);
  await timeIt('g.E().count(), POST /gremlin', ['g.E().count()'], http);
  await timeIt("g.V().hasLabel('artifact').count(), POST /gremlin", ["g.V().hasLabel('artifact').count()"], http);

  // 3. The notebook's path query over every artifact.
  const aws = "g.V().hasLabel('artifact').outE().inV().path()";
  let s = performance.now();
  const all = await engine(aws);
  console.log(
    `${aws}: ${all.n} paths, ${(all.bytes / 1048576).toFixed(0)} MiB of GraphSON, streamed through the engine in ${ms(performance.now() - s)}`,
  );
  s = performance.now();
  const viaHttp = await http(aws);
  console.log(`  over POST /gremlin: HTTP ${viaHttp.status} in ${ms(performance.now() - s)} (${viaHttp.bytes} bytes)`);
  s = performance.now();
  const cnt = await engine(`${aws}.count()`);
  console.log(`  ${aws}.count(): ${ms(performance.now() - s)} (${cnt.n} result)`);
  const awsDs =
    "g.V().hasLabel('artifact').has('type','DataSet').outE().inV().path().by(valueMap('arn','type','sourcearn','status'))";
  s = performance.now();
  const ds = await engine(awsDs);
  console.log(`${awsDs}: ${ds.n} paths, ${(ds.bytes / 1048576).toFixed(0)} MiB in ${ms(performance.now() - s)}`);
  await timeIt(
    "AWS path query from one artifact: g.V(id).hasLabel('artifact').outE().inV().path(), POST /gremlin",
    spread.map((u) => `g.V('${nodeId(arnOf(u, 5))}').hasLabel('artifact').outE().inV().path()`),
    http,
  );

  // The same query as the driver sends it (bytecode over the WebSocket), answered in 64-result frames.
  const client = new WebSocket(`ws://127.0.0.1:${port}/gremlin`);
  await new Promise((r) => client.once('open', r));
  const mime = 'application/vnd.gremlin-v3.0+json';
  const wsRequest = {
    requestId: '3c1f2a1e-0000-4000-8000-000000000001',
    op: 'bytecode',
    processor: 'traversal',
    args: {
      gremlin: {
        '@type': 'g:Bytecode',
        '@value': { step: [['V'], ['hasLabel', 'artifact'], ['outE'], ['inV'], ['path']] },
      },
      aliases: { g: 'g' },
    },
  };
  s = performance.now();
  const frames = await new Promise<{ frames: number; bytes: number; code: number }>((resolve) => {
    let n = 0;
    let bytes = 0;
    client.on('message', (d: Buffer) => {
      n++;
      bytes += d.length;
      const code = (JSON.parse(d.toString()) as { status: { code: number } }).status.code;
      if (code !== 206) resolve({ frames: n, bytes, code });
    });
    client.send(Buffer.concat([Buffer.from([mime.length]), Buffer.from(mime), Buffer.from(JSON.stringify(wsRequest))]));
  });
  console.log(
    `  over the WebSocket (bytecode): status ${frames.code}, ${frames.frames} frames, ${(frames.bytes / 1048576).toFixed(0)} MiB in ${ms(performance.now() - s)}`,
  );
  client.close();
  ws.close();
  agent.destroy();
  server.close();
  await gdb.close();
} finally {
  if (!keep) rmSync(dataDir, { recursive: true, force: true });
}
