// How each protocol answers a request that failed authentication or authorization, with the
// codes, statuses and wording AWS uses. One registry per error family, as in s3-errors.ts.
// https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/CommonErrors.html
import { S3Error } from '../protocol/rest-xml/s3-errors.js';
import { ServiceError } from '../protocol/service-error.js';
import { type AuthFailure, MAX_SKEW_MS, MAX_PRESIGNED_SECONDS } from './authorizer.js';

const SIGNATURE_MISMATCH_JSON =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';

/** `20261124T132032Z` from a Date. */
const basic = (d: Date): string =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** The JSON services' (SageMaker, SageMaker Runtime, Logs) answer to a failed authentication. */
export function jsonAuthError(f: AuthFailure): ServiceError {
  switch (f.reason) {
    case 'missing':
      return new ServiceError('MissingAuthenticationTokenException', 'Missing Authentication Token', 403);
    case 'malformed':
      return new ServiceError('IncompleteSignatureException', f.message, 400);
    case 'unknown-key':
      return new ServiceError(
        'UnrecognizedClientException',
        'The security token included in the request is invalid.',
        400,
      );
    case 'signature':
    case 'missing-content-sha256':
      return new ServiceError('InvalidSignatureException', SIGNATURE_MISMATCH_JSON, 403);
    case 'expired-token':
      return new ServiceError('ExpiredTokenException', 'The security token included in the request is expired', 403);
    case 'skewed':
    case 'expired':
    case 'expires-too-long': {
      const now = f.reason === 'expires-too-long' ? new Date() : f.serverTime;
      const requestTime =
        f.reason === 'skewed' ? f.requestTime : f.reason === 'expired' ? basic(f.expiresAt) : basic(now);
      if (f.reason === 'skewed' && f.future) {
        return new ServiceError(
          'InvalidSignatureException',
          `Signature not yet current: ${requestTime} is still later than ${basic(new Date(now.getTime() + MAX_SKEW_MS))} (${basic(now)} + 15 min.)`,
          400,
        );
      }
      return new ServiceError(
        'InvalidSignatureException',
        `Signature expired: ${requestTime} is now earlier than ${basic(new Date(now.getTime() - MAX_SKEW_MS))} (${basic(now)} - 15 min.)`,
        400,
      );
    }
  }
}

/** SageMaker's (and Logs') AccessDeniedException: the IAM sentence as message. */
export function jsonAccessDenied(message: string): ServiceError {
  return new ServiceError('AccessDeniedException', message, 400);
}

class S3AuthError extends S3Error {}

/** S3's XML answer to a failed authentication. */
export function s3AuthError(f: AuthFailure): S3Error {
  switch (f.reason) {
    case 'missing':
      return new S3AuthError('AccessDenied');
    case 'malformed':
      return new S3AuthError('AuthorizationHeaderMalformed', f.message);
    case 'unknown-key':
      return new S3AuthError('InvalidAccessKeyId', undefined, { AWSAccessKeyId: f.accessKeyId });
    case 'signature':
      return new S3AuthError('SignatureDoesNotMatch', undefined, {
        AWSAccessKeyId: f.accessKeyId,
        StringToSign: f.stringToSign,
        SignatureProvided: f.signatureProvided,
        StringToSignBytes: hexBytes(f.stringToSign),
        ...(f.canonicalRequest === undefined
          ? {}
          : { CanonicalRequest: f.canonicalRequest, CanonicalRequestBytes: hexBytes(f.canonicalRequest) }),
      });
    case 'skewed':
      return new S3AuthError('RequestTimeTooSkewed', undefined, {
        RequestTime: f.requestTime,
        ServerTime: f.serverTime.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        MaxAllowedSkewMilliseconds: MAX_SKEW_MS,
      });
    case 'expired':
      return new S3AuthError('AccessDenied', 'Request has expired', {
        ...(f.seconds === undefined ? {} : { 'X-Amz-Expires': f.seconds }),
        Expires: f.expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        ServerTime: f.serverTime.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      });
    case 'expires-too-long':
      return new S3AuthError(
        'AuthorizationQueryParametersError',
        `X-Amz-Expires must be less than a week (in seconds) that is ${MAX_PRESIGNED_SECONDS}`,
      );
    case 'missing-content-sha256':
      return new S3AuthError('InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
    case 'expired-token':
      return new S3AuthError('ExpiredToken', 'The provided token has expired.');
  }
}

/**
 * The query services' (STS, CloudWatch) answer to a failed authentication: the JSON services'
 * sentences under their query codes and statuses (InvalidClientTokenId and SignatureDoesNotMatch
 * are 403 there).
 */
export function queryAuthError(f: AuthFailure): ServiceError {
  const e = jsonAuthError(f);
  switch (e.code) {
    case 'MissingAuthenticationTokenException':
      return new ServiceError('MissingAuthenticationToken', 'Request is missing Authentication Token', 403);
    case 'UnrecognizedClientException':
      return new ServiceError('InvalidClientTokenId', e.message, 403);
    case 'InvalidSignatureException':
      return new ServiceError('SignatureDoesNotMatch', e.message, 403);
    case 'IncompleteSignatureException':
      return new ServiceError('IncompleteSignature', e.message, 400);
    case 'ExpiredTokenException':
      return new ServiceError('ExpiredToken', e.message, 403);
    default:
      return e;
  }
}

/** `41 57 53 34 ...`: S3 spells the strings it signed as space-separated hex bytes. */
function hexBytes(s: string): string {
  return Buffer.from(s, 'utf8')
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1 ');
}

/** Neptune's answer to any failed IAM authentication or authorization: 403 AccessDeniedException. */
export function neptuneAuthError(f: AuthFailure | { reason: 'denied'; message: string }): ServiceError {
  const message =
    f.reason === 'denied'
      ? f.message
      : f.reason === 'missing'
        ? 'Missing Authentication Token'
        : f.reason === 'unknown-key'
          ? 'The security token included in the request is invalid.'
          : f.reason === 'signature'
            ? SIGNATURE_MISMATCH_JSON
            : jsonAuthError(f).message;
  return new ServiceError('AccessDeniedException', message, 403);
}
