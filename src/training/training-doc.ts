// A training job as stored: the validated CreateTrainingJob input (what DescribeTrainingJob echoes)
// and what the job recorded as it ran. Times are epoch ms. Shared by the job's run (src/training)
// and its API handlers (src/services/sagemaker/training-jobs.ts).
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_DescribeTrainingJob.html
import type { CreateTrainingJobRequest } from '../generated/sagemaker/shapes.js';
import type { TableWork } from '../jobs/table-job.js';

export interface StoredTransition {
  Status: string;
  StartTime: number;
  EndTime?: number;
  StatusMessage?: string;
}

export interface TrainingJobDoc extends Omit<CreateTrainingJobRequest, 'Tags' | 'TrainingJobName'> {
  /** The hyperparameter tuning job that launched this job, if one did. */
  TuningJobArn?: string;
  SecondaryStatus: string;
  SecondaryStatusTransitions: StoredTransition[];
  FailureReason?: string;
  ModelArtifacts?: { S3ModelArtifacts: string };
  FinalMetricDataList?: Array<{ MetricName: string; Value: number; Timestamp: number }>;
  TrainingStartTime?: number;
  TrainingEndTime?: number;
  /** `<job>/algo-1-<epoch seconds>` in /aws/sagemaker/TrainingJobs. */
  LogStreamName?: string;
}

/** What the job's work item carries: where its row is. */
/** A training job's work item: the job runner's TableWork, like every job kind's. */
export type TrainingWork = TableWork;

export const TRAINING_LOG_GROUP = '/aws/sagemaker/TrainingJobs';

/** Ends the open secondary status and opens the next one (or re-words it when it is the same). */
export function advance(doc: TrainingJobDoc, status: string, message: string, at: number): void {
  const open = doc.SecondaryStatusTransitions[doc.SecondaryStatusTransitions.length - 1];
  if (open && open.Status === status) {
    open.StatusMessage = message;
  } else {
    if (open && open.EndTime === undefined) open.EndTime = at;
    doc.SecondaryStatusTransitions.push({ Status: status, StartTime: at, StatusMessage: message });
  }
  doc.SecondaryStatus = status;
}

/** The model artifact's URI: `<S3OutputPath>/<job>/output/model.tar.gz`. */
export function modelArtifactUri(s3OutputPath: string, jobName: string): string {
  return `${s3OutputPath.replace(/\/+$/, '')}/${jobName}/output/model.tar.gz`;
}

/** Parameters of the job's trial component: hyperparameters (numbers as NumberValue) and SageMaker.* settings. */
export function trialParameters(doc: TrainingJobDoc) {
  const out: Record<string, { StringValue: string } | { NumberValue: number }> = {};
  const value = (v: string) =>
    v.trim() !== '' && Number.isFinite(Number(v)) ? { NumberValue: Number(v) } : { StringValue: v };
  for (const [k, v] of Object.entries(doc.HyperParameters ?? {})) out[k] = value(v);
  const image = doc.AlgorithmSpecification?.TrainingImage;
  if (image) out['SageMaker.ImageUri'] = { StringValue: image };
  const rc = doc.ResourceConfig;
  if (rc?.InstanceCount !== undefined) out['SageMaker.InstanceCount'] = { NumberValue: rc.InstanceCount };
  if (rc?.InstanceType) out['SageMaker.InstanceType'] = { StringValue: rc.InstanceType };
  if (rc?.VolumeSizeInGB !== undefined) out['SageMaker.VolumeSizeInGB'] = { NumberValue: rc.VolumeSizeInGB };
  return out;
}
