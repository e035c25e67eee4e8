// Inference: the engine hosting deploys serverless variants through, and its contract.
export * from './engine.js';
export { createInferenceEngine, type InferenceEngineOptions, type SlipwayInferenceEngine } from './create-engine.js';
export { TIMEOUT_MESSAGE } from './errors.js';
