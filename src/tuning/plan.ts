// A CreateHyperParameterTuningJob request checked and turned into what the run needs: the training
// job definitions with their objective, algorithm and search space, the strategy and its limits.
// Every refusal is a ValidationException in SageMaker's words where they are known, else in words
// that name the field and the fix. The same function rebuilds the plan from the stored request.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateHyperParameterTuningJob.html
import type {
  CreateHyperParameterTuningJobRequest,
  HyperParameterTrainingJobDefinition,
  HyperParameterTuningJobObjective,
  ParameterRanges,
} from '../generated/sagemaker/shapes.js';
import { ValidationException } from '../protocol/common-errors.js';
import { inInterval } from '../training/xgboost/hyperparameters/spec.js';
import { type Algorithm, algorithmOf, XGBOOST_METRIC_DEFINITIONS } from './algorithm.js';
import { autoScale, type Param, type Scale, SearchSpace } from './space.js';
import { ETA, type HyperbandPlan, hyperbandPlan } from './strategies/hyperband.js';

/** Service limits (SageMaker's default quotas). */
export const LIMITS = {
  maxTrainingJobs: 500,
  maxParallelTrainingJobs: 100,
  /** Tunable hyperparameters, each categorical value counting as one. */
  maxTunable: 30,
  maxHyperparameters: 100,
  maxHyperbandResource: 20_000,
};

/** The hyperparameter SageMaker adds to every training job it launches, naming the objective metric. */
export const TUNING_OBJECTIVE_HYPERPARAMETER = '_tuning_objective_metric';

/** Static hyperparameters Hyperband reads MaxResource from when it is not given (num_round: the built-in XGBoost's rounds). */
const RESOURCE_KEYS = ['epochs', 'numepochs', 'n-epochs', 'n_epochs', 'num_epochs', 'num_round'];

export interface PlannedDefinition {
  /** DefinitionName; '' for a single TrainingJobDefinition. */
  readonly name: string;
  readonly definition: HyperParameterTrainingJobDefinition;
  readonly objective: HyperParameterTuningJobObjective;
  readonly maximize: boolean;
  readonly space: SearchSpace;
  readonly algorithm: Algorithm;
}

export interface TuningPlan {
  readonly strategy: 'Bayesian' | 'Random' | 'Grid' | 'Hyperband';
  readonly definitions: readonly PlannedDefinition[];
  readonly maxJobs: number;
  readonly maxParallel: number;
  readonly earlyStopping: boolean;
  readonly hyperband?: HyperbandPlan;
  readonly targetObjective?: number;
  readonly maxJobsNotImproving?: number;
  readonly completeOnConvergence: boolean;
}

const fail = (message: string): never => {
  throw new ValidationException(message);
};

/** A numeric range bound: a finite number (an integer for IntegerParameterRanges). */
function bound(name: string, which: 'MinValue' | 'MaxValue', raw: string, integer: boolean): number {
  const v = raw.trim() === '' ? Number.NaN : Number(raw);
  if (!Number.isFinite(v)) fail(`The ${which} '${raw}' of hyperparameter ${name} is not a number.`);
  if (integer && !Number.isInteger(v))
    fail(`The ${which} '${raw}' of integer hyperparameter ${name} is not an integer.`);
  return v;
}

/** The ranges of one definition as a search space, checked against the algorithm's limits. */
function spaceOf(ranges: ParameterRanges | undefined, algorithm: Algorithm, where: string): SearchSpace {
  if (ranges?.AutoParameters?.length) {
    // DEVIATION(aws): Autotune's AutoParameters are not supported; name the ranges instead.
    fail(
      'AutoParameters (Autotune) are not supported by Slipway; give IntegerParameterRanges, ContinuousParameterRanges or CategoricalParameterRanges.',
    );
  }
  const params: Param[] = [];
  const seen = new Set<string>();
  const claim = (name: string) => {
    if (seen.has(name))
      fail(`Hyperparameter ${name} is given more than one range${where}. A hyperparameter can have only one range.`);
    seen.add(name);
  };
  const numeric =
    (kind: 'Integer' | 'Continuous') =>
    (r: { Name: string; MinValue: string; MaxValue: string; ScalingType?: string }) => {
      claim(r.Name);
      const min = bound(r.Name, 'MinValue', r.MinValue, kind === 'Integer');
      const max = bound(r.Name, 'MaxValue', r.MaxValue, kind === 'Integer');
      if (!(min < max)) {
        fail(`The MinValue ${r.MinValue} of hyperparameter ${r.Name} must be less than its MaxValue ${r.MaxValue}.`);
      }
      const scale = r.ScalingType === undefined || r.ScalingType === 'Auto' ? autoScale(kind, min, max) : r.ScalingType;
      if (scale === 'Logarithmic' && !(min > 0)) {
        fail(
          `Logarithmic scaling works only for ranges that have only values greater than 0: hyperparameter ${r.Name} has MinValue ${r.MinValue}.`,
        );
      }
      if (scale === 'ReverseLogarithmic') {
        if (kind === 'Integer')
          fail(
            `ReverseLogarithmic scaling is supported only for continuous hyperparameters, not for integer hyperparameter ${r.Name}.`,
          );
        if (!(min >= 0 && max < 1)) {
          fail(
            `Reverse logarithmic scaling works only for ranges that are entirely within the range 0<=x<1.0: hyperparameter ${r.Name} has [${r.MinValue}, ${r.MaxValue}].`,
          );
        }
      }
      const spec = algorithm.tunable?.get(r.Name);
      if (algorithm.tunable) {
        if (!spec)
          fail(
            `Hyperparameter ${r.Name} is not a tunable hyperparameter of this algorithm. Tunable hyperparameters: ${[...algorithm.tunable.keys()].join(', ')}.`,
          );
        if (spec!.kind !== kind) {
          fail(
            `Hyperparameter ${r.Name} is a${spec!.kind === 'Integer' ? 'n integer' : ' continuous'} hyperparameter: give its range in ${spec!.kind}ParameterRanges.`,
          );
        }
        if (!inInterval(spec!.range, min) || !inInterval(spec!.range, max)) {
          fail(
            `The range [${r.MinValue}, ${r.MaxValue}] of hyperparameter ${r.Name} is outside the values the algorithm accepts, ${spec!.range.text}.`,
          );
        }
      }
      params.push({ name: r.Name, kind, min, max, scale: scale as Scale });
    };
  for (const r of ranges?.IntegerParameterRanges ?? []) numeric('Integer')(r);
  for (const r of ranges?.ContinuousParameterRanges ?? []) numeric('Continuous')(r);
  for (const r of ranges?.CategoricalParameterRanges ?? []) {
    claim(r.Name);
    if (new Set(r.Values).size !== r.Values.length)
      fail(`The values of categorical hyperparameter ${r.Name} must be unique.`);
    if (algorithm.tunable) {
      fail(
        `Hyperparameter ${r.Name} is not a tunable categorical hyperparameter of this algorithm. Tunable hyperparameters: ${[...algorithm.tunable.keys()].join(', ')}.`,
      );
    }
    params.push({ name: r.Name, kind: 'Categorical', values: r.Values });
  }
  if (params.length === 0) fail(`No hyperparameter ranges are given${where}: give at least one range to tune.`);
  const tunable = params.reduce((n, p) => n + (p.kind === 'Categorical' ? p.values.length : 1), 0);
  if (tunable > LIMITS.maxTunable) {
    fail(
      `The hyperparameter tuning job${where} searches ${tunable} hyperparameters (each categorical value counts as one); the limit is ${LIMITS.maxTunable}.`,
    );
  }
  return new SearchSpace(params);
}

function planDefinition(
  def: HyperParameterTrainingJobDefinition,
  name: string,
  objective: HyperParameterTuningJobObjective | undefined,
  ranges: ParameterRanges | undefined,
  where: string,
): PlannedDefinition {
  const spec = def.AlgorithmSpecification;
  if (spec.AlgorithmName && !spec.TrainingImage) {
    // DEVIATION(aws): algorithm resources (AWS Marketplace) do not exist here.
    fail('AlgorithmName is not supported; give AlgorithmSpecification.TrainingImage.');
  }
  if (!spec.TrainingImage) fail(`AlgorithmSpecification.TrainingImage is required${where}.`);
  if (!objective) fail(`A HyperParameterTuningJobObjective is required${where}.`);
  if (!def.ResourceConfig === !def.HyperParameterTuningResourceConfig) {
    fail(`Specify either ResourceConfig or HyperParameterTuningResourceConfig${where}, not both or neither.`);
  }
  const algorithm = algorithmOf(def);
  const metric = objective!.MetricName;
  if (!algorithm.metrics.has(metric)) {
    if (!algorithm.builtin)
      fail(
        'A metric is required for this hyperparameter tuning job objective. Provide a metric in the metric definitions.',
      );
    fail(
      `The objective metric ${metric} is not a metric of the algorithm. Valid objective metrics: ${[...algorithm.metrics.keys()].join(', ')}.`,
    );
  }
  const space = spaceOf(ranges, algorithm, where);
  const statics = def.StaticHyperParameters ?? {};
  for (const p of space.params) {
    if (p.name in statics) {
      fail(
        `Hyperparameter ${p.name} is both a static hyperparameter and a hyperparameter to tune${where}. Remove it from StaticHyperParameters or from the ranges.`,
      );
    }
  }
  const total =
    Object.keys(statics).filter((k) => k !== TUNING_OBJECTIVE_HYPERPARAMETER).length + space.params.length + 1;
  if (total > LIMITS.maxHyperparameters) {
    fail(
      `The training jobs would have ${total} hyperparameters (static, tuned and ${TUNING_OBJECTIVE_HYPERPARAMETER}); the limit is ${LIMITS.maxHyperparameters}.`,
    );
  }
  return {
    name,
    definition: {
      ...def,
      // A built-in algorithm's metric definitions are its own (HyperparameterTuner.attach reads them back).
      AlgorithmSpecification:
        algorithm.builtin && !spec.MetricDefinitions
          ? { ...spec, MetricDefinitions: XGBOOST_METRIC_DEFINITIONS.map((m) => ({ ...m })) }
          : spec,
      // SageMaker passes the objective to every training job as a static hyperparameter.
      StaticHyperParameters: { ...statics, [TUNING_OBJECTIVE_HYPERPARAMETER]: metric },
    },
    objective: objective!,
    maximize: objective!.Type === 'Maximize',
    space,
    algorithm,
  };
}

/** Checks a request and plans the tuning job; throws ValidationException with what to fix. */
export function planTuning(req: Omit<CreateHyperParameterTuningJobRequest, 'HyperParameterTuningJobName'>): TuningPlan {
  const cfg = req.HyperParameterTuningJobConfig;
  if (req.Autotune) fail('Autotune is not supported by Slipway; give the strategy, ranges and resource limits.'); // DEVIATION(aws)
  if (!req.TrainingJobDefinition === !req.TrainingJobDefinitions) {
    fail('Exactly one of TrainingJobDefinition and TrainingJobDefinitions must be specified.');
  }
  let definitions: PlannedDefinition[];
  if (req.TrainingJobDefinition) {
    definitions = [
      planDefinition(
        req.TrainingJobDefinition,
        req.TrainingJobDefinition.DefinitionName ?? '',
        cfg.HyperParameterTuningJobObjective,
        cfg.ParameterRanges,
        '',
      ),
    ];
  } else {
    if (cfg.HyperParameterTuningJobObjective || cfg.ParameterRanges) {
      fail(
        'With TrainingJobDefinitions, give each definition its TuningObjective and HyperParameterRanges, not HyperParameterTuningJobConfig.HyperParameterTuningJobObjective or ParameterRanges.',
      );
    }
    const names = new Set<string>();
    definitions = req.TrainingJobDefinitions!.map((d, i) => {
      const name = d.DefinitionName;
      if (!name) fail(`TrainingJobDefinitions[${i + 1}] needs a DefinitionName.`);
      if (names.has(name!)) fail(`DefinitionName ${name} is used by more than one training job definition.`);
      names.add(name!);
      return planDefinition(d, name!, d.TuningObjective, d.HyperParameterRanges, ` in training job definition ${name}`);
    });
  }
  const strategy = cfg.Strategy;
  const limits = cfg.ResourceLimits;
  const earlyStopping = cfg.TrainingJobEarlyStoppingType === 'Auto';
  if (cfg.StrategyConfig && strategy !== 'Hyperband')
    fail('StrategyConfig should be provided only if Hyperband is selected as the Strategy.');
  let maxJobs = limits.MaxNumberOfTrainingJobs;
  let hyperband: HyperbandPlan | undefined;
  if (strategy === 'Grid') {
    for (const d of definitions) {
      for (const p of d.space.params) {
        // DEVIATION(aws): SageMaker's grid takes categorical ranges only; integer ranges here grid every integer.
        if (p.kind === 'Continuous')
          fail(
            `Grid search supports only categorical and integer hyperparameter ranges; ${p.name} is continuous. Use the Random or Bayesian strategy to search continuous ranges.`,
          );
      }
    }
    const combinations = definitions.reduce((n, d) => n + d.space.size(), 0);
    if (combinations > LIMITS.maxTrainingJobs) {
      fail(
        `The grid of the hyperparameter ranges has ${combinations} combinations, more than the limit of ${LIMITS.maxTrainingJobs} training jobs per hyperparameter tuning job. Provide fewer values.`,
      );
    }
    if (maxJobs !== undefined && maxJobs !== combinations) {
      fail(
        `For the Grid strategy MaxNumberOfTrainingJobs must be the number of distinct hyperparameter combinations, ${combinations}, or left out; it is ${maxJobs}.`,
      );
    }
    maxJobs = combinations;
  } else {
    if (maxJobs === undefined) fail(`MaxNumberOfTrainingJobs is required for the ${strategy} strategy.`);
    const combinations = definitions.reduce((n, d) => n + d.space.size(), 0);
    if (combinations < maxJobs!) {
      fail(
        `You don't have enough combinations of hyperparameter ranges. The total number of hyperparameter combinations for the provided ranges [${combinations.toFixed(1)}] must be equal or greater than the value of MaxNumberOfJobs, [${maxJobs}]. Provide additional ranges.`,
      );
    }
  }
  if (maxJobs! > LIMITS.maxTrainingJobs) {
    fail(
      `MaxNumberOfTrainingJobs ${maxJobs} exceeds the limit of ${LIMITS.maxTrainingJobs} training jobs per hyperparameter tuning job.`,
    );
  }
  if (limits.MaxParallelTrainingJobs > LIMITS.maxParallelTrainingJobs) {
    fail(
      `MaxParallelTrainingJobs ${limits.MaxParallelTrainingJobs} exceeds the limit of ${LIMITS.maxParallelTrainingJobs} concurrent training jobs per hyperparameter tuning job.`,
    );
  }
  if (strategy === 'Hyperband') {
    if (earlyStopping)
      fail('TrainingJobEarlyStoppingType must be OFF to use Hyperband: Hyperband has its own early stopping.');
    const hb = cfg.StrategyConfig?.HyperbandStrategyConfig;
    let max = hb?.MaxResource;
    if (max === undefined) {
      for (const d of definitions) {
        const statics = d.definition.StaticHyperParameters ?? {};
        const key = RESOURCE_KEYS.find((k) => statics[k] !== undefined && Number.isInteger(Number(statics[k])));
        if (key) max = Math.max(max ?? 0, Number(statics[key]));
      }
      if (max === undefined) {
        fail(
          `HyperbandStrategyConfig.MaxResource is not given and cannot be inferred: give it, or a static hyperparameter ${RESOURCE_KEYS.join(', ')}.`,
        );
      }
    }
    if (max! > LIMITS.maxHyperbandResource)
      fail(`MaxResource ${max} exceeds the maximum of ${LIMITS.maxHyperbandResource}.`);
    const min = hb?.MinResource ?? 1;
    if (min > max!) fail(`MinResource ${min} must not be greater than MaxResource ${max}.`);
    hyperband = hyperbandPlan(min, max!, ETA);
  }
  const criteria = cfg.TuningJobCompletionCriteria;
  return {
    strategy,
    definitions,
    maxJobs: maxJobs!,
    maxParallel: Math.min(limits.MaxParallelTrainingJobs, maxJobs!),
    earlyStopping,
    hyperband,
    targetObjective: criteria?.TargetObjectiveMetricValue,
    maxJobsNotImproving: criteria?.BestObjectiveNotImproving?.MaxNumberOfTrainingJobsNotImproving,
    completeOnConvergence: criteria?.ConvergenceDetected?.CompleteOnConvergence === 'Enabled',
  };
}
