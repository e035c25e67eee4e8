// Neptune IAM authentication on the graph port: the neptunedata client and the Gremlin driver
// (SigV4 headers on the WebSocket upgrade, as Neptune's docs show), per-action policies, and the
// bulk loader reading its source as the role it names.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import {
  ExecuteGremlinQueryCommand,
  GetEngineStatusCommand,
  GetLoaderJobStatusCommand,
  NeptunedataClient,
  StartLoaderJobCommand,
} from '@aws-sdk/client-neptunedata';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { HttpRequest } from '@smithy/protocol-http';
import { WebSocket } from 'ws';
import { ALICE, BOB, CAROL, LOADER_ROLE, sdkSigner, UNKNOWN, writeCredentialsFile } from '../support/credentials.js';
import { ACCOUNT, REGION, startServer, tempDir, type TestServer } from '../support/server.js';

type Creds = { accessKeyId: string; secretAccessKey: string };
interface GTraversal {
  [step: string]: (...args: unknown[]) => GTraversal;
}
const gremlin = createRequire(import.meta.url)('gremlin') as {
  driver: {
    DriverRemoteConnection: new (
      url: string,
      opts: Record<string, unknown>,
    ) => { close(): Promise<void>; open(): Promise<void> };
  };
  process: { AnonymousTraversalSource: { traversal(): { withRemote(c: unknown): GTraversal } } };
};

async function failure(p: Promise<unknown>): Promise<{ name: string; message: string; status: number | undefined }> {
  try {
    await p;
  } catch (err) {
    // Neptune's errors carry their text in detailedMessage (the SDK's message stays UnknownError).
    const e = err as Error & { $metadata?: { httpStatusCode?: number }; detailedMessage?: string };
    return { name: e.name, message: e.detailedMessage ?? e.message, status: e.$metadata?.httpStatusCode };
  }
  assert.fail('expected the request to fail');
}

describe('graph port with a credentials file (Neptune IAM auth)', () => {
  let server: TestServer;
  const neptune = (c: Creds) =>
    new NeptunedataClient({ endpoint: server.graphEndpoint, region: REGION, credentials: c, maxAttempts: 1 });

  before(async () => {
    server = await startServer(['--credentials-file', writeCredentialsFile(tempDir())]);
    const s3 = new S3Client({ endpoint: server.endpoint, region: REGION, credentials: ALICE, forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: 'data' }));
    for (const prefix of ['graph', 'secret'])
      await s3.send(
        new PutObjectCommand({ Bucket: 'data', Key: `${prefix}/v.csv`, Body: `~id,~label\n${prefix}-1,thing\n` }),
      );
  });
  after(() => server.close());

  it('/status signed by a principal answers, and reports only Gremlin', async () => {
    const s = await neptune(CAROL).send(new GetEngineStatusCommand({}));
    assert.equal(s.status, 'healthy');
    assert.ok(s.gremlin?.version);
    assert.equal(s.sparql, undefined);
    assert.equal(s.opencypher, undefined);
  });

  it('unsigned, unknown key and wrong secret: 403 AccessDeniedException in Neptune JSON', async () => {
    const res = await fetch(`${server.graphEndpoint}/status`);
    assert.equal(res.status, 403);
    const body = (await res.json()) as Record<string, string>;
    assert.equal(body.code, 'AccessDeniedException');
    assert.equal(body.detailedMessage, 'Missing Authentication Token');
    assert.match(body.requestId!, /^[0-9a-f-]{36}$/);
    const unknown = await failure(neptune(UNKNOWN).send(new GetEngineStatusCommand({})));
    assert.deepEqual([unknown.name, unknown.status], ['AccessDeniedException', 403]);
    const wrong = await failure(
      neptune({ ...ALICE, secretAccessKey: 'wrong-secret' }).send(new GetEngineStatusCommand({})),
    );
    assert.deepEqual([wrong.name, wrong.status], ['AccessDeniedException', 403]);
    assert.match(wrong.message, /signature we calculated does not match/);
  });

  it('each route is its neptune-db action: a reader may not start a load', async () => {
    const e = await failure(
      neptune(CAROL).send(
        new StartLoaderJobCommand({
          source: 's3://data/graph/',
          format: 'csv',
          s3BucketRegion: 'us-west-2',
          iamRoleArn: LOADER_ROLE,
        }),
      ),
    );
    assert.equal(e.name, 'AccessDeniedException');
    assert.match(
      e.message,
      new RegExp(
        `is not authorized to perform: neptune-db:StartLoaderJob on resource: arn:aws:neptune-db:${REGION}:${ACCOUNT}:`,
      ),
    );
  });

  const load = async (source: string, iamRoleArn: string) => {
    const start = await neptune(ALICE).send(
      new StartLoaderJobCommand({ source, format: 'csv', s3BucketRegion: 'us-west-2', iamRoleArn, queueRequest: true }),
    );
    for (;;) {
      const r = await neptune(ALICE).send(new GetLoaderJobStatusCommand({ loadId: start.payload!.loadId! }));
      const status = (r.payload as { overallStatus: { status: string } }).overallStatus.status;
      if (!['LOAD_NOT_STARTED', 'LOAD_IN_QUEUE', 'LOAD_IN_PROGRESS'].includes(status)) return status;
      await new Promise((res) => setTimeout(res, 20));
    }
  };

  it('the bulk loader reads only what its iamRoleArn may read', async () => {
    assert.equal(await load('s3://data/graph/', LOADER_ROLE), 'LOAD_COMPLETED');
    assert.equal(await load('s3://data/secret/', LOADER_ROLE), 'LOAD_S3_ACCESS_DENIED_ERROR');
    assert.equal(
      await load('s3://data/graph/', `arn:aws:iam::${ACCOUNT}:role/not-in-the-file`),
      'LOAD_S3_ACCESS_DENIED_ERROR',
    );
  });

  it('Gremlin over HTTP: reads need ReadDataViaQuery, writes WriteDataViaQuery', async () => {
    const r = await neptune(CAROL).send(new ExecuteGremlinQueryCommand({ gremlinQuery: 'g.V().count()' }));
    assert.ok(r.result);
    const e = await failure(neptune(CAROL).send(new ExecuteGremlinQueryCommand({ gremlinQuery: "g.addV('x')" })));
    assert.equal(e.name, 'AccessDeniedException');
    assert.match(e.message, /neptune-db:WriteDataViaQuery/);
    await neptune(ALICE).send(new ExecuteGremlinQueryCommand({ gremlinQuery: "g.addV('y').property('name','ok')" }));
  });

  describe('the Gremlin driver with SigV4 headers on the WebSocket', () => {
    // As Neptune's docs show: sign GET /gremlin for neptune-db and pass the headers to the driver.
    const connect = async (c?: Creds) => {
      const url = new URL(server.graphEndpoint);
      let headers: Record<string, string> = {};
      if (c) {
        const signed = await sdkSigner(c, 'neptune-db', REGION).sign(
          new HttpRequest({
            method: 'GET',
            protocol: 'http:',
            hostname: url.hostname,
            port: Number(url.port),
            path: '/gremlin',
            headers: { host: url.host },
          }),
        );
        headers = signed.headers;
      }
      const conn = new gremlin.driver.DriverRemoteConnection(`ws://${url.host}/gremlin`, { headers });
      return { conn, g: gremlin.process.AnonymousTraversalSource.traversal().withRemote(conn) };
    };

    it('a signed connection reads; a reader may not write; an unsigned upgrade is refused', async () => {
      const alice = await connect(ALICE);
      try {
        await (alice.g.addV('driver') as unknown as { next(): Promise<unknown> }).next();
        const n = await (
          alice.g.V().hasLabel('driver').count() as unknown as { next(): Promise<{ value: number }> }
        ).next();
        assert.equal(Number(n.value), 1);
      } finally {
        await alice.conn.close();
      }
      const carol = await connect(CAROL);
      try {
        const n = await (carol.g.V().count() as unknown as { next(): Promise<{ value: number }> }).next();
        assert.ok(Number(n.value) >= 2);
        await assert.rejects(
          (carol.g.addV('nope') as unknown as { next(): Promise<unknown> }).next(),
          /AccessDeniedException|WriteDataViaQuery/,
        );
      } finally {
        await carol.conn.close();
      }
      const anonymous = await connect();
      await assert.rejects(anonymous.conn.open(), /403|Unexpected server response/);
      await anonymous.conn.close().catch(() => undefined);
    });

    it('the upgrade itself needs neptune-db:connect or a query action: a principal with neither is refused 403', async () => {
      const url = new URL(server.graphEndpoint);
      const signed = await sdkSigner(BOB, 'neptune-db', REGION).sign(
        new HttpRequest({
          method: 'GET',
          protocol: 'http:',
          hostname: url.hostname,
          port: Number(url.port),
          path: '/gremlin',
          headers: { host: url.host },
        }),
      );
      const ws = new WebSocket(`ws://${url.host}/gremlin`, { headers: signed.headers });
      const refusal = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        ws.once('unexpected-response', (_req, res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        ws.once('open', () => reject(new Error('the WebSocket was accepted (101)')));
        ws.once('error', () => undefined);
      });
      assert.equal(refusal.status, 403);
      const doc = JSON.parse(refusal.body) as { code: string; detailedMessage: string };
      assert.equal(doc.code, 'AccessDeniedException');
      assert.match(doc.detailedMessage, /neptune-db:connect/);
    });
  });
});
