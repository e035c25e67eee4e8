// The IAM action and resource of each S3 operation Slipway serves.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/using-with-s3-policy-actions.html
import type { ActionRequest, ActionTable } from './types.js';

const bucket = (i: Record<string, unknown>) => `arn:aws:s3:::${String(i.Bucket ?? '')}`;
const object = (i: Record<string, unknown>) => `${bucket(i)}/${String(i.Key ?? '')}`;

/** Operation → [action, which resource]. */
const S3_ACTIONS: Readonly<Record<string, readonly [string, 'bucket' | 'object' | 'all']>> = {
  ListBuckets: ['s3:ListAllMyBuckets', 'all'],
  CreateBucket: ['s3:CreateBucket', 'bucket'],
  DeleteBucket: ['s3:DeleteBucket', 'bucket'],
  HeadBucket: ['s3:ListBucket', 'bucket'],
  GetBucketLocation: ['s3:GetBucketLocation', 'bucket'],
  ListObjects: ['s3:ListBucket', 'bucket'],
  ListObjectsV2: ['s3:ListBucket', 'bucket'],
  ListMultipartUploads: ['s3:ListBucketMultipartUploads', 'bucket'],
  GetObject: ['s3:GetObject', 'object'],
  HeadObject: ['s3:GetObject', 'object'],
  PutObject: ['s3:PutObject', 'object'],
  CopyObject: ['s3:PutObject', 'object'],
  CreateMultipartUpload: ['s3:PutObject', 'object'],
  UploadPart: ['s3:PutObject', 'object'],
  CompleteMultipartUpload: ['s3:PutObject', 'object'],
  AbortMultipartUpload: ['s3:AbortMultipartUpload', 'object'],
  ListParts: ['s3:ListMultipartUploadParts', 'object'],
  DeleteObject: ['s3:DeleteObject', 'object'],
  // DeleteObjects is checked per key once its body is read (s3DeleteObjectsActions).
  DeleteObjects: ['s3:DeleteObject', 'bucket'],
};

export const s3Actions: ActionTable = (operation, input): ActionRequest => {
  const entry = S3_ACTIONS[operation];
  if (!entry) return { action: `s3:${operation}`, resources: ['*'] };
  const [action, on] = entry;
  return { action, resources: [on === 'all' ? '*' : on === 'bucket' ? bucket(input) : object(input)] };
};

/** CopyObject also reads its source: `s3:GetObject` on `bucket/key` of x-amz-copy-source. */
export function copySourceResource(copySource: string): string {
  const s = decodeURIComponent(copySource.split('?')[0]!).replace(/^\//, '');
  return `arn:aws:s3:::${s}`;
}

/** DeleteObjects: `s3:DeleteObject` on each key of the request document. */
export function deleteObjectsResources(bucketName: string, keys: readonly string[]): string[] {
  return keys.map((k) => `arn:aws:s3:::${bucketName}/${k}`);
}
