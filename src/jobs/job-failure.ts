// A job that ends Failed for a reason its user can act on: the message is the FailureReason,
// worded as SageMaker words it ("ClientError: ...", "AlgorithmError: ...").
// https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-troubleshooting.html
import { BlobNotFoundError } from '../storage/blobs/blob-store.js';
import type { EndReason } from './types.js';

export class JobFailure extends Error {
  override readonly name = 'JobFailure';
  /** Fields the job's document records with the failure (a processing job's ExitMessage). */
  constructor(
    message: string,
    readonly fields?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}

/** FailureReason is at most 1024 characters. */
export function failureReason(s: string): string {
  return s.length > 1024 ? `${s.slice(0, 1021)}...` : s;
}

/** Whether `e` is a full disk (ENOSPC, or EDQUOT for a quota), wherever in the stack it was thrown. */
export function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || /\b(ENOSPC|EDQUOT)\b/.test(String((e as Error)?.message));
}

/**
 * A job's output that could not be uploaded, as its FailureReason: a full disk in words a user can
 * act on (the embedded S3 and the job's files share Slipway's data directory), anything else as it is.
 */
export function uploadFailure(e: unknown, what: string): JobFailure {
  if (isDiskFull(e))
    return new JobFailure(
      `ClientError: ${what} does not fit: no space left on the device that holds Slipway's data directory. Free space there, or have the job write less output.`,
    );
  if (e instanceof BlobNotFoundError && e.reason === 'NoSuchBucket')
    return new JobFailure(
      `ClientError: Could not upload ${what.replace(/^The /, 'the ')} to ${e.uri}: the bucket does not exist (NoSuchBucket).`,
    );
  return new JobFailure(`ClientError: Could not upload ${what.replace(/^The /, 'the ')}: ${(e as Error).message}`);
}

/**
 * The FailureReason of a job that ended with an error, as SageMaker words it: a JobFailure's own
 * text; a missing bucket or object as the ClientError it is (the job named it); anything else as
 * SageMaker's InternalServerError. The job's directory on this machine (under `jobsDir`) is shown as
 * the container's `/opt/ml/`, the path the user's code and SageMaker's documentation use.
 */
export function jobFailureReason(why: Pick<EndReason, 'message' | 'error'>, jobsDir?: string): string {
  const e = why.error;
  let reason: string;
  if (e instanceof JobFailure) reason = e.message;
  else if (e instanceof BlobNotFoundError)
    reason =
      e.reason === 'NoSuchBucket'
        ? `ClientError: The bucket of ${e.uri} does not exist (NoSuchBucket). Create it, or name a bucket that exists.`
        : `ClientError: ${e.uri} does not exist (NoSuchKey).`;
  else if (/^(ClientError|AlgorithmError|InternalServerError|CapacityError|OutOfMemoryError)\b/.test(why.message))
    reason = why.message;
  else reason = `InternalServerError: We encountered an internal error. Please try again. (${why.message})`;
  return jobsDir ? containerPaths(reason, jobsDir) : reason;
}

/** `<jobsDir>/<job directory>/x` → `/opt/ml/x`: what the job's paths are inside its container. */
export function containerPaths(text: string, jobsDir: string): string {
  const dir = jobsDir.replace(/\/+$/, '');
  if (!text.includes(dir)) return text;
  const escaped = dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`${escaped}/[^/\\s"']+(/|(?=[\\s"':,.)]|$))`, 'g'), '/opt/ml/');
}

/** SageMaker's FailureReason for a job whose container ran out of memory. */
export const OUT_OF_MEMORY =
  'OutOfMemoryError: Please use an instance type with more memory, or reduce the size of job data processed on an instance.';

/**
 * The failure of a sandboxed program that did not end well for reasons of its sandbox, or
 * undefined when its exit code is all there is to say (the kind words that as its AlgorithmError).
 */
export function sandboxFailure(exit: {
  readonly startError?: string;
  readonly oomKilled: boolean;
  readonly diskExceeded?: string;
}): JobFailure | undefined {
  if (exit.startError) return new JobFailure(`ClientError: ${exit.startError}`);
  if (exit.oomKilled) return new JobFailure(OUT_OF_MEMORY);
  if (exit.diskExceeded)
    return new JobFailure(
      `ClientError: Disk quota exceeded: ${exit.diskExceeded}. Please use a larger VolumeSizeInGB, or write less data.`,
    );
  return undefined;
}
