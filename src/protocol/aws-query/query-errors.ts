// The query error code of an error: the model's own (`InvalidParameterValueException` →
// `InvalidParameterValue`), or the query name of a common error. Written in `<Code>` by the query
// protocol and in `x-amzn-query-error: <code>;Sender` by awsQueryCompatible JSON and CBOR answers,
// which is where botocore and the JS SDK read the code from for such services.
// https://smithy.io/2.0/aws/protocols/aws-query-protocol.html#aws-protocols-awsquerycompatible-trait
import type { ServiceError } from '../service-error.js';
import type { QueryServiceModel } from './query-model.js';

/** Common errors as query services name them (STS, CloudWatch). */
const COMMON: Readonly<Record<string, string>> = {
  AccessDeniedException: 'AccessDenied',
  ValidationException: 'ValidationError',
  ThrottlingException: 'Throttling',
  MissingAuthenticationTokenException: 'MissingAuthenticationToken',
  UnrecognizedClientException: 'InvalidClientTokenId',
  InvalidSignatureException: 'SignatureDoesNotMatch',
  IncompleteSignatureException: 'IncompleteSignature',
  UnknownOperationException: 'InvalidAction',
  SerializationException: 'MalformedInput',
  RequestEntityTooLargeException: 'RequestEntityTooLarge',
};

export function queryCode(model: Pick<QueryServiceModel, 'shapes'>, e: ServiceError): string {
  return model.shapes[e.code]?.queryCode ?? COMMON[e.code] ?? e.code;
}

/** `x-amzn-query-error`'s value. */
export function queryErrorHeader(model: Pick<QueryServiceModel, 'shapes'>, e: ServiceError): string {
  return `${queryCode(model, e)};${e.fault === 'server' ? 'Receiver' : 'Sender'}`;
}
