// The bulk loader's jobs as load-jobs.ts keeps them: requests, statuses, feeds, and how a job and
// its error logs are stored in the graph database.
// https://docs.aws.amazon.com/neptune/latest/userguide/load-api-reference-status-response.html
import type { Queryable } from '../../storage/db/types.js';
import type { LoadCounters, LoadErrorLog } from './feed-loader.js';

/** Whether the role `iamRoleArn` may read the `s3://` source (Authorizer.roleMay); absent: any may. */
export type SourceAccess = (iamRoleArn: string, source: string) => boolean;

export type LoadStatus =
  | 'LOAD_NOT_STARTED'
  | 'LOAD_IN_QUEUE'
  | 'LOAD_IN_PROGRESS'
  | 'LOAD_COMPLETED'
  | 'LOAD_CANCELLED_BY_USER'
  | 'LOAD_CANCELLED_DUE_TO_ERRORS'
  | 'LOAD_FAILED'
  | 'LOAD_S3_READ_ERROR'
  | 'LOAD_S3_ACCESS_DENIED_ERROR'
  | 'LOAD_FAILED_BECAUSE_DEPENDENCY_NOT_SATISFIED'
  | 'LOAD_UNEXPECTED_ERROR';

export const RUNNING: ReadonlySet<LoadStatus> = new Set(['LOAD_NOT_STARTED', 'LOAD_IN_QUEUE', 'LOAD_IN_PROGRESS']);

/** A validated load request (the HTTP layer turns strings and JSON booleans into these). */
export interface LoadRequest {
  readonly source: string;
  readonly format: 'csv' | 'opencypher';
  readonly region: string;
  readonly iamRoleArn: string;
  readonly mode: 'RESUME' | 'NEW' | 'AUTO';
  readonly failOnError: boolean;
  readonly parallelism: string;
  readonly parserConfiguration: Readonly<Record<string, string>>;
  readonly updateSingleCardinalityProperties: boolean;
  readonly queueRequest: boolean;
  readonly dependencies: readonly string[];
}

export interface Feed extends LoadCounters {
  readonly fullUri: string;
  readonly etag: string;
  status: LoadStatus;
  totalTimeSpent: number;
  startTime: number;
}

export interface Job {
  readonly id: string;
  readonly seq: number;
  readonly request: LoadRequest;
  status: LoadStatus;
  /** Epoch seconds when the load started (0 while queued). */
  startTime: number;
  totalTimeSpent: number;
  counters: LoadCounters;
  feeds: Feed[];
  errorCount: number;
  /** Error logs while the job runs in this process; persisted ones are read from the database. */
  errors: LoadErrorLog[] | undefined;
  cancelRequested: boolean;
}

/** Neptune keeps the most recent 1,024 jobs and the last 10,000 errors of each. */
export const MAX_JOBS = 1024;
export const MAX_ERRORS = 10_000;
export const MAX_QUEUE = 64;

export class LoaderRequestError extends Error {
  constructor(
    readonly code: 'BadRequestException' | 'BulkLoadIdNotFoundException' | 'InvalidParameterException' | 'S3Exception',
    message: string,
  ) {
    super(message);
  }
}

export interface StatusQuery {
  readonly details: boolean;
  readonly errors: boolean;
  readonly page: number;
  readonly errorsPerPage: number;
}

export function jobDoc(job: Job): string {
  const { errors: _errors, cancelRequested: _cancel, ...rest } = job;
  return JSON.stringify(rest);
}

export async function saveJob(q: Queryable, job: Job): Promise<void> {
  await q.run(
    `INSERT INTO graph_load_jobs (id, seq, source, status, doc) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET status = excluded.status, doc = excluded.doc`,
    [job.id, job.seq, job.request.source, job.status, jobDoc(job)],
  );
}

export async function saveErrors(q: Queryable, loadId: string, errors: readonly LoadErrorLog[]): Promise<void> {
  for (let i = 0; i < errors.length; i += 200) {
    const part = errors.slice(i, i + 200);
    const params = part.flatMap((e, j) => [loadId, i + j, e.errorCode, e.errorMessage, e.fileName, e.recordNum]);
    await q.run(
      `INSERT INTO graph_load_errors (load_id, seq, error_code, error_message, file_name, record_num) VALUES ${part.map(() => '(?,?,?,?,?,?)').join(',')}`,
      params,
    );
  }
}
