// Channel ContentType → input format, as the SageMaker XGBoost container's data_utils.get_content_type
// reads it: the header is lower-cased and split like cgi.parse_header; no ContentType means libsvm
// (the channels' default is text/libsvm); csv accepts label_size=1 only.

import { parseMediaType } from '../../../inference/runtimes/xgboost/serving.js';
import { TrainingInputError } from './errors.js';

export type InputFormat = 'csv' | 'libsvm';

/** The container's VALID_CONTENT_TYPES, in its order (for its error message). */
export const VALID_CONTENT_TYPES = [
  'csv',
  'libsvm',
  'parquet',
  'recordio-protobuf',
  'text/csv',
  'text/libsvm',
  'text/x-libsvm',
  'application/x-parquet',
  'application/x-recordio-protobuf',
] as const;

/** Resolve a channel's ContentType; throws TrainingInputError with the container's message. */
export function inputFormatOf(contentType: string | undefined | null): InputFormat {
  if (contentType === undefined || contentType === null) return 'libsvm';
  const { type, params } = parseMediaType(contentType);
  if (type === 'csv' || type === 'text/csv') {
    if (params.label_size !== undefined && params.label_size !== '1') {
      throw new TrainingInputError(
        `${contentType} is not an accepted csv ContentType. Optional parameter label_size must be equal to 1`,
      );
    }
    return 'csv';
  }
  if (type === 'libsvm' || type === 'text/libsvm' || type === 'text/x-libsvm') return 'libsvm';
  if (
    type === 'parquet' ||
    type === 'application/x-parquet' ||
    type === 'recordio-protobuf' ||
    type === 'application/x-recordio-protobuf'
  ) {
    // DEVIATION(aws): the container also reads Parquet and RecordIO-protobuf; Slipway's trainer reads
    // the two text formats only, and says so rather than failing later.
    throw new TrainingInputError(
      `ContentType ${contentType} is accepted by the SageMaker XGBoost container but not supported by this trainer; use text/csv or text/libsvm.`,
    );
  }
  throw new TrainingInputError(`${contentType} is not an accepted ContentType: ${VALID_CONTENT_TYPES.join(', ')}.`);
}
