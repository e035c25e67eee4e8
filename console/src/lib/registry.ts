// What the registry's group list shows of each group beyond ListModelPackageGroups: how many
// versions it holds, its newest version with that version's approval (who decided, and the note,
// from DescribeModelPackage) and its newest approved version.
import { sagemaker } from '../api/client';

type Obj = Record<string, unknown>;

export interface GroupSummary {
  /** Versions counted (all of them unless `more`). */
  readonly versions: number;
  /** The group holds more versions than were counted. */
  readonly more: boolean;
  /** The newest version, described (LastModifiedBy, ApprovalDescription). */
  readonly latest?: Obj;
  /** The newest Approved version's summary. */
  readonly approved?: Obj;
}

/** Counting stops after this many versions (ten pages of ListModelPackages). */
const COUNT_MAX = 1000;

export async function groupSummary(group: string, signal?: AbortSignal): Promise<GroupSummary> {
  let versions = 0;
  let newest: Obj | undefined;
  let approved: Obj | undefined;
  let token: string | undefined;
  do {
    const r = await sagemaker<{ ModelPackageSummaryList: Obj[]; NextToken?: string }>(
      'ListModelPackages',
      { ModelPackageGroupName: group, SortBy: 'CreationTime', SortOrder: 'Descending', MaxResults: 100, NextToken: token },
      signal,
    );
    newest ??= r.ModelPackageSummaryList[0];
    approved ??= r.ModelPackageSummaryList.find((p) => p.ModelApprovalStatus === 'Approved');
    versions += r.ModelPackageSummaryList.length;
    token = r.NextToken;
  } while (token && versions < COUNT_MAX);
  const latest = newest
    ? await sagemaker<Obj>('DescribeModelPackage', { ModelPackageName: newest.ModelPackageArn }, signal).catch(() => newest)
    : undefined;
  return { versions, more: token !== undefined, latest, approved };
}

/** Who changed a package last: the identity SageMaker records, in the most readable form it has. */
export function who(u: unknown): string | undefined {
  const x = (u ?? {}) as { UserProfileName?: string; IamIdentity?: { Arn?: string; PrincipalId?: string }; DomainId?: string };
  return x.UserProfileName ?? x.IamIdentity?.Arn ?? x.IamIdentity?.PrincipalId;
}

/** Whether a version's approval was decided (Approved or Rejected), not pending. */
export const decided = (p: Obj): boolean => p.ModelApprovalStatus === 'Approved' || p.ModelApprovalStatus === 'Rejected';
