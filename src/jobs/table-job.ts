// A job kind whose resource is a row of a ResourceTable with one status (transform and processing
// jobs: InProgress → Completed | Failed | Stopped): the run's start, its completion and end() written
// with the row's trial component in the same transaction. Training keeps its own kind (secondary statuses).
import { availableParallelism } from 'node:os';
import type { Partition } from '../domain/arn.js';
import { type JobArtifact, type JobKind as LineageKind, recordJobProgress } from '../lineage/job-recorder.js';
import type { Queryable } from '../storage/db/types.js';
import type { ResourceRow, ResourceTable } from '../storage/repositories/resource-table.js';
import { failureReason, JobFailure, jobFailureReason } from './job-failure.js';
import type { JobKind, RunContext } from './types.js';

/** Where a job's row is, and its time limit. */
export interface TableWork extends Partition {
  readonly accountId: string;
  readonly region: string;
  readonly nameKey: string;
  readonly maxRuntimeSeconds?: number;
}

/** What every such job's document records as it runs (times in epoch ms). */
export interface TableJobDoc {
  FailureReason?: string;
  /** Kept internally; Describe shows them under the kind's own names (TransformStartTime ...). */
  JobStartTime?: number;
  JobEndTime?: number;
}

export interface LoadedJob<D> {
  readonly row: ResourceRow;
  readonly doc: D;
}

export interface TableJobRun<W extends TableWork, D extends TableJobDoc> {
  readonly ctx: RunContext<W>;
  readonly job: LoadedJob<D>;
  /** Commits Completed: the document's last changes, the outputs the trial component Produced. */
  complete(change: (doc: D) => void, outputs?: Record<string, JobArtifact>): Promise<void>;
}

export interface TableJobOptions<W extends TableWork, D extends TableJobDoc> {
  readonly name: string;
  readonly table: ResourceTable;
  readonly db: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> };
  readonly lineage: LineageKind;
  /** "Transform job", "Processing job": the wording of the transitions. */
  readonly label: string;
  readonly concurrency?: number;
  readonly defaultMaxRuntimeSeconds: number;
  /** Reason when MaxRuntimeInSeconds passes. */
  readonly timeoutReason: string;
  /** Where the kind's job directories live (their paths read as /opt/ml/ in failure reasons). */
  readonly jobsDir?: string;
  run(r: TableJobRun<W, D>): Promise<void>;
}

export function tableJobKind<W extends TableWork, D extends TableJobDoc>(o: TableJobOptions<W, D>): JobKind<W> {
  const load = async (q: Queryable, w: W): Promise<LoadedJob<D>> => {
    const row = (await o.table.get(q, w, w.nameKey, true)) as ResourceRow;
    return { row, doc: JSON.parse(row.doc) as D };
  };
  const save = (q: Queryable, w: W, doc: D, status: string, at: number) =>
    o.table.update(q, w, w.nameKey, { doc: JSON.stringify(doc), status, last_modified_at: at });

  return {
    name: o.name,
    concurrency: o.concurrency ?? availableParallelism(),
    onRestart: 'fail',
    maxRuntimeMs: (w) => (w.maxRuntimeSeconds ?? o.defaultMaxRuntimeSeconds) * 1000,
    async run(ctx) {
      const w = ctx.payload;
      const job = await ctx.transaction(async (tx) => {
        const j = await load(tx, w);
        j.doc.JobStartTime = Date.now();
        await save(tx, w, j.doc, j.row.status ?? 'InProgress', j.doc.JobStartTime);
        return j;
      });
      await o.run({
        ctx,
        job,
        complete: (change, outputs) =>
          ctx.transaction(async (tx) => {
            const { row, doc } = await load(tx, w);
            const at = Date.now();
            change(doc);
            doc.JobEndTime = at;
            await save(tx, w, doc, 'Completed', at);
            await recordJobProgress(tx, w, {
              kind: o.lineage,
              jobArn: row.arn,
              at,
              status: 'Completed',
              endTime: at,
              outputs,
            });
            await ctx.finish(tx, 'Completed', `${o.label} completed`);
          }),
      });
    },
    async end(tx, item, why) {
      const w = item.payload;
      const { row, doc } = await load(tx, w);
      const at = Date.now();
      const message = why.cause === 'error' ? jobFailureReason(why, o.jobsDir) : why.message;
      const [status, reason] =
        why.cause === 'stopped'
          ? ['Stopped', undefined]
          : why.cause === 'timeout'
            ? ['Stopped', o.timeoutReason]
            : why.cause === 'error'
              ? ['Failed', message]
              : [
                  'Failed',
                  `InternalServerError: the Slipway server stopped while the job was running (${message}); create the job again.`,
                ];
      if (reason) doc.FailureReason = failureReason(reason);
      if (why.error instanceof JobFailure && why.error.fields) Object.assign(doc, why.error.fields);
      doc.JobEndTime = at;
      await save(tx, w, doc, status, at);
      await recordJobProgress(tx, w, { kind: o.lineage, jobArn: row.arn, at, status, message: reason, endTime: at });
      return { status, message: reason ?? `${o.label} stopped` };
    },
  };
}
