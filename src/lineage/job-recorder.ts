// The lineage and experiment tracking SageMaker records for its jobs (training, batch transform,
// processing), written inside the job's own transactions so a job and its lineage never disagree.
// https://docs.aws.amazon.com/sagemaker/latest/dg/lineage-tracking-auto-creation.html
// https://docs.aws.amazon.com/sagemaker/latest/dg/experiments-create.html (ExperimentConfig)
//
//   job            TrialComponent `<job>-aws-training-job` (Source = job ARN, SourceType SageMakerTrainingJob),
//                  Status following the job, Parameters, Input/OutputArtifacts, Metrics
//   each input     Artifact (DataSet, Image, Model...)  ─ContributedTo→ trial component
//   each output    trial component ─Produced→ Artifact (Model for a training job's model.tar.gz)
//   ExperimentConfig  the trial component joins the named trial, created in the experiment if only
//                  the experiment is named
// Artifacts are one per SourceUri, shared with the registry's and hosting's lineage: the model a
// training job Produced is the artifact a model package or endpoint deploying it ContributedTo.
import type { Partition } from '../domain/arn.js';
import type {
  TrialComponentArtifact,
  TrialComponentMetricSummary,
  TrialComponentParameterValue,
} from '../generated/sagemaker/shapes.js';
import type { Queryable } from '../storage/db/types.js';
import { LineageEntityRepository, type LineageEntityRow } from '../storage/repositories/lineage-entities.js';
import { LineageTrialMemberRepository } from '../storage/repositories/lineage-trial-members.js';
import { entityArn, sourceKey, trialComponentType } from './entities.js';
import { freeName } from './graph-writes.js';
import { ensureArtifacts, insertEntity, link } from './recorder.js';

const entities = new LineageEntityRepository();
const members = new LineageTrialMemberRepository();

export type JobKind = 'training' | 'transform' | 'processing';

const SOURCE_TYPE: Record<JobKind, string> = {
  training: 'SageMakerTrainingJob',
  transform: 'SageMakerTransformJob',
  processing: 'SageMakerProcessingJob',
};

/** An artifact a job reads or writes: its URI, the artifact type, and the media type if known. */
export interface JobArtifact {
  readonly uri: string;
  readonly type: 'DataSet' | 'Image' | 'Model' | (string & {});
  readonly mediaType?: string;
}

export interface JobStarted {
  readonly kind: JobKind;
  readonly jobName: string;
  readonly jobArn: string;
  readonly at: number;
  readonly parameters: Readonly<Record<string, TrialComponentParameterValue>>;
  /** InputArtifacts by name (channel names, `SageMaker.ImageUri`, `SageMaker.ModelArtifact`). */
  readonly inputs: Readonly<Record<string, JobArtifact>>;
  readonly experiment?: { ExperimentName?: string; TrialName?: string; TrialComponentDisplayName?: string };
}

export interface JobProgress {
  readonly jobArn: string;
  readonly kind: JobKind;
  readonly at: number;
  /** The trial component's PrimaryStatus: InProgress, Completed, Failed, Stopping, Stopped (unchanged when absent). */
  readonly status?: string;
  readonly message?: string;
  readonly startTime?: number;
  readonly endTime?: number;
  readonly metrics?: readonly TrialComponentMetricSummary[];
  /** OutputArtifacts by name; each becomes an artifact the trial component Produced. */
  readonly outputs?: Readonly<Record<string, JobArtifact>>;
}

interface TrialComponentDoc {
  TrialComponentName: string;
  DisplayName?: string;
  Status?: { PrimaryStatus: string; Message?: string };
  StartTime?: number;
  EndTime?: number;
  Source: { SourceArn: string; SourceType: string };
  Parameters?: Record<string, TrialComponentParameterValue>;
  InputArtifacts?: Record<string, TrialComponentArtifact>;
  OutputArtifacts?: Record<string, TrialComponentArtifact>;
  Metrics?: StoredMetricSummary[];
}

/** A metric summary as documents keep it: its time as epoch ms. */
export type StoredMetricSummary = Omit<TrialComponentMetricSummary, 'TimeStamp'> & { TimeStamp?: number };

const artifactField = (a: JobArtifact): TrialComponentArtifact =>
  a.mediaType ? { Value: a.uri, MediaType: a.mediaType } : { Value: a.uri };

/** `<job>-aws-training-job`, `<job>-aws-transform-job`, `<job>-aws-processing-job`. */
export const trialComponentName = (kind: JobKind, jobName: string) => `${jobName}-aws-${kind}-job`;

/**
 * A job was created: its trial component, its input artifacts, and its place in an experiment.
 * Returns the trial component's ARN.
 */
export async function recordJobStarted(tx: Queryable, p: Partition, j: JobStarted): Promise<string> {
  const sourceType = SOURCE_TYPE[j.kind];
  const name = await freeName(tx, entities, p, 'experiment-trial-component', trialComponentName(j.kind, j.jobName));
  const doc: TrialComponentDoc = {
    TrialComponentName: name,
    DisplayName: j.experiment?.TrialComponentDisplayName,
    Status: { PrimaryStatus: 'InProgress' },
    StartTime: j.at,
    Source: { SourceArn: j.jobArn, SourceType: sourceType },
    Parameters: { ...j.parameters },
    InputArtifacts: Object.fromEntries(Object.entries(j.inputs).map(([k, a]) => [k, artifactField(a)])),
  };
  const tc: LineageEntityRow = {
    arn: entityArn(p, 'experiment-trial-component', name),
    kind: 'experiment-trial-component',
    name_key: name.toLowerCase(),
    name,
    entity_type: trialComponentType(sourceType),
    source_key: sourceKey(j.jobArn),
    unique_source: null,
    parent_key: null,
    doc: JSON.stringify(doc),
    created_at: j.at,
    last_modified_at: j.at,
  };
  await entities.insert(tx, p, tc);
  for (const a of await ensureArtifacts(tx, p, Object.values(j.inputs), j.at)) {
    await link(tx, p, a, tc, 'ContributedTo', j.at);
  }
  if (j.experiment?.ExperimentName || j.experiment?.TrialName) {
    const trial = await trialFor(tx, p, j, name);
    await members.add(tx, trial.arn, tc.arn, j.at);
  }
  return tc.arn;
}

/** The job moved on: its trial component's status, times, metrics and outputs follow. */
export async function recordJobProgress(tx: Queryable, p: Partition, j: JobProgress): Promise<void> {
  const tc = await entities.getBySource(
    tx,
    p,
    'experiment-trial-component',
    sourceKey(j.jobArn),
    trialComponentType(SOURCE_TYPE[j.kind])!,
  );
  if (!tc) return;
  const doc = JSON.parse(tc.doc) as TrialComponentDoc;
  if (j.status !== undefined)
    doc.Status = j.message ? { PrimaryStatus: j.status, Message: j.message } : { PrimaryStatus: j.status };
  if (j.startTime !== undefined) doc.StartTime = j.startTime;
  if (j.endTime !== undefined) doc.EndTime = j.endTime;
  // Times are stored as epoch ms, as every document keeps them; Describe turns them into dates.
  if (j.metrics?.length) doc.Metrics = j.metrics.map((m) => ({ ...m, TimeStamp: m.TimeStamp?.getTime() }));
  if (j.outputs) {
    doc.OutputArtifacts = {
      ...doc.OutputArtifacts,
      ...Object.fromEntries(Object.entries(j.outputs).map(([k, a]) => [k, artifactField(a)])),
    };
    for (const a of await ensureArtifacts(tx, p, Object.values(j.outputs), j.at)) {
      await link(tx, p, tc, a, 'Produced', j.at);
    }
  }
  await entities.update(tx, tc.arn, { doc: JSON.stringify(doc), last_modified_at: j.at });
}

/** The named trial, or a new one in the named experiment ("if not specified, a new trial is created"). */
async function trialFor(tx: Queryable, p: Partition, j: JobStarted, componentName: string): Promise<LineageEntityRow> {
  const e = j.experiment!;
  if (e.TrialName) {
    const trial = await entities.getByName(tx, p, 'experiment-trial', e.TrialName);
    if (!trial) throw new JobLineageError(`Trial '${e.TrialName}' does not exist.`);
    return trial;
  }
  const experiment = await entities.getByName(tx, p, 'experiment', e.ExperimentName!);
  if (!experiment) throw new JobLineageError(`Experiment '${e.ExperimentName}' does not exist.`);
  const name = await freeName(tx, entities, p, 'experiment-trial', componentName);
  const trial = await insertEntity(tx, p, 'experiment-trial', name, '', j.jobArn, j.at, {
    ExperimentName: experiment.name,
    Source: { SourceArn: j.jobArn, SourceType: SOURCE_TYPE[j.kind] },
  });
  // Trials are found through their experiment (ListTrials, DeleteExperiment's check).
  await entities.update(tx, trial.arn, { parent_key: experiment.name_key, entity_type: null });
  return trial;
}

/** ExperimentConfig names an experiment or trial that does not exist. */
export class JobLineageError extends Error {
  override readonly name = 'JobLineageError';
}
