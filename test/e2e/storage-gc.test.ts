// kill -9 during uploads leaves blob files no object refers to (uploads in flight, the pool of
// ready files); the restarted server removes them in the background, keeps every acknowledged
// object and part, and aborts multipart uploads older than --incomplete-upload-days.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';
import { CREDENTIALS, REGION, spawnServer, tempDir } from '../support/server.js';

const s3 = (endpoint: string) =>
  new S3Client({ endpoint, region: REGION, credentials: CREDENTIALS, forcePathStyle: true, maxAttempts: 1 });

/** Blob ids the database refers to (objects' segments and upload parts), read from the stopped server's files. */
function referenced(dataDir: string): Set<string> {
  const db = new Database(join(dataDir, 'slipway.db'), { readonly: true });
  try {
    const ids = new Set<string>();
    for (const r of db.prepare('SELECT segments FROM s3_objects').all() as { segments: string }[])
      for (const [id] of JSON.parse(r.segments) as [string, number][]) ids.add(id);
    for (const r of db.prepare('SELECT blob_id FROM s3_parts').all() as { blob_id: string }[]) ids.add(r.blob_id);
    return ids;
  } finally {
    db.close();
  }
}

describe('orphan blobs after kill -9', () => {
  const dataDir = tempDir();
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('are collected after the restart; acknowledged objects stay; stale uploads are aborted', async () => {
    const first = await spawnServer([], dataDir);
    const blobsDir = join(dataDir, 's3', 'blobs');
    const objects = new Map<string, Buffer>();
    let c = s3(first.endpoint);
    let stale: string;
    try {
      await c.send(new CreateBucketCommand({ Bucket: 'gc-test' }));
      for (let i = 0; i < 20; i++) {
        const body = Buffer.alloc(50_000 + i, `object-${i}-`);
        await c.send(new PutObjectCommand({ Bucket: 'gc-test', Key: `obj/${i}`, Body: body }));
        objects.set(`obj/${i}`, body);
      }
      stale = (await c.send(new CreateMultipartUploadCommand({ Bucket: 'gc-test', Key: 'big' }))).UploadId!;
      await c.send(
        new UploadPartCommand({
          Bucket: 'gc-test',
          Key: 'big',
          UploadId: stale,
          PartNumber: 1,
          Body: Buffer.alloc(5 << 20, 1),
        }),
      );
      // Uploads in flight when the server dies: half their body written, never committed.
      const port = new URL(first.endpoint).port;
      const inFlight = Array.from({ length: 12 }, (_, i) => {
        const req = request({
          host: '127.0.0.1',
          port,
          method: 'PUT',
          path: `/gc-test/partial/${i}`,
          headers: { 'content-length': 4 << 20 },
        });
        req.on('error', () => undefined);
        req.write(Buffer.alloc(2 << 20, 7));
        return req;
      });
      await sleep(500);
      first.child.kill('SIGKILL');
      assert.equal(await first.exited, 'SIGKILL');
      for (const r of inFlight) r.destroy();
    } finally {
      c.destroy();
      await first.close();
    }

    const keep = referenced(dataDir);
    const orphans = readdirSync(blobsDir).filter((f) => !keep.has(f));
    assert.ok(orphans.length >= 12, `the crash left ${orphans.length} unreferenced files`);

    // Restarted with a short grace period and upload expiry, as an operator would set them for this.
    const second = await spawnServer(
      ['--blob-gc-grace-seconds', '0', '--blob-gc-interval-seconds', '1', '--incomplete-upload-days', '0.00001'],
      dataDir,
    );
    c = s3(second.endpoint);
    try {
      const deadline = Date.now() + 15_000;
      while (orphans.some((id) => existsSync(join(blobsDir, id))) && Date.now() < deadline) await sleep(200);
      assert.deepEqual(
        orphans.filter((id) => existsSync(join(blobsDir, id))),
        [],
        'orphans still on disk',
      );
      for (const [key, body] of objects) {
        const got = await c.send(new GetObjectCommand({ Bucket: 'gc-test', Key: key }));
        assert.ok(Buffer.from(await got.Body!.transformToByteArray()).equals(body), `${key} changed`);
      }
      const uploads = await c.send(new ListMultipartUploadsCommand({ Bucket: 'gc-test' }));
      assert.deepEqual(uploads.Uploads ?? [], [], 'the stale upload was aborted');
      // The server keeps working: writes after the cleanup are whole.
      await c.send(new PutObjectCommand({ Bucket: 'gc-test', Key: 'after', Body: 'still here' }));
      const after = await c.send(new GetObjectCommand({ Bucket: 'gc-test', Key: 'after' }));
      assert.equal(await after.Body!.transformToString(), 'still here');
    } finally {
      c.destroy();
      await second.close();
    }
  });
});
