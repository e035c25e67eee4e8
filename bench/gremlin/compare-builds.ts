// Two builds of the Gremlin engine side by side in one process, on the graph.db that bench.ts
// loaded: every query runs on build A and on build B back to back (the order alternating), so a
// change of machine load hits both; prints the medians and the geometric mean of the paired B/A.
// For a refactor on a shared machine, where whole bench.ts runs vary 2× between identical builds.
// Run: npm run build && cp -r dist /tmp/after && (check out the old commit, build, cp -r dist /tmp/before)
//      node dist/bench/gremlin/compare-builds.js --a /tmp/before --b /tmp/after --data-dir DIR [--reps 5] [--large]
// (the dist copies must sit where node finds node_modules, e.g. inside the checkout).
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { GremlinService } from '../../src/graph/gremlin/service.js';
import { nodeId } from '../../src/lineage/export/exporter.js';

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    'data-dir': { type: 'string' },
    units: { type: 'string', default: '20000' },
    reps: { type: 'string', default: '5' },
    large: { type: 'boolean', default: false },
  },
});
if (!values.a || !values.b || !values['data-dir']) throw new Error('--a DIST --b DIST --data-dir DIR are required');
const units = Number(values.units);
const reps = Number(values.reps);

type Run = (q: string) => Promise<number>;

async function load(dist: string): Promise<Run> {
  const root = resolve(dist, 'src/graph');
  const { GremlinService: Service } = (await import(join(root, 'gremlin/service.js'))) as {
    GremlinService: typeof GremlinService;
  };
  const { openGraphDatabase } = await import(join(root, 'store/graph-store.js'));
  const { toGraphSON } = await import(join(root, 'gremlin/graphson.js'));
  const db = await openGraphDatabase({ dataDir: join(values['data-dir']!, 'graph') });
  const service = new Service(db, {
    timeoutMs: 600_000,
    maxResults: 10_000_000,
    maxBarrier: 10_000_000,
    maxResponseBytes: 64 * 1024 * 1024,
  });
  return async (q) => {
    let n = 0;
    for await (const b of service.stream({ kind: 'groovy', text: q }))
      for (const v of b) {
        n++;
        JSON.stringify(toGraphSON(v));
      }
    return n;
  };
}

const arnOf = (u: number, role: number) =>
  `arn:aws:sagemaker:us-east-1:000000000000:artifact/${(u * 16 + role).toString(16).padStart(32, '0')}`;
const spread = Array.from({ length: 200 }, (_, i) => (i * 7919) % units);
const cases: [string, string[]][] = values.large
  ? [
      ['all artifact paths', ["g.V().hasLabel('artifact').outE().inV().path()"]],
      ['all artifact paths, count()', ["g.V().hasLabel('artifact').outE().inV().path().count()"]],
      [
        'DataSet paths by(valueMap(...))',
        [
          "g.V().hasLabel('artifact').has('type','DataSet').outE().inV().path().by(valueMap('arn','type','sourcearn','status'))",
        ],
      ],
    ]
  : [
      ['3-hop out()', spread.map((u) => `g.V('${nodeId(arnOf(u, 0))}').out().out().out()`)],
      [
        'path query from one artifact',
        spread.map((u) => `g.V('${nodeId(arnOf(u, 5))}').hasLabel('artifact').outE().inV().path()`),
      ],
      ['g.V().count()', ['g.V().count()']],
      ['g.E().count()', ['g.E().count()']],
      ["g.V().hasLabel('artifact').count()", ["g.V().hasLabel('artifact').count()"]],
    ];

const engines: Record<'A' | 'B', Run> = { A: await load(values.a), B: await load(values.b) };
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
for (const [name, qs] of cases) {
  for (const q of qs.slice(0, 5)) for (const k of ['A', 'B'] as const) await engines[k](q);
  const t: Record<'A' | 'B', number[]> = { A: [], B: [] };
  let logRatio = 0;
  // Single-query cases repeat to give as many pairs as the 200-query ones, unless they are large.
  const n = qs.length === 1 && !values.large ? 200 * reps : reps * qs.length;
  for (let i = 0; i < n; i++) {
    const q = qs[i % qs.length]!;
    const took: Record<string, number> = {};
    for (const k of i % 2 ? (['B', 'A'] as const) : (['A', 'B'] as const)) {
      const s = performance.now();
      await engines[k](q);
      took[k] = performance.now() - s;
    }
    t.A.push(took.A!);
    t.B.push(took.B!);
    logRatio += Math.log(took.B! / took.A!);
  }
  console.log(
    `${name}: ${n} pairs, median A ${median(t.A).toFixed(3)} ms, B ${median(t.B).toFixed(3)} ms, paired B/A ${Math.exp(logRatio / n).toFixed(3)}`,
  );
}
process.exit(0);
