// The metrics store as the rest of Slipway sees it: one object that writes points durably and
// reads them back, and the upkeep that compacts, rolls up and expires them (see README.md here).
import type { Logger } from 'pino';
import type { Partition } from '../domain/arn.js';
import type { Database } from '../storage/db/types.js';
import { MetricsMaintenance } from './maintenance.js';
import { MetricStore, type PointInput } from './store.js';

export interface Metrics {
  readonly db: Database;
  readonly store: MetricStore;
  readonly maintenance: MetricsMaintenance;
  /** Appends points in one transaction of their own (acknowledged once on disk). */
  write(p: Partition, points: readonly PointInput[], now?: number): Promise<void>;
}

export interface MetricsOptions {
  readonly db: Database;
  readonly log: Logger;
  /** Days points are kept (CloudWatch: 455). */
  readonly retentionDays: number;
}

export function createMetrics(o: MetricsOptions): Metrics {
  const store = new MetricStore();
  const maintenance = new MetricsMaintenance({ db: o.db, log: o.log, retentionDays: o.retentionDays });
  return {
    db: o.db,
    store,
    maintenance,
    write: (p, points, now = Date.now()) => store.write(o.db, p, points, now),
  };
}
