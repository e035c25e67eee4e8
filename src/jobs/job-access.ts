// A job reads its inputs and writes its outputs as the role it names (RoleArn), as SageMaker does:
// with a credentials file in force, a role that may not is a ClientError that fails the job.
import { JobFailure } from './job-failure.js';

/** What the credentials file's roles may do with S3 locations (src/auth/s3-access.ts). */
export interface JobAccess {
  mayRead(role: string, uri: string): boolean;
  mayWrite(role: string, uri: string): boolean;
}

/** Throws the job's FailureReason when `role` may not read every input or write every output. */
export function checkRoleAccess(
  access: JobAccess | undefined,
  role: string,
  reads: readonly string[],
  writes: readonly string[],
): void {
  if (!access) return;
  for (const uri of reads) {
    if (!access.mayRead(role, uri)) {
      throw new JobFailure(
        `ClientError: Data download failed: Access Denied. Please ensure that the role "${role}" has "s3:ListBucket" permissions on the bucket and "s3:GetObject" permissions on "${uri}".`,
      );
    }
  }
  for (const uri of writes) {
    if (!access.mayWrite(role, uri)) {
      throw new JobFailure(
        `ClientError: The role "${role}" may not write the output to "${uri}" (s3:PutObject is denied).`,
      );
    }
  }
}
