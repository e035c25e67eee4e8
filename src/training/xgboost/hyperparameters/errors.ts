/**
 * A hyperparameter the SageMaker XGBoost container refuses (its message, e.g. "Hyperparameter
 * max_depth: -3 is not in [0, +inf)"), or one it accepts that this trainer cannot honour
 * (`unsupported`). The job turns the message into its FailureReason.
 */
export class HyperparameterError extends Error {
  override name = 'HyperparameterError';
  readonly hyperparameter?: string;
  readonly unsupported: boolean;
  constructor(message: string, hyperparameter?: string, unsupported = false) {
    super(message);
    this.hyperparameter = hyperparameter;
    this.unsupported = unsupported;
  }
}
