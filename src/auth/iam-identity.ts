// Who made a change, as SageMaker records it in CreatedBy / LastModifiedBy (UserContext.IamIdentity):
// the signing principal's ARN and its principal id, or the account root for an unsigned request.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_IamIdentity.html
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids
import { createHash } from 'node:crypto';

export interface IamIdentity {
  readonly Arn: string;
  readonly PrincipalId: string;
  readonly SourceIdentity?: string;
}

/** The account root as IAM names it (`arn:aws:iam::<account>:root`): whom an anonymous Slipway acts for. */
export function accountRootArn(accountId: string): string {
  return `arn:aws:iam::${accountId}:root`;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * DEVIATION(aws): IAM gives each user and role a random unique id when it is created (AIDA… for a
 * user, AROA… for a role); the credentials file has no such id, so Slipway derives one from the
 * ARN: the same principal always gets the same id, and a different principal a different one.
 */
function uniqueId(prefix: string, arn: string): string {
  const h = createHash('sha256').update(arn).digest();
  let out = prefix;
  for (let i = 0; out.length < 21; i++) out += BASE32[h[i]! & 31];
  return out;
}

/**
 * The IamIdentity of a principal ARN, with the PrincipalId IAM's aws:userid would hold: the account
 * id for the root, `AIDA…` for a user, `AROA…:<session>` for an assumed-role session, `<account>:<name>`
 * for a federated user.
 */
export function iamIdentity(principalArn: string): IamIdentity {
  const m = /^arn:(aws[a-z-]*):(iam|sts)::(\d{12}):(.+)$/.exec(principalArn);
  if (!m) return { Arn: principalArn, PrincipalId: uniqueId('AIDA', principalArn) };
  const [, partition, service, account, resource] = m as unknown as [string, string, string, string, string];
  if (resource === 'root') return { Arn: principalArn, PrincipalId: account };
  const slash = resource.indexOf('/');
  const type = slash < 0 ? resource : resource.slice(0, slash);
  const rest = slash < 0 ? '' : resource.slice(slash + 1);
  if (service === 'sts' && type === 'assumed-role') {
    const cut = rest.lastIndexOf('/');
    const role = cut < 0 ? rest : rest.slice(0, cut);
    const session = cut < 0 ? '' : rest.slice(cut + 1);
    const roleId = uniqueId('AROA', `arn:${partition}:iam::${account}:role/${role}`);
    return { Arn: principalArn, PrincipalId: session ? `${roleId}:${session}` : roleId };
  }
  if (service === 'sts' && type === 'federated-user') return { Arn: principalArn, PrincipalId: `${account}:${rest}` };
  return { Arn: principalArn, PrincipalId: uniqueId(type === 'role' ? 'AROA' : 'AIDA', principalArn) };
}
