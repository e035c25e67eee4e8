// The trainer's output writers: xgboost 1.7's JSON model document into the `xgboost-model` file the
// SageMaker XGBoost container of a given version writes. See model-file.ts.

export { writeBinaryModel } from './binary-writer.js';
export { ModelWriteError } from './errors.js';
export {
  containerVersionOf,
  type ModelFile,
  type ModelFileFormat,
  modelFileFor,
  modelFormatFor,
} from './model-file.js';
export { type PickleOptions, writePickledBooster } from './pickle-writer.js';
