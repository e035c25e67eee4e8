// Issue 8 figures. With 200,000 lineage entities and 1,000,000 associations in SQLite:
//  1. `slipway lineage export` (Gremlin CSV to a directory) in its own process: time and peak RSS;
//  2. the reference notebook's method, one ListAssociations(DestinationArn) per node through HTTP
//     against `slipway serve`, on 10,000 nodes, and the same-size export for the ratio;
//  3. bulk load of the export into the graph store (graph.db): Neptune records per second.
// Run: npm run build && node dist/bench/graph/bench.js [--units 20000] [--reference-nodes 10000]
//   [--export-dir DIR]  keep the export in DIR, and reuse it (no seeding, no export) when DIR exists
//   [--load-only]       skip the reference method (part 2); with --export-dir, measures just the load
//   [--postgres URL]    load into PostgreSQL (a fresh schema, dropped afterwards) instead of graph.db
//   [--seed-dir DIR]    seed the account into DIR and keep it; reuse it (no seeding) when DIR exists
//   [--runs N]          export and load N times each, interleaved; prints each run and the medians
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { LoadJobs } from '../../src/graph/loader/load-jobs.js';
import { GraphReader, openGraphDatabase } from '../../src/graph/store/graph-store.js';
import { MemoryBlobStore } from '../../src/graph/testing/memory-blob-store.js';
import { openDatabase } from '../../src/storage/db/index.js';
import { MIGRATIONS } from '../../src/storage/migrations.js';
import { seedSyntheticAccount } from '../lineage/seed.js';
import { median, slipway } from '../support.js';

const { values } = parseArgs({
  options: {
    units: { type: 'string', default: '20000' },
    'reference-nodes': { type: 'string', default: '10000' },
    'export-dir': { type: 'string' },
    'load-only': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    postgres: { type: 'string' },
    'seed-dir': { type: 'string' },
    runs: { type: 'string', default: '1' },
  },
});
const units = Number(values.units);
const refNodes = Number(values['reference-nodes']);
const ACCOUNT = '000000000000';
const REGION = 'us-east-1';
const secs = (ms: number) => (ms / 1000).toFixed(2);

async function seed(dir: string, n: number): Promise<{ entities: number; associations: number }> {
  const db = await openDatabase({ dataDir: dir, migrations: MIGRATIONS });
  const s = await seedSyntheticAccount(db, { accountId: ACCOUNT, region: REGION }, n);
  await db.run('ANALYZE');
  await db.close();
  return s;
}

/** Runs the CLI in a child process; returns wall time and its peak RSS (GNU time's %M, KiB). */
function exportProcess(dataDir: string, out: string): { ms: number; rssMb: number; stdout: string } {
  const t = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      '%M',
      process.execPath,
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
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`export failed: ${r.stderr}`);
  const rssKb = Number(r.stderr.trim().split('\n').pop());
  return { ms, rssMb: rssKb / 1024, stdout: r.stdout.trim() };
}

// 1. Full-size export.
const runs = Math.max(1, Number(values.runs));
const seedDir = values['seed-dir'];
const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-graph-'));
const out = values['export-dir'] ?? join(dataDir, 'export');
try {
  const exportRuns: number[] = [];
  const loadRates: number[] = [];
  const reuse = values['export-dir'] !== undefined && existsSync(out);
  const accountDir = seedDir ?? join(dataDir, 'account');
  if (reuse) {
    console.log(`reusing the export in ${out}`);
  } else if (seedDir !== undefined && existsSync(join(seedDir, 'slipway.db'))) {
    console.log(`reusing the seeded account in ${seedDir}`);
  } else {
    const t = performance.now();
    const seeded = await seed(accountDir, units);
    console.log(
      `seeded ${seeded.entities} entities and ${seeded.associations} associations in ${secs(performance.now() - t)} s`,
    );
  }
  for (let run = 0; run < runs; run++) {
    if (!reuse) {
      rmSync(out, { recursive: true, force: true });
      const full = exportProcess(accountDir, out);
      exportRuns.push(full.ms);
      console.log(`export: ${full.stdout}`);
      console.log(
        `export wall time ${secs(full.ms)} s (process start included), peak RSS ${full.rssMb.toFixed(0)} MB, load average ${loadavg()[0]!.toFixed(2)}`,
      );
    }
    loadRates.push(await bulkLoad(run));
  }
  if (runs > 1) {
    console.log(
      `median of ${runs} runs: export ${exportRuns.length ? `${secs(median(exportRuns))} s` : '-'}, bulk load ${Math.round(median(loadRates)).toLocaleString('en-US')} records/s`,
    );
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

// 3. Bulk load of that export into an empty graph.db; returns records per second.
async function bulkLoad(run: number): Promise<number> {
  const blobs = new MemoryBlobStore({ chunkSize: 64 * 1024 });
  await blobs.ensureBucket('export');
  for (const f of readdirSync(out)) await blobs.put(`s3://export/lineage/${f}`, readFileSync(join(out, f)));
  const graphDir = join(dataDir, `graph-${run}`);
  const pgSchema = `bench_${randomBytes(4).toString('hex')}`;
  const gdb = await openGraphDatabase(
    values.postgres ? { url: values.postgres, schema: pgSchema } : { dataDir: graphDir },
  );
  // --verbose: the loader's debug log (time per file, for the index builds) on stderr.
  const jobs = new LoadJobs({
    db: gdb,
    blobs,
    log: pino({ level: values.verbose ? 'debug' : 'silent' }, pino.destination(2)),
  });
  await jobs.init();
  const t = performance.now();
  const c0 = process.cpuUsage();
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
  let overall: Record<string, number | string>;
  for (;;) {
    const p = (await jobs.status(id, { details: false, errors: true, page: 1, errorsPerPage: 5 })) as {
      overallStatus: Record<string, number | string>;
    };
    overall = p.overallStatus;
    if (!['LOAD_NOT_STARTED', 'LOAD_IN_QUEUE', 'LOAD_IN_PROGRESS'].includes(overall.status as string)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const loadMs = performance.now() - t;
  const cpu = process.cpuUsage(c0);
  const counts = await new GraphReader(gdb).counts();
  await jobs.close();
  await gdb.close();
  if (values.postgres) {
    const client = new pg.Client({ connectionString: values.postgres });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${pgSchema}_graph" CASCADE`);
    await client.end();
  }
  rmSync(graphDir, { recursive: true, force: true });
  const records = Number(overall.totalRecords);
  const rate = records / (loadMs / 1000);
  console.log(
    `bulk load: ${overall.status}, ${records} records (${counts.vertices} vertices, ${counts.edges} edges, ${counts.vertexProperties} vertex properties) ` +
      `in ${secs(loadMs)} s = ${Math.round(rate).toLocaleString('en-US')} records/s (process CPU ${secs((cpu.user + cpu.system) / 1000)} s), load average ${loadavg()[0]!.toFixed(2)}`,
  );
  return rate;
}

// 2. The reference notebook's method on `refNodes` nodes: one ListAssociations per node, in order.
if (!values['load-only']) await referenceMethod();

async function referenceMethod(): Promise<void> {
  const refDir = mkdtempSync(join(tmpdir(), 'slipway-bench-graph-ref-'));
  try {
    const refSeed = await seed(refDir, Math.ceil(refNodes / 10));
    const small = exportProcess(refDir, join(refDir, 'export'));
    const db = await openDatabase({ dataDir: refDir, migrations: MIGRATIONS });
    const arns = (
      await db.all<{ arn: string }>(
        "SELECT arn FROM lineage_entities WHERE kind IN ('artifact','action','context','experiment-trial-component') ORDER BY arn",
      )
    ).map((r) => r.arn);
    await db.close();
    // Slipway as `npm start` runs it (bench/support.ts).
    const server = await slipway(refDir, ['--account-id', ACCOUNT, '--log-level', 'warn']);
    const { port } = server;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const call = (body: unknown) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const payload = JSON.stringify(body);
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/',
            agent,
            headers: {
              'content-type': 'application/x-amz-json-1.1',
              'x-amz-target': 'SageMaker.ListAssociations',
              'content-length': Buffer.byteLength(payload),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString() || '{}')));
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    const t = performance.now();
    let edges = 0;
    for (const arn of arns.slice(0, refNodes)) {
      let token: string | undefined;
      do {
        const r = await call({ DestinationArn: arn, NextToken: token });
        edges += ((r.AssociationSummaries as unknown[]) ?? []).length;
        token = r.NextToken as string | undefined;
      } while (token);
    }
    const refMs = performance.now() - t;
    await server.stop();
    agent.destroy();
    console.log(
      `reference method: ${Math.min(refNodes, arns.length)} ListAssociations calls (${edges} edges) in ${secs(refMs)} s; ` +
        `export of the same ${refSeed.entities} entities and ${refSeed.associations} associations: ${secs(small.ms)} s (${small.stdout}); ` +
        `ratio ${(refMs / small.ms).toFixed(1)}x`,
    );
  } finally {
    rmSync(refDir, { recursive: true, force: true });
  }
}
