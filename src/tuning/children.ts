// The training jobs a tuning job launches, as SageMaker launches them: named
// `<tuning-job>-NNN-<8 hex>`, the definition's static hyperparameters (with `_tuning_objective_metric`)
// and the tuned ones, the tuning job's tags, TuningJobArn, a trial in the tuning job's experiment;
// and the tuning job's counters and best job, rewritten in the transaction of each child's start and end.
// https://docs.aws.amazon.com/sagemaker/latest/dg/automatic-model-tuning-monitor.html
import { randomBytes } from 'node:crypto';
import type { Partition } from '../domain/arn.js';
import type {
  CreateTrainingJobRequest,
  HyperParameterTrainingJobDefinition,
  ResourceConfig,
  Tag,
} from '../generated/sagemaker/shapes.js';
import { recordTuningTrial } from '../lineage/tuning-recorder.js';
import type { RequestContext } from '../protocol/context.js';
import type { ServiceDeps } from '../services/common/deps.js';
import type { TrainingJobService } from '../services/sagemaker/training-jobs.js';
import type { Queryable } from '../storage/db/types.js';
import type { ResourceRow } from '../storage/repositories/resource-table.js';
import type { TuningChildJob } from '../storage/repositories/tuning-children.js';
import type { TrainingJobDoc } from '../training/training-doc.js';
import { finalObjective } from './algorithm.js';
import { childrenState, childSummary, type StoredSummary, type TuningJobDoc } from './tuning-doc.js';

/** `<tuning-job>-001-1d8a8e6a`: the tuning job's name, the launch number, 8 random hex digits. */
export function childName(tuningName: string, seq: number): string {
  return `${tuningName}-${String(seq).padStart(3, '0')}-${randomBytes(4).toString('hex')}`;
}

/** The objective of each definition of a stored tuning job (by DefinitionName; '' for a single definition). */
export function objectivesOf(doc: TuningJobDoc): Map<string, { MetricName: string; Type: 'Maximize' | 'Minimize' }> {
  const out = new Map<string, { MetricName: string; Type: 'Maximize' | 'Minimize' }>();
  if (doc.TrainingJobDefinition) {
    const o = doc.HyperParameterTuningJobConfig.HyperParameterTuningJobObjective!;
    out.set(doc.TrainingJobDefinition.DefinitionName ?? '', o);
  }
  for (const d of doc.TrainingJobDefinitions ?? []) out.set(d.DefinitionName!, d.TuningObjective!);
  return out;
}

/** The ResourceConfig a child trains with: the definition's, or the first instance of HyperParameterTuningResourceConfig. */
function resourceConfigOf(def: HyperParameterTrainingJobDefinition): ResourceConfig | undefined {
  if (def.ResourceConfig) return def.ResourceConfig;
  const h = def.HyperParameterTuningResourceConfig;
  const first = h?.InstanceConfigs?.[0];
  if (first)
    return {
      InstanceType: first.InstanceType,
      InstanceCount: first.InstanceCount,
      VolumeSizeInGB: first.VolumeSizeInGB,
    };
  return h
    ? { InstanceType: h.InstanceType, InstanceCount: h.InstanceCount, VolumeSizeInGB: h.VolumeSizeInGB }
    : undefined;
}

/** The CreateTrainingJob request of a child: the definition, its static and tuned hyperparameters, the tags. */
export function childRequest(
  def: HyperParameterTrainingJobDefinition,
  name: string,
  tuned: Readonly<Record<string, string>>,
  tags: readonly Tag[],
): CreateTrainingJobRequest {
  const { StaticHyperParameters, DefinitionName: _n, TuningObjective: _o, HyperParameterRanges: _r, ...rest } = def;
  const { HyperParameterTuningResourceConfig: _h, AlgorithmSpecification, ...job } = rest;
  return {
    ...job,
    TrainingJobName: name,
    AlgorithmSpecification: { ...AlgorithmSpecification },
    HyperParameters: { ...StaticHyperParameters, ...tuned },
    ResourceConfig: resourceConfigOf(def),
    ...(tags.length > 0
      ? { Tags: tags.filter((t) => !t.Key.toLowerCase().startsWith('aws:')).map((t) => ({ ...t })) }
      : {}),
  };
}

/**
 * Recomputes a tuning job's counters, best training job and jobs-not-improving from its children
 * and writes them into its document (status unchanged), in tx.
 */
export async function refreshSummary(
  deps: ServiceDeps,
  tx: Queryable,
  p: Partition,
  tuningKey: string,
  at: number,
): Promise<void> {
  const { repos } = deps;
  const row = await repos.tuningJobs.get(tx, p, tuningKey, true);
  if (!row) return;
  const doc = JSON.parse(row.doc) as TuningJobDoc;
  const objectives = objectivesOf(doc);
  const children = await repos.tuningChildren.all(tx, p, tuningKey);
  const state = childrenState(children, (c) => objectives.get(c.definition_name ?? '')?.Type === 'Maximize');
  Object.assign(doc, state.counters);
  doc.BestTrainingJob = state.best ? summaryOf(state.best, row, objectives) : undefined;
  doc.NumberOfTrainingJobsObjectiveNotImproving = state.notImproving;
  if (doc.ParentsBest) doc.OverallBestTrainingJob = overallBest(doc.BestTrainingJob, doc.ParentsBest);
  await repos.tuningJobs.update(tx, p, tuningKey, { doc: JSON.stringify(doc), last_modified_at: at });
}

function summaryOf(c: TuningChildJob, row: ResourceRow, objectives: ReturnType<typeof objectivesOf>): StoredSummary {
  return childSummary(c, row.name, objectives.get(c.definition_name ?? '')!);
}

/** The better of this job's best and its parents' best (warm start). */
function overallBest(own: StoredSummary | undefined, parents: StoredSummary): StoredSummary {
  const a = own?.FinalHyperParameterTuningJobObjectiveMetric;
  const b = parents.FinalHyperParameterTuningJobObjectiveMetric;
  if (!own || !a) return parents;
  if (!b) return own;
  const maximize = a.Type === 'Maximize';
  return (maximize ? a.Value >= b.Value : a.Value <= b.Value) ? own : parents;
}

/**
 * A training job ended (Completed, Stopped, Failed): if a tuning job launched it, record its final
 * objective and ObjectiveStatus and refresh the tuning job's summary, in the transaction that ends
 * it. Returns the tuning job's name key, or undefined when the job is not a child.
 */
export async function childEnded(
  deps: ServiceDeps,
  tx: Queryable,
  p: Partition,
  childKey: string,
  at: number,
): Promise<string | undefined> {
  const { repos } = deps;
  const child = await repos.tuningChildren.byChild(tx, p, childKey);
  if (!child) return undefined;
  const training = await repos.trainingJobs.get(tx, p, childKey);
  const tuning = await repos.tuningJobs.get(tx, p, child.tuning_key);
  if (!training || !tuning) return undefined;
  const objective = objectivesOf(JSON.parse(tuning.doc) as TuningJobDoc).get(child.definition_name ?? '');
  const value = objective
    ? finalObjective((JSON.parse(training.doc) as TrainingJobDoc).FinalMetricDataList, objective.MetricName)
    : undefined;
  // A failed job's objective counts as failed whatever it printed; a stopped one by what it reported.
  const ok = training.status !== 'Failed' && value !== undefined;
  await repos.tuningChildren.setObjective(
    tx,
    p,
    child.tuning_key,
    child.seq,
    ok ? value! : null,
    ok ? 'Succeeded' : 'Failed',
  );
  await refreshSummary(deps, tx, p, child.tuning_key, at);
  return child.tuning_key;
}

export interface LaunchedChild {
  readonly name: string;
  readonly arn: string;
}

/** Launches child number `seq` of a tuning job, its records committed with the training job. */
export async function launchChild(
  deps: ServiceDeps,
  training: TrainingJobService,
  ctx: RequestContext,
  tuning: { row: ResourceRow; doc: TuningJobDoc; experiment?: string },
  seq: number,
  def: HyperParameterTrainingJobDefinition,
  definitionName: string,
  tuned: Readonly<Record<string, string>>,
): Promise<LaunchedChild> {
  const { repos } = deps;
  const name = childName(tuning.row.name, seq);
  const tags = (await repos.tags.ofMany(deps.db, [tuning.row.arn])).get(tuning.row.arn) ?? [];
  const request = childRequest(def, name, tuned, tags);
  const arn = await training.create(ctx, request, {
    tuningJobArn: tuning.row.arn,
    within: async (tx, childArn) => {
      await repos.tuningChildren.insert(tx, ctx, {
        tuning_key: tuning.row.name_key,
        seq,
        child_key: name.toLowerCase(),
        definition_name: definitionName === '' ? null : definitionName,
        tuned: JSON.stringify(tuned),
        objective: null,
        objective_status: 'Pending',
        created_at: ctx.receivedAt,
      });
      if (tuning.experiment) {
        await recordTuningTrial(tx, ctx, {
          experimentName: tuning.experiment,
          trainingName: name,
          trainingArn: childArn,
          at: ctx.receivedAt,
        });
      }
      await refreshSummary(deps, tx, ctx, tuning.row.name_key, ctx.receivedAt);
    },
  });
  return { name, arn };
}
