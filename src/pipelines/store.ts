// The durable step records of pipeline executions (table pipeline_steps, migration 0090): one row
// per step of an execution that started, advanced only by the executor (and by the callback
// operations for Callback steps); the executor's whole state, so a restart loses nothing.
import type { Partition } from '../domain/arn.js';
import { forUpdate } from '../storage/db/dialect.js';
import type { Queryable, SqlValue } from '../storage/db/types.js';
import type { Json } from './expressions.js';

/**
 * Starting | Executing | Stopping | Stopped | Failed | Succeeded as ListPipelineExecutionSteps
 * shows them; Pending is a step RetryPipelineExecution put back to run again (not listed).
 */
export type StepStatus = 'Pending' | 'Starting' | 'Executing' | 'Stopping' | 'Stopped' | 'Failed' | 'Succeeded';

export interface StepRow {
  readonly execution_arn: string;
  readonly step_name: string;
  readonly account_id: string;
  readonly region: string;
  readonly pipeline_key: string;
  readonly step_type: string;
  readonly status: StepStatus;
  readonly attempt: number;
  readonly seq: number;
  readonly started_at: number | null;
  readonly ended_at: number | null;
  /** A retry waits until then. */
  readonly not_before: number | null;
  readonly job_arn: string | null;
  readonly cache_key: string | null;
  readonly callback_token: string | null;
  readonly doc: string;
}

/** What a step row's document holds. */
export interface StepDoc {
  /** ListPipelineExecutionSteps' Metadata (the job ARN, the package, the outcome ...). */
  Metadata?: Record<string, Json>;
  FailureReason?: string;
  CacheHitResult?: { SourcePipelineExecutionArn: string };
  /** The Describe* response the step's properties resolve from (`Steps.<name>.<path>`). */
  Properties?: Json;
  /** The job's request as evaluated when the step started (kept so a resumed start sends the same). */
  Request?: Json;
  /** The name of the job (or model) this attempt creates. */
  ResourceName?: string;
  /** A stop was sent to the step's job. */
  StopSent?: boolean;
}

const COLUMNS =
  'execution_arn, step_name, account_id, region, pipeline_key, step_type, status, attempt, seq, started_at, ended_at, not_before, job_arn, cache_key, callback_token, doc';

export async function listSteps(q: Queryable, executionArn: string): Promise<StepRow[]> {
  return q.all<StepRow & Record<string, unknown>>(
    `SELECT ${COLUMNS} FROM pipeline_steps WHERE execution_arn = ? ORDER BY seq`,
    [executionArn],
  );
}

export async function getStep(
  q: Queryable,
  executionArn: string,
  step: string,
  lock = false,
): Promise<StepRow | undefined> {
  return q.get<StepRow & Record<string, unknown>>(
    `SELECT ${COLUMNS} FROM pipeline_steps WHERE execution_arn = ? AND step_name = ?${lock ? forUpdate(q) : ''}`,
    [executionArn, step],
  );
}

export async function insertStep(q: Queryable, row: StepRow): Promise<void> {
  const cols = COLUMNS.split(', ');
  await q.run(
    `INSERT INTO pipeline_steps (${COLUMNS}) VALUES (${cols.map(() => '?').join(', ')})`,
    cols.map((c) => (row as unknown as Record<string, SqlValue>)[c] ?? null),
  );
}

/** Updates a step's columns; `expect` guards against a concurrent change (returns false when the status differs). */
export async function updateStep(
  q: Queryable,
  executionArn: string,
  step: string,
  set: Partial<Record<keyof StepRow, SqlValue>>,
  expect?: StepStatus,
): Promise<boolean> {
  const cols = Object.keys(set);
  const r = await q.run(
    `UPDATE pipeline_steps SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE execution_arn = ? AND step_name = ?${expect ? ' AND status = ?' : ''}`,
    [...cols.map((c) => set[c as keyof StepRow] as SqlValue), executionArn, step, ...(expect ? [expect] : [])],
  );
  return r.changes > 0;
}

/** The most recent successful run of a step with this cache key in the pipeline, ended since `since`. */
export async function findCached(
  q: Queryable,
  p: Partition,
  pipelineKey: string,
  step: string,
  cacheKey: string,
  since: number,
  exceptExecution: string,
): Promise<StepRow | undefined> {
  return q.get<StepRow & Record<string, unknown>>(
    `SELECT ${COLUMNS} FROM pipeline_steps
      WHERE account_id = ? AND region = ? AND pipeline_key = ? AND step_name = ? AND cache_key = ? AND ended_at >= ?
        AND status = 'Succeeded' AND execution_arn <> ?
      ORDER BY ended_at DESC LIMIT 1`,
    [p.accountId, p.region, pipelineKey, step, cacheKey, since, exceptExecution],
  );
}

export async function stepByCallbackToken(q: Queryable, token: string, lock = false): Promise<StepRow | undefined> {
  return q.get<StepRow & Record<string, unknown>>(
    `SELECT ${COLUMNS} FROM pipeline_steps WHERE callback_token = ?${lock ? forUpdate(q) : ''}`,
    [token],
  );
}

/** The execution whose step runs the job `jobArn`, if any. */
export async function executionOfJob(q: Queryable, jobArn: string): Promise<string | undefined> {
  return (
    await q.get<{ execution_arn: string }>('SELECT execution_arn FROM pipeline_steps WHERE job_arn = ?', [jobArn])
  )?.execution_arn;
}

export async function deleteSteps(q: Queryable, executionArn: string): Promise<void> {
  await q.run('DELETE FROM pipeline_steps WHERE execution_arn = ?', [executionArn]);
}
