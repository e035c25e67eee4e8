// A write acknowledged to a client survives `kill -9` of the server, on SQLite and PostgreSQL;
// SIGTERM stops the server cleanly (exit 0) after in-flight requests finish.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { request } from 'node:http';
import { after, describe, test } from 'node:test';
import {
  CreateModelPackageGroupCommand,
  ListModelPackageGroupsCommand,
  SageMakerClient,
  paginateListModelPackageGroups,
} from '@aws-sdk/client-sagemaker';
import { CREDENTIALS, REGION, databaseArgs, spawnServer, tempDir } from '../support/server.js';

function client(endpoint: string): SageMakerClient {
  return new SageMakerClient({ endpoint, region: REGION, credentials: CREDENTIALS, maxAttempts: 1 });
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`durability (${dialect})`, () => {
    const dataDir = tempDir();
    const dbArgs = databaseArgs(dialect);
    after(() => rmSync(dataDir, { recursive: true, force: true }));

    test('every acknowledged create survives kill -9', async () => {
      const first = await spawnServer(dbArgs, dataDir);
      const sm = client(first.endpoint);
      const acknowledged: string[] = [];
      let next = 0;
      // 8 writers keep requests in flight, so the kill lands in the middle of work.
      const writer = async () => {
        for (;;) {
          const name = `durable-${next++}`;
          try {
            await sm.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: name }));
            acknowledged.push(name);
          } catch {
            return; // the server died under us: this write was never acknowledged
          }
        }
      };
      const writers = Array.from({ length: 8 }, writer);
      while (acknowledged.length < 300) await new Promise((r) => setTimeout(r, 5));
      first.child.kill('SIGKILL');
      assert.equal(await first.exited, 'SIGKILL');
      await Promise.all(writers);
      sm.destroy();

      const second = await spawnServer(dbArgs, dataDir);
      const sm2 = client(second.endpoint);
      try {
        const found = new Set<string>();
        for await (const page of paginateListModelPackageGroups({ client: sm2, pageSize: 100 }, {})) {
          for (const g of page.ModelPackageGroupSummaryList ?? []) found.add(g.ModelPackageGroupName!);
        }
        const lost = acknowledged.filter((n) => !found.has(n));
        assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.length} acknowledged writes lost`);
        // The restarted server is fully usable: it writes and reads again.
        await sm2.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'after-restart' }));
      } finally {
        sm2.destroy();
        await second.close();
      }
    });

    test('SIGTERM drains in-flight requests and exits 0', async () => {
      const server = await spawnServer(dbArgs, dataDir);
      const sm = client(server.endpoint);
      const inflight = Array.from({ length: 20 }, (_, i) =>
        sm.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: `drain-${i}` })),
      );
      // One request is certainly in flight: its headers have arrived, its body has not.
      const body = JSON.stringify({ ModelPackageGroupName: 'drain-slow' });
      const slow = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(`${server.endpoint}/`, {
          method: 'POST',
          headers: {
            'x-amz-target': 'SageMaker.CreateModelPackageGroup',
            'content-length': Buffer.byteLength(body),
            // The region comes from the credential scope, as the SDK client's does.
            authorization: `AWS4-HMAC-SHA256 Credential=AKID/20260101/${REGION}/sagemaker/aws4_request, SignedHeaders=host, Signature=0`,
          },
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        });
        req.on('error', reject);
        req.write(body.slice(0, 10));
        setTimeout(() => req.end(body.slice(10)), 300);
      });
      await new Promise((r) => setTimeout(r, 50));
      server.child.kill('SIGTERM');
      const results = await Promise.allSettled(inflight);
      const finished = await slow;
      assert.equal(finished.status, 200, finished.text);
      assert.equal(await server.exited, 0);
      sm.destroy();
      // Whatever was acknowledged before the exit is there after a restart.
      const ok = results.filter((r) => r.status === 'fulfilled').length;
      const again = await spawnServer(dbArgs, dataDir);
      const sm2 = client(again.endpoint);
      try {
        const r = await sm2.send(new ListModelPackageGroupsCommand({ NameContains: 'drain', MaxResults: 100 }));
        const names = (r.ModelPackageGroupSummaryList ?? []).map((g) => g.ModelPackageGroupName);
        assert.ok(names.length >= ok + 1, `${names.length} listed, ${ok} acknowledged: ${names}`);
        assert.ok(names.includes('drain-slow'));
      } finally {
        sm2.destroy();
        await again.close();
      }
    });
  });
}
