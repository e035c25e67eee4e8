// ARNs as the console meets them: which kind of resource, its name, and the console page for it.

export interface Arn {
  readonly region: string;
  readonly accountId: string;
  readonly resourceType: string;
  readonly resource: string;
}

export function parseArn(arn: string): Arn | undefined {
  const m = /^arn:[^:]+:sagemaker:([^:]*):([^:]*):([^/]+)\/(.+)$/.exec(arn);
  return m ? { region: m[1]!, accountId: m[2]!, resourceType: m[3]!, resource: m[4]! } : undefined;
}

/** The console path that shows an ARN's resource, or undefined when no page does. */
export function pageOf(arn: string): string | undefined {
  const a = parseArn(arn);
  if (!a) return undefined;
  const enc = encodeURIComponent;
  switch (a.resourceType) {
    case 'model-package': {
      const [group, version] = a.resource.split('/');
      return version ? `/registry/${enc(group!)}/${enc(version)}` : undefined;
    }
    case 'model-package-group':
      return `/registry/${enc(a.resource)}`;
    case 'endpoint':
      return `/endpoints/${enc(a.resource)}`;
    case 'experiment':
      return `/experiments/${enc(a.resource)}`;
    case 'pipeline': {
      const [name, , id] = a.resource.split('/');
      return id ? `/pipelines/${enc(name!)}/executions/${enc(id)}` : `/pipelines/${enc(name!)}`;
    }
    case 'training-job':
    case 'transform-job':
    case 'processing-job':
      return `/jobs/${a.resourceType.slice(0, -4)}/${enc(a.resource)}`;
    default:
      return undefined;
  }
}

/** A short readable name for an ARN or URI: its last path segment(s). */
export function shortName(arnOrUri: string): string {
  const a = parseArn(arnOrUri);
  if (a) return a.resource;
  const s3 = /^s3:\/\/([^/]+)\/?(.*)$/.exec(arnOrUri);
  if (s3) {
    const parts = s3[2]!.split('/').filter(Boolean);
    // A training job's model (<prefix>/<job>/output/model.tar.gz): the job tells one from another.
    if (parts.length >= 3 && parts.at(-2) === 'output') return `${parts.at(-3)}/${parts.at(-1)}`;
    return parts.length ? parts.slice(-2).join('/') : s3[1]!;
  }
  // A container image: its repository and tag.
  if (/^[^/:]+(:\d+)?\/.+/.test(arnOrUri) && !arnOrUri.includes('://'))
    return arnOrUri.slice(arnOrUri.lastIndexOf('/') + 1);
  return arnOrUri.length > 48 ? `…${arnOrUri.slice(-47)}` : arnOrUri;
}
