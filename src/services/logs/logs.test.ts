// The CloudWatch Logs read API over a real database, on every dialect: what `aws logs tail` and the
// SageMaker SDK's log streaming call, with the paging each relies on.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { DIALECTS, type TestDatabase } from '../../../test/support/databases.js';
import { PageTokens } from '../../domain/page-token.js';
import type { RequestContext } from '../../protocol/context.js';
import { MIGRATIONS } from '../../storage/migrations.js';
import { createRepositories, type ServiceDeps } from '../common/deps.js';
import { appendLogs, createLogsHandlers } from './index.js';

const ctx: RequestContext = {
  requestId: 'r',
  accountId: '123456789012',
  region: 'us-east-1',
  log: pino({ level: 'silent' }),
  receivedAt: Date.now(),
};
const GROUP = '/aws/sagemaker/TrainingJobs';

for (const dialect of DIALECTS) {
  describe(`CloudWatch Logs on ${dialect.name}`, () => {
    let t: TestDatabase;
    let deps: ServiceDeps;
    let logs: ReturnType<typeof createLogsHandlers>;
    before(async () => {
      t = await dialect.open(MIGRATIONS);
      deps = { db: t.db, tokens: new PageTokens(randomBytes(32)), repos: createRepositories() };
      logs = createLogsHandlers(deps);
      const rounds = Array.from({ length: 25 }, (_, i) => ({
        timestamp: 1000 + i * 10,
        message: `[${i}]\ttrain-rmse:${(1 / (i + 1)).toFixed(5)}`,
      }));
      await appendLogs(deps, ctx, GROUP, 'job-a/algo-1-1700000000', rounds);
      await appendLogs(deps, ctx, GROUP, 'job-b/algo-1-1700000001', [
        { timestamp: 1005, message: 'ERROR reading channel train' },
        { timestamp: 1500, message: 'Training failed' },
      ]);
    });
    after(() => t.cleanup());

    test('DescribeLogGroups and DescribeLogStreams with a prefix, as the SageMaker SDK looks up a job', async () => {
      const g = await logs.describeLogGroups({ logGroupNamePrefix: '/aws/sagemaker/' }, ctx);
      assert.deepEqual(
        g.logGroups?.map((x) => x.logGroupName),
        [GROUP],
      );
      const s = await logs.describeLogStreams({ logGroupName: GROUP, logStreamNamePrefix: 'job-a/' }, ctx);
      assert.deepEqual(
        s.logStreams?.map((x) => [x.logStreamName, x.firstEventTimestamp, x.lastEventTimestamp]),
        [['job-a/algo-1-1700000000', 1000, 1240]],
      );
      const byTime = await logs.describeLogStreams(
        { logGroupName: GROUP, orderBy: 'LastEventTime', descending: true, limit: 1 },
        ctx,
      );
      assert.equal(byTime.logStreams?.[0]?.logStreamName, 'job-b/algo-1-1700000001');
      const next = await logs.describeLogStreams(
        { logGroupName: GROUP, orderBy: 'LastEventTime', descending: true, limit: 1, nextToken: byTime.nextToken },
        ctx,
      );
      assert.equal(next.logStreams?.[0]?.logStreamName, 'job-a/algo-1-1700000000');
      await assert.rejects(
        logs.describeLogStreams({ logGroupName: '/nope' }, ctx),
        /The specified log group does not exist/,
      );
    });

    test('GetLogEvents pages forward from the head and ends on a repeated token', async () => {
      const seen: string[] = [];
      let token: string | undefined;
      for (let i = 0; i < 10; i++) {
        const r = await logs.getLogEvents(
          {
            logGroupName: GROUP,
            logStreamName: 'job-a/algo-1-1700000000',
            startFromHead: true,
            limit: 10,
            nextToken: token,
          },
          ctx,
        );
        seen.push(...(r.events ?? []).map((e) => e.message!));
        if (r.nextForwardToken === token) break;
        token = r.nextForwardToken;
      }
      assert.equal(seen.length, 25);
      assert.match(seen[0]!, /^\[0\]\ttrain-rmse:1\.00000$/);
      assert.match(seen[24]!, /^\[24\]/);
      const tail = await logs.getLogEvents(
        { logGroupName: GROUP, logStreamName: 'job-a/algo-1-1700000000', limit: 3 },
        ctx,
      );
      assert.deepEqual(
        tail.events?.map((e) => e.message!.slice(0, 4)),
        ['[22]', '[23]', '[24]'],
      );
      const back = await logs.getLogEvents(
        { logGroupName: GROUP, logStreamName: 'job-a/algo-1-1700000000', limit: 2, nextToken: tail.nextBackwardToken },
        ctx,
      );
      assert.deepEqual(
        back.events?.map((e) => e.message!.slice(0, 4)),
        ['[20]', '[21]'],
      );
      await assert.rejects(
        logs.getLogEvents({ logGroupName: GROUP, logStreamName: 'missing' }, ctx),
        /The specified log stream does not exist/,
      );
    });

    test('FilterLogEvents interleaves streams by time, filters, and pages', async () => {
      const all = await logs.filterLogEvents({ logGroupName: GROUP, limit: 3 }, ctx);
      assert.deepEqual(
        all.events?.map((e) => [e.logStreamName!.slice(0, 5), e.timestamp]),
        [
          ['job-a', 1000],
          ['job-b', 1005],
          ['job-a', 1010],
        ],
      );
      assert.ok(all.nextToken);
      const rest = await logs.filterLogEvents({ logGroupName: GROUP, nextToken: all.nextToken }, ctx);
      assert.equal(rest.events?.length, 24);
      assert.equal(rest.nextToken, undefined);
      const errors = await logs.filterLogEvents({ logGroupName: GROUP, filterPattern: '?ERROR ?failed' }, ctx);
      assert.deepEqual(
        errors.events?.map((e) => e.message),
        ['ERROR reading channel train', 'Training failed'],
      );
      const windowed = await logs.filterLogEvents(
        { logGroupName: GROUP, logStreamNames: ['job-a/algo-1-1700000000'], startTime: 1200, endTime: 1220 },
        ctx,
      );
      assert.deepEqual(
        windowed.events?.map((e) => e.timestamp),
        [1200, 1210, 1220],
      );
    });
  });
}
