// Which service and wire protocol a request on the AWS port speaks, read from what the request
// itself declares, never guessed from its shape: the SigV4 credential scope's service (`sts`,
// `monitoring`, `sagemaker`, `s3`), X-Amz-Target's prefix (JSON protocols), the smithy-protocol
// header with its `/service/<name>/operation/<op>` path (RPC v2 CBOR), and, for unsigned requests
// to an open server, the query protocol's own Action and Version.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
import type { IncomingHttpHeaders } from 'node:http';

export type ServiceRoute =
  | { readonly protocol: 'json'; readonly service: 'sagemaker' | 'logs' | 'cloudwatch' }
  | { readonly protocol: 'cbor'; readonly service: 'cloudwatch' }
  | { readonly protocol: 'query'; readonly service: 'sts' | 'cloudwatch' }
  | { readonly protocol: 'rest-json'; readonly service: 'sagemaker-metrics' }
  /** An unsigned form POST to `/`: its Version (in the body) names the query service. */
  | { readonly protocol: 'query-form' }
  /** Signed for a service this server does not serve (iam, ecr...): answered as such, never handed to S3. */
  | { readonly protocol: 'unserved'; readonly service: string };

export const CLOUDWATCH_TARGET_PREFIX = 'GraniteServiceVersion20100801';
const QUERY_VERSIONS: Readonly<Record<string, 'sts' | 'cloudwatch'>> = {
  '2011-06-15': 'sts',
  '2010-08-01': 'cloudwatch',
};

/** The SigV4 service names the AWS port serves (neptune-db is the graph port's). */
const SERVED = new Set(['s3', 'sagemaker', 'sts', 'monitoring', 'logs']);

/** SageMaker Metrics' operations: paths no S3 bucket can have (bucket names are lower-case). */
const SAGEMAKER_METRICS = new Set(['PUT /BatchPutMetrics', 'POST /BatchGetMetrics']);

export interface RouteInput {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** The credential scope's service, when the request is signed. */
  readonly signedFor: string | undefined;
}

/**
 * The route of a request for the services this module knows, or undefined for the others
 * (SageMaker Runtime, S3, health, the console), which the caller routes as it always has.
 */
export function serviceRoute(r: RouteInput): ServiceRoute | undefined {
  const target = r.headers['x-amz-target'];
  if (typeof target === 'string') {
    if (target.startsWith('Logs_20140328.')) return { protocol: 'json', service: 'logs' };
    if (target.startsWith(`${CLOUDWATCH_TARGET_PREFIX}.`)) return { protocol: 'json', service: 'cloudwatch' };
    // Any other target is the SageMaker control plane's to answer (an unknown one as UnknownOperation).
    return { protocol: 'json', service: 'sagemaker' };
  }
  if (r.headers['smithy-protocol'] === 'rpc-v2-cbor' && r.path.startsWith('/service/')) {
    return { protocol: 'cbor', service: 'cloudwatch' };
  }
  switch (r.signedFor) {
    case 'sts':
      return { protocol: 'query', service: 'sts' };
    case 'monitoring':
      return { protocol: 'query', service: 'cloudwatch' };
    case 's3':
      return undefined;
  }
  if (r.signedFor !== undefined && !SERVED.has(r.signedFor)) return { protocol: 'unserved', service: r.signedFor };
  // SageMaker Metrics signs as `sagemaker` (its model's signingName), like the control plane.
  if ((r.signedFor === undefined || r.signedFor === 'sagemaker') && SAGEMAKER_METRICS.has(`${r.method} ${r.path}`)) {
    return { protocol: 'rest-json', service: 'sagemaker-metrics' };
  }
  if (r.signedFor === undefined && r.path === '/') {
    if (r.method === 'GET') {
      const service = QUERY_VERSIONS[r.query.get('Version') ?? ''];
      if (service && r.query.has('Action')) return { protocol: 'query', service };
    }
    const type = r.headers['content-type'];
    if (
      r.method === 'POST' &&
      typeof type === 'string' &&
      type.toLowerCase().startsWith('application/x-www-form-urlencoded')
    ) {
      return { protocol: 'query-form' };
    }
  }
  return undefined;
}

/** The query service an unsigned form body names by its Version. */
export function queryServiceOfForm(body: Buffer): 'sts' | 'cloudwatch' | undefined {
  const params = new URLSearchParams(body.toString('utf8'));
  return params.has('Action') ? QUERY_VERSIONS[params.get('Version') ?? ''] : undefined;
}
