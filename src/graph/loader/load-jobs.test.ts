// Bulk loader behaviour over both dialects: Gremlin CSV semantics, counting as Neptune counts,
// error codes with record numbers, and failOnError leaving the graph untouched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { DIALECTS, type TestDatabase } from '../../../test/support/databases.js';
import { GraphReader, GraphWriter } from '../store/graph-store.js';
import { GRAPH_MIGRATIONS } from '../store/migrations.js';
import { MemoryBlobStore } from '../testing/memory-blob-store.js';
import { type LoadRequest, LoadJobs } from './load-jobs.js';

const request = (source: string, extra: Partial<LoadRequest> = {}): LoadRequest => ({
  source,
  format: 'csv',
  region: 'us-east-1',
  iamRoleArn: '',
  mode: 'NEW',
  failOnError: true,
  parallelism: 'HIGH',
  parserConfiguration: {},
  updateSingleCardinalityProperties: false,
  queueRequest: true,
  dependencies: [],
  ...extra,
});

type Payload = {
  overallStatus: Record<string, number | string>;
  feedCount: Record<string, number>[];
  errors?: {
    startIndex: number;
    endIndex: number;
    errorLogs: { errorCode: string; recordNum: number; fileName: string; errorMessage: string }[];
  };
};

for (const dialect of DIALECTS) {
  describe(`graph bulk loader (${dialect.name})`, () => {
    let t: TestDatabase;
    let jobs: LoadJobs;
    let blobs: MemoryBlobStore;
    let reader: GraphReader;

    before(async () => {
      t = await dialect.open(GRAPH_MIGRATIONS);
      blobs = new MemoryBlobStore();
      await blobs.ensureBucket('b');
      jobs = new LoadJobs({ db: t.db, blobs, log: pino({ level: 'silent' }) });
      await jobs.init();
      reader = new GraphReader(t.db);
    });
    after(async () => {
      await jobs.close();
      await t.cleanup();
    });

    const wait = async (
      id: string,
      query = { details: true, errors: true, page: 1, errorsPerPage: 100 },
    ): Promise<Payload> => {
      for (;;) {
        const p = (await jobs.status(id, query)) as Payload;
        const s = p.overallStatus.status as string;
        if (!['LOAD_NOT_STARTED', 'LOAD_IN_QUEUE', 'LOAD_IN_PROGRESS'].includes(s)) return p;
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const reset = () => jobs.resetAll((tx) => new GraphWriter(tx).clear());

    it('loads vertex files before edge files, with types, arrays, multi-labels and quoting', async () => {
      await reset();
      // The edge file sorts first by name: the loader must still load vertices first.
      await blobs.put(
        's3://b/g1/a-edges.csv',
        '~id,~from,~to,~label,weight:Double\ne1,v1,v2,knows,0.5\ne2,v2,v1,knows,\n',
      );
      await blobs.put(
        's3://b/g1/b-vertices.csv',
        '~id,~label,name:String,age:Int(single),tags:String[],born:Date,nick\n' +
          'v1,person;admin,"Smith, ""Al""",42,a;b\\;c,2020-01-02,\n' +
          'v2,person,Bo,7,,2021-05-06T07:08:09Z,"multi\nline"\n',
      );
      const id = await jobs.start(request('s3://b/g1/'));
      const p = await wait(id);
      assert.equal(p.overallStatus.status, 'LOAD_COMPLETED');
      // v1: 2 labels + name + age + 2 tags + born = 7; v2: 1 + name + age + born + nick = 5;
      // e1: edge + weight = 2; e2: edge = 1.
      assert.equal(p.overallStatus.totalRecords, 15);
      assert.equal(p.overallStatus.totalDuplicates, 0);
      assert.deepEqual(p.feedCount, [{ LOAD_COMPLETED: 2 }]);
      const v1 = await reader.vertex('v1');
      assert.deepEqual(v1?.labels, ['admin', 'person']);
      assert.deepEqual(v1?.properties, {
        age: [42],
        born: [new Date('2020-01-02T00:00:00Z')],
        name: ['Smith, "Al"'],
        tags: ['a', 'b;c'],
      });
      assert.deepEqual((await reader.vertex('v2'))?.properties.nick, ['multi\nline']);
      assert.deepEqual(await reader.edge('e1'), {
        id: 'e1',
        label: 'knows',
        from: 'v1',
        to: 'v2',
        properties: { weight: 0.5 },
      });
    });

    it('merges duplicates and counts them as Neptune does', async () => {
      await reset();
      await blobs.put('s3://b/dup/v.csv', '~id,~label,name,team\nP-2,Player,Kohli,India\nP-2,Player,Kohli,India\n');
      const p = await wait(await jobs.start(request('s3://b/dup/')));
      assert.equal(p.overallStatus.totalRecords, 6);
      assert.equal(p.overallStatus.totalDuplicates, 3);
      // Set cardinality adds values; a default label only for new vertices.
      await blobs.put('s3://b/dup2/v.csv', '~id,name\nP-2,Virat\nP-3,New\n');
      const q = await wait(await jobs.start(request('s3://b/dup2/')));
      assert.equal(q.overallStatus.status, 'LOAD_COMPLETED');
      assert.deepEqual((await reader.vertex('P-2'))?.properties.name, ['Kohli', 'Virat']);
      assert.deepEqual((await reader.vertex('P-2'))?.labels, ['Player']);
      assert.deepEqual((await reader.vertex('P-3'))?.labels, ['vertex']);
    });

    it('single cardinality: a different value fails unless updateSingleCardinalityProperties', async () => {
      await reset();
      await blobs.put('s3://b/s1/v.csv', '~id,age:Int(single)\nx,1\n');
      await wait(await jobs.start(request('s3://b/s1/')));
      await blobs.put('s3://b/s2/v.csv', '~id,age:Int(single)\nx,2\n');
      const p = await wait(await jobs.start(request('s3://b/s2/')));
      assert.equal(p.overallStatus.status, 'LOAD_FAILED');
      assert.equal(p.errors?.errorLogs[0]?.errorCode, 'SINGLE_CARDINALITY_VIOLATION');
      assert.equal(p.errors?.errorLogs[0]?.recordNum, 2);
      assert.deepEqual((await reader.vertex('x'))?.properties.age, [1]);
      const q = await wait(await jobs.start(request('s3://b/s2/', { updateSingleCardinalityProperties: true })));
      assert.equal(q.overallStatus.status, 'LOAD_COMPLETED');
      assert.deepEqual((await reader.vertex('x'))?.properties.age, [2]);
    });

    const malformed: [string, string, string, number][] = [
      ['bad header type', '~id,age:Integr\nv9,1\n', 'PARSING_ERROR', 1],
      ['unbalanced quotes', '~id,name\nv9,ok\nv10,"broken\nv11,x\n', 'PARSING_ERROR', 3],
      ['wrong column count', '~id,name\nv9,ok\nv10,a,b\n', 'PARSING_ERROR', 3],
      ['missing ~id header', '~label,name\nperson,x\n', 'PARSING_ERROR', 1],
      ['blank ~id value', '~id,name\nv9,ok\n,x\n', 'PARSING_ERROR', 3],
      ['datatype mismatch', '~id,age:Int\nv9,1\nv10,old\n', 'PARSING_ERROR', 3],
    ];
    for (const [name, csv, code, recordNum] of malformed) {
      it(`malformed CSV (${name}) fails with ${code} at record ${recordNum} and changes nothing`, async () => {
        await reset();
        await blobs.put('s3://b/base/v.csv', '~id\nkeep\n');
        await wait(await jobs.start(request('s3://b/base/')));
        await blobs.put(`s3://b/bad-${recordNum}/v.csv`, csv);
        const p = await wait(await jobs.start(request(`s3://b/bad-${recordNum}/`)));
        assert.equal(p.overallStatus.status, 'LOAD_FAILED');
        assert.equal(p.errors?.errorLogs.length, 1);
        assert.equal(p.errors?.errorLogs[0]?.errorCode, code);
        assert.equal(p.errors?.errorLogs[0]?.recordNum, recordNum);
        assert.equal(p.errors?.errorLogs[0]?.fileName, `s3://b/bad-${recordNum}/v.csv`);
        assert.deepEqual(await reader.counts(), { vertices: 1, edges: 0, vertexProperties: 0, edgeProperties: 0 });
      });
    }

    it('an edge to a missing vertex is FROM_OR_TO_VERTEX_ARE_MISSING; without failOnError the rest loads', async () => {
      await reset();
      await blobs.put('s3://b/m/v.csv', '~id\na\nb\n');
      await blobs.put('s3://b/m/w.csv', '~id,~from,~to,~label\ne1,a,b,x\ne2,a,ghost,x\ne3,b,a,x\n');
      const failed = await wait(await jobs.start(request('s3://b/m/')));
      assert.equal(failed.overallStatus.status, 'LOAD_FAILED');
      assert.deepEqual(
        failed.errors?.errorLogs.map((e) => [e.errorCode, e.recordNum, e.errorMessage]),
        [['FROM_OR_TO_VERTEX_ARE_MISSING', 3, "Either from vertex, 'a', or to vertex, 'ghost', is not present."]],
      );
      assert.equal((await reader.counts()).vertices, 0, 'failOnError rolled the vertices back too');

      const p = await wait(await jobs.start(request('s3://b/m/', { failOnError: false })));
      assert.equal(p.overallStatus.insertErrors, 1);
      assert.deepEqual(await reader.counts(), { vertices: 2, edges: 2, vertexProperties: 0, edgeProperties: 0 });
    });

    // Edge files on SQLite take the staged path (sorted move at the end of the file) and fall back
    // to the batch path when an edge id is not new or on an error under failOnError: same results.
    it('repeated and conflicting edge ids: counted and reported as by the batch path', async () => {
      await reset();
      await blobs.put('s3://b/re/v.csv', '~id\na\nb\n');
      await blobs.put('s3://b/re/w.csv', '~id,~from,~to,~label,w:Int\ne1,a,b,x,1\ne2,b,a,x,2\ne1,a,b,x,1\n');
      const p = await wait(await jobs.start(request('s3://b/re/')));
      assert.equal(p.overallStatus.status, 'LOAD_COMPLETED');
      // 2 vertices (default label) + 3 edges + 3 properties; the repeated edge and its value are duplicates.
      assert.equal(p.overallStatus.totalRecords, 8);
      assert.equal(p.overallStatus.totalDuplicates, 2);
      assert.deepEqual(await reader.counts(), { vertices: 2, edges: 2, vertexProperties: 0, edgeProperties: 2 });

      // Loading the same edges again: every one is a duplicate.
      await blobs.put('s3://b/re2/w.csv', '~id,~from,~to,~label,w:Int\ne2,b,a,x,2\ne1,a,b,x,1\n');
      const again = await wait(await jobs.start(request('s3://b/re2/')));
      assert.equal(again.overallStatus.status, 'LOAD_COMPLETED');
      assert.equal(again.overallStatus.totalRecords, 4);
      assert.equal(again.overallStatus.totalDuplicates, 4);

      await blobs.put('s3://b/re3/w.csv', '~id,~from,~to,~label\ne3,a,b,x\ne3,b,a,x\ne4,a,ghost,x\n');
      const bad = await wait(await jobs.start(request('s3://b/re3/', { failOnError: false })));
      assert.deepEqual(
        bad.errors?.errorLogs.map((e) => [e.errorCode, e.recordNum]),
        [
          ['FROM_OR_TO_VERTEX_ARE_MISSING', 4],
          ['ID_ASSIGNED_TO_MULTIPLE_EDGES', 3],
        ],
      );
      assert.equal(bad.overallStatus.insertErrors, 2);
      assert.equal((await reader.edge('e3'))?.from, 'a');
      const failed = await wait(await jobs.start(request('s3://b/re3/')));
      assert.equal(failed.overallStatus.status, 'LOAD_FAILED');
      assert.deepEqual(
        failed.errors?.errorLogs.map((e) => [e.errorCode, e.recordNum]),
        [['FROM_OR_TO_VERTEX_ARE_MISSING', 4]],
      );

      // An id repeated in a later edge file of a load into an empty graph (SQLite: the id index is
      // deferred and ids are checked in memory; the second file falls back to the batch path).
      await reset();
      await blobs.put('s3://b/rx/v.csv', '~id\na\nb\n');
      await blobs.put('s3://b/rx/w1.csv', '~id,~from,~to,~label\ne1,a,b,x\ne2,b,a,x\n');
      await blobs.put('s3://b/rx/w2.csv', '~id,~from,~to,~label\ne3,a,b,x\ne1,a,b,x\ne2,a,b,x\n');
      const across = await wait(await jobs.start(request('s3://b/rx/', { failOnError: false })));
      assert.equal(across.overallStatus.totalRecords, 7);
      assert.equal(across.overallStatus.totalDuplicates, 1);
      assert.deepEqual(
        across.errors?.errorLogs.map((e) => [e.errorCode, e.recordNum]),
        [['ID_ASSIGNED_TO_MULTIPLE_EDGES', 4]],
      );
      assert.deepEqual(await reader.counts(), { vertices: 2, edges: 3, vertexProperties: 0, edgeProperties: 0 });
      assert.equal((await reader.edge('e2'))?.from, 'b');
    });

    it('holds errors of a staged file back and reports them in order without failOnError', async () => {
      await reset();
      await blobs.put('s3://b/ho/v.csv', '~id\na\nb\n');
      await blobs.put(
        's3://b/ho/w.csv',
        '~id,~from,~to,~label,w:Int\ne1,a,ghost,x,\ne2,a,b,x,notanint\ne3,a,b,x,3\ne4,ghost,b,x,\n',
      );
      const p = await wait(await jobs.start(request('s3://b/ho/', { failOnError: false })));
      assert.equal(p.overallStatus.status, 'LOAD_FAILED');
      assert.deepEqual(
        p.errors?.errorLogs.map((e) => [e.errorCode, e.recordNum]),
        [
          ['PARSING_ERROR', 3],
          ['FROM_OR_TO_VERTEX_ARE_MISSING', 2],
          ['FROM_OR_TO_VERTEX_ARE_MISSING', 5],
        ],
      );
      assert.equal(p.overallStatus.totalRecords, 2 + 4);
      assert.deepEqual(await reader.edge('e3'), { id: 'e3', label: 'x', from: 'a', to: 'b', properties: { w: 3 } });
    });

    // The loader parses a batch while the one before it is written: errors found in different
    // batches are still reported in file order, and failOnError stops at the first of them.
    it('errors in several batches of a file come in file order; failOnError stops at the first', async () => {
      await reset();
      const bad = new Set([100, 2_500, 4_500, 6_500]);
      const rows = Array.from({ length: 7_000 }, (_, i) => `v${i + 1},${bad.has(i + 1) ? 'x' : i}`);
      await blobs.put('s3://b/ob/v.csv', `~id,age:Int\n${rows.join('\n')}\n`);
      const edges = Array.from(
        { length: 5_000 },
        (_, i) =>
          `e${i + 1},v1,${i + 1 === 3_000 ? 'ghost' : `v${(i % 50) + 2}`},x,${i + 1 === 700 || i + 1 === 4_100 ? 'y' : i}`,
      );
      await blobs.put('s3://b/ob/w.csv', `~id,~from,~to,~label,w:Int\n${edges.join('\n')}\n`);
      const p = await wait(await jobs.start(request('s3://b/ob/', { failOnError: false })));
      const vertexErrors = p.errors?.errorLogs
        .filter((e) => e.fileName.endsWith('v.csv'))
        .map((e) => [e.errorCode, e.recordNum]);
      assert.deepEqual(
        vertexErrors,
        [...bad].map((n) => ['PARSING_ERROR', n + 1]),
      );
      const edgeErrors = p.errors?.errorLogs.filter((e) => e.fileName.endsWith('w.csv')).map((e) => e.recordNum);
      assert.deepEqual(
        [...(edgeErrors ?? [])].sort((a, b) => a - b),
        [701, 3_001, 4_101],
      );
      assert.equal((await reader.counts()).edges, 5_000 - 3);

      await reset();
      const failed = await wait(await jobs.start(request('s3://b/ob/')));
      assert.equal(failed.overallStatus.status, 'LOAD_FAILED');
      assert.deepEqual(
        failed.errors?.errorLogs.map((e) => [e.errorCode, e.recordNum]),
        [['PARSING_ERROR', 101]],
      );
      assert.deepEqual(await reader.counts(), { vertices: 0, edges: 0, vertexProperties: 0, edgeProperties: 0 });
    });

    it('more than 10,000 errors in an edge file without failOnError: the last 10,000 are kept', async () => {
      await reset();
      await blobs.put('s3://b/me/v.csv', '~id\na\nb\n');
      const bad = Array.from({ length: 10_005 }, (_, i) => `x${i},a,ghost,l`).join('\n');
      await blobs.put('s3://b/me/w.csv', `~id,~from,~to,~label\n${bad}\nok,a,b,l\n`);
      const id = await jobs.start(request('s3://b/me/', { failOnError: false }));
      const p = await wait(id, { details: false, errors: true, page: 1, errorsPerPage: 2 });
      assert.equal(p.overallStatus.insertErrors, 10_005);
      assert.deepEqual(
        p.errors?.errorLogs.map((e) => e.recordNum),
        [7, 8],
      );
      assert.equal((await reader.counts()).edges, 1);
    });

    it('every secondary index exists after loads into an empty graph, failed or not', async () => {
      const indexes = async () =>
        (t.db.dialect === 'sqlite'
          ? await t.db.all<{ name: string }>(
              "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'graph_%'",
            )
          : await t.db.all<{ name: string }>(
              "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND indexname NOT LIKE '%pkey'",
            )
        )
          .map((r) => r.name)
          .filter((n) => !n.startsWith('graph_load_'))
          .sort();
      const expected = [
        // SQLite keeps edge ids unique through an index (PostgreSQL: the primary key).
        ...(t.db.dialect === 'sqlite' ? ['graph_edges_by_id'] : []),
        'graph_edges_in',
        'graph_edges_out',
        'graph_vertex_labels_by_label',
        'graph_vertex_props_by_value',
        // PostgreSQL's UNIQUE constraint on vertex ids (SQLite's is an autoindex).
        ...(t.db.dialect === 'postgres' ? ['graph_vertices_id_key'] : []),
      ];
      await reset();
      await blobs.put('s3://b/ix/v.csv', '~id,~label,name\na,p,x\nb,p,y\n');
      await blobs.put('s3://b/ix/w.csv', '~id,~from,~to,~label\ne1,a,b,x\n');
      assert.equal((await wait(await jobs.start(request('s3://b/ix/')))).overallStatus.status, 'LOAD_COMPLETED');
      assert.deepEqual(await indexes(), expected);
      await reset();
      await blobs.put('s3://b/ixbad/w.csv', '~id,~from,~to,~label\ne1,a,ghost,x\n');
      assert.equal((await wait(await jobs.start(request('s3://b/ixbad/')))).overallStatus.status, 'LOAD_FAILED');
      assert.deepEqual(await indexes(), expected);
    });

    it('stores awkward text as is: quotes, backslashes, braces, commas, NULL, empty strings', async () => {
      await reset();
      await blobs.put(
        's3://b/aw/v.csv',
        '~id,~label,s:String,n:Double\n' + '"a\\""{x,y}",L,"NULL",1e21\n' + 'b,"{}",\\N,-0.5\n' + 'c,L,"",\n',
      );
      await blobs.put('s3://b/aw/w.csv', '~id,~from,~to,~label,s:String\n"e\\1",b,"a\\""{x,y}","{,}","x\\y"\n');
      const p = await wait(
        await jobs.start(request('s3://b/aw/', { parserConfiguration: { allowEmptyStrings: 'true' } })),
      );
      assert.equal(p.overallStatus.status, 'LOAD_COMPLETED');
      assert.deepEqual(await reader.vertex('a\\"{x,y}'), {
        id: 'a\\"{x,y}',
        labels: ['L'],
        properties: { n: [1e21], s: ['NULL'] },
      });
      assert.deepEqual((await reader.vertex('b'))?.labels, ['{}']);
      assert.deepEqual((await reader.vertex('b'))?.properties, { n: [-0.5], s: ['\\N'] });
      assert.deepEqual((await reader.vertex('c'))?.properties, { s: [''] });
      assert.deepEqual(await reader.edge('e\\1'), {
        id: 'e\\1',
        label: '{,}',
        from: 'b',
        to: 'a\\"{x,y}',
        properties: { s: 'x\\y' },
      });
    });

    it('pages error logs', async () => {
      await reset();
      const rows = Array.from({ length: 25 }, (_, i) => `v${i},notanumber`).join('\n');
      await blobs.put('s3://b/many/v.csv', `~id,n:Int\n${rows}\n`);
      const id = await jobs.start(request('s3://b/many/', { failOnError: false }));
      const p = await wait(id);
      assert.equal(p.overallStatus.datatypeMismatchErrors, 25);
      const page3 = (await jobs.status(id, { details: false, errors: true, page: 3, errorsPerPage: 10 })) as Payload;
      assert.equal(page3.errors?.startIndex, 21);
      assert.equal(page3.errors?.endIndex, 25);
      assert.deepEqual(
        page3.errors?.errorLogs.map((e) => e.recordNum),
        [22, 23, 24, 25, 26],
      );
    });

    it('queues, honours dependencies and cancels queued loads', async () => {
      await reset();
      await blobs.put('s3://b/q/v.csv', '~id\nq1\n');
      await blobs.put('s3://b/qbad/v.csv', '~id,n:Int\nq2,x\n');
      const a = await jobs.start(request('s3://b/qbad/'));
      const b = await jobs.start(request('s3://b/q/', { dependencies: [a] }));
      const c = await jobs.start(request('s3://b/q/'));
      jobs.cancel(c);
      assert.equal((await wait(b)).overallStatus.status, 'LOAD_FAILED_BECAUSE_DEPENDENCY_NOT_SATISFIED');
      assert.equal((await wait(c)).overallStatus.status, 'LOAD_CANCELLED_BY_USER');
      assert.deepEqual(jobs.list(100, true).slice(0, 3).sort(), [a, b, c].sort());
    });

    it('loads openCypher CSV', async () => {
      await reset();
      await blobs.put(
        's3://b/oc/nodes.csv',
        ':ID,:LABEL,name:String,score:Double[]\nn1,A;B,first,1.5;2\nn2,A,second,\n',
      );
      await blobs.put('s3://b/oc/rels.csv', ':ID,:START_ID,:END_ID,:TYPE,since:Int\nr1,n1,n2,LINKS,2020\n');
      const p = await wait(await jobs.start(request('s3://b/oc/', { format: 'opencypher' })));
      assert.equal(p.overallStatus.status, 'LOAD_COMPLETED');
      assert.deepEqual((await reader.vertex('n1'))?.properties.score, [1.5, 2]);
      assert.deepEqual((await reader.edge('r1'))?.properties, { since: 2020 });
    });
  });
}
