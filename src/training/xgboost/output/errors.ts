/** Thrown when a model document cannot be written in the requested container format. */
export class ModelWriteError extends Error {
  override name = 'ModelWriteError';
}
