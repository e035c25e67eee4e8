// SageMaker ARNs: `arn:aws:sagemaker:<region>:<account>:<resource-type>/<name>`.
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsagemaker.html#amazonsagemaker-resources-for-iam-policies

export interface Partition {
  readonly accountId: string;
  readonly region: string;
}

/**
 * Resource types whose ARNs SageMaker lower-cases (names are case-insensitive there). The
 * Developer Guide's "Run a pipeline" shows `training-job/…-abalonetrain-…`, `processing-job/…`,
 * `transform-job/…`, `model/…` and `model-package/abalonemodelpackagegroupname/1` for steps and a
 * group named in mixed case; model package groups keep the caller's case (an AWS example notebook
 * quotes `model-package-group/Demo-test-deb-2`). Lineage and experiment entities: src/lineage/entities.ts.
 */
const LOWER_CASED = new Set([
  'endpoint',
  'endpoint-config',
  'model',
  'model-package',
  'training-job',
  'processing-job',
  'transform-job',
  'pipeline',
  'hyper-parameter-tuning-job',
]);

export function sagemakerArn(p: Partition, resourceType: string, resource: string): string {
  const r = LOWER_CASED.has(resourceType) ? resource.toLowerCase() : resource;
  return `arn:aws:sagemaker:${p.region}:${p.accountId}:${resourceType}/${r}`;
}

export interface ParsedArn {
  readonly partition: string;
  readonly service: string;
  readonly region: string;
  readonly accountId: string;
  readonly resourceType: string;
  /** Everything after `<resource-type>/`. */
  readonly resource: string;
}

const ARN = /^arn:(aws[a-z-]*):([a-z0-9-]+):([a-z0-9-]*):(\d{12}|):([a-z-]+)\/(.+)$/;

export function parseArn(arn: string): ParsedArn | undefined {
  const m = ARN.exec(arn);
  if (!m) return undefined;
  return { partition: m[1]!, service: m[2]!, region: m[3]!, accountId: m[4]!, resourceType: m[5]!, resource: m[6]! };
}

/**
 * Resolves an `ArnOrName` input to a resource name. An ARN must be a SageMaker ARN of the given
 * type in the caller's partition; otherwise it names nothing the caller can see (undefined).
 */
export function nameFromArnOrName(p: Partition, value: string, resourceType: string): string | undefined {
  if (!value.startsWith('arn:')) return value;
  const a = parseArn(value);
  if (a?.service !== 'sagemaker' || a.resourceType !== resourceType) return undefined;
  if (a.region !== p.region || a.accountId !== p.accountId) return undefined;
  return a.resource;
}
