// Issue 7 figures: with ~200,000 lineage entities and 1,000,000 associations in SQLite, the latency
// through HTTP of ListAssociations by DestinationArn and of QueryLineage (Both, MaxDepth 10) from a
// model artifact, one request at a time on a keep-alive connection to a `slipway serve` process.
// Run: npm run build && node dist/bench/lineage/bench.js [--units 20000] [--requests 2000]
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../../src/storage/db/index.js';
import { MIGRATIONS } from '../../src/storage/migrations.js';
import { seedSyntheticAccount } from './seed.js';
import { slipway } from '../support.js';

const { values } = parseArgs({
  options: {
    units: { type: 'string', default: '20000' },
    requests: { type: 'string', default: '2000' },
    'keep-data': { type: 'boolean', default: false },
  },
});
const units = Number(values.units);
const requests = Number(values.requests);
const ACCOUNT = '000000000000';
const REGION = 'us-east-1';

const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-lineage-'));
console.log(`seeding ${units} model lineages into ${dataDir} ...`);
let t = performance.now();
const db = await openDatabase({ dataDir, migrations: MIGRATIONS });
const seeded = await seedSyntheticAccount(db, { accountId: ACCOUNT, region: REGION }, units, console.log);
await db.run('ANALYZE');
await db.close();
console.log(
  `seeded ${seeded.entities} entities and ${seeded.associations} associations in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);

// Slipway as `npm start` runs it (bench/support.ts).
const server = await slipway(dataDir, ['--account-id', ACCOUNT, '--log-level', 'warn']);
const { port } = server;

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
function call(op: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent,
        headers: {
          'content-type': 'application/x-amz-json-1.1',
          'x-amz-target': `SageMaker.${op}`,
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString() || '{}') }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
async function measure(
  label: string,
  n: number,
  make: (i: number) => [string, unknown],
  check: (json: Record<string, unknown>) => void,
) {
  for (let i = 0; i < 50; i++) await call(...make(i)); // warm-up
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const [op, body] = make(i);
    const s = performance.now();
    const r = await call(op, body);
    times.push(performance.now() - s);
    if (r.status !== 200) throw new Error(`${op}: ${r.status} ${JSON.stringify(r.json)}`);
    if (i === 0) check(r.json);
  }
  const f = (x: number) => x.toFixed(2).padStart(7);
  console.log(
    `${label.padEnd(58)} p50 ${f(pct(times, 0.5))} ms  p95 ${f(pct(times, 0.95))} ms  p99 ${f(pct(times, 0.99))} ms  (n=${n})`,
  );
  return pct(times, 0.5);
}

// A deterministic spread of units so every run asks the same questions.
const unitOf = (i: number) => (i * 7919) % units;
try {
  t = performance.now();
  const listP50 = await measure(
    'ListAssociations DestinationArn=<ModelDeployment action>',
    requests,
    (i) => ['ListAssociations', { DestinationArn: seeded.arnOf(unitOf(i), 8) }],
    (j) => {
      const n = (j.AssociationSummaries as unknown[]).length;
      if (n !== 9) throw new Error(`expected 9 associations, got ${n}`);
    },
  );
  await measure(
    'ListAssociations DestinationArn=<any entity of a lineage>',
    requests,
    (i) => ['ListAssociations', { DestinationArn: seeded.arnOf(unitOf(i), i % 10) }],
    () => {},
  );
  const queryP50 = await measure(
    'QueryLineage Both MaxDepth 10 IncludeEdges from <model artifact>',
    Math.max(200, Math.floor(requests / 4)),
    (i) => [
      'QueryLineage',
      { StartArns: [seeded.arnOf(unitOf(i), 5)], Direction: 'Both', MaxDepth: 10, IncludeEdges: true },
    ],
    (j) => {
      const n = (j.Vertices as unknown[]).length;
      if (n < 10) throw new Error(`expected the model's whole lineage, got ${n} vertices`);
    },
  );
  await measure(
    'QueryLineage Ascendants from <Endpoint context>, Artifacts',
    Math.max(200, Math.floor(requests / 4)),
    (i) => [
      'QueryLineage',
      {
        StartArns: [seeded.arnOf(unitOf(i), 9)],
        Direction: 'Ascendants',
        Filters: { LineageTypes: ['Artifact'], Types: ['Model', 'Image'] },
      },
    ],
    () => {},
  );
  console.log(
    `\ntargets: ListAssociations p50 ≤ 2 ms: ${listP50 <= 2 ? 'met' : 'MISSED'}; QueryLineage ≤ 50 ms: ${queryP50 <= 50 ? 'met' : 'MISSED'}`,
  );
} finally {
  agent.destroy();
  await server.stop();
  if (!values['keep-data']) rmSync(dataDir, { recursive: true, force: true });
}
