// The metric definitions SageMaker gives a built-in XGBoost training job in DescribeTrainingJob's
// AlgorithmSpecification.MetricDefinitions: one per metric the container can report, on the
// training and the validation channel, with the container's own regular expression
// (algorithm_mode/metrics.py in aws/sagemaker-xgboost-container writes them for `validation:`;
// `train:` follows the same pattern). `#011` is how the job's log shows the tab between them.
// The SageMaker SDK's TrainingJobAnalytics reads the names from here.
import { SUPPORTED_METRICS } from './hyperparameters/spec.js';

export interface BuiltinMetricDefinition {
  readonly Name: string;
  readonly Regex: string;
}

export function builtinMetricDefinitions(): BuiltinMetricDefinition[] {
  return ['train', 'validation'].flatMap((channel) =>
    SUPPORTED_METRICS.map((m) => ({ Name: `${channel}:${m}`, Regex: `.*\\[[0-9]+\\].*#011${channel}-${m}:(\\S+)` })),
  );
}
