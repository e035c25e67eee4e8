// Counters of the server's background parts: storage hygiene (src/storage/blobs/blob-gc.ts) and
// endpoint concurrency shared through PostgreSQL (src/inference/concurrency/shared-limiter.ts).
import type { SharedLimiterStats } from '../inference/concurrency/shared-limiter.js';
import type { BlobGcResult } from '../storage/blobs/blob-gc.js';
import type { MetricsRegistry } from './registry.js';

export function storageCounters(m: MetricsRegistry): (r: BlobGcResult) => void {
  const uploads = m.counter(
    'slipway_storage_expired_uploads_total',
    'Multipart uploads aborted for being older than --incomplete-upload-days.',
  );
  const blobs = m.counter(
    'slipway_storage_orphan_blobs_removed_total',
    'Object-store files no object or part referred to, removed.',
  );
  const bytes = m.counter('slipway_storage_orphan_bytes_removed_total', 'Bytes of the orphan files removed.');
  const runs = m.counter('slipway_storage_cleanup_runs_total', 'Storage cleanup passes.');
  return (r) => {
    runs.with().inc();
    uploads.with().inc(r.expiredUploads);
    blobs.with().inc(r.removedBlobs);
    bytes.with().inc(r.removedBytes);
  };
}

export function concurrencyCounters(m: MetricsRegistry, s: SharedLimiterStats): void {
  m.counterOf(
    'slipway_concurrency_grants_total',
    'Requests for endpoint concurrency slots that needed PostgreSQL (the rest were served from slots held here).',
    [],
    () => [[[], s.grows]],
  );
  m.counterOf('slipway_concurrency_grant_seconds_total', 'Time spent on those requests.', [], () => [
    [[], s.growSeconds],
  ]);
  m.counterOf(
    'slipway_concurrency_cluster_throttles_total',
    'Invocations refused because other replicas held the rest of a limit.',
    [],
    () => [[[], s.throttled]],
  );
}
