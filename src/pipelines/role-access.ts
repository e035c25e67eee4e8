// A pipeline acts as its role (RoleArn), as SageMaker Pipelines does: with a credentials file in
// force, each call a step makes (CreateTrainingJob, DescribeProcessingJob, CreateModelPackage ...)
// must be allowed to that role, and Std:JsonGet reads its property file as that role.
// https://docs.aws.amazon.com/sagemaker/latest/dg/build-and-manage-access.html
import type { Partition } from '../domain/arn.js';
import type { SageMakerHandlers } from '../generated/sagemaker/handlers.js';
import { ServiceError } from '../protocol/service-error.js';

/** What the credentials file's roles may do (src/auth); absent when no credentials file is in force. */
export interface PipelineRoleAccess {
  /** IAM's sentence when `role` may not call `operation` with `input`, else undefined. */
  denied(role: string, operation: string, input: Record<string, unknown>, p: Partition): string | undefined;
  /** Whether `role` may read the object `uri` (s3:GetObject). */
  mayRead(role: string, uri: string, region: string): boolean;
}

/** The handlers as the role calls them: each call is first authorized for the role. */
export function asRole(
  h: SageMakerHandlers,
  access: PipelineRoleAccess,
  role: string,
  p: Partition,
): SageMakerHandlers {
  return new Proxy(h, {
    get(target, prop, receiver) {
      const fn = Reflect.get(target, prop, receiver) as unknown;
      if (typeof fn !== 'function' || typeof prop !== 'string') return fn;
      const operation = prop.charAt(0).toUpperCase() + prop.slice(1);
      return (input: Record<string, unknown>, ctx: unknown) => {
        const message = access.denied(role, operation, input ?? {}, p);
        if (message) return Promise.reject(new ServiceError('AccessDeniedException', message, 400));
        return (fn as (i: unknown, c: unknown) => Promise<unknown>).call(target, input, ctx);
      };
    },
  });
}
