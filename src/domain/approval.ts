// Model approval status transitions of a versioned model package.
// https://docs.aws.amazon.com/sagemaker/latest/dg/model-registry-approve.html

const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  PendingManualApproval: ['Approved', 'Rejected'],
  Rejected: ['Approved'],
  Approved: ['Rejected'],
};

/** The error message when `from → to` is not allowed, or undefined when it is. */
export function approvalTransitionError(from: string, to: string): string | undefined {
  if (from === to || ALLOWED[from]?.includes(to)) return undefined;
  return `Cannot update ModelApprovalStatus of a model package from ${from} to ${to}.`;
}
