// Hyperparameter validation of the trainer: SageMaker XGBoost's HyperParameters, validated as the
// container validates them, into TrainParams with xgboost 1.7's defaults. See train-params.ts.

export { HyperparameterError } from './errors.js';
export { HYPERPARAMETERS, OBJECTIVES, SUPPORTED_METRICS, TUNING_METRICS } from './spec.js';
export { type EarlyStopping, type ValidatedHyperparameters, validateHyperparameters } from './train-params.js';
export { validateAsContainer } from './validate.js';
