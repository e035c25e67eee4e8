// The seed's second workflow end to end: lineage recorded through the SageMaker API, exported
// (from the store and through the API, which must agree), uploaded to the server's S3, bulk-loaded
// with POST /loader, and the graph reset with the two-step token call.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  AddAssociationCommand,
  CreateActionCommand,
  CreateArtifactCommand,
  CreateContextCommand,
  CreateExperimentCommand,
  CreateTrialComponentCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { ExecuteFastResetCommand, NeptunedataClient } from '@aws-sdk/client-neptunedata';
import { lineageExportCommand } from '../../src/cli/lineage-export.js';
import { GraphReader } from '../../src/graph/store/graph-store.js';
import { nodeId } from '../../src/lineage/export/exporter.js';
import { ACCOUNT, CREDENTIALS, REGION, startServer, tempDir, type TestServer } from '../support/server.js';
import type { RunningApp } from '../../src/app.js';

describe('lineage export → upload → load → reset', () => {
  let server: TestServer & { app: RunningApp };
  let sm: SageMakerClient;
  const arns: Record<string, string> = {};
  const saved: Record<string, string | undefined> = {};

  before(async () => {
    server = await startServer();
    sm = new SageMakerClient({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS });
    // The S3 writer and the signed load read credentials the SDK way.
    for (const [k, val] of Object.entries({
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    })) {
      saved[k] = process.env[k];
      process.env[k] = val;
    }
    arns.data = (
      await sm.send(new CreateArtifactCommand({ Source: { SourceUri: 's3://d/train.csv' }, ArtifactType: 'DataSet' }))
    ).ArtifactArn!;
    arns.model = (
      await sm.send(new CreateArtifactCommand({ Source: { SourceUri: 's3://m/model.tar.gz' }, ArtifactType: 'Model' }))
    ).ArtifactArn!;
    arns.job = (
      await sm.send(
        new CreateTrialComponentCommand({
          TrialComponentName: 'train-1',
          Status: { PrimaryStatus: 'Failed', Message: 'OOM, then "retry", then fail' },
        }),
      )
    ).TrialComponentArn!;
    arns.deploy = (
      await sm.send(
        new CreateActionCommand({
          ActionName: 'deploy-1',
          Source: { SourceUri: 'arn:x' },
          ActionType: 'ModelDeployment',
          Status: 'Completed',
        }),
      )
    ).ActionArn!;
    arns.endpoint = (
      await sm.send(
        new CreateContextCommand({ ContextName: 'ep-1', Source: { SourceUri: 'arn:ep' }, ContextType: 'Endpoint' }),
      )
    ).ContextArn!;
    const exp = (await sm.send(new CreateExperimentCommand({ ExperimentName: 'exp-1' }))).ExperimentArn!;
    const link = (s: string, d: string, t: string) =>
      sm.send(new AddAssociationCommand({ SourceArn: s, DestinationArn: d, AssociationType: t as 'ContributedTo' }));
    await link(arns.data!, arns.job!, 'ContributedTo');
    await link(arns.job!, arns.model!, 'Produced');
    await link(arns.model!, arns.deploy!, 'ContributedTo');
    await link(arns.deploy!, arns.endpoint!, 'AssociatedWith');
    await link(arns.endpoint!, exp, 'AssociatedWith');
  });
  after(async () => {
    for (const [k, val] of Object.entries(saved)) {
      if (val === undefined) delete process.env[k];
      else process.env[k] = val;
    }
    sm?.destroy();
    await server?.close();
  });

  const storeArgs = () => ['--data-dir', server.dataDir, '--account-id', ACCOUNT, '--region', REGION];

  it('exports the same files from the store and through the SageMaker API, quoted and typed', async () => {
    const fromStore = tempDir('slipway-export-');
    const fromApi = tempDir('slipway-export-');
    assert.equal(await lineageExportCommand(['--out', fromStore, ...storeArgs()]), 0);
    assert.equal(
      await lineageExportCommand([
        '--out',
        fromApi,
        '--source',
        'aws',
        '--endpoint-url',
        server.endpoint,
        '--region',
        REGION,
      ]),
      0,
    );
    const files = readdirSync(fromStore).sort();
    assert.deepEqual(files, [
      'action-nodes.csv',
      'artifacts-nodes.csv',
      'contexts-nodes.csv',
      'edges.csv',
      'tcs-nodes.csv',
    ]);
    for (const f of files) {
      const lines = (dir: string) => readFileSync(join(dir, f), 'utf8').split('\n').slice(1).sort();
      assert.deepEqual(lines(fromApi), lines(fromStore), f);
    }
    const tcs = readFileSync(join(fromStore, 'tcs-nodes.csv'), 'utf8');
    assert.match(
      tcs,
      /^~id,~label,arn:String\(single\),sourcearn:String\(single\),sourcetype:String\(single\),status:String\(single\),message:String\(single\),creationtime:Date\(single\),LastModifiedTime:Date\(single\)\n/,
    );
    assert.ok(tcs.includes('"OOM, then ""retry"", then fail"'));
    // The association to the experiment is not an edge between exported nodes.
    assert.equal(readFileSync(join(fromStore, 'edges.csv'), 'utf8').trim().split('\n').length, 1 + 4);
  });

  for (const format of ['gremlin', 'opencypher']) {
    it(`exports to the server's S3, loads with --load and resets (${format})`, async () => {
      const out = `s3://lineage-export/${format}/`;
      const code = await lineageExportCommand([
        '--out',
        out,
        '--format',
        format,
        '--s3-endpoint',
        server.endpoint,
        '--load',
        server.graphEndpoint,
        '--iam-role-arn',
        'arn:aws:iam::111122223333:role/NeptuneLoadFromS3',
        ...storeArgs(),
      ]);
      assert.equal(code, 0);
      const graphDb = await openReader(server.dataDir);
      const graph = new GraphReader(graphDb);
      const v = await graph.vertex(nodeId(arns.data!));
      assert.deepEqual(v?.labels, ['artifact']);
      assert.deepEqual(v?.properties.type, ['DataSet']);
      assert.ok(v?.properties.creationtime?.[0] instanceof Date);
      const counts = await graph.counts();
      assert.equal(counts.vertices, 5);
      assert.equal(counts.edges, 4);

      const neptune = new NeptunedataClient({
        endpoint: server.graphEndpoint,
        region: REGION,
        credentials: CREDENTIALS,
      });
      const { payload } = await neptune.send(new ExecuteFastResetCommand({ action: 'initiateDatabaseReset' }));
      await neptune.send(new ExecuteFastResetCommand({ action: 'performDatabaseReset', token: payload!.token! }));
      neptune.destroy();
      assert.deepEqual(await graph.counts(), { vertices: 0, edges: 0, vertexProperties: 0, edgeProperties: 0 });
      await graphDb.close();
    });
  }
});

/** A read-only handle on the server's graph.db (SQLite WAL allows a second reader). */
async function openReader(dataDir: string) {
  const { openGraphDatabase } = await import('../../src/graph/store/graph-store.js');
  return openGraphDatabase({ dataDir });
}
