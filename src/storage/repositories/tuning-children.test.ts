// A tuning job's children on both dialects: joined with their training jobs, paged in every sort
// (ties in objective and status), children without an objective left out of the objective sort.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DIALECTS, type TestDatabase } from '../../../test/support/databases.js';
import { MIGRATIONS } from '../migrations.js';
import { ResourceTable } from './resource-table.js';
import { type ChildSort, TuningChildRepository } from './tuning-children.js';

const p = { accountId: '111122223333', region: 'us-east-1' };

for (const d of DIALECTS) {
  describe(`tuning job children (${d.name})`, () => {
    let t: TestDatabase;
    const training = new ResourceTable('training_jobs');
    const children = new TuningChildRepository();
    // seq → [status, objective]: ties in both, two without an objective.
    const rows: Array<[string, number | null]> = [
      ['Completed', 2.5],
      ['Completed', 1.5],
      ['Stopped', 2.5],
      ['Failed', null],
      ['Completed', 0.5],
      ['InProgress', null],
      ['Completed', 1.5],
    ];
    before(async () => {
      t = await d.open(MIGRATIONS);
      for (const [i, [status, objective]] of rows.entries()) {
        const name = `Tune-00${i + 1}-abc`;
        await training.insert(t.db, p, {
          name_key: name.toLowerCase(),
          name,
          arn: `arn:aws:sagemaker:us-east-1:111122223333:training-job/${name}`,
          status,
          doc: '{}',
          created_at: 1_700_000_000_000 + Math.floor(i / 2),
          last_modified_at: 1_700_000_000_000,
        });
        await children.insert(t.db, p, {
          tuning_key: 'tune',
          seq: i + 1,
          child_key: name.toLowerCase(),
          definition_name: null,
          tuned: JSON.stringify({ eta: String(i / 10) }),
          objective,
          objective_status: objective === null ? (status === 'Failed' ? 'Failed' : 'Pending') : 'Succeeded',
          created_at: 1_700_000_000_000 + Math.floor(i / 2),
        });
      }
      // Another tuning job's child is not listed.
      await children.insert(t.db, p, {
        tuning_key: 'other',
        seq: 1,
        child_key: 'x',
        definition_name: null,
        tuned: '{}',
        objective: 0,
        objective_status: 'Succeeded',
        created_at: 0,
      });
    });
    after(() => t.cleanup());

    test('all children with their training jobs, in launch order; by child name', async () => {
      const all = await children.all(t.db, p, 'tune');
      assert.deepEqual(
        all.map((c) => c.seq),
        [1, 2, 3, 4, 5, 6, 7],
      );
      assert.equal(all[2]!.status, 'Stopped');
      assert.equal(all[4]!.objective, 0.5);
      assert.equal((await children.byChild(t.db, p, 'tune-003-abc'))?.seq, 3);
      assert.equal(await children.count(t.db, p, 'tune'), 7);
    });

    for (const sortBy of ['Name', 'CreationTime', 'Status', 'FinalObjectiveMetricValue'] as ChildSort[]) {
      for (const descending of [false, true]) {
        test(`${sortBy} ${descending ? 'descending' : 'ascending'}: pages of 2 visit every child once, in order`, async () => {
          const all = await children.page(t.db, p, 'tune', { sortBy, descending, limit: 100 });
          assert.equal(all.length, sortBy === 'FinalObjectiveMetricValue' ? 5 : 7);
          const seen: number[] = [];
          let after: [string | number | null, number] | undefined;
          for (let pages = 0; pages < 20; pages++) {
            const page = await children.page(t.db, p, 'tune', { sortBy, descending, after, limit: 2 });
            seen.push(...page.map((c) => c.seq));
            if (page.length < 2) break;
            const last = page[page.length - 1]!;
            after = [children.sortValue(last, sortBy), last.seq];
          }
          assert.deepEqual(
            seen,
            all.map((c) => c.seq),
          );
          if (sortBy === 'FinalObjectiveMetricValue') {
            assert.deepEqual(seen, descending ? [3, 1, 7, 2, 5] : [5, 2, 7, 1, 3]);
          }
        });
      }
    }

    test('StatusEquals filters on the training job’s status; setObjective records an end', async () => {
      const done = await children.page(t.db, p, 'tune', {
        status: 'Completed',
        sortBy: 'Name',
        descending: false,
        limit: 10,
      });
      assert.deepEqual(
        done.map((c) => c.seq),
        [1, 2, 5, 7],
      );
      await children.setObjective(t.db, p, 'tune', 6, 0.25, 'Succeeded');
      const best = await children.page(t.db, p, 'tune', {
        sortBy: 'FinalObjectiveMetricValue',
        descending: false,
        limit: 1,
      });
      assert.equal(best[0]!.seq, 6);
      await children.removeAll(t.db, p, 'tune');
      assert.equal(await children.count(t.db, p, 'tune'), 0);
      assert.equal(await children.count(t.db, p, 'other'), 1);
    });
  });
}
