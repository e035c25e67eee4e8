// The S3 error codes Slipway answers, each with its HTTP status and S3's own message: one registry,
// as Fastify keeps its error codes. https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html
// Most of these are not error shapes in the model (S3 documents them only in prose), so they live here.
import { ServiceError } from '../service-error.js';

export const S3_ERRORS = {
  AccessDenied: [403, 'Access Denied'],
  AuthorizationHeaderMalformed: [400, 'The authorization header is malformed.'],
  AuthorizationQueryParametersError: [400, 'Error parsing the X-Amz-Credential parameter.'],
  BadDigest: [400, 'The Content-MD5 you specified did not match what we received.'],
  BucketAlreadyExists: [409, 'The requested bucket name is not available.'],
  BucketAlreadyOwnedByYou: [409, 'Your previous request to create the named bucket succeeded and you already own it.'],
  BucketNotEmpty: [409, 'The bucket you tried to delete is not empty'],
  EntityTooLarge: [400, 'Your proposed upload exceeds the maximum allowed size'],
  EntityTooSmall: [400, 'Your proposed upload is smaller than the minimum allowed size'],
  ExpiredToken: [400, 'The provided token has expired.'],
  IncompleteBody: [400, 'You did not provide the number of bytes specified by the Content-Length HTTP header.'],
  InternalError: [500, 'We encountered an internal error. Please try again.'],
  InvalidAccessKeyId: [403, 'The AWS Access Key Id you provided does not exist in our records.'],
  InvalidArgument: [400, 'Invalid Argument'],
  InvalidBucketName: [400, 'The specified bucket is not valid.'],
  InvalidDigest: [400, 'The Content-MD5 you specified is not valid.'],
  InvalidPart: [
    400,
    "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
  ],
  InvalidPartNumber: [416, 'The requested partnumber is not satisfiable'],
  InvalidPartOrder: [400, 'The list of parts was not in ascending order. Parts must be ordered by part number.'],
  InvalidRange: [416, 'The requested range is not satisfiable'],
  InvalidRequest: [400, 'Invalid Request'],
  InvalidURI: [400, "Couldn't parse the specified URI."],
  KeyTooLongError: [400, 'Your key is too long'],
  MalformedXML: [400, 'The XML you provided was not well-formed or did not validate against our published schema'],
  MetadataTooLarge: [400, 'Your metadata headers exceed the maximum allowed metadata size'],
  MethodNotAllowed: [405, 'The specified method is not allowed against this resource.'],
  MissingContentLength: [411, 'You must provide the Content-Length HTTP header.'],
  NoSuchBucket: [404, 'The specified bucket does not exist'],
  NoSuchKey: [404, 'The specified key does not exist.'],
  NoSuchUpload: [
    404,
    'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
  ],
  NotImplemented: [501, 'A header you provided implies functionality that is not implemented'],
  NotModified: [304, 'Not Modified'],
  PreconditionFailed: [412, 'At least one of the pre-conditions you specified did not hold'],
  RequestTimeTooSkewed: [403, 'The difference between the request time and the current time is too large.'],
  ServiceUnavailable: [503, 'Please reduce your request rate.'],
  SignatureDoesNotMatch: [
    403,
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  ],
  XAmzContentSHA256Mismatch: [400, "The provided 'x-amz-content-sha256' header does not match what was computed."],
} as const satisfies Record<string, readonly [number, string]>;

export type S3ErrorCode = keyof typeof S3_ERRORS;

/** Extra `<Error>` children S3 adds for some codes (BucketName, Key, UploadId, ArgumentName...). */
export type S3ErrorFields = Readonly<Record<string, string | number | undefined>>;

export class S3Error extends ServiceError {
  constructor(
    code: S3ErrorCode,
    message?: string,
    readonly fields: S3ErrorFields = {},
    /** Response headers S3 sends with this error (e.g. Content-Range on InvalidRange). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    const [status, text] = S3_ERRORS[code];
    super(code, message ?? text, status, status >= 500 ? 'server' : 'client');
  }

  override extraFields(): Record<string, unknown> {
    return { ...this.fields };
  }
}

/** Shorthand: `s3Error('NoSuchKey', { Key })`. */
export function s3Error(code: S3ErrorCode, fields?: S3ErrorFields, message?: string): S3Error {
  return new S3Error(code, message, fields);
}
