// What every protocol of a modelled service is built from: the generated model and the object
// holding one lowerCamel handler per served operation (a generated *Handlers interface).
import type { ServiceError } from './service-error.js';

export interface ModelService<M> {
  readonly model: M;
  readonly handlers: object;
}

export interface ProtocolOptions {
  /**
   * Rewrites an error before it is written: a service whose generic validation answer differs from
   * AWS's common one (CloudWatch's MissingParameter and InvalidParameterValue) says so here.
   */
  readonly mapError?: (e: ServiceError) => ServiceError;
}
