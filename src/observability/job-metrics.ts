// Background jobs (src/jobs): items queued and running by kind, across every replica (read from the
// database at each scrape, at most once a second); runs that ended here by kind and final status;
// and the claim lag, from submission to a replica starting the work.
import { countActive } from '../jobs/store.js';
import type { JobObserver } from '../jobs/types.js';
import type { Database } from '../storage/db/types.js';
import type { MetricsRegistry } from './registry.js';

const JOB_LAG_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

export function jobMetrics(m: MetricsRegistry, db: Database): JobObserver {
  let active: Array<{ kind: string; state: string; n: number }> = [];
  let readAt = 0;
  m.beforeRender(async () => {
    if (Date.now() - readAt < 1000) return;
    active = await countActive(db);
    readAt = Date.now();
  });
  m.gauge(
    'slipway_jobs',
    'Background work items not finished, by kind and state (queued, running), on every replica.',
    ['kind', 'state'],
    () => active.map((a) => [[a.kind, a.state], a.n] as const),
  );
  const running = new Map<string, number>();
  m.gauge('slipway_jobs_running_here', 'Background work items running on this replica, by kind.', ['kind'], () =>
    [...running].map(([k, n]) => [[k], n] as const),
  );
  const finished = m.counter(
    'slipway_jobs_finished_total',
    'Runs that ended on this replica, by kind and final status.',
    ['kind', 'status'],
  );
  const lag = m.histogram(
    'slipway_job_claim_lag_seconds',
    'Time from a work item being submitted to a replica starting it (first attempts).',
    ['kind'],
    JOB_LAG_BUCKETS,
  );
  return {
    started(kind, _id, _attempt, claimLagMs) {
      running.set(kind, (running.get(kind) ?? 0) + 1);
      if (claimLagMs !== undefined) lag.with(kind).observe(claimLagMs / 1000);
      return (status) => {
        running.set(kind, (running.get(kind) ?? 1) - 1);
        finished.with(kind, status).inc();
      };
    },
  };
}
