// The resource-kind building block over a real store (the lineage entity table), on every dialect:
// create with tags in one transaction, taken names, update/delete in transactions, pages.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { DIALECTS, type TestDatabase } from '../../../test/support/databases.js';
import { PageTokens } from '../../domain/page-token.js';
import type { RequestContext } from '../../protocol/context.js';
import { ValidationException } from '../../protocol/common-errors.js';
import { UniqueViolationError } from '../../storage/db/types.js';
import { MIGRATIONS } from '../../storage/migrations.js';
import { entityKind, entityQuery } from '../sagemaker/lineage-common.js';
import { createRepositories, type ServiceDeps } from './deps.js';

interface Doc {
  Name: string;
  Note?: string;
}

let clock = 1_700_000_000_000;
const ctx = (): RequestContext => ({
  requestId: 'r',
  accountId: '123456789012',
  region: 'us-east-1',
  log: pino({ level: 'silent' }),
  receivedAt: clock++,
});

for (const dialect of DIALECTS) {
  describe(`ResourceKind on ${dialect.name}`, () => {
    let t: TestDatabase;
    let deps: ServiceDeps;
    before(async () => {
      t = await dialect.open(MIGRATIONS);
      deps = { db: t.db, tokens: new PageTokens(randomBytes(32)), repos: createRepositories() };
    });
    after(() => t.cleanup());

    const draft = (name: string) => ({
      arn: `arn:aws:sagemaker:us-east-1:123456789012:context/${name}`,
      name,
      entity_type: 'T',
      source_key: null,
    });

    test('create writes the row and its tags together; a taken name names its holder', async () => {
      const kind = entityKind<Doc>(deps, 'context', 'name');
      await kind.create(ctx(), draft('alpha'), { Name: 'alpha' }, [{ Key: 'team', Value: 'a' }]);
      const row = await kind.get(t.db, ctx(), 'alpha');
      assert.deepEqual(kind.doc(row), { Name: 'alpha' });
      assert.equal(await deps.repos.tags.count(t.db, row.arn), 1);
      await assert.rejects(
        kind.create(ctx(), { ...draft('ALPHA'), arn: `${row.arn}-other` }, { Name: 'ALPHA' }, undefined),
        (e: Error) => e instanceof ValidationException && e.message === `Context '${row.arn}' already exists.`,
      );
    });

    test('a failing check inside create leaves neither row nor tags', async () => {
      const kind = entityKind<Doc>(deps, 'context', 'name');
      await assert.rejects(
        kind.create(ctx(), draft('beta'), { Name: 'beta' }, [{ Key: 'k', Value: 'v' }], async () => {
          throw new ValidationException('no');
        }),
        /no/,
      );
      await assert.rejects(kind.get(t.db, ctx(), 'beta'), /does not exist/);
      assert.equal(await deps.repos.tags.count(t.db, draft('beta').arn), 0);
    });

    test('a unique violation on something else create writes is not "already exists": nothing is created', async () => {
      const kind = entityKind<Doc>(deps, 'context', 'name');
      await kind.create(ctx(), draft('held'), { Name: 'held' }, undefined);
      await assert.rejects(
        kind.create(ctx(), draft('delta'), { Name: 'delta' }, undefined, async (tx) => {
          // What a check inside create may write: here a row whose name another one holds.
          await deps.repos.lineageEntities.insert(tx, ctx(), {
            ...draft('held'),
            arn: `${draft('held').arn}-copy`,
            kind: 'context',
            name_key: 'held',
            unique_source: null,
            parent_key: null,
            doc: '{}',
            created_at: 0,
            last_modified_at: 0,
          });
        }),
        (e: Error) => e instanceof UniqueViolationError,
      );
      await assert.rejects(kind.get(t.db, ctx(), 'delta'), /does not exist/);
    });

    test('update changes the document and the modification time; delete honours its guard', async () => {
      const kind = entityKind<Doc>(deps, 'context', 'name');
      await kind.create(ctx(), draft('gamma'), { Name: 'gamma' }, undefined);
      const before = await kind.get(t.db, ctx(), 'gamma');
      await kind.update(ctx(), 'gamma', (d) => {
        d.Note = 'changed';
      });
      const afterUpdate = await kind.get(t.db, ctx(), 'gamma');
      assert.equal(kind.doc(afterUpdate).Note, 'changed');
      assert.ok(afterUpdate.last_modified_at > before.last_modified_at);
      await assert.rejects(
        kind.delete(ctx(), 'gamma', async () => {
          throw new ValidationException('still used');
        }),
        /still used/,
      );
      assert.ok(await kind.get(t.db, ctx(), 'gamma'));
      await kind.delete(ctx(), 'gamma');
      await assert.rejects(kind.get(t.db, ctx(), 'gamma'), /does not exist/);
    });

    test('pages follow the sort and a token only works with the query it was issued for', async () => {
      const kind = entityKind<Doc>(deps, 'action', 'name');
      for (const n of ['p1', 'p2', 'p3', 'p4', 'p5']) {
        await kind.create(
          ctx(),
          { ...draft(n), arn: draft(n).arn.replace('context', 'action') },
          { Name: n },
          undefined,
        );
      }
      const query = entityQuery('action', { SortBy: 'Name', SortOrder: 'Ascending' });
      const seen: string[] = [];
      let token: string | undefined;
      do {
        const page = await kind.list(ctx(), 'ListActions', { MaxResults: 2, NextToken: token }, query);
        seen.push(...page.rows.map((r) => r.name!));
        token = page.NextToken;
      } while (token);
      assert.deepEqual(seen, ['p1', 'p2', 'p3', 'p4', 'p5']);
      const first = await kind.list(ctx(), 'ListActions', { MaxResults: 2 }, query);
      const other = entityQuery('action', { SortBy: 'CreationTime' });
      await assert.rejects(kind.list(ctx(), 'ListActions', { NextToken: first.NextToken }, other), /pagination token/i);
    });
  });
}
