// XGBoost inference runtime: loads every model format SageMaker XGBoost containers write and
// predicts with xgboost's own float32 arithmetic; speaks the serving container's request and
// response formats. Self-contained: no server code, no imports outside src/inference/artifact.

export { ArchiveError, type ArchiveLimits } from '../../artifact/index.js';
export {
  type ExtractedModel,
  extractModelFromTarGz,
  extractModelFromTarGzSync,
  XGBOOST_MODEL_FILE,
} from './artifact.js';
export { type CsvRows, decodeCsvBytes, type Scratch } from './csv-bytes.js';
export { XGBoostModelError, XGBoostServingError } from './errors.js';
export { detectModelFormat, type LoadOptions, loadXGBoostModel, type ModelFormat } from './loader.js';
export { type ModelInfo, type PredictOptions, XGBoostModel } from './model.js';
export {
  type ContainerVersion,
  type DecodedRequest,
  decodeCsvText,
  decodeRequest,
  type EncodedResponse,
  type EncodeOptions,
  encodeResponse,
  type InvocationRequest,
  type InvocationResponse,
  encodeLines,
  type InvocationBytes,
  invokeXGBoost,
  invokeXGBoostBytes,
  parseContainerVersion,
  pyFloatRepr,
  type ResponseStyle,
  resolveAccept,
  responseStyle,
} from './serving.js';
