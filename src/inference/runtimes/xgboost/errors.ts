/** Thrown for any model file that cannot be loaded: bad format, truncated, hostile or unsupported. */
export class XGBoostModelError extends Error {
  override name = 'XGBoostModelError';
}

/**
 * Thrown by the serving codec. `httpStatus` is the status the SageMaker XGBoost container answers
 * (400 bad payload for the model, 406 unsupported Accept, 415 unsupported or unparsable content).
 */
export class XGBoostServingError extends Error {
  override name = 'XGBoostServingError';
  readonly httpStatus: number;
  constructor(httpStatus: number, message: string) {
    super(message);
    this.httpStatus = httpStatus;
  }
}

export function fail(message: string): never {
  throw new XGBoostModelError(message);
}
