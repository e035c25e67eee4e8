// WarmStartConfig: a tuning job that starts from what up to five earlier ("parent") tuning jobs
// learned. Their training jobs' hyperparameters and objectives become the new job's first
// observations (the Bayesian strategy models them; Random has nothing to learn from them), and
// OverallBestTrainingJob is the best of the new job's and the parents' training jobs.
// IdenticalDataAndAlgorithm requires the same image, the same input data and the same
// hyperparameter names; TransferLearning allows other data and images.
// https://docs.aws.amazon.com/sagemaker/latest/dg/automatic-model-tuning-warm-start.html
import type { Partition } from '../domain/arn.js';
import type {
  CreateHyperParameterTuningJobRequest,
  HyperParameterTrainingJobDefinition,
} from '../generated/sagemaker/shapes.js';
import { ValidationException } from '../protocol/common-errors.js';
import type { ServiceDeps } from '../services/common/deps.js';
import type { Queryable } from '../storage/db/types.js';
import { TUNING_OBJECTIVE_HYPERPARAMETER, type TuningPlan } from './plan.js';
import type { Trial } from './strategy.js';
import type { StoredSummary, TuningJobDoc } from './tuning-doc.js';

const TERMINAL = new Set(['Completed', 'Stopped', 'Failed']);

const fail = (message: string): never => {
  throw new ValidationException(message);
};

const channels = (d: HyperParameterTrainingJobDefinition) =>
  (d.InputDataConfig ?? [])
    .map((c) => `${c.ChannelName}=${c.DataSource.S3DataSource?.S3Uri ?? ''}`)
    .sort()
    .join('\n');

/** Static plus tuned hyperparameter names of a single-definition request or stored job. */
function hyperparameterNames(
  r: Pick<CreateHyperParameterTuningJobRequest, 'TrainingJobDefinition' | 'HyperParameterTuningJobConfig'>,
): string {
  const names = new Set(Object.keys(r.TrainingJobDefinition?.StaticHyperParameters ?? {}));
  names.delete(TUNING_OBJECTIVE_HYPERPARAMETER);
  const ranges = r.HyperParameterTuningJobConfig.ParameterRanges;
  for (const list of [
    ranges?.IntegerParameterRanges,
    ranges?.ContinuousParameterRanges,
    ranges?.CategoricalParameterRanges,
  ]) {
    for (const x of list ?? []) names.add(x.Name);
  }
  return [...names].sort().join(',');
}

/** Checks a request's WarmStartConfig against its parents; returns the parents' best training job. */
export async function checkWarmStart(
  deps: ServiceDeps,
  q: Queryable,
  p: Partition,
  req: CreateHyperParameterTuningJobRequest,
  plan: TuningPlan,
): Promise<StoredSummary | undefined> {
  const ws = req.WarmStartConfig;
  if (!ws) return undefined;
  if (plan.strategy === 'Grid' || plan.strategy === 'Hyperband') {
    fail(`WarmStartConfig is not supported with the ${plan.strategy} strategy; use Bayesian or Random.`);
  }
  if (!req.TrainingJobDefinition) {
    // DEVIATION(aws): a warm start from or to several training job definitions is not supported.
    fail('WarmStartConfig is supported only with a single TrainingJobDefinition.');
  }
  const names = new Set<string>();
  let best: StoredSummary | undefined;
  const objective = req.HyperParameterTuningJobConfig.HyperParameterTuningJobObjective!;
  for (const parentRef of ws.ParentHyperParameterTuningJobs) {
    const name = parentRef.HyperParameterTuningJobName;
    if (!name) fail('Each of ParentHyperParameterTuningJobs needs a HyperParameterTuningJobName.');
    if (names.has(name!.toLowerCase())) fail(`Parent hyperparameter tuning job ${name} is given more than once.`);
    names.add(name!.toLowerCase());
    const row = await deps.repos.tuningJobs.get(q, p, name!.toLowerCase());
    if (!row) fail(`Parent hyperparameter tuning job ${name} does not exist.`);
    if (!TERMINAL.has(row!.status ?? '')) {
      fail(
        `Parent hyperparameter tuning job ${name} is ${row!.status}: a parent must have ended (Completed, Stopped or Failed).`,
      );
    }
    const parent = JSON.parse(row!.doc) as TuningJobDoc;
    if (!parent.TrainingJobDefinition)
      fail(`Parent hyperparameter tuning job ${name} has several training job definitions; it cannot be a parent.`);
    const pObjective = parent.HyperParameterTuningJobConfig.HyperParameterTuningJobObjective!;
    if (pObjective.MetricName !== objective.MetricName || pObjective.Type !== objective.Type) {
      fail(
        `The objective of a warm start tuning job must be its parents' objective: ${objective.Type} ${objective.MetricName} here, ${pObjective.Type} ${pObjective.MetricName} in ${name}.`,
      );
    }
    if (hyperparameterNames(parent) !== hyperparameterNames(req)) {
      fail(
        'The set of tunable plus static HyperParameter names is not the same across current and parent tuning jobs. Please ensure this set is constant when warm starting. Note that previously static HyperParameters can be tuned in warm start jobs and vice versa.',
      );
    }
    if (ws.WarmStartType === 'IdenticalDataAndAlgorithm') {
      const mine = req.TrainingJobDefinition!;
      const theirs = parent.TrainingJobDefinition!;
      if (mine.AlgorithmSpecification.TrainingImage !== theirs.AlgorithmSpecification.TrainingImage) {
        fail(
          `IdenticalDataAndAlgorithm needs the parents' training image: ${name} used ${theirs.AlgorithmSpecification.TrainingImage}. Use TransferLearning to change it.`,
        );
      }
      if (channels(mine) !== channels(theirs)) {
        fail(
          `IdenticalDataAndAlgorithm needs the parents' input data: ${name} used other channels or S3 URIs. Use TransferLearning to change them.`,
        );
      }
    }
    const b = parent.OverallBestTrainingJob ?? parent.BestTrainingJob;
    const v = b?.FinalHyperParameterTuningJobObjectiveMetric?.Value;
    const bv = best?.FinalHyperParameterTuningJobObjectiveMetric?.Value;
    if (b && v !== undefined && (bv === undefined || (objective.Type === 'Maximize' ? v > bv : v < bv))) best = b;
  }
  return best;
}

/** The parents' training jobs with an objective, as prior observations in this job's space. */
export async function priorTrials(
  deps: ServiceDeps,
  p: Partition,
  doc: TuningJobDoc,
  plan: TuningPlan,
): Promise<Trial[]> {
  const ws = doc.WarmStartConfig;
  const def = plan.definitions[0];
  if (!ws || !def || plan.strategy !== 'Bayesian') return [];
  const out: Trial[] = [];
  for (const ref of ws.ParentHyperParameterTuningJobs) {
    const key = ref.HyperParameterTuningJobName?.toLowerCase();
    const row = key ? await deps.repos.tuningJobs.get(deps.db, p, key) : undefined;
    if (!row) continue; // deleted since: fewer observations
    const parent = JSON.parse(row.doc) as TuningJobDoc;
    const statics = parent.TrainingJobDefinition?.StaticHyperParameters ?? {};
    for (const c of await deps.repos.tuningChildren.all(deps.db, p, row.name_key)) {
      if (c.objective_status !== 'Succeeded' || c.objective === null) continue;
      const config = def.space.parse({ ...statics, ...(JSON.parse(c.tuned) as Record<string, string>) });
      if (config) out.push({ seq: 0, definition: def.name, config, pending: false, objective: c.objective });
    }
  }
  return out;
}
