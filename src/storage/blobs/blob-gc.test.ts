import assert from 'node:assert/strict';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { DIALECTS, type TestDatabase } from '../../../test/support/databases.js';
import { MIGRATIONS } from '../migrations.js';
import type { StoredObject } from '../repositories/s3-objects.js';
import { BlobCollector } from './blob-gc.js';
import { LocalObjectStore } from './object-store.js';

const HOUR = 3600_000;

for (const dialect of DIALECTS) {
  describe(`orphan blobs and stale uploads on ${dialect.name}`, () => {
    let t: TestDatabase;
    let root: string;
    let store: LocalObjectStore;
    before(async () => {
      t = await dialect.open(MIGRATIONS);
      root = await mkdtemp(join(tmpdir(), 'slipway-gc-'));
      store = await LocalObjectStore.open(t.db, root);
      await store.createBucket({ name: 'bkt', account_id: '111122223333', region: 'us-east-1', created_at: 1 });
    });
    after(async () => {
      store?.files.close();
      await t?.cleanup();
      await rm(root, { recursive: true, force: true });
    });

    const age = (id: string, ms: number) => {
      const at = new Date(Date.now() - ms);
      return utimes(join(root, 'blobs', id), at, at);
    };
    const blob = (data: string) => store.writeBlob(Readable.from([Buffer.from(data)]));
    const collector = (uploadExpiryMs = 0) =>
      new BlobCollector(store, { graceMs: HOUR, intervalMs: HOUR, uploadExpiryMs, log: pino({ level: 'silent' }) });

    test('removes old blobs nothing refers to; keeps objects, parts and recent writes', async () => {
      // Many objects, so the scan reads several pages.
      const kept: string[] = [];
      for (let i = 0; i < 1005; i++) {
        const b = await blob(`object ${i}`);
        const o: StoredObject = {
          bucket: 'bkt',
          key: `k${i}`,
          size: b.size,
          etag: '"x"',
          lastModified: 1,
          headers: {},
          userMetadata: {},
          segments: [[b.id, b.size]],
        };
        assert.ok(await store.commitObject(o));
        kept.push(b.id);
      }
      assert.ok(
        await store.createUpload({
          uploadId: 'u1',
          bucket: 'bkt',
          key: 'big',
          initiated: Date.now(),
          headers: {},
          userMetadata: {},
        }),
      );
      const part = await blob('part one');
      assert.ok(
        await store.commitPart('u1', {
          partNumber: 1,
          size: part.size,
          etag: '"p"',
          blobId: part.id,
          lastModified: Date.now(),
        }),
      );
      kept.push(part.id);
      const orphan = await blob('nobody refers to me');
      const fresh = await blob('a commit is on its way');
      for (const id of [...kept, orphan.id]) await age(id, 2 * HOUR);

      const r = await collector().run();
      assert.deepEqual(r, { expiredUploads: 0, removedBlobs: 1, removedBytes: orphan.size });
      const left = new Set(await store.files.list());
      assert.ok(!left.has(orphan.id));
      assert.ok(left.has(fresh.id), 'a blob written within the grace period stays');
      for (const id of kept) assert.ok(left.has(id), `referenced blob ${id} was removed`);
      const read = await store.readObject('bkt', 'k1004');
      assert.ok(read);
    });

    test('aborts uploads initiated longer ago than the expiry, with their parts', async () => {
      assert.ok(
        await store.createUpload({
          uploadId: 'old',
          bucket: 'bkt',
          key: 'stale',
          initiated: Date.now() - 3 * HOUR,
          headers: {},
          userMetadata: {},
        }),
      );
      const part = await blob('stale part');
      assert.ok(
        await store.commitPart('old', {
          partNumber: 1,
          size: part.size,
          etag: '"p"',
          blobId: part.id,
          lastModified: Date.now(),
        }),
      );
      const r = await collector(2 * HOUR).run();
      assert.equal(r.expiredUploads, 1);
      assert.equal((await store.listUploads('bkt', { maxUploads: 10 })).uploads.map((u) => u.uploadId).join(), 'u1');
      assert.ok(!(await store.files.list()).includes(part.id));
    });
  });
}
