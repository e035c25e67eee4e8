// What the Create/Describe/List/Stop handlers of training, transform and processing jobs share: the job's row,
// its trial component and its work item committed together, Stop through the runner, and the
// job-table kind with SageMaker's "not found" / "already exists" wording.
import { sagemakerArn } from '../../domain/arn.js';
import { ResourceInUse, ResourceNotFound } from '../../generated/sagemaker/errors.js';
import type { Tag } from '../../generated/sagemaker/shapes.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { TableWork } from '../../jobs/table-job.js';
import type { JobKind } from '../../jobs/types.js';
import { type JobStarted, JobLineageError, recordJobProgress, recordJobStarted } from '../../lineage/job-recorder.js';
import type { RequestContext } from '../../protocol/context.js';
import { ValidationException } from '../../protocol/common-errors.js';
import { parseS3Uri } from '../../storage/blobs/blob-store.js';
import type { Queryable } from '../../storage/db/types.js';
import type { ResourceTable } from '../../storage/repositories/resource-table.js';
import type { ServiceDeps } from '../common/deps.js';
import { tableKind } from '../common/table-kind.js';

export interface JobService {
  readonly runner: JobRunner;
  readonly kind: JobKind<TableWork>;
}

export function parseS3OrFail(uri: string, what: string): void {
  try {
    if (parseS3Uri(uri).bucket === '') throw new Error();
  } catch {
    throw new ValidationException(`The S3 URI of ${what} is not valid: ${uri}`);
  }
}

/** Writes committed with a new job: `prepare` before its lineage is recorded, `within` after its work item. */
export interface JobCreateHooks {
  prepare?(tx: Queryable, arn: string): Promise<void>;
  within?(tx: Queryable, arn: string): Promise<void>;
}

/** What differs between the job kinds sharing these handlers. */
export interface JobTableOptions<Doc> {
  /** "Training job" / "Transform job" / "Processing job" (Stop's refusal names it). */
  readonly label: string;
  /** The ARN's resource type: training-job, transform-job, processing-job. */
  readonly arnType: string;
  readonly lineage: JobStarted['kind'];
  /** SageMaker's wording for a missing job and a taken name, where the kind's own differs. */
  readonly notFound?: (name: string) => Error;
  readonly taken?: (arn: string) => Error;
  /** What Stop records in the job's document beside its status (a training job's secondary status). */
  readonly onStop?: (doc: Doc, at: number) => void;
}

/** The Create and Stop of every job kind, over its table. */
export function tableJobs<Doc>(deps: ServiceDeps, table: ResourceTable, service: JobService, o: JobTableOptions<Doc>) {
  const { label, arnType, lineage } = o;
  const kind = tableKind<Doc>(deps, table, {
    // SageMaker answers a missing job with ValidationException, though the model lists
    // ResourceNotFound (boto/boto3#2808, aws/aws-sdk#165; aws-controllers-k8s/sagemaker-controller
    // matches these exact messages to tell "gone" from a real error).
    notFound: (_p, name) =>
      o.notFound?.(name) ?? new ValidationException(`Could not find requested job with name ${name}`),
    taken: (_p, arn) =>
      o.taken?.(arn) ??
      new ResourceInUse(
        `Job name must be unique within an AWS account and region, and a job with this name already exists (${arn})`,
      ),
  });
  /** Stop's writes inside tx (call the runner's wake() once it commits). */
  const stopIn = async (tx: Queryable, ctx: RequestContext, name: string): Promise<void> => {
    const row = await kind.get(tx, ctx, name, true);
    if (row.status !== 'InProgress') {
      throw new ValidationException(
        `The request was rejected because the ${label.toLowerCase()} is in status ${row.status}.`,
      );
    }
    let doc: string | undefined;
    if (o.onStop) {
      const d = kind.doc(row);
      o.onStop(d, ctx.receivedAt);
      doc = JSON.stringify(d);
    }
    await kind.store.save(tx, ctx, row, {
      ...(doc === undefined ? {} : { doc }),
      status: 'Stopping',
      last_modified_at: ctx.receivedAt,
    });
    await recordJobProgress(tx, ctx, { kind: lineage, jobArn: row.arn, at: ctx.receivedAt, status: 'Stopping' });
    await service.runner.recordTransition(tx, service.kind.name, row.arn, 'Stopping');
    // A job still queued ends here (its kind writes Stopped); a running one sees its signal abort.
    await service.runner.requestStop(service.kind.name, row.arn, tx);
  };
  return {
    kind,
    async create(
      ctx: RequestContext,
      name: string,
      doc: Doc,
      tags: Tag[] | undefined,
      maxRuntimeSeconds: number | undefined,
      lineageStart: Omit<JobStarted, 'kind' | 'jobName' | 'jobArn' | 'at'>,
      /** More writes to commit with the job (a tuning job's record of its child): before its lineage, and after. */
      extra?: JobCreateHooks,
    ): Promise<string> {
      const arn = sagemakerArn(ctx, arnType, name);
      const work: TableWork = {
        accountId: ctx.accountId,
        region: ctx.region,
        nameKey: name.toLowerCase(),
        maxRuntimeSeconds,
      };
      try {
        await kind.create(ctx, { arn, name, status: 'InProgress' }, doc, tags, async (tx) => {
          if (extra?.prepare) await extra.prepare(tx, arn);
          await recordJobStarted(tx, ctx, {
            ...lineageStart,
            kind: lineage,
            jobName: name,
            jobArn: arn,
            at: ctx.receivedAt,
          });
          await service.runner.submit(service.kind, arn, work, { tx, status: 'InProgress', message: 'Starting' });
          if (extra?.within) await extra.within(tx, arn);
        });
      } catch (e) {
        if (e instanceof JobLineageError) throw new ResourceNotFound(e.message);
        throw e;
      }
      service.runner.wake();
      return arn;
    },
    async stop(ctx: RequestContext, name: string): Promise<void> {
      await deps.db.transaction((tx) => stopIn(tx, ctx, name));
      service.runner.wake();
    },
    stopIn,
  };
}
