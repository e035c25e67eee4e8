// Keyset pagination of ResourceTable on both dialects, with ties in every sort key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DIALECTS, type TestDatabase } from '../../../test/support/databases.js';
import { MIGRATIONS } from '../migrations.js';
import { ResourceTable, type SortKey } from './resource-table.js';

const p = { accountId: '111122223333', region: 'us-east-1' };

for (const d of DIALECTS) {
  describe(`ResourceTable pagination (${d.name})`, () => {
    let t: TestDatabase;
    const table = new ResourceTable('models');
    // Nine rows in three creation-time ties and two statuses; names mix case and punctuation so a
    // locale collation would order them differently from bytewise.
    const names = ['b-2', 'A1', 'a-1', 'ab', 'a_b', 'B', 'c', 'a-b', 'Z'];
    before(async () => {
      t = await d.open(MIGRATIONS);
      for (const [i, name] of names.entries()) {
        await table.insert(t.db, p, {
          name_key: name.toLowerCase(),
          name,
          arn: `arn:aws:sagemaker:us-east-1:111122223333:model/${name.toLowerCase()}`,
          status: i % 2 ? 'InService' : 'Failed',
          doc: '{}',
          created_at: 1_700_000_000_000 + Math.floor(i / 3),
          last_modified_at: 1_700_000_000_000,
        });
      }
    });
    after(() => t.cleanup());

    for (const sortBy of ['name', 'created', 'status'] as SortKey[]) {
      for (const descending of [false, true]) {
        test(`${sortBy} ${descending ? 'descending' : 'ascending'}: pages of 2 visit every row once, in order`, async () => {
          const all = await table.list(t.db, p, { sortBy, descending, limit: 100 });
          assert.equal(all.length, names.length);
          const seen: string[] = [];
          let after: [string | number | null, string] | undefined;
          for (let pages = 0; pages < 20; pages++) {
            const page = await table.list(t.db, p, { sortBy, descending, after, limit: 2 });
            seen.push(...page.map((r) => r.name));
            if (page.length < 2) break;
            const last = page[page.length - 1]!;
            after = [table.sortValue(last, sortBy), last.name_key];
          }
          assert.deepEqual(
            seen,
            all.map((r) => r.name),
          );
          // Bytewise order of the lower-cased names, identical on both dialects.
          if (sortBy === 'name') {
            const sorted = [...names].sort((x, y) => (x.toLowerCase() < y.toLowerCase() ? -1 : 1));
            assert.deepEqual(seen, descending ? sorted.reverse() : sorted);
          }
        });
      }
    }
  });
}
