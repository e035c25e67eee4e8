// The contract between the XGBoost trainer's parts: the data it trains on (what the input readers
// produce), the parameters it trains with (what hyperparameter validation produces) and the model it
// returns (xgboost 1.7's JSON model document, what `Booster.save_model("x.json")` writes), which the
// output writers turn into the file the SageMaker XGBoost container of a given version writes.

/**
 * A training or evaluation matrix: dense, row-major float32, NaN for a missing value (an empty CSV
 * cell, "nan", an absent libsvm entry), as xgboost's DMatrix holds it after reading.
 */
export interface DMatrix {
  readonly numRows: number;
  readonly numCols: number;
  /** numRows × numCols values, row-major; NaN = missing */
  readonly data: Float32Array;
  /** one label per row */
  readonly labels: Float32Array;
  /** one instance weight per row, when the input carried them (csv_weights=1, libsvm label:weight) */
  readonly weights?: Float32Array;
}

export type TreeMethod = 'auto' | 'exact' | 'approx' | 'hist';
export type GrowPolicy = 'depthwise' | 'lossguide';
/** The objectives this trainer implements (the SageMaker XGBoost algorithm's documented ones). */
export const OBJECTIVES = [
  'reg:squarederror',
  'reg:linear',
  'reg:logistic',
  'reg:pseudohubererror',
  'reg:gamma',
  'reg:tweedie',
  'count:poisson',
  'binary:logistic',
  'binary:logitraw',
  'binary:hinge',
  'multi:softmax',
  'multi:softprob',
] as const;
export type Objective = (typeof OBJECTIVES)[number];

/**
 * Validated training parameters, typed, with xgboost 1.7's defaults filled in by validation.
 * Names follow xgboost's parameter names (and SageMaker's hyperparameter names, which are the same).
 */
export interface TrainParams {
  num_round: number;
  eta: number;
  gamma: number;
  max_depth: number;
  min_child_weight: number;
  max_delta_step: number;
  subsample: number;
  colsample_bytree: number;
  colsample_bylevel: number;
  colsample_bynode: number;
  lambda: number;
  alpha: number;
  tree_method: TreeMethod;
  max_bin: number;
  sketch_eps: number;
  grow_policy: GrowPolicy;
  max_leaves: number;
  scale_pos_weight: number;
  /** undefined: xgboost's default for the objective (0.5) */
  base_score?: number;
  seed: number;
  /** 0 when not multi-class */
  num_class: number;
  objective: Objective;
  /** reg:tweedie */
  tweedie_variance_power: number;
  /** reg:pseudohubererror */
  huber_slope: number;
  /** metric names as given, e.g. ["rmse", "error@0.3"]; empty: the objective's default metric */
  eval_metric: string[];
  early_stopping_rounds?: number;
  /** worker threads for histogram building and split search; 0 = all cores */
  nthread: number;
}

/** xgboost 1.7's JSON model document (`Booster.save_model("model.json")`), as plain JSON. */
export type XGBoostJsonModel = { learner: Record<string, unknown>; version: [number, number, number] };

/** One evaluation set's metric values for one round. */
export interface EvalResult {
  /** evaluation set name, e.g. "train", "validation" */
  set: string;
  /** metric name as xgboost prints it, e.g. "rmse", "error@0.3" */
  metric: string;
  value: number;
}
