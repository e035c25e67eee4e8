// Issue 18 figures: 100,000 trial components with 10 parameters and 5 metrics each; Search for
// `Metrics.validation:rmse.Min < x` sorted by it, first page, through HTTP with the AWS SDK v3
// client against a `slipway serve` process, on SQLite and on PostgreSQL; ListTrialComponents'
// first page in the same run as the baseline.
// Run: npm run build && node dist/bench/search.js [--components 100000] [--requests 500] [--dialect sqlite|postgres|both]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  ListTrialComponentsCommand,
  SageMakerClient,
  SearchCommand,
  type SearchCommandInput,
} from '@aws-sdk/client-sagemaker';
import { createRepositories, type ServiceDeps } from '../src/services/common/deps.js';
import { SearchRecords } from '../src/services/sagemaker/search/records.js';
import { searchableTypes } from '../src/services/sagemaker/search/registry.js';
import { openDatabase } from '../src/storage/db/index.js';
import type { Database, SqlValue } from '../src/storage/db/types.js';
import { MIGRATIONS } from '../src/storage/migrations.js';
import { slipway } from './support.js';

const { values } = parseArgs({
  options: {
    components: { type: 'string', default: '100000' },
    requests: { type: 'string', default: '500' },
    dialect: { type: 'string', default: 'both' },
  },
});
const N = Number(values.components);
const REQUESTS = Number(values.requests);
const ACCOUNT = '000000000000';
const REGION = 'us-east-1';
const PG_URL = process.env.SLIPWAY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PER_TRIAL = 100;
const TRIALS_PER_EXPERIMENT = 10;
const METRICS = ['validation:rmse', 'train:rmse', 'validation:auc', 'train:auc', 'validation:logloss'];

const arn = (kind: string, name: string) => `arn:aws:sagemaker:${REGION}:${ACCOUNT}:${kind}/${name}`;
/** A deterministic pseudo-random stream (the same account in every run). */
let seed = 42;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};

async function insertRows(db: Database, table: string, cols: string[], rows: SqlValue[][]): Promise<void> {
  const per = Math.floor(900 / cols.length);
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    const ph = `(${cols.map(() => '?').join(', ')})`;
    await db.run(`INSERT INTO ${table} (${cols.join(', ')}) VALUES ${chunk.map(() => ph).join(', ')}`, chunk.flat());
  }
}

/** Trial components, their trials and experiments, straight through the SQL seam; the triggers mark them dirty. */
async function seedAccount(db: Database): Promise<void> {
  const cols = [
    'account_id',
    'region',
    'arn',
    'kind',
    'name_key',
    'name',
    'parent_key',
    'doc',
    'created_at',
    'last_modified_at',
  ];
  const t0 = Date.UTC(2026, 0, 1);
  const trials = Math.ceil(N / PER_TRIAL);
  const experiments = Math.ceil(trials / TRIALS_PER_EXPERIMENT);
  await db.transaction(async (tx) => {
    const q = tx as Database;
    const ent = (kind: string, name: string, parent: string | null, doc: object, i: number): SqlValue[] => [
      ACCOUNT,
      REGION,
      arn(kind, name.toLowerCase()),
      kind,
      name.toLowerCase(),
      name,
      parent,
      JSON.stringify(doc),
      t0 + i,
      t0 + i,
    ];
    const rows: SqlValue[][] = [];
    for (let e = 0; e < experiments; e++)
      rows.push(ent('experiment', `exp-${e}`, null, { ExperimentName: `exp-${e}` }, e));
    for (let t = 0; t < trials; t++) {
      const e = Math.floor(t / TRIALS_PER_EXPERIMENT);
      rows.push(
        ent('experiment-trial', `trial-${t}`, `exp-${e}`, { TrialName: `trial-${t}`, ExperimentName: `exp-${e}` }, t),
      );
    }
    await insertRows(q, 'lineage_entities', cols, rows);
    for (let start = 0; start < N; start += 5000) {
      const batch: SqlValue[][] = [];
      const members: SqlValue[][] = [];
      for (let i = start; i < Math.min(N, start + 5000); i++) {
        const name = `tc-${String(i).padStart(6, '0')}`;
        const Parameters: Record<string, object> = {};
        for (let p = 0; p < 7; p++) Parameters[`num_${p}`] = { NumberValue: Math.round(rand() * 1000) / 100 };
        for (let p = 0; p < 3; p++) Parameters[`str_${p}`] = { StringValue: `value-${Math.floor(rand() * 20)}` };
        const Metrics = METRICS.map((MetricName) => {
          const min = rand();
          return {
            MetricName,
            Min: min,
            Max: min + rand(),
            Avg: min + rand() / 2,
            StdDev: rand() / 10,
            Last: min + rand() / 4,
            Count: 100,
            TimeStamp: t0 + i,
          };
        });
        batch.push(
          ent(
            'experiment-trial-component',
            name,
            null,
            { TrialComponentName: name, Status: { PrimaryStatus: 'Completed' }, Parameters, Metrics },
            i,
          ),
        );
        members.push([
          arn('experiment-trial', `trial-${Math.floor(i / PER_TRIAL)}`),
          arn('experiment-trial-component', name),
          t0 + i,
        ]);
      }
      await insertRows(q, 'lineage_entities', cols, batch);
      await insertRows(q, 'lineage_trial_members', ['trial_arn', 'component_arn', 'created_at'], members);
    }
  });
}

const pct = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

async function run(dialect: 'sqlite' | 'postgres'): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-search-'));
  const schema = `bench_search_${Date.now().toString(36)}`;
  const dbOpts = dialect === 'sqlite' ? { dataDir } : { url: PG_URL, schema };
  const db = await openDatabase({ ...dbOpts, migrations: MIGRATIONS });
  let t = performance.now();
  await seedAccount(db);
  console.log(`[${dialect}] seeded ${N} trial components in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  // The indexer the server runs, over the whole backlog (what a migration's backfill costs).
  t = performance.now();
  const deps = { db, repos: createRepositories() } as unknown as ServiceDeps;
  // Large batches and (SQLite) a 256 MB page cache: each batch touches pages all over the indexes.
  if (dialect === 'sqlite') await db.run('PRAGMA cache_size = -262144');
  await new SearchRecords(deps, searchableTypes(deps)).drain(10_000);
  await db.run('ANALYZE');
  const values = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM search_values');
  console.log(`[${dialect}] indexed ${Number(values?.n)} values in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  await db.close();

  const extra = dialect === 'sqlite' ? [] : ['--database-url', PG_URL, '--database-schema', schema];
  const server = await slipway(dataDir, ['--account-id', ACCOUNT, '--log-level', 'warn', ...extra]);
  const sm = new SageMakerClient({
    endpoint: `http://127.0.0.1:${server.port}`,
    region: REGION,
    credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'secret' },
  });
  const measure = async (label: string, make: (i: number) => Promise<number>) => {
    for (let i = 0; i < 50; i++) await make(i);
    const ms: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const s = performance.now();
      const n = await make(i);
      ms.push(performance.now() - s);
      if (n === 0) throw new Error(`${label}: empty page`);
    }
    console.log(
      `| ${dialect} | ${label} | ${pct(ms, 0.5).toFixed(2)} ms | ${pct(ms, 0.95).toFixed(2)} ms | ${pct(ms, 0.99).toFixed(2)} ms |`,
    );
  };
  const search = async (input: Omit<SearchCommandInput, 'Resource'>) =>
    (await sm.send(new SearchCommand({ Resource: 'ExperimentTrialComponent', ...input }))).Results?.length ?? 0;
  const below = (i: number) => ({
    Filters: [
      { Name: 'Metrics.validation:rmse.Min', Operator: 'LessThan' as const, Value: String(0.2 + (i % 50) / 100) },
    ],
  });
  try {
    await measure(
      'ListTrialComponents, first page (baseline)',
      async () => (await sm.send(new ListTrialComponentsCommand({}))).TrialComponentSummaries?.length ?? 0,
    );
    await measure('Search `Metrics.validation:rmse.Min < x`, SortBy it Ascending, first page', (i) =>
      search({ SearchExpression: below(i), SortBy: 'Metrics.validation:rmse.Min', SortOrder: 'Ascending' }),
    );
    await measure('… SortBy it Descending (the best just under x)', (i) =>
      search({ SearchExpression: below(i), SortBy: 'Metrics.validation:rmse.Min', SortOrder: 'Descending' }),
    );
    await measure('ExperimentAnalytics: `Parents.ExperimentName = e`, SortBy `Metrics.validation:auc.Max`', (i) =>
      search({
        SearchExpression: {
          Filters: [
            {
              Name: 'Parents.ExperimentName',
              Operator: 'Equals',
              Value: `exp-${(i * 7) % Math.ceil(N / PER_TRIAL / TRIALS_PER_EXPERIMENT)}`,
            },
          ],
        },
        SortBy: 'Metrics.validation:auc.Max',
      }),
    );
    await measure('Or of a metric range and a parameter (records tested, bounded)', (i) =>
      search({
        SearchExpression: {
          Operator: 'Or',
          Filters: [
            { Name: 'Metrics.validation:rmse.Min', Operator: 'LessThan', Value: String(0.01 + (i % 10) / 1000) },
            { Name: 'Parameters.str_0', Operator: 'Equals', Value: 'value-3' },
          ],
        },
        SortBy: 'Metrics.train:auc.Last',
      }),
    );
  } finally {
    sm.destroy();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (dialect === 'postgres') {
      const pg = await openDatabase({ url: PG_URL, migrations: [] });
      await pg.run(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await pg.run(`DROP SCHEMA IF EXISTS ${schema}_graph CASCADE`);
      await pg.close();
    }
  }
}

console.log('| Dialect | Request | p50 | p95 | p99 |\n|---|---|---|---|---|');
for (const d of values.dialect === 'both'
  ? (['sqlite', 'postgres'] as const)
  : [values.dialect as 'sqlite' | 'postgres'])
  await run(d);
