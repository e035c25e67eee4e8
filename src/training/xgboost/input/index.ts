// The trainer's input readers: a channel's CSV or libsvm files (plain or gzip) into a DMatrix, as the
// SageMaker XGBoost container and xgboost 1.7 read them. See read-channel.ts.

export { type InputFormat, inputFormatOf, VALID_CONTENT_TYPES } from './content-type.js';
export { sniffDelimiter } from './csv.js';
export { parseDmlcFloat } from './dmlc-float.js';
export { TrainingInputError } from './errors.js';
export { type ChannelFile, type ReadChannelOptions, readChannel } from './read-channel.js';
