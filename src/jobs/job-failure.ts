// A job that ends Failed for a reason its user can act on: the message is the FailureReason,
// worded as SageMaker words it ("ClientError: ...", "AlgorithmError: ...").
// https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-troubleshooting.html
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
