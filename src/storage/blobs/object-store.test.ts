import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { DIALECTS, type TestDatabase } from '../../../test/support/databases.js';
import { MIGRATIONS } from '../migrations.js';
import type { StoredObject } from '../repositories/s3-objects.js';
import { BlobNotFoundError } from './blob-store.js';
import { EmbeddedBlobStore } from './embedded-blob-store.js';
import { compareUtf8, LocalObjectStore, prefixUpperBound } from './object-store.js';

test('prefix upper bounds and UTF-8 order', () => {
  assert.equal(prefixUpperBound('a/'), 'a0');
  assert.equal(prefixUpperBound('a\uffff'), 'a\u{10000}');
  assert.equal(prefixUpperBound('\u{10ffff}'), undefined);
  assert.ok(compareUtf8('\uffff', '\u{1f600}') < 0, 'U+FFFF sorts before U+1F600 in UTF-8 (not in UTF-16)');
  assert.ok(compareUtf8('ab', 'a') > 0);
});

for (const dialect of DIALECTS) {
  describe(`embedded object store on ${dialect.name}`, () => {
    let t: TestDatabase;
    let root: string;
    let store: LocalObjectStore;
    before(async () => {
      t = await dialect.open(MIGRATIONS);
      root = await mkdtemp(join(tmpdir(), 'slipway-objects-'));
      store = await LocalObjectStore.open(t.db, root);
      await store.createBucket({ name: 'bkt', account_id: '111122223333', region: 'us-east-1', created_at: 1 });
    });
    after(async () => {
      await t?.cleanup();
      await rm(root, { recursive: true, force: true });
    });

    const put = async (key: string, data = key): Promise<StoredObject> => {
      const blob = await store.writeBlob(Readable.from([Buffer.from(data)]));
      const o: StoredObject = {
        bucket: 'bkt',
        key,
        size: blob.size,
        etag: '"x"',
        lastModified: 1,
        headers: {},
        userMetadata: {},
        segments: [[blob.id, blob.size]],
      };
      assert.ok(await store.commitObject(o));
      return o;
    };

    test('lists in UTF-8 byte order with delimiters, pages and markers', async () => {
      const keys = ['a/1', 'a/2', 'a/b/c', 'b', 'c/', 'c/d', 'z\u00e9', 'z\uffff', 'z\u{1f600}', 'za'];
      for (const k of keys) await put(k);
      const all = await store.listObjects('bkt', { maxKeys: 1000 });
      assert.deepEqual(
        all.objects.map((o) => o.key),
        [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))),
      );
      const entries: string[] = [];
      let from: Parameters<LocalObjectStore['listObjects']>[1]['from'];
      for (;;) {
        const page = await store.listObjects('bkt', { delimiter: '/', maxKeys: 2, ...(from ? { from } : {}) });
        entries.push(...page.objects.map((o) => o.key), ...page.commonPrefixes);
        if (!page.truncated) break;
        from = page.next;
      }
      assert.deepEqual(entries.sort(), ['a/', 'b', 'c/', 'z\u00e9', 'za', 'z\u{1f600}', 'z\uffff'].sort());
      const inA = await store.listObjects('bkt', { prefix: 'a/', delimiter: '/', maxKeys: 10 });
      assert.deepEqual([inA.objects.map((o) => o.key), inA.commonPrefixes], [['a/1', 'a/2'], ['a/b/']]);
      // A v1 marker equal to a common prefix continues after everything under it.
      const afterA = await store.listObjects('bkt', { delimiter: '/', from: { after: 'a/' }, maxKeys: 1 });
      assert.deepEqual(
        afterA.objects.map((o) => o.key),
        ['b'],
      );
    });

    test('concurrent overwrites of one key keep exactly the last blob', async () => {
      const before = new Set(await store.files.list());
      const writes = await Promise.all(Array.from({ length: 12 }, (_, i) => put('same', `v${i}`)));
      const current = await store.getObject('bkt', 'same');
      assert.ok(writes.some((w) => w.segments[0]![0] === current!.segments[0]![0]));
      const added = (await store.files.list()).filter((id) => !before.has(id));
      assert.deepEqual(added, [current!.segments[0]![0]], 'replaced blobs were removed');
      assert.deepEqual(await store.files.temporaryFiles(), []);
    });

    test('BlobStore over the embedded store: put, stat, get ranges, list, delete', async () => {
      const blobs = new EmbeddedBlobStore(store, { accountId: '111122223333', region: 'us-east-1' });
      await blobs.ensureBucket('exports');
      await blobs.ensureBucket('exports');
      const info = await blobs.put('s3://exports/lineage/graph.csv', 'id,label\n1,x\n', {
        contentType: 'text/csv',
        metadata: { run: '7' },
      });
      assert.equal(info.size, 13);
      assert.equal((await blobs.stat('s3://exports/lineage/graph.csv'))?.contentType, 'text/csv');
      const chunks: Buffer[] = [];
      for await (const c of await blobs.get('s3://exports/lineage/graph.csv', { start: 3, end: 7 }))
        chunks.push(c as Buffer);
      assert.equal(Buffer.concat(chunks).toString(), 'label');
      await blobs.put('s3://exports/lineage/other.csv', Readable.from([Buffer.from('a'), Buffer.from('b')]));
      const listed: string[] = [];
      for await (const b of blobs.list('s3://exports/lineage/')) listed.push(b.key);
      assert.deepEqual(listed, ['lineage/graph.csv', 'lineage/other.csv']);
      await blobs.delete('s3://exports/lineage/graph.csv');
      await blobs.delete('s3://exports/lineage/graph.csv');
      assert.equal(await blobs.stat('s3://exports/lineage/graph.csv'), undefined);
      await assert.rejects(
        blobs.get('s3://exports/nope'),
        (e) => e instanceof BlobNotFoundError && e.reason === 'NoSuchKey',
      );
      await assert.rejects(
        blobs.get('s3://nobucket/x'),
        (e) => e instanceof BlobNotFoundError && e.reason === 'NoSuchBucket',
      );
      await assert.rejects(blobs.put('s3://exports/../x', 'x'), /not allowed/);
    });
  });
}
