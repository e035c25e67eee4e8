// A hyperparameter tuning job as stored: the validated CreateHyperParameterTuningJob input (what
// DescribeHyperParameterTuningJob echoes, with the `_tuning_objective_metric` SageMaker adds to the
// static hyperparameters) and what the run keeps up to date as children start and end: the
// status counters, the best training job, the completion details. Times are epoch ms.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_DescribeHyperParameterTuningJob.html
import type {
  CreateHyperParameterTuningJobRequest,
  HyperParameterTrainingJobSummary,
  ObjectiveStatusCounters,
  TrainingJobStatusCounters,
} from '../generated/sagemaker/shapes.js';
import type { TableWork } from '../jobs/table-job.js';
import type { TuningChildJob } from '../storage/repositories/tuning-children.js';
import type { TrainingJobDoc } from '../training/training-doc.js';

/** A HyperParameterTrainingJobSummary as documents keep it: times as epoch ms. */
export type StoredSummary = Omit<
  HyperParameterTrainingJobSummary,
  'CreationTime' | 'TrainingStartTime' | 'TrainingEndTime'
> & { CreationTime: number; TrainingStartTime?: number; TrainingEndTime?: number };

export interface TuningJobDoc
  extends Omit<CreateHyperParameterTuningJobRequest, 'HyperParameterTuningJobName' | 'Tags'> {
  /** What the strategies draw from: RandomSeed, or a seed picked at creation (kept so a resumed job goes on alike). */
  Seed: number;
  /** The experiment its training jobs' trials go to (`<tuning-job>-aws-tuning-job`). */
  ExperimentName?: string;
  TrainingJobStatusCounters: Required<TrainingJobStatusCounters>;
  ObjectiveStatusCounters: Required<ObjectiveStatusCounters>;
  BestTrainingJob?: StoredSummary;
  /** With a warm start: the best of this job's and its parents' training jobs. */
  OverallBestTrainingJob?: StoredSummary;
  /** With a warm start: the best of the parents' training jobs (fixed at creation). */
  ParentsBest?: StoredSummary;
  FailureReason?: string;
  EndTime?: number;
  NumberOfTrainingJobsObjectiveNotImproving?: number;
  ConvergenceDetectedTime?: number;
}

/** The tuning job's work item: the job runner's TableWork. */
export type TuningWork = TableWork;

export const TUNING_KIND = 'tuning-job';

export const emptyCounters = (): Pick<TuningJobDoc, 'TrainingJobStatusCounters' | 'ObjectiveStatusCounters'> => ({
  TrainingJobStatusCounters: { Completed: 0, InProgress: 0, RetryableError: 0, NonRetryableError: 0, Stopped: 0 },
  ObjectiveStatusCounters: { Succeeded: 0, Pending: 0, Failed: 0 },
});

/** A failed training job SageMaker could retry: it failed on the service's side, not the job's. */
export const retryable = (failureReason: string | undefined) => /^InternalServerError\b/.test(failureReason ?? '');

/** A child as HyperParameterTrainingJobSummary (times as epoch ms). */
export function childSummary(
  c: TuningChildJob,
  tuningName: string,
  objective: { MetricName: string; Type: 'Maximize' | 'Minimize' },
): StoredSummary {
  const doc = JSON.parse(c.doc) as TrainingJobDoc;
  return {
    ...(c.definition_name ? { TrainingJobDefinitionName: c.definition_name } : {}),
    TrainingJobName: c.name,
    TrainingJobArn: c.arn,
    TuningJobName: tuningName,
    CreationTime: c.created_at,
    TrainingStartTime: doc.TrainingStartTime,
    TrainingEndTime: doc.TrainingEndTime,
    TrainingJobStatus: c.status as StoredSummary['TrainingJobStatus'],
    TunedHyperParameters: JSON.parse(c.tuned) as Record<string, string>,
    FailureReason: doc.FailureReason,
    FinalHyperParameterTuningJobObjectiveMetric:
      c.objective === null ? undefined : { Type: objective.Type, MetricName: objective.MetricName, Value: c.objective },
    ObjectiveStatus: c.objective_status,
  };
}

/** The summary with Date times, as the API returns it. */
export function summaryOut(s: StoredSummary): HyperParameterTrainingJobSummary {
  const at = (ms?: number) => (ms === undefined ? undefined : new Date(ms));
  return {
    ...s,
    CreationTime: new Date(s.CreationTime),
    TrainingStartTime: at(s.TrainingStartTime),
    TrainingEndTime: at(s.TrainingEndTime),
  };
}

const better = (maximize: boolean, a: number, b: number) => (maximize ? a > b : a < b);

/**
 * Improvement is counted as SageMaker counts it for BestObjectiveNotImproving: a job improves on
 * the best so far only by more than 1% of it.
 */
function improves(maximize: boolean, value: number, best: number | undefined): boolean {
  if (best === undefined) return true;
  const margin = Math.abs(best) * 0.01;
  return maximize ? value > best + margin : value < best - margin;
}

export interface ChildrenState {
  counters: Pick<TuningJobDoc, 'TrainingJobStatusCounters' | 'ObjectiveStatusCounters'>;
  best?: TuningChildJob;
  /** Jobs that ended, in the order they ended, since the last one that improved on the best by more than 1%. */
  notImproving: number;
}

/** Counters, best child and jobs-not-improving of a tuning job's children. */
export function childrenState(
  children: readonly TuningChildJob[],
  objectives: (c: TuningChildJob) => boolean,
): ChildrenState {
  const counters = emptyCounters();
  const t = counters.TrainingJobStatusCounters;
  const o = counters.ObjectiveStatusCounters;
  let best: TuningChildJob | undefined;
  for (const c of children) {
    if (c.status === 'Completed') t.Completed++;
    else if (c.status === 'Stopped') t.Stopped++;
    else if (c.status === 'Failed') {
      const reason = (JSON.parse(c.doc) as TrainingJobDoc).FailureReason;
      if (retryable(reason)) t.RetryableError++;
      else t.NonRetryableError++;
    } else t.InProgress++;
    o[c.objective_status]++;
    if (c.objective_status === 'Succeeded' && c.objective !== null) {
      const maximize = objectives(c);
      if (!best || better(maximize, c.objective, best.objective!)) best = c;
    }
  }
  // Jobs not improving: walk the ended ones in end order.
  const ended = children
    .filter((c) => c.objective_status === 'Succeeded' && c.objective !== null)
    .map((c) => ({ c, end: (JSON.parse(c.doc) as TrainingJobDoc).TrainingEndTime ?? c.last_modified_at }))
    .sort((a, b) => a.end - b.end || a.c.seq - b.c.seq);
  let bestSoFar: number | undefined;
  let notImproving = 0;
  for (const { c } of ended) {
    const maximize = objectives(c);
    if (improves(maximize, c.objective!, bestSoFar)) {
      notImproving = 0;
    } else {
      notImproving++;
    }
    if (bestSoFar === undefined || better(maximize, c.objective!, bestSoFar)) bestSoFar = c.objective!;
  }
  return { counters, best, notImproving };
}
