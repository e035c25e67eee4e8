// CreatedBy / LastModifiedBy for the resources SageMaker records the caller's IAM identity on
// (model packages and model package groups: "These details are associated with model package
// groups, model packages, and project entities only", UserContext.IamIdentity in the API model).
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_UserContext.html
import { accountRootArn, iamIdentity } from '../../auth/iam-identity.js';
import type { UserContext } from '../../generated/sagemaker/shapes.js';
import type { RequestContext } from '../../protocol/context.js';

/** The caller of a request as SageMaker records it: the signing principal, or the account root when unsigned. */
export function callerUserContext(ctx: RequestContext): UserContext {
  return { IamIdentity: iamIdentity(ctx.gate?.principalArn ?? accountRootArn(ctx.accountId)) };
}
