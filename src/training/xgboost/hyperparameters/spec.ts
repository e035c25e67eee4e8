// The hyperparameters the SageMaker XGBoost container (1.7-1) accepts, with its types, ranges and
// dependencies: sagemaker_xgboost_container/algorithm_mode/hyperparameter_validation.py and
// constants/xgb_constants.py (aws/sagemaker-xgboost-container). Ranges print as the container prints
// them; the order of lists is the container's, because its messages print them.

export const XGB_MAXIMIZE_METRICS = [
  'accuracy',
  'auc',
  'aucpr',
  'balanced_accuracy',
  'f1',
  'f1_binary',
  'f1_macro',
  'map',
  'ndcg',
  'precision',
  'r2',
  'recall',
  'precision_macro',
  'precision_micro',
  'recall_macro',
  'recall_micro',
] as const;

export const XGB_MINIMIZE_METRICS = [
  'aft-nloglik',
  'cox-nloglik',
  'error',
  'gamma-deviance',
  'gamma-nloglik',
  'interval-regression-accuracy',
  'logloss',
  'mae',
  'mape',
  'merror',
  'mlogloss',
  'mphe',
  'mse',
  'poisson-nloglik',
  'rmse',
  'rmsle',
  'tweedie-nloglik',
] as const;

export const SUPPORTED_METRICS: readonly string[] = [...XGB_MAXIMIZE_METRICS, ...XGB_MINIMIZE_METRICS];

/** Metrics the container computes itself (metrics/custom_metrics.py) and passes to xgboost as feval. */
export const CONTAINER_METRICS: readonly string[] = [
  'accuracy',
  'balanced_accuracy',
  'f1',
  'f1_binary',
  'f1_macro',
  'mse',
  'rmse',
  'mae',
  'precision',
  'precision_macro',
  'precision_micro',
  'r2',
  'recall',
  'recall_macro',
  'recall_micro',
];

/** HPO objective metrics (algorithm_mode/metrics.py): "validation:<metric>". */
export const TUNING_METRICS: readonly string[] = SUPPORTED_METRICS.map((m) => `validation:${m}`);

export const OBJECTIVES = [
  'aft_loss_distribution',
  'binary:logistic',
  'binary:logitraw',
  'binary:hinge',
  'count:poisson',
  'multi:softmax',
  'multi:softprob',
  'rank:pairwise',
  'rank:ndcg',
  'rank:map',
  'reg:linear',
  'reg:squarederror',
  'reg:logistic',
  'reg:gamma',
  'reg:pseudohubererror',
  'reg:squaredlogerror',
  'reg:absoluteerror',
  'reg:tweedie',
  'survival:aft',
  'survival:cox',
] as const;

const UPDATERS = [
  'grow_colmaker',
  'distcol',
  'grow_histmaker',
  'grow_skmaker',
  'sync',
  'refresh',
  'prune',
  'grow_colmaker',
  'distcol',
  'grow_histmaker',
  'grow_colmaker',
  'shotgun',
  'coord_descent',
  'refresh',
  'prune',
];

/** An interval written as the container prints it, e.g. "[0, +inf)", "(0, 1]", "(1.0, +inf)". */
export interface Interval {
  text: string;
  min?: number;
  minOpen: boolean;
  max?: number;
  maxOpen: boolean;
}

function iv(text: string): Interval {
  const m = /^([[(])(.+), (.+)([\])])$/.exec(text);
  if (!m) throw new Error(`bad interval ${text}`);
  const lo = m[2] === '(-inf' || m[2] === '-inf' ? undefined : Number(m[2]);
  const hi = m[3] === '+inf' ? undefined : Number(m[3]);
  return { text, min: lo, minOpen: m[1] === '(', max: hi, maxOpen: m[4] === ')' };
}

export function inInterval(r: Interval, v: number): boolean {
  // Python's Interval.__contains__ is "not (below or above)", so NaN would pass; see validate.ts.
  if (r.min !== undefined && (r.minOpen ? v <= r.min : v < r.min)) return false;
  if (r.max !== undefined && (r.maxOpen ? v >= r.max : v > r.max)) return false;
  return true;
}

export type Spec =
  | { kind: 'int'; range: Interval; required?: boolean }
  | { kind: 'float'; range: Interval }
  | { kind: 'cat'; values: readonly string[] }
  | { kind: 'list'; values?: readonly string[]; deps?: readonly string[] }
  | { kind: 'tuple'; values: readonly number[]; deps: readonly string[] }
  | { kind: 'nested'; range: Interval; deps: readonly string[] };

const int = (r: string, required = false): Spec => ({ kind: 'int', range: iv(r), required });
const float = (r: string): Spec => ({ kind: 'float', range: iv(r) });
const cat = (...values: string[]): Spec => ({ kind: 'cat', values });
const BOOL = cat('true', 'false');

/** Every hyperparameter the container declares, in its declaration order. */
export const HYPERPARAMETERS: ReadonlyMap<string, Spec> = new Map<string, Spec>([
  ['num_round', int('[1, +inf)', true)],
  ['csv_weights', int('[0, 1]')],
  ['early_stopping_rounds', int('[1, +inf)')],
  ['booster', cat('gbtree', 'gblinear', 'dart')],
  ['verbosity', int('[0, 3]')],
  ['nthread', int('[1, +inf)')],
  ['eta', float('[0, 1]')],
  ['gamma', float('[0, +inf)')],
  ['max_depth', int('[0, +inf)')],
  ['min_child_weight', float('[0, +inf)')],
  ['max_delta_step', float('[0, +inf)')],
  ['subsample', float('(0, 1]')],
  ['colsample_bytree', float('(0, 1]')],
  ['colsample_bylevel', float('(0, 1]')],
  ['colsample_bynode', float('(0, 1]')],
  ['lambda', float('[0, +inf)')],
  ['alpha', float('[0, +inf)')],
  ['tree_method', cat('auto', 'exact', 'approx', 'hist', 'gpu_hist')],
  ['sketch_eps', float('(0, 1)')],
  ['scale_pos_weight', float('(0, +inf)')],
  ['updater', { kind: 'list', values: UPDATERS, deps: ['booster', 'process_type'] }],
  ['dsplit', cat('row', 'col')],
  ['refresh_leaf', int('[0, 1]')],
  ['process_type', cat('default', 'update')],
  ['grow_policy', cat('depthwise', 'lossguide')],
  ['max_leaves', int('[0, +inf)')],
  ['max_bin', int('[0, +inf)')],
  ['predictor', cat('auto', 'cpu_predictor', 'gpu_predictor')],
  ['monotone_constraints', { kind: 'tuple', values: [-1, 0, 1], deps: ['tree_method'] }],
  ['interaction_constraints', { kind: 'nested', range: iv('[1, +inf)'), deps: ['tree_method'] }],
  ['sample_type', cat('uniform', 'weighted')],
  ['normalize_type', cat('tree', 'forest')],
  ['rate_drop', float('[0, 1]')],
  ['one_drop', int('[0, 1]')],
  ['skip_drop', float('[0, 1]')],
  ['lambda_bias', float('[0, 1]')],
  ['tweedie_variance_power', float('(1, 2)')],
  ['objective', { kind: 'cat', values: OBJECTIVES }],
  ['num_class', int('[2, +inf)')],
  ['base_score', float('[0, +inf)')],
  ['_kfold', int('[2, +inf)')],
  ['_num_cv_round', int('[1, +inf)')],
  ['_tuning_objective_metric', cat(...TUNING_METRICS)],
  ['eval_metric', { kind: 'list', deps: ['objective'] }],
  ['seed', int('(-2147483648, 2147483647)')],
  ['num_parallel_tree', int('[1, +inf)')],
  ['save_model_on_termination', BOOL],
  ['aft_loss_distribution', cat('normal', 'logistic', 'extreme')],
  ['aft_loss_distribution_scale', float('[0, +inf)')],
  ['deterministic_histogram', BOOL],
  ['sampling_method', cat('uniform', 'gradient_based')],
  ['prob_buffer_row', int('(1.0, +inf)')],
  ['use_dask_gpu_training', BOOL],
]);

/** Aliases the container declares (xgboost's own names for the same parameters). */
export const ALIASES: ReadonlyMap<string, string> = new Map([
  ['learning_rate', 'eta'],
  ['min_split_loss', 'gamma'],
  ['reg_lambda', 'lambda'],
  ['reg_alpha', 'alpha'],
]);

/** Dependencies of the container's dependency validators (objective needs num_class, ...). */
export function dependenciesOf(name: string): readonly string[] {
  if (name === 'objective') return ['num_class'];
  const s = HYPERPARAMETERS.get(name);
  return s && 'deps' in s && s.deps ? s.deps : [];
}
