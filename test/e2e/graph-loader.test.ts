// The graph port end to end: @aws-sdk/client-neptunedata and plain JSON (as curl sends it)
// against a real server, with load data put into the server's own S3.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  BulkLoadIdNotFoundException,
  CancelLoaderJobCommand,
  ExecuteFastResetCommand,
  ExecuteOpenCypherQueryCommand,
  GetEngineStatusCommand,
  GetLoaderJobStatusCommand,
  InvalidParameterException,
  ListLoaderJobsCommand,
  NeptunedataClient,
  StartLoaderJobCommand,
  UnsupportedOperationException,
} from '@aws-sdk/client-neptunedata';
import { CREDENTIALS, REGION, startServer, type TestServer } from '../support/server.js';

type Status = { overallStatus: Record<string, number | string>; errors?: { errorLogs: Record<string, unknown>[] } };

describe('graph API (Neptune-compatible) end to end', () => {
  let server: TestServer;
  let neptune: NeptunedataClient;
  let s3: S3Client;

  before(async () => {
    server = await startServer();
    neptune = new NeptunedataClient({ endpoint: server.graphEndpoint, region: REGION, credentials: CREDENTIALS });
    s3 = new S3Client({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS, forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: 'lineage' }));
    const put = (Key: string, Body: string) => s3.send(new PutObjectCommand({ Bucket: 'lineage', Key, Body }));
    await put(
      'good/nodes.csv',
      '~id,~label,arn:string,type:string,creationtime:Date\n0,artifact,"arn:a,1",DataSet,2024-01-02T03:04:05Z\nt0,trial_component,arn:t,,2024-01-03\n',
    );
    await put('good/edges.csv', '~id,~from,~to,~label\ne0,0,t0,ContributedTo\n');
    await put('bad/edges.csv', '~id,~from,~to,~label\ne9,0,nowhere,ContributedTo\n');
  });
  after(async () => {
    neptune?.destroy();
    s3?.destroy();
    await server?.close();
  });

  const poll = async (loadId: string, errors = false): Promise<Status> => {
    for (;;) {
      const r = await neptune.send(new GetLoaderJobStatusCommand({ loadId, details: true, errors }));
      const p = r.payload as Status;
      if (!['LOAD_NOT_STARTED', 'LOAD_IN_QUEUE', 'LOAD_IN_PROGRESS'].includes(p.overallStatus.status as string))
        return p;
      await new Promise((res) => setTimeout(res, 20));
    }
  };

  const json = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.graphEndpoint}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('GetEngineStatus answers as Neptune does', async () => {
    const s = await neptune.send(new GetEngineStatusCommand({}));
    assert.equal(s.status, 'healthy');
    assert.equal(s.role, 'writer');
    assert.match(s.startTime!, /^\w{3} \w{3} \d{2} \d{2}:\d{2}:\d{2} UTC \d{4}$/);
    assert.ok(s.gremlin?.version);
  });

  it("advertises Gremlin only, and answers openCypher and SPARQL with Neptune's unsupported-operation error", async () => {
    const s = await neptune.send(new GetEngineStatusCommand({}));
    assert.equal(s.opencypher, undefined);
    assert.equal(s.sparql, undefined);
    await assert.rejects(
      neptune.send(new ExecuteOpenCypherQueryCommand({ openCypherQuery: 'MATCH (n) RETURN n' })),
      (e) => {
        assert.ok(e instanceof UnsupportedOperationException, String(e));
        assert.equal(e.$metadata.httpStatusCode, 400);
        // The sentence reaches the SDK's error message, not "UnknownError".
        assert.match(e.message, /^openCypher operation\/feature unsupported: this graph store answers Gremlin/);
        return true;
      },
    );
    for (const path of ['/sparql', '/openCypher', '/opencypher/explain']) {
      const res = await fetch(`${server.graphEndpoint}${path}`, { method: 'POST', body: 'query=x' });
      const body = (await res.json()) as Record<string, string>;
      assert.equal(res.status, 400, path);
      assert.equal(body.code, 'UnsupportedOperationException');
      assert.match(
        body.detailedMessage!,
        path === '/sparql' ? /^SPARQL operation\/feature unsupported/ : /^openCypher/,
      );
    }
  });

  it('StartLoaderJob → GetLoaderJobStatus → ListLoaderJobs with the SDK', async () => {
    const start = await neptune.send(
      new StartLoaderJobCommand({
        source: 's3://lineage/good/',
        format: 'csv',
        s3BucketRegion: 'us-west-2',
        iamRoleArn: 'arn:aws:iam::111122223333:role/NeptuneLoadFromS3',
        failOnError: true,
        parallelism: 'MEDIUM',
        updateSingleCardinalityProperties: false,
        queueRequest: true,
      }),
    );
    assert.equal(start.status, '200 OK');
    const loadId = start.payload!.loadId!;
    const p = await poll(loadId);
    assert.equal(p.overallStatus.status, 'LOAD_COMPLETED');
    // Records are labels and property values (a blank field is none) plus the edge.
    assert.equal(p.overallStatus.totalRecords, 4 + 3 + 1);
    assert.equal(p.overallStatus.fullUri, 's3://lineage/good/');
    const list = await neptune.send(new ListLoaderJobsCommand({ limit: 10 }));
    assert.deepEqual(list.payload?.loadIds, [loadId]);
  });

  it('a failed load reports FROM_OR_TO_VERTEX_ARE_MISSING with its record number', async () => {
    const { payload } = await neptune.send(
      new StartLoaderJobCommand({
        source: 's3://lineage/bad/edges.csv',
        format: 'csv',
        s3BucketRegion: 'us-west-2',
        iamRoleArn: 'r',
      }),
    );
    const p = await poll(payload!.loadId!, true);
    assert.equal(p.overallStatus.status, 'LOAD_FAILED');
    assert.deepEqual(p.errors?.errorLogs, [
      {
        errorCode: 'FROM_OR_TO_VERTEX_ARE_MISSING',
        errorMessage: "Either from vertex, '0', or to vertex, 'nowhere', is not present.",
        fileName: 's3://lineage/bad/edges.csv',
        recordNum: 2,
      },
    ]);
  });

  it('unknown load ids and bad parameters get Neptune error codes', async () => {
    await assert.rejects(neptune.send(new GetLoaderJobStatusCommand({ loadId: 'nope' })), BulkLoadIdNotFoundException);
    await assert.rejects(neptune.send(new CancelLoaderJobCommand({ loadId: 'nope' })), BulkLoadIdNotFoundException);
    const r = await json('POST', '/loader', { source: 's3://lineage/good/', format: 'csv', failOnError: 'MAYBE' });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'InvalidParameterException');
    assert.equal(typeof r.body.requestId, 'string');
    const missing = await json('POST', '/loader', { format: 'csv' });
    assert.equal(missing.body.code, 'MissingParameterException');
    const nosrc = await json('POST', '/loader', { source: 's3://lineage/none/', format: 'csv' });
    assert.equal(nosrc.body.code, 'BadRequestException');
  });

  it('plain JSON as curl sends it: "TRUE"/"FALSE" strings, GET /loader/{id}?details=true&errors=true', async () => {
    const r = await json('POST', '/loader', {
      source: 's3://lineage/good/',
      format: 'csv',
      iamRoleArn: 'arn:aws:iam::111122223333:role/NeptuneLoadFromS3',
      region: 'us-west-2',
      mode: 'NEW',
      failOnError: 'FALSE',
      parallelism: 'MEDIUM',
      updateSingleCardinalityProperties: 'FALSE',
      queueRequest: 'TRUE',
    });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), ['status', 'payload']);
    const id = r.body.payload.loadId as string;
    let s: { status: number; body: Record<string, any> };
    do s = await json('GET', `/loader/${id}?details=true&errors=true&page=1&errorsPerPage=3`);
    while (['LOAD_IN_QUEUE', 'LOAD_NOT_STARTED', 'LOAD_IN_PROGRESS'].includes(s.body.payload.overallStatus.status));
    assert.equal(s.body.status, '200 OK');
    assert.equal(s.body.payload.overallStatus.status, 'LOAD_COMPLETED');
    // Loaded again: every record is a duplicate.
    assert.equal(s.body.payload.overallStatus.totalDuplicates, s.body.payload.overallStatus.totalRecords);
    const list = await json('GET', '/loader?limit=1');
    assert.deepEqual(list.body, { status: '200 OK', payload: { loadIds: [id] } });
  });

  it('fast reset: two steps with the SDK; wrong, stale and missing tokens and bad actions fail', async () => {
    const wrong = await json('POST', '/system', { action: 'performDatabaseReset', token: 'x' });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.code, 'InvalidParameterException');
    assert.equal(
      wrong.body.detailedMessage,
      "System command parameter 'token' : 'x' does not match database reset token",
    );
    const noAction = await json('POST', '/system', {});
    assert.equal(noAction.body.code, 'MissingParameterException');
    const badAction = await json('POST', '/system', { action: 'dropEverything' });
    assert.equal(badAction.body.code, 'InvalidParameterException');

    const stale = (await neptune.send(new ExecuteFastResetCommand({ action: 'initiateDatabaseReset' }))).payload!
      .token!;
    const token = (await neptune.send(new ExecuteFastResetCommand({ action: 'initiateDatabaseReset' }))).payload!
      .token!;
    await assert.rejects(
      neptune.send(new ExecuteFastResetCommand({ action: 'performDatabaseReset', token: stale })),
      InvalidParameterException,
    );
    const missing = await json('POST', '/system', { action: 'performDatabaseReset' });
    assert.equal(missing.body.code, 'MissingParameterException');
    const done = await neptune.send(new ExecuteFastResetCommand({ action: 'performDatabaseReset', token }));
    assert.equal(done.status, '200 OK');
    // The history is gone with the data, and the same source loads again in full.
    assert.deepEqual((await neptune.send(new ListLoaderJobsCommand({}))).payload?.loadIds, []);
    const again = await neptune.send(
      new StartLoaderJobCommand({
        source: 's3://lineage/good/',
        format: 'csv',
        s3BucketRegion: 'us-west-2',
        iamRoleArn: 'r',
      }),
    );
    const p = await poll(again.payload!.loadId!);
    assert.equal(p.overallStatus.totalDuplicates, 0);
  });

  it('form bodies work for /system as in the Neptune docs', async () => {
    const res = await fetch(`${server.graphEndpoint}/system`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=initiateDatabaseReset',
    });
    const body = (await res.json()) as { payload: { token: string } };
    assert.match(body.payload.token, /^[0-9a-f-]{36}$/);
  });

  it('CancelLoaderJob cancels a queued load', async () => {
    await s3.send(
      new PutObjectCommand({
        Bucket: 'lineage',
        Key: 'big/v.csv',
        Body: `~id,n:Int\n${Array.from({ length: 30000 }, (_, i) => `v${i},${i}`).join('\n')}\n`,
      }),
    );
    const a = await neptune.send(
      new StartLoaderJobCommand({
        source: 's3://lineage/big/',
        format: 'csv',
        s3BucketRegion: 'us-west-2',
        iamRoleArn: 'r',
        mode: 'NEW',
        queueRequest: true,
      }),
    );
    const b = await neptune.send(
      new StartLoaderJobCommand({
        source: 's3://lineage/big/',
        format: 'csv',
        s3BucketRegion: 'us-west-2',
        iamRoleArn: 'r',
        mode: 'NEW',
        queueRequest: true,
      }),
    );
    const c = await neptune.send(new CancelLoaderJobCommand({ loadId: b.payload!.loadId! }));
    assert.equal(c.status, '200 OK');
    assert.equal((await poll(b.payload!.loadId!)).overallStatus.status, 'LOAD_CANCELLED_BY_USER');
    assert.equal((await poll(a.payload!.loadId!)).overallStatus.status, 'LOAD_COMPLETED');
  });
});
