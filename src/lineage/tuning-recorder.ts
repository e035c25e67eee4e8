// The experiment tracking SageMaker records for a hyperparameter tuning job: "A hyperparameter
// tuning job automatically creates Amazon SageMaker experiments, trials, and trial components for
// each training job that it runs" — the experiment `<tuning-job>-aws-tuning-job` (Source = the
// tuning job), a trial `<training-job>-aws-trial` in it per training job, holding that job's trial
// component `<training-job>-aws-training-job` (./job-recorder.ts). Written in the transactions
// that create the tuning job and each training job.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateHyperParameterTuningJob.html
import type { Partition } from '../domain/arn.js';
import type { Queryable } from '../storage/db/types.js';
import { LineageEntityRepository } from '../storage/repositories/lineage-entities.js';
import { LineageTrialMemberRepository } from '../storage/repositories/lineage-trial-members.js';
import { sourceKey, trialComponentType } from './entities.js';
import { freeName } from './graph-writes.js';
import { insertEntity } from './recorder.js';

const entities = new LineageEntityRepository();
const members = new LineageTrialMemberRepository();

export const TUNING_SOURCE_TYPE = 'SageMakerTuningJob';

/** The tuning job's experiment; returns its name (`<tuning-job>-aws-tuning-job`, or the next free one). */
export async function recordTuningStarted(
  tx: Queryable,
  p: Partition,
  t: { tuningName: string; tuningArn: string; at: number },
): Promise<string> {
  const name = await freeName(tx, entities, p, 'experiment', `${t.tuningName}-aws-tuning-job`);
  const row = await insertEntity(tx, p, 'experiment', name, '', t.tuningArn, t.at, {
    Source: { SourceArn: t.tuningArn, SourceType: TUNING_SOURCE_TYPE },
  });
  await entities.update(tx, row.arn, { entity_type: null });
  return name;
}

/**
 * A training job the tuning job launched (call it after the job's own lineage is recorded): its
 * trial in the tuning job's experiment, holding the job's trial component. Returns the trial's name.
 */
export async function recordTuningTrial(
  tx: Queryable,
  p: Partition,
  t: { experimentName: string; trainingName: string; trainingArn: string; at: number },
): Promise<string | undefined> {
  const experiment = await entities.getByName(tx, p, 'experiment', t.experimentName);
  // The experiment was deleted meanwhile (DeleteExperiment): the job still runs, outside it.
  if (!experiment) return undefined;
  const name = await freeName(tx, entities, p, 'experiment-trial', `${t.trainingName}-aws-trial`);
  const trial = await insertEntity(tx, p, 'experiment-trial', name, '', t.trainingArn, t.at, {
    ExperimentName: experiment.name,
    Source: { SourceArn: t.trainingArn, SourceType: 'SageMakerTrainingJob' },
  });
  // Trials are found through their experiment (ListTrials, DeleteExperiment's check).
  await entities.update(tx, trial.arn, { parent_key: experiment.name_key, entity_type: null });
  const component = await entities.getBySource(
    tx,
    p,
    'experiment-trial-component',
    sourceKey(t.trainingArn),
    trialComponentType('SageMakerTrainingJob')!,
  );
  if (component) await members.add(tx, trial.arn, component.arn, t.at);
  return name;
}
