// What a tuning job knows of the algorithm a training job definition runs: the metrics it emits
// (the objective must be one of them), the hyperparameters it lets tune and their limits, and how
// to read the objective off its output as it trains. The built-in XGBoost algorithm declares these
// itself (sagemaker-xgboost-container: algorithm_mode/metrics.py, hyperparameter_validation.py's
// tunable hyperparameters); any other image (custom, script mode) through its MetricDefinitions.
// https://docs.aws.amazon.com/sagemaker/latest/dg/xgboost-tuning.html
import { RE2JS } from 're2js';
import type { HyperParameterTrainingJobDefinition } from '../generated/sagemaker/shapes.js';
import { parseContainerVersion } from '../inference/runtimes/xgboost/serving.js';
import { evaluationMetrics } from '../training/job-output.js';
import {
  HYPERPARAMETERS,
  type Interval,
  XGB_MAXIMIZE_METRICS,
  XGB_MINIMIZE_METRICS,
} from '../training/xgboost/hyperparameters/spec.js';

/** The built-in XGBoost algorithm's tunable hyperparameters (IsTunable in its training specification). */
export const XGBOOST_TUNABLE = [
  'num_round',
  'eta',
  'gamma',
  'max_depth',
  'min_child_weight',
  'max_delta_step',
  'subsample',
  'colsample_bytree',
  'colsample_bylevel',
  'colsample_bynode',
  'lambda',
  'alpha',
] as const;

/**
 * The built-in XGBoost algorithm's MetricDefinitions as the container declares them
 * (algorithm_mode/metrics.py): each supported metric on the validation channel, with its regex
 * (the log shows the tab as `#011`). https://docs.aws.amazon.com/sagemaker/latest/dg/xgboost-tuning.html
 */
export const XGBOOST_METRIC_DEFINITIONS: ReadonlyArray<{ Name: string; Regex: string }> = [
  ...XGB_MAXIMIZE_METRICS,
  ...XGB_MINIMIZE_METRICS,
].map((m) => ({ Name: `validation:${m}`, Regex: `.*\\[[0-9]+\\].*#011validation-${m}:(\\S+)` }));

export interface TunableSpec {
  readonly kind: 'Integer' | 'Continuous';
  readonly range: Interval;
}

export interface Algorithm {
  readonly builtin: boolean;
  /** The metrics a tuning objective may name, with the direction the algorithm declares (built-ins). */
  readonly metrics: ReadonlyMap<string, 'Maximize' | 'Minimize' | undefined>;
  /** Built-ins: the hyperparameters that may be tuned, with the algorithm's own limits. */
  readonly tunable?: ReadonlyMap<string, TunableSpec>;
  /** A reader of the objective's intermediate values: each output line → [round, value] when it holds one. */
  reader(objective: string): (line: string) => [number, number] | undefined;
}

let xgboost: Algorithm | undefined;

function builtinXGBoost(): Algorithm {
  if (xgboost) return xgboost;
  const metrics = new Map<string, 'Maximize' | 'Minimize'>();
  for (const m of XGB_MAXIMIZE_METRICS) metrics.set(`validation:${m}`, 'Maximize');
  for (const m of XGB_MINIMIZE_METRICS) metrics.set(`validation:${m}`, 'Minimize');
  const tunable = new Map<string, TunableSpec>();
  for (const name of XGBOOST_TUNABLE) {
    const spec = HYPERPARAMETERS.get(name)!;
    if (spec.kind === 'int' || spec.kind === 'float') {
      tunable.set(name, { kind: spec.kind === 'int' ? 'Integer' : 'Continuous', range: spec.range });
    }
  }
  xgboost = {
    builtin: true,
    metrics,
    tunable,
    // `[12]\ttrain-rmse:…\tvalidation-rmse:0.60` is round 13's value of validation:rmse.
    reader: (objective) => (line) => {
      const m = /^\[(\d+)\]/.exec(line);
      if (!m) return undefined;
      for (const [name, value] of evaluationMetrics(line)) if (name === objective) return [Number(m[1]) + 1, value];
      return undefined;
    },
  };
  return xgboost;
}

/**
 * The algorithm of a definition. A SageMaker XGBoost image runs the built-in algorithm unless the
 * job is script mode (a `sagemaker_program` hyperparameter), which reports through MetricDefinitions.
 */
export function algorithmOf(def: HyperParameterTrainingJobDefinition): Algorithm {
  const image = def.AlgorithmSpecification?.TrainingImage ?? '';
  const scriptMode = def.StaticHyperParameters?.sagemaker_program !== undefined;
  if (parseContainerVersion(image) !== undefined && !scriptMode) return builtinXGBoost();
  const defs = def.AlgorithmSpecification?.MetricDefinitions ?? [];
  return {
    builtin: false,
    metrics: new Map(defs.map((d) => [d.Name, undefined] as const)),
    // Each match of the objective's regex is one more epoch (SageMaker counts emitted values).
    reader(objective) {
      const d = defs.find((x) => x.Name === objective);
      if (!d) return () => undefined;
      const re = RE2JS.compile(d.Regex);
      let epoch = 0;
      return (line) => {
        const m = re.matcher(line);
        if (!m.find() || m.groupCount() < 1) return undefined;
        const v = Number(m.group(1));
        if (!Number.isFinite(v)) return undefined;
        epoch += 1;
        return [epoch, v];
      };
    },
  };
}

/** The objective's final value in a training job's FinalMetricDataList, if it reported one. */
export function finalObjective(
  metrics: ReadonlyArray<{ MetricName?: string; Value?: number }> | undefined,
  objective: string,
): number | undefined {
  const m = metrics?.find((x) => x.MetricName === objective);
  return m?.Value !== undefined && Number.isFinite(m.Value) ? m.Value : undefined;
}
