// The store export on several threads writes the files one thread reading page by page writes,
// byte for byte: rows in rowid order across ranges, gaps in the rowids, other accounts' rows and
// associations with experiments left out, fields that need quoting.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../storage/db/index.js';
import { MIGRATIONS } from '../../storage/migrations.js';
import { exportLineage } from './exporter.js';
import { directoryOutput } from './outputs.js';
import { storeLineageSource } from './store-source.js';

const P = { accountId: '111122223333', region: 'eu-west-1' };
const KINDS = [
  ['artifact', 'artifact', { Source: { SourceUri: 's3://b/k,with "comma"' }, ArtifactType: 'DataSet' }],
  ['action', 'action', { Source: { SourceUri: 'u' }, ActionType: 'Approval', Status: 'Completed' }],
  ['context', 'context', { Source: { SourceUri: 'c' }, ContextType: 'Endpoint' }],
  [
    'experiment-trial-component',
    'experiment-trial-component',
    {
      Source: { SourceArn: 'arn:j', SourceType: 'SageMakerTrainingJob' },
      Status: { PrimaryStatus: 'Completed', Message: 'line\nbreak' },
    },
  ],
  ['experiment', 'experiment', {}],
] as const;

test('the files are those of one thread reading page by page', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-store-export-'));
  try {
    const db = await openDatabase({ dataDir: join(dir, 'db'), migrations: MIGRATIONS });
    const arns: string[] = [];
    await db.transaction(async (tx) => {
      for (let i = 0; i < 400; i++) {
        const [kind, res, doc] = KINDS[i % KINDS.length]!;
        const account = i % 11 === 0 ? '999999999999' : P.accountId;
        const arn = `arn:aws:sagemaker:${P.region}:${account}:${res}/e-${i}`;
        if (account === P.accountId) arns.push(arn);
        const at = 1_700_000_000_000 + i * 3_600_000 + (i % 7) * 999;
        await tx.run(
          `INSERT INTO lineage_entities (account_id, region, arn, kind, name_key, name, entity_type, source_key, unique_source, parent_key, doc, created_at, last_modified_at)
         VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, ?, ?, ?)`,
          [account, P.region, arn, kind, `e-${i}`, `e-${i}`, JSON.stringify(doc), at, at + 5000],
        );
      }
      for (let i = 0; i < 1500; i++) {
        const s = arns[(i * 7) % arns.length]!;
        const d = arns[(i * 13 + 1) % arns.length]!;
        if (s === d) continue;
        await tx.run(
          `INSERT INTO lineage_associations (account_id, region, source_arn, destination_arn, association_type, source_type, destination_type, source_lineage, destination_lineage, source_name, destination_name, created_at)
         VALUES (?, ?, ?, ?, ?, 'x', 'y', 'a', 'b', NULL, NULL, ?) ON CONFLICT DO NOTHING`,
          [P.accountId, P.region, s, d, i % 4 === 0 ? null : 'ContributedTo', i],
        );
      }
    });
    // gaps in the rowids, whole ranges of them
    await db.run('DELETE FROM lineage_entities WHERE rowid BETWEEN 100 AND 180');
    await db.run('DELETE FROM lineage_associations WHERE rowid % 9 = 0 OR rowid BETWEEN 500 AND 700');
    const file = join(dir, 'db', 'slipway.db');
    const run = async (out: string, options: Parameters<typeof storeLineageSource>[2]) =>
      exportLineage({ source: storeLineageSource(db, P, options), output: directoryOutput(out), format: 'gremlin' });
    const one = await run(join(dir, 'one'), { pageSize: 50 });
    const many = await run(join(dir, 'many'), { sqliteFile: file, threads: 3, rangeRows: 37 });
    await db.close();
    assert.deepEqual(many, one);
    assert.ok(one.nodes > 200 && one.edges > 150 && one.skippedEdges > 50, JSON.stringify(one));
    for (const f of readdirSync(join(dir, 'one'))) {
      assert.equal(readFileSync(join(dir, 'many', f), 'utf8'), readFileSync(join(dir, 'one', f), 'utf8'), f);
    }
    assert.match(readFileSync(join(dir, 'many', 'artifacts-nodes.csv'), 'utf8'), /"s3:\/\/b\/k,with ""comma"""/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
