// Model package groups and tags, driven by the real AWS SDK for JavaScript v3 against a real
// server on port 0, once on SQLite and once on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AddTagsCommand,
  CreateModelPackageGroupCommand,
  DeleteModelPackageGroupCommand,
  DeleteTagsCommand,
  DescribeModelPackageGroupCommand,
  ListModelPackageGroupsCommand,
  ListTagsCommand,
  SageMakerClient,
  paginateListModelPackageGroups,
} from '@aws-sdk/client-sagemaker';
import { rejects } from '../support/errors.js';
import { ACCOUNT, CREDENTIALS, REGION, databaseArgs, startServer, type TestServer } from '../support/server.js';

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`model package groups (${dialect})`, () => {
    let server: TestServer;
    let sm: SageMakerClient;
    const arnOf = (name: string) => `arn:aws:sagemaker:${REGION}:${ACCOUNT}:model-package-group/${name}`;

    before(async () => {
      server = await startServer(databaseArgs(dialect));
      sm = new SageMakerClient({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS });
    });
    after(async () => {
      sm.destroy();
      await server.close();
    });

    test('create, describe by name and by ARN, delete', async () => {
      const created = await sm.send(
        new CreateModelPackageGroupCommand({
          ModelPackageGroupName: 'xgboost-abalone',
          ModelPackageGroupDescription: 'abalone models',
          Tags: [{ Key: 'team', Value: 'ml' }],
        }),
      );
      assert.equal(created.ModelPackageGroupArn, arnOf('xgboost-abalone'));
      assert.match(created.$metadata.requestId ?? '', /^[0-9a-f-]{36}$/);

      const before = Date.now();
      for (const name of ['xgboost-abalone', arnOf('xgboost-abalone')]) {
        const d = await sm.send(new DescribeModelPackageGroupCommand({ ModelPackageGroupName: name }));
        assert.equal(d.ModelPackageGroupName, 'xgboost-abalone');
        assert.equal(d.ModelPackageGroupArn, arnOf('xgboost-abalone'));
        assert.equal(d.ModelPackageGroupDescription, 'abalone models');
        assert.equal(d.ModelPackageGroupStatus, 'Completed');
        assert.ok(d.CreationTime instanceof Date);
        assert.ok(Math.abs(d.CreationTime.getTime() - before) < 60_000);
        assert.deepEqual(d.CreatedBy, { IamIdentity: { Arn: `arn:aws:iam::${ACCOUNT}:root`, PrincipalId: ACCOUNT } });
      }

      await sm.send(new DeleteModelPackageGroupCommand({ ModelPackageGroupName: 'xgboost-abalone' }));
      await rejects(
        sm.send(new DescribeModelPackageGroupCommand({ ModelPackageGroupName: 'xgboost-abalone' })),
        'ValidationException',
        `ModelPackageGroup ${arnOf('xgboost-abalone')} does not exist.`,
      );
      const tags = sm.send(new ListTagsCommand({ ResourceArn: arnOf('xgboost-abalone') }));
      await rejects(tags, 'ValidationException', /does not exist/);
    });

    test('a duplicate name is refused, whatever its case', async () => {
      await sm.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'dup' }));
      await rejects(
        sm.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'DUP' })),
        'ValidationException',
        `Model Package Group already exists: ${arnOf('dup')}`,
      );
    });

    test('a bad name gets the validation message AWS writes', async () => {
      const err = await rejects(
        sm.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'x!' })),
        'ValidationException',
        "1 validation error detected: Value 'x!' at 'modelPackageGroupName' failed to satisfy constraint: " +
          'Member must satisfy regular expression pattern: [a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}',
      );
      assert.equal(err.$metadata.httpStatusCode, 400);
      await rejects(
        sm.send(
          new CreateModelPackageGroupCommand({
            ModelPackageGroupName: 'a'.repeat(64),
            Tags: [{ Key: '', Value: 'v' }],
          }),
        ),
        'ValidationException',
        new RegExp(
          "^3 validation errors detected: Value 'a{64}' at 'modelPackageGroupName' failed to satisfy constraint: " +
            "Member must have length less than or equal to 63; Value 'a{64}' at 'modelPackageGroupName' failed to " +
            'satisfy constraint: Member must satisfy regular expression pattern: \\[a-zA-Z0-9\\]\\(-\\*\\[a-zA-Z0-9\\]\\)\\{0,62\\}; ' +
            "Value '' at 'tags.1.member.key' failed to satisfy " +
            'constraint: Member must have length greater than or equal to 1$',
        ),
      );
    });

    test('a hostile 100 KB name is answered at once', async () => {
      const t0 = performance.now();
      await rejects(
        sm.send(new DescribeModelPackageGroupCommand({ ModelPackageGroupName: `${'a-'.repeat(50_000)}!` })),
        'ValidationException',
        /^2 validation errors detected: /,
      );
      assert.ok(performance.now() - t0 < 2000);
    });

    test('a missing group', async () => {
      await rejects(
        sm.send(new DeleteModelPackageGroupCommand({ ModelPackageGroupName: 'nope' })),
        'ValidationException',
        `ModelPackageGroup ${arnOf('nope')} does not exist.`,
      );
      // An ARN of another region names nothing the caller can see.
      await rejects(
        sm.send(
          new DescribeModelPackageGroupCommand({
            ModelPackageGroupName: `arn:aws:sagemaker:eu-west-1:${ACCOUNT}:model-package-group/dup`,
          }),
        ),
        'ValidationException',
        /does not exist/,
      );
    });

    test('resources are partitioned by region', async () => {
      const other = new SageMakerClient({
        endpoint: server.endpoint,
        region: 'eu-central-1',
        credentials: CREDENTIALS,
      });
      try {
        const r = await other.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'dup' }));
        assert.equal(r.ModelPackageGroupArn, `arn:aws:sagemaker:eu-central-1:${ACCOUNT}:model-package-group/dup`);
        const list = await other.send(new ListModelPackageGroupsCommand({}));
        assert.deepEqual(
          list.ModelPackageGroupSummaryList?.map((g) => g.ModelPackageGroupName),
          ['dup'],
        );
      } finally {
        other.destroy();
      }
    });

    test('tags: add, overwrite, list in pages, delete', async () => {
      await sm.send(
        new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'tagged', Tags: [{ Key: 'a', Value: '1' }] }),
      );
      const arn = arnOf('tagged');
      const added = await sm.send(
        new AddTagsCommand({
          ResourceArn: arn,
          Tags: [
            { Key: 'a', Value: 'one' },
            ...Array.from({ length: 59 }, (_, i) => ({ Key: `k${i}`, Value: `v${i}` })).slice(0, 49),
          ],
        }),
      );
      assert.equal(added.Tags?.length, 50);
      const first = await sm.send(new ListTagsCommand({ ResourceArn: arn, MaxResults: 50 }));
      assert.equal(first.Tags?.length, 50);
      assert.deepEqual(first.Tags?.[0], { Key: 'a', Value: 'one' });
      assert.equal(first.NextToken, undefined);
      await rejects(
        sm.send(new AddTagsCommand({ ResourceArn: arn, Tags: [{ Key: 'one-too-many', Value: 'x' }] })),
        'ValidationException',
        /more than 50 tags/,
      );
      await sm.send(new DeleteTagsCommand({ ResourceArn: arn, TagKeys: ['a', 'k0', 'missing'] }));
      const rest = await sm.send(new ListTagsCommand({ ResourceArn: arn }));
      assert.equal(rest.Tags?.length, 48);
      assert.ok(!rest.Tags?.some((t) => t.Key === 'a' || t.Key === 'k0'));
      await rejects(
        sm.send(new AddTagsCommand({ ResourceArn: arn, Tags: [{ Key: 'aws:reserved', Value: 'x' }] })),
        'ValidationException',
        /reserved/,
      );
      await rejects(
        sm.send(new AddTagsCommand({ ResourceArn: arnOf('ghost'), Tags: [{ Key: 'k', Value: 'v' }] })),
        'ValidationException',
        /does not exist/,
      );
    });

    describe('listing', () => {
      const names = ['list-c', 'list-a', 'list-b', 'list-e', 'list-d'];
      before(async () => {
        for (const n of names) await sm.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: n }));
      });

      test('defaults: CreationTime ascending', async () => {
        const r = await sm.send(new ListModelPackageGroupsCommand({ NameContains: 'list-' }));
        assert.deepEqual(
          r.ModelPackageGroupSummaryList?.map((g) => g.ModelPackageGroupName),
          names,
        );
      });

      test('sort by name both ways, and NameContains ignores case', async () => {
        const asc = await sm.send(new ListModelPackageGroupsCommand({ NameContains: 'LIST', SortBy: 'Name' }));
        assert.deepEqual(
          asc.ModelPackageGroupSummaryList?.map((g) => g.ModelPackageGroupName),
          [...names].sort(),
        );
        const desc = await sm.send(
          new ListModelPackageGroupsCommand({ NameContains: 'list', SortBy: 'Name', SortOrder: 'Descending' }),
        );
        assert.deepEqual(
          desc.ModelPackageGroupSummaryList?.map((g) => g.ModelPackageGroupName),
          [...names].sort().reverse(),
        );
      });

      test('the paginator visits every group once, in order', async () => {
        for (const SortBy of ['Name', 'CreationTime'] as const) {
          for (const SortOrder of ['Ascending', 'Descending'] as const) {
            const seen: string[] = [];
            for await (const page of paginateListModelPackageGroups(
              { client: sm, pageSize: 2 },
              { NameContains: 'list', SortBy, SortOrder },
            )) {
              assert.ok((page.ModelPackageGroupSummaryList?.length ?? 0) <= 2);
              seen.push(...(page.ModelPackageGroupSummaryList ?? []).map((g) => g.ModelPackageGroupName!));
            }
            let expected = SortBy === 'Name' ? [...names].sort() : [...names];
            if (SortOrder === 'Descending') expected = expected.reverse();
            assert.deepEqual(seen, expected, `${SortBy} ${SortOrder}`);
          }
        }
      });

      test('creation time filters', async () => {
        const all = await sm.send(new ListModelPackageGroupsCommand({ NameContains: 'list', MaxResults: 100 }));
        const times = all.ModelPackageGroupSummaryList!.map((g) => g.CreationTime!.getTime());
        const mid = new Date(times[2]!);
        const afterMid = await sm.send(
          new ListModelPackageGroupsCommand({ NameContains: 'list', CreationTimeAfter: new Date(mid.getTime() - 1) }),
        );
        assert.ok(afterMid.ModelPackageGroupSummaryList!.every((g) => g.CreationTime!.getTime() >= mid.getTime()));
        const beforeAll = await sm.send(
          new ListModelPackageGroupsCommand({ NameContains: 'list', CreationTimeBefore: new Date(times[0]!) }),
        );
        assert.equal(beforeAll.ModelPackageGroupSummaryList?.length, 0);
      });

      test('a tampered or foreign NextToken is refused', async () => {
        const page = await sm.send(new ListModelPackageGroupsCommand({ NameContains: 'list', MaxResults: 2 }));
        assert.ok(page.NextToken);
        const [body, tag] = page.NextToken.split('.');
        const forged = `${Buffer.from('[0,"a"]').toString('base64url')}.${tag}`;
        for (const NextToken of [forged, `${body}.AAAA`, 'garbage']) {
          await rejects(
            sm.send(new ListModelPackageGroupsCommand({ NameContains: 'list', MaxResults: 2, NextToken })),
            'ValidationException',
            /Invalid pagination token/,
          );
        }
        // Same token with other filters: refused rather than misapplied.
        await rejects(
          sm.send(new ListModelPackageGroupsCommand({ NameContains: 'list-a', NextToken: page.NextToken })),
          'ValidationException',
          /Invalid pagination token/,
        );
      });

      test('MaxResults out of range', async () => {
        await rejects(
          sm.send(new ListModelPackageGroupsCommand({ MaxResults: 101 })),
          'ValidationException',
          "1 validation error detected: Value '101' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 100",
        );
      });
    });
  });
}
