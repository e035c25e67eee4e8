// The AWS lineage notebook's Gremlin queries end to end: lineage recorded through the SageMaker
// API, exported with `slipway lineage export --load` into the graph port, then queried over
// POST/GET /gremlin, neptunedata's ExecuteGremlinQuery and the gremlin driver (WebSocket, bytecode).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { ExecuteGremlinQueryCommand, NeptunedataClient } from '@aws-sdk/client-neptunedata';
import { WebSocket } from 'ws';
import {
  AddAssociationCommand,
  CreateActionCommand,
  CreateArtifactCommand,
  CreateContextCommand,
  CreateTrialComponentCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import type { RunningApp } from '../../src/app.js';
import { lineageExportCommand } from '../../src/cli/lineage-export.js';
import { nodeId } from '../../src/lineage/export/exporter.js';
import { ACCOUNT, CREDENTIALS, REGION, startServer, type TestServer } from '../support/server.js';

// The gremlin package ships CommonJS without types: the few names used here, typed by hand.
interface GPath {
  labels: string[][];
  objects: unknown[];
}
interface GElement {
  id: string;
  label: string;
}
interface GTraversal {
  [step: string]: (...args: unknown[]) => GTraversal;
}
interface GremlinModule {
  driver: {
    DriverRemoteConnection: new (url: string, opts: Record<string, unknown>) => { close(): Promise<void> };
    Client: new (
      url: string,
      opts: Record<string, unknown>,
    ) => { submit(q: string): Promise<{ toArray(): unknown[] }>; close(): Promise<void> };
  };
  process: {
    AnonymousTraversalSource: { traversal(): { withRemote(c: unknown): GTraversal } };
    statics: GTraversal;
  };
  structure: { Path: new (...a: unknown[]) => GPath; Vertex: new (...a: unknown[]) => GElement };
}
const gremlin = createRequire(import.meta.url)('gremlin') as GremlinModule;
const GRAPHSON3 = 'application/vnd.gremlin-v3.0+json';

const AWS_PATHS = "g.V().hasLabel('artifact').outE().inV().path()";
const AWS_DATASET_PATHS =
  "g.V().hasLabel('artifact').has('type','DataSet').outE().inV().path().by(valueMap('arn','type','sourcearn','status'))";

type GS = { '@type': string; '@value': unknown };
const val = (x: unknown) => (x as GS)['@value'];

describe('Gremlin on an exported lineage graph', () => {
  let server: TestServer & { app: RunningApp };
  const arns: Record<string, string> = {};
  const saved: Record<string, string | undefined> = {};

  before(async () => {
    server = await startServer();
    const sm = new SageMakerClient({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS });
    for (const [k, v] of Object.entries({
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    })) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    const artifact = async (uri: string, type: string) =>
      (await sm.send(new CreateArtifactCommand({ Source: { SourceUri: uri }, ArtifactType: type }))).ArtifactArn!;
    arns.data = await artifact('s3://d/train.csv', 'DataSet');
    arns.validation = await artifact('s3://d/validation.csv', 'DataSet');
    arns.model = await artifact('s3://m/model.tar.gz', 'Model');
    arns.job = (
      await sm.send(
        new CreateTrialComponentCommand({ TrialComponentName: 'train-1', Status: { PrimaryStatus: 'Completed' } }),
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
    const link = (s: string, d: string, t: string) =>
      sm.send(new AddAssociationCommand({ SourceArn: s, DestinationArn: d, AssociationType: t as 'ContributedTo' }));
    await link(arns.data!, arns.job!, 'ContributedTo');
    await link(arns.validation!, arns.job!, 'ContributedTo');
    await link(arns.job!, arns.model!, 'Produced');
    await link(arns.model!, arns.deploy!, 'ContributedTo');
    await link(arns.deploy!, arns.endpoint!, 'AssociatedWith');
    sm.destroy();
    const code = await lineageExportCommand([
      '--out',
      's3://lineage-export/gremlin/',
      '--s3-endpoint',
      server.endpoint,
      '--load',
      server.graphEndpoint,
      '--iam-role-arn',
      'arn:aws:iam::111122223333:role/NeptuneLoadFromS3',
      '--data-dir',
      server.dataDir,
      '--account-id',
      ACCOUNT,
      '--region',
      REGION,
    ]);
    assert.equal(code, 0);
  });
  after(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await server?.close();
  });

  const id = (k: string) => nodeId(arns[k]!);
  /** The expected artifact → next-vertex paths: [outV, edge label, inV]. */
  const expectedPaths = () =>
    [
      [id('data'), 'ContributedTo', id('job')],
      [id('validation'), 'ContributedTo', id('job')],
      [id('model'), 'ContributedTo', id('deploy')],
    ].sort();

  const post = async (gremlinQuery: string) => {
    const res = await fetch(`${server.graphEndpoint}/gremlin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ gremlin: gremlinQuery }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  /** GraphSON g:Path → [outV id, edge label, inV id], checking the element types on the way. */
  const pathTriple = (p: unknown): string[] => {
    assert.equal((p as GS)['@type'], 'g:Path');
    const objects = val((val(p) as { objects: GS }).objects) as GS[];
    assert.deepEqual(
      objects.map((o) => o['@type']),
      ['g:Vertex', 'g:Edge', 'g:Vertex'],
    );
    const [v, e, w] = objects.map(val) as Record<string, string>[];
    assert.equal(v!.label, 'artifact');
    assert.equal(e!.outV, v!.id);
    assert.equal(e!.inV, w!.id);
    assert.equal(e!.outVLabel, 'artifact');
    return [v!.id!, e!.label!, w!.id!];
  };

  it("answers the notebook's path query over POST /gremlin with the TinkerPop envelope", async () => {
    const { status, body } = await post(AWS_PATHS);
    assert.equal(status, 200);
    assert.match(body.requestId as string, /^[0-9a-f-]{36}$/);
    assert.deepEqual(body.status, { message: '', code: 200, attributes: { '@type': 'g:Map', '@value': [] } });
    const result = body.result as { data: GS; meta: GS };
    assert.deepEqual(result.meta, { '@type': 'g:Map', '@value': [] });
    assert.equal(result.data['@type'], 'g:List');
    assert.deepEqual((result.data['@value'] as unknown[]).map(pathTriple).sort(), expectedPaths());
  });

  it("answers the notebook's DataSet query with valueMap by() over GET /gremlin", async () => {
    const res = await fetch(`${server.graphEndpoint}/gremlin?gremlin=${encodeURIComponent(AWS_DATASET_PATHS)}`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { result: { data: GS } };
    const paths = body.result.data['@value'] as GS[];
    assert.equal(paths.length, 2);
    const decoded = paths.map((p) => (val((val(p) as { objects: GS }).objects) as GS[]).map(plainMap));
    const byArn = new Map(decoded.map((d) => [(d[0]!.arn as string[])[0], d]));
    for (const k of ['data', 'validation']) {
      const [from, edge, to] = byArn.get(arns[k]!)!;
      assert.deepEqual(from, { arn: [arns[k]], type: ['DataSet'] });
      // The edge has none of the asked keys: an empty map, as TinkerPop gives.
      assert.deepEqual(edge, {});
      assert.deepEqual(to!.arn, [arns.job]);
      assert.deepEqual(to!.status, ['Completed']);
    }
  });

  it('answers through neptunedata ExecuteGremlinQuery', async () => {
    const neptune = new NeptunedataClient({ endpoint: server.graphEndpoint, region: REGION, credentials: CREDENTIALS });
    const out = await neptune.send(new ExecuteGremlinQueryCommand({ gremlinQuery: AWS_PATHS }));
    neptune.destroy();
    assert.equal(out.status?.code, 200);
    const data = (out.result as { data: GS }).data;
    assert.deepEqual((data['@value'] as unknown[]).map(pathTriple).sort(), expectedPaths());
    const two = await new NeptunedataClient({
      endpoint: server.graphEndpoint,
      region: REGION,
      credentials: CREDENTIALS,
    }).send(new ExecuteGremlinQueryCommand({ gremlinQuery: AWS_DATASET_PATHS }));
    assert.equal(((two.result as { data: GS }).data['@value'] as unknown[]).length, 2);
  });

  // The driver's default serializer (GraphBinary) and GraphSON v3.
  for (const mimeType of [undefined, GRAPHSON3]) {
    it(`runs both queries through the gremlin driver (DriverRemoteConnection, bytecode, ${mimeType ?? 'GraphBinary'})`, async () => {
      const wsUrl = `${server.graphEndpoint.replace('http', 'ws')}/gremlin`;
      const conn = new gremlin.driver.DriverRemoteConnection(wsUrl, mimeType ? { mimeType } : {});
      try {
        const g = gremlin.process.AnonymousTraversalSource.traversal().withRemote(conn);
        const __ = gremlin.process.statics;
        const paths = (await g.V!().hasLabel!('artifact').outE!().inV!().path!().toList!()) as unknown as GPath[];
        const triples = paths.map((p) => {
          assert.ok(p instanceof gremlin.structure.Path);
          const [v, e, w] = p.objects as GElement[];
          return [v!.id, e!.label, w!.id];
        });
        assert.deepEqual(triples.sort(), expectedPaths());

        const valued = (await g.V!().hasLabel!('artifact').has!('type', 'DataSet').outE!().inV!().path!().by!(
          __.valueMap!('arn', 'type', 'sourcearn', 'status'),
        ).toList!()) as unknown as GPath[];
        assert.equal(valued.length, 2);
        for (const p of valued) {
          const [from, edge, to] = p.objects as Map<string, unknown[]>[];
          assert.deepEqual(from!.get('type'), ['DataSet']);
          assert.equal(edge!.size, 0);
          assert.deepEqual(to!.get('arn'), [arns.job]);
        }
        // Counts and limits come back as numbers; more results than one batch (64) arrive whole.
        assert.deepEqual(await g.V!().count!().toList!(), [6]);
        assert.deepEqual(await g.V!().hasLabel!('artifact').values!('type').dedup!().order!().toList!(), [
          'DataSet',
          'Model',
        ]);
        const many = (await g.inject!(...Array.from({ length: 150 }, (_, i) => i)).toList!()) as unknown as number[];
        assert.equal(many.length, 150);
        // g.with_('evaluationTimeout', ms) (OptionsStrategy) bounds a runaway traversal.
        const slow = gremlin.process.AnonymousTraversalSource.traversal().withRemote(conn).with_!(
          'evaluationTimeout',
          100,
        );
        await assert.rejects(
          slow.V!().repeat!(__.both!()).times!(30).count!().toList!() as unknown as Promise<unknown>,
          /TimeLimitExceededException/,
        );
        // An unsupported step is a server error naming it.
        await assert.rejects(
          g.V!().math!('_ + 1').toList!() as unknown as Promise<unknown>,
          /math\(\)[\s\S]*MalformedQueryException/,
        );
      } finally {
        await conn.close();
      }
    });
  }

  it('runs string queries through the driver Client (op eval)', async () => {
    const client = new gremlin.driver.Client(`${server.graphEndpoint.replace('http', 'ws')}/gremlin`, {
      mimeType: GRAPHSON3,
      traversalSource: 'g',
    });
    try {
      const rs = await client.submit("g.V().hasLabel('artifact').count()");
      assert.deepEqual(rs.toArray(), [3]);
    } finally {
      await client.close();
    }
  });

  it('refuses a query over the size limits with QueryLimitException (400), over HTTP and WebSocket, and stays up', async () => {
    const long = `g.V()${'.out()'.repeat(3000)}`;
    const refused = await post(long);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'QueryLimitException');
    assert.match(refused.body.detailedMessage as string, /more than 2000 steps/);

    const client = new gremlin.driver.Client(`${server.graphEndpoint.replace('http', 'ws')}/gremlin`, {
      mimeType: GRAPHSON3,
      traversalSource: 'g',
    });
    try {
      await assert.rejects(client.submit(long), /QueryLimitException/);
      // The connection serves the next query.
      assert.deepEqual((await client.submit("g.V().hasLabel('artifact').count()")).toArray(), [3]);
    } finally {
      await client.close();
    }

    // Bytecode nested far deeper than any parser would build: refused, not a stack overflow.
    // Written as text: JSON.stringify itself recurses.
    const inner = JSON.stringify({ '@type': 'g:Bytecode', '@value': { step: [['V']] } });
    const nested = `${'['.repeat(20_000)}${inner}${']'.repeat(20_000)}`;
    const ws = new WebSocket(`${server.graphEndpoint.replace('http', 'ws')}/gremlin`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const reply = new Promise<string>((resolve) => ws.once('message', (d) => resolve(String(d))));
    ws.send(
      `{"requestId":"00000000-0000-0000-0000-000000000001","op":"bytecode","processor":"traversal",` +
        `"args":{"gremlin":{"@type":"g:Bytecode","@value":{"step":[["V"],["where",${nested}]]}},"aliases":{"g":"g"}}}`,
    );
    const status = JSON.parse(await reply).status as { code: number; message: string };
    ws.close();
    assert.equal(status.code, 499, 'INVALID_REQUEST_ARGUMENTS, as for every client error');
    assert.match(status.message, /QueryLimitException/);

    // Long traversals within the limit run (no recursion grows with a query's length).
    const within = await post(`g.V()${'.identity()'.repeat(1998)}.count()`);
    assert.equal(within.status, 200);
  });

  it("answers errors in Neptune's shape", async () => {
    const bad = await post('g.V().foo()');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'MalformedQueryException');
    assert.match(bad.body.detailedMessage as string, /foo\(\)/);
    assert.match(bad.body.requestId as string, /^[0-9a-f-]{36}$/);
    const missing = await fetch(`${server.graphEndpoint}/gremlin`, { method: 'POST', body: '{}' });
    assert.equal(missing.status, 400);
    assert.equal(((await missing.json()) as { code: string }).code, 'MissingParameterException');
  });
});

/** A GraphSON g:Map of string keys and g:List values → a plain object. */
function plainMap(m: GS): Record<string, unknown> {
  assert.equal(m['@type'], 'g:Map');
  const flat = m['@value'] as unknown[];
  const o: Record<string, unknown> = {};
  for (let i = 0; i < flat.length; i += 2) {
    const v = flat[i + 1] as GS;
    o[flat[i] as string] = v['@type'] === 'g:List' ? v['@value'] : v;
  }
  return o;
}
