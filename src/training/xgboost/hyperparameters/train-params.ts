// SageMaker XGBoost HyperParameters (string → string) → the trainer's TrainParams with xgboost 1.7's
// defaults, plus the settings the training job needs (csv_weights, metrics the container computes
// itself, early stopping, save_model_on_termination). Validation is the container's (validate.ts);
// then what the container accepts but this trainer cannot honour is refused as `unsupported`, and
// what has no effect here is listed in `ignored`.

import { type Objective, OBJECTIVES, type TrainParams, type TreeMethod } from '../types.js';
import { HyperparameterError } from './errors.js';
import type { PyFloat, PyValue } from './python.js';
import { CONTAINER_METRICS, XGB_MAXIMIZE_METRICS } from './spec.js';
import { validateAsContainer } from './validate.js';

export interface EarlyStopping {
  rounds: number;
  /** the metric watched on the validation set: the HPO metric if any, else the last eval_metric */
  metric: string;
  /** XGB_MAXIMIZE_METRICS (auc, map, ndcg, accuracy, ...) are maximised */
  maximize: boolean;
}

export interface ValidatedHyperparameters {
  params: TrainParams;
  /** csv_weights=1: the second CSV column is the instance weight */
  csvWeights: boolean;
  /** metrics the container computes itself and passes to xgboost as feval (accuracy, f1, r2, ...) */
  containerMetrics: string[];
  /**
   * Early stopping as the container sets it up: only when early_stopping_rounds is given and there
   * is a metric to watch (_tuning_objective_metric or eval_metric); the job applies it when the
   * validation channel has data.
   */
  earlyStopping?: EarlyStopping;
  /** _tuning_objective_metric, e.g. "validation:auc" */
  tuningObjectiveMetric?: string;
  saveModelOnTermination: boolean;
  /** accepted hyperparameters that change nothing in this trainer (GPU, dart-only, logging ...) */
  ignored: string[];
  /** the canonical names the user set (aliases resolved), e.g. to tell a default from a choice */
  given: ReadonlySet<string>;
}

const TRAINER_OBJECTIVES: ReadonlySet<string> = new Set<Objective>(OBJECTIVES);

/** Accepted by the container, without effect on a CPU gbtree model of a supported objective. */
const IGNORED = new Set([
  'verbosity', // logging
  'updater', // DEVIATION(xgboost): the trainer picks its updaters from tree_method
  'process_type', // 'default' only, see below
  'dsplit',
  'refresh_leaf',
  'prob_buffer_row',
  'predictor', // prediction is the inference engine's
  'deterministic_histogram', // GPU
  'use_dask_gpu_training', // GPU
  'sample_type', // dart
  'normalize_type', // dart
  'rate_drop', // dart
  'one_drop', // dart
  'skip_drop', // dart
  'lambda_bias', // gblinear
  'aft_loss_distribution', // survival:aft
  'aft_loss_distribution_scale', // survival:aft
  'sketch_eps', // xgboost 1.7 no longer reads it (approx sketches with max_bin)
]);

const unsupported = (name: string, why: string): never => {
  throw new HyperparameterError(
    `Hyperparameter ${name}: ${why} The SageMaker XGBoost algorithm accepts it, but this trainer does not support it.`,
    name,
    true,
  );
};

/** Validate SageMaker hyperparameters; throws HyperparameterError. */
export function validateHyperparameters(input: Readonly<Record<string, string>>): ValidatedHyperparameters {
  const v = validateAsContainer(input);
  const int = (k: string, d: number): number => (v.has(k) ? Number(v.get(k) as bigint) : d);
  const num = (k: string, d: number): number => (v.has(k) ? (v.get(k) as PyFloat).value : d);
  const str = (k: string, d: string): string => (v.has(k) ? (v.get(k) as string) : d);

  const booster = str('booster', 'gbtree');
  if (booster !== 'gbtree') unsupported('booster', `'${booster}' is not trained here; only gbtree is.`);
  const objective = str('objective', 'reg:squarederror');
  if (!TRAINER_OBJECTIVES.has(objective)) unsupported('objective', `'${objective}' is not trained here.`);
  if (str('process_type', 'default') === 'update') unsupported('process_type', "'update' refreshes an existing model.");
  if (v.has('_kfold') || v.has('_num_cv_round')) {
    unsupported(v.has('_kfold') ? '_kfold' : '_num_cv_round', 'cross-validation writes one model per fold.');
  }
  if (int('num_parallel_tree', 1) !== 1)
    unsupported('num_parallel_tree', 'boosted random forests are not trained here.');
  if (v.has('monotone_constraints')) unsupported('monotone_constraints', 'constraints are not applied here.');
  if (v.has('interaction_constraints')) unsupported('interaction_constraints', 'constraints are not applied here.');
  if (str('sampling_method', 'uniform') !== 'uniform') unsupported('sampling_method', "'gradient_based' needs a GPU.");

  const multi = objective.startsWith('multi:');
  if (v.has('num_class') && !multi) {
    // DEVIATION(aws): the container accepts it and xgboost then fails mid-training on the label count.
    throw new HyperparameterError(
      `Hyperparameter num_class is only used with the multi:softmax and multi:softprob objectives, not ${objective}.`,
      'num_class',
    );
  }
  const baseScore = v.has('base_score') ? num('base_score', 0.5) : undefined;
  if (
    baseScore !== undefined &&
    (objective === 'binary:logistic' || objective === 'reg:logistic') &&
    !(baseScore > 0 && baseScore < 1)
  ) {
    // xgboost's own check, which the container reports as a user error (BASE_SCORE_RANGE_ERROR)
    throw new HyperparameterError('base_score must be in (0,1) for logistic loss', 'base_score');
  }

  const tm = str('tree_method', 'auto');
  // DEVIATION(xgboost): no GPU; gpu_hist is the hist algorithm on a GPU, so it trains as hist here.
  const treeMethod = (tm === 'gpu_hist' ? 'hist' : tm) as TreeMethod;

  const metrics = evalMetrics(v);
  const early = v.has('early_stopping_rounds') ? int('early_stopping_rounds', 0) : undefined;
  const params: TrainParams = {
    num_round: int('num_round', 0),
    eta: num('eta', 0.3),
    gamma: num('gamma', 0),
    max_depth: int('max_depth', 6),
    min_child_weight: num('min_child_weight', 1),
    max_delta_step: num('max_delta_step', 0),
    subsample: num('subsample', 1),
    colsample_bytree: num('colsample_bytree', 1),
    colsample_bylevel: num('colsample_bylevel', 1),
    colsample_bynode: num('colsample_bynode', 1),
    lambda: num('lambda', 1),
    alpha: num('alpha', 0),
    tree_method: treeMethod,
    max_bin: int('max_bin', 256),
    sketch_eps: num('sketch_eps', 0.03),
    grow_policy: str('grow_policy', 'depthwise') as TrainParams['grow_policy'],
    max_leaves: int('max_leaves', 0),
    scale_pos_weight: num('scale_pos_weight', 1),
    base_score: baseScore,
    seed: int('seed', 0),
    num_class: multi ? int('num_class', 0) : 0,
    objective: objective as Objective,
    tweedie_variance_power: num('tweedie_variance_power', 1.5),
    huber_slope: 1, // not a SageMaker hyperparameter: xgboost's default
    eval_metric: metrics.xgboost,
    early_stopping_rounds: early,
    nthread: int('nthread', 0),
  };
  const watched = metrics.tuning ?? (v.has('eval_metric') ? (v.get('eval_metric') as string[]) : undefined);
  const metric = watched?.[watched.length - 1];
  return {
    params,
    csvWeights: int('csv_weights', 0) === 1,
    containerMetrics: metrics.container,
    earlyStopping:
      early !== undefined && metric !== undefined
        ? { rounds: early, metric, maximize: (XGB_MAXIMIZE_METRICS as readonly string[]).includes(metric) }
        : undefined,
    tuningObjectiveMetric: v.has('_tuning_objective_metric')
      ? (v.get('_tuning_objective_metric') as string)
      : undefined,
    saveModelOnTermination: str('save_model_on_termination', 'false') === 'true',
    ignored: [...v.keys()].filter((k) => IGNORED.has(k)),
    given: new Set(v.keys()),
  };
}

/**
 * train_utils.get_eval_metrics_and_feval: the HPO metric ("validation:auc" → "auc") joins
 * eval_metric (sorted union when both are set); the container's own metrics go to feval, the rest to
 * xgboost's eval_metric.
 */
function evalMetrics(v: Map<string, PyValue>): { xgboost: string[]; container: string[]; tuning?: string[] } {
  const given = v.get('eval_metric') as string[] | undefined;
  const tuningParam = v.get('_tuning_objective_metric') as string | undefined;
  const tuning = tuningParam === undefined ? undefined : tuningParam.split(':')[1].split(',');
  let union: string[] | undefined;
  if (tuning && given) union = [...new Set([...tuning, ...given])].sort();
  else union = tuning ?? given;
  if (!union) return { xgboost: [], container: [], tuning };
  const container = union.filter((m) => CONTAINER_METRICS.includes(m));
  // DEVIATION(aws): Python's set difference gives an arbitrary order; we keep the union's order.
  const xgboost = container.length > 0 ? union.filter((m) => !container.includes(m)) : union;
  return { xgboost: [...new Set(xgboost)], container: [...new Set(container)], tuning };
}
