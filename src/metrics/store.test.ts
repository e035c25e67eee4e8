// The metrics store on both dialects: writes are read back at once (before compaction), compaction
// and roll-ups keep every statistic, retention drops old points, and a rolled-back write leaves no
// series id behind.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { DIALECTS, type TestDatabase } from '../../test/support/databases.js';
import { MIGRATIONS } from '../storage/migrations.js';
import { fromValues } from './distribution.js';
import { MetricsMaintenance } from './maintenance.js';
import { aggregateOf, type SeriesKey, statisticSet } from './series.js';
import { periods, statistic } from './statistics.js';
import { MetricStore } from './store.js';

const p = { accountId: '111122223333', region: 'us-east-1' };
const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const series: SeriesKey = {
  namespace: 'App',
  metricName: 'Latency',
  dimensions: [
    { Name: 'Service', Value: 'api' },
    { Name: 'Host', Value: 'a' },
  ],
};
/** The same dimensions in another order name the same series. */
const reordered: SeriesKey = { ...series, dimensions: [...series.dimensions].reverse() };

for (const d of DIALECTS) {
  describe(`metric store (${d.name})`, () => {
    let t: TestDatabase;
    const store = new MetricStore();
    let now = T0 + 10 * MIN;
    const upkeep = () =>
      new MetricsMaintenance({
        db: t.db,
        log: pino({ level: 'silent' }),
        retentionDays: 455,
        batch: 7,
        now: () => now,
      });
    before(async () => {
      t = await d.open(MIGRATIONS);
    });
    after(() => t.cleanup());

    test('points are read back before and after compaction with the same statistics', async () => {
      const points = [];
      for (let i = 0; i < 20; i++) {
        points.push({
          series: i % 2 ? series : reordered,
          timestamp: T0 + i * 10_000,
          unit: 'Milliseconds',
          resolution: 60,
          agg: aggregateOf(i + 1),
        });
      }
      await store.write(t.db, p, points, now);
      const id = (await store.findSeries(t.db, p, series))!;
      const read = async () =>
        periods(await store.read(t.db, id, { from: T0, to: T0 + 10 * MIN, withDist: true }), T0, T0 + 10 * MIN, MIN);
      const before = await read();
      assert.equal(before.length, 4); // 20 values, 10 s apart: minutes 0-3
      assert.deepEqual(
        before.map((x) => x.agg.count),
        [6, 6, 6, 2],
      );
      assert.equal(statistic(before[0]!.agg, 'Sum'), 1 + 2 + 3 + 4 + 5 + 6);
      assert.equal(statistic(before[0]!.agg, 'p50'), 3);
      // One write of 20 values in 4 minutes is 4 ingest rows (merged as they are written).
      const folded = await upkeep().compactAll();
      assert.equal(folded, 4);
      const pointsLeft = await t.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM metric_points');
      assert.equal(Number(pointsLeft!.n), 4, 'one point per minute');
      const after = await read();
      assert.deepEqual(
        after.map((x) => [x.timestamp, x.agg.count, x.agg.sum, x.agg.min, x.agg.max, statistic(x.agg, 'p90')]),
        before.map((x) => [x.timestamp, x.agg.count, x.agg.sum, x.agg.min, x.agg.max, statistic(x.agg, 'p90')]),
      );
      // A late point for a compacted minute merges into it.
      await store.write(
        t.db,
        p,
        [{ series, timestamp: T0 + 5_000, unit: 'Milliseconds', resolution: 60, agg: aggregateOf(100) }],
        now,
      );
      await upkeep().compactAll();
      const merged = await read();
      assert.equal(merged[0]!.agg.count, 7);
      assert.equal(merged[0]!.agg.max, 100);
    });

    test('statistic sets keep percentiles only when every sample had one value', async () => {
      const s2 = { ...series, metricName: 'Sets' };
      await store.write(
        t.db,
        p,
        [
          { series: s2, timestamp: T0, unit: 'Count', resolution: 60, agg: statisticSet(4, 10, 1, 4) },
          { series: s2, timestamp: T0 + MIN, unit: 'Count', resolution: 60, agg: statisticSet(3, 6, 2, 2) },
          {
            series: s2,
            timestamp: T0 + 2 * MIN,
            unit: 'Count',
            resolution: 60,
            agg: { count: 4, sum: 10, min: 1, max: 4, dist: fromValues([1, 2, 3, 4]) },
          },
        ],
        now,
      );
      const id = (await store.findSeries(t.db, p, s2))!;
      const dps = periods(
        await store.read(t.db, id, { from: T0, to: T0 + 3 * MIN, withDist: true }),
        T0,
        T0 + 3 * MIN,
        MIN,
      );
      assert.deepEqual(
        dps.map((x) => statistic(x.agg, 'p50')),
        [undefined, 2, 2],
      );
      assert.deepEqual(
        dps.map((x) => statistic(x.agg, 'Average')),
        [2.5, 2, 2.5],
      );
    });

    test('roll-ups keep counts, sums and extremes; retention drops what is older', async () => {
      const old: SeriesKey = { namespace: 'App', metricName: 'Old', dimensions: [] };
      const start = T0 - 20 * 86_400_000; // 20 days before T0: past the 15-day tier
      const pts = [];
      for (let i = 0; i < 10; i++)
        pts.push({ series: old, timestamp: start + i * MIN, unit: 'Count', resolution: 60, agg: aggregateOf(i) });
      // High resolution, 4 hours old: folded into minutes.
      for (let i = 0; i < 6; i++)
        pts.push({
          series: old,
          timestamp: now - 4 * 3_600_000 + i * 1000,
          unit: 'Count',
          resolution: 1,
          agg: aggregateOf(10),
        });
      await store.write(t.db, p, pts, now);
      const m = upkeep();
      await m.rollupAll();
      const id = (await store.findSeries(t.db, p, old))!;
      const rows = await store.read(t.db, id, { from: 0, to: now + MIN });
      const byRes = (r: number) => rows.filter((x) => x.resolution === r);
      assert.deepEqual(
        byRes(300).map((x) => x.agg.count),
        [5, 5],
      );
      assert.deepEqual(
        byRes(300).map((x) => [x.agg.sum, x.agg.min, x.agg.max]),
        [
          [10, 0, 4],
          [35, 5, 9],
        ],
      );
      assert.equal(byRes(60).length, 1);
      assert.equal(byRes(60)[0]!.agg.count, 6);
      assert.equal(byRes(1).length, 0);
      now += 460 * 86_400_000;
      await m.retain();
      assert.deepEqual(await store.read(t.db, id, { from: 0, to: now }), []);
    });

    test('a write that rolls back leaves its new series unknown', async () => {
      const s3: SeriesKey = { namespace: 'App', metricName: 'RolledBack', dimensions: [] };
      const fresh = new Map();
      await assert.rejects(
        t.db.transaction(async (tx) => {
          await store.append(
            tx,
            p,
            [{ series: s3, timestamp: now, unit: 'None', resolution: 60, agg: aggregateOf(1) }],
            now,
            fresh,
          );
          throw new Error('abort');
        }),
      );
      assert.equal(await store.findSeries(t.db, p, s3), undefined);
      await store.write(
        t.db,
        p,
        [{ series: s3, timestamp: now, unit: 'None', resolution: 60, agg: aggregateOf(2) }],
        now,
      );
      const id = (await store.findSeries(t.db, p, s3))!;
      const back = await store.read(t.db, id, { from: now - MIN, to: now + MIN });
      assert.equal(back.length, 1);
      assert.equal(back[0]!.agg.sum, 2);
    });
  });
}
