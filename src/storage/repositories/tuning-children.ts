// The training jobs a hyperparameter tuning job launched (migration 0080): launch order, tuned
// hyperparameters and the final objective each reported, read with the child's own training job
// row (its status and times) for the tuner and ListTrainingJobsForHyperParameterTuningJob.
import type { Partition } from '../../domain/arn.js';
import type { Queryable, SqlValue } from '../db/types.js';

export interface TuningChildRow {
  readonly tuning_key: string;
  readonly seq: number;
  readonly child_key: string;
  readonly definition_name: string | null;
  /** JSON: the tuned hyperparameters as strings. */
  readonly tuned: string;
  readonly objective: number | null;
  readonly objective_status: 'Pending' | 'Succeeded' | 'Failed';
  readonly created_at: number;
}

/** A child with its training job's row. */
export interface TuningChildJob extends TuningChildRow {
  readonly name: string;
  readonly arn: string;
  readonly status: string;
  readonly doc: string;
  readonly last_modified_at: number;
}

export type ChildSort = 'Name' | 'CreationTime' | 'Status' | 'FinalObjectiveMetricValue';

export interface ChildPage {
  readonly status?: string;
  readonly sortBy: ChildSort;
  readonly descending: boolean;
  /** The previous page's last [sort value, seq]. */
  readonly after?: readonly [string | number | null, number];
  readonly limit: number;
}

const SORT: Record<ChildSort, string> = {
  Name: 'c.child_key',
  CreationTime: 'c.created_at',
  Status: 't.status',
  FinalObjectiveMetricValue: 'c.objective',
};

const COLUMNS = `c.tuning_key, c.seq, c.child_key, c.definition_name, c.tuned, c.objective, c.objective_status,
  c.created_at, t.name, t.arn, t.status, t.doc, t.last_modified_at`;
const JOIN = `tuning_job_children c JOIN training_jobs t
  ON t.account_id = c.account_id AND t.region = c.region AND t.name_key = c.child_key`;

const row = (r: Record<string, unknown>): TuningChildJob =>
  ({
    ...r,
    seq: Number(r.seq),
    objective: r.objective === null || r.objective === undefined ? null : Number(r.objective),
    created_at: Number(r.created_at),
    last_modified_at: Number(r.last_modified_at),
  }) as TuningChildJob;

export class TuningChildRepository {
  async insert(q: Queryable, p: Partition, c: TuningChildRow): Promise<void> {
    await q.run(
      `INSERT INTO tuning_job_children (account_id, region, tuning_key, seq, child_key, definition_name, tuned, objective,
         objective_status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        p.accountId,
        p.region,
        c.tuning_key,
        c.seq,
        c.child_key,
        c.definition_name,
        c.tuned,
        c.objective,
        c.objective_status,
        c.created_at,
      ],
    );
  }

  /** The child a training job is (by the training job's name key), if it is one. */
  async byChild(q: Queryable, p: Partition, childKey: string): Promise<TuningChildRow | undefined> {
    const r = await q.get<Record<string, unknown>>(
      `SELECT tuning_key, seq, child_key, definition_name, tuned, objective, objective_status, created_at
       FROM tuning_job_children WHERE account_id = ? AND region = ? AND child_key = ?`,
      [p.accountId, p.region, childKey],
    );
    return r ? (row({ ...r, last_modified_at: 0 }) as TuningChildRow) : undefined;
  }

  /** Every child of a tuning job, in launch order. */
  async all(q: Queryable, p: Partition, tuningKey: string): Promise<TuningChildJob[]> {
    const rows = await q.all<Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM ${JOIN} WHERE c.account_id = ? AND c.region = ? AND c.tuning_key = ? ORDER BY c.seq`,
      [p.accountId, p.region, tuningKey],
    );
    return rows.map(row);
  }

  async count(q: Queryable, p: Partition, tuningKey: string): Promise<number> {
    const r = await q.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM tuning_job_children WHERE account_id = ? AND region = ? AND tuning_key = ?`,
      [p.accountId, p.region, tuningKey],
    );
    return Number(r?.n ?? 0);
  }

  async setObjective(
    q: Queryable,
    p: Partition,
    tuningKey: string,
    seq: number,
    objective: number | null,
    status: TuningChildRow['objective_status'],
  ): Promise<void> {
    await q.run(
      `UPDATE tuning_job_children SET objective = ?, objective_status = ?
       WHERE account_id = ? AND region = ? AND tuning_key = ? AND seq = ?`,
      [objective, status, p.accountId, p.region, tuningKey, seq],
    );
  }

  /**
   * One page of a tuning job's children. Sorted by FinalObjectiveMetricValue, children without an
   * objective value are left out (as SageMaker leaves them out); ties break by launch order.
   */
  async page(q: Queryable, p: Partition, tuningKey: string, o: ChildPage): Promise<TuningChildJob[]> {
    const where = ['c.account_id = ?', 'c.region = ?', 'c.tuning_key = ?'];
    const params: SqlValue[] = [p.accountId, p.region, tuningKey];
    if (o.status !== undefined) {
      where.push('t.status = ?');
      params.push(o.status);
    }
    if (o.sortBy === 'FinalObjectiveMetricValue') where.push('c.objective IS NOT NULL');
    const col = SORT[o.sortBy];
    const dir = o.descending ? 'DESC' : 'ASC';
    const cmp = o.descending ? '<' : '>';
    if (o.after) {
      where.push(`(${col} ${cmp} ? OR (${col} = ? AND c.seq ${cmp} ?))`);
      params.push(o.after[0], o.after[0], o.after[1]);
    }
    params.push(o.limit);
    const rows = await q.all<Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM ${JOIN} WHERE ${where.join(' AND ')} ORDER BY ${col} ${dir}, c.seq ${dir} LIMIT ?`,
      params,
    );
    return rows.map(row);
  }

  /** The sort value of a child for the next page's position. */
  sortValue(c: TuningChildJob, sortBy: ChildSort): string | number | null {
    switch (sortBy) {
      case 'Name':
        return c.child_key;
      case 'CreationTime':
        return c.created_at;
      case 'Status':
        return c.status;
      case 'FinalObjectiveMetricValue':
        return c.objective;
    }
  }

  async removeAll(q: Queryable, p: Partition, tuningKey: string): Promise<void> {
    await q.run(`DELETE FROM tuning_job_children WHERE account_id = ? AND region = ? AND tuning_key = ?`, [
      p.accountId,
      p.region,
      tuningKey,
    ]);
  }
}
