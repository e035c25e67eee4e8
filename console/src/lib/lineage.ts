// Lineage data for the graph: which lineage entity stands for a resource (an endpoint is a
// Context, a model package an Artifact, a job a TrialComponent, a data set an Artifact), paged
// QueryLineage reads, and a readable label for each entity.
import { ApiError, sagemaker } from '../api/client';
import { parseArn, shortName } from './arn';

export interface Vertex {
  readonly Arn: string;
  readonly Type?: string;
  readonly LineageType?: string;
}

export interface Edge {
  readonly SourceArn: string;
  readonly DestinationArn: string;
  readonly AssociationType?: string;
}

export type Direction = 'Ascendants' | 'Descendants' | 'Both';

const LINEAGE_KINDS: Record<string, string> = {
  artifact: 'Artifact',
  action: 'Action',
  context: 'Context',
  'experiment-trial-component': 'TrialComponent',
};

/** The lineage entity ARN QueryLineage can start from, for an entity ARN, a resource ARN or an s3:// URI. */
export async function resolveStart(input: string, signal?: AbortSignal): Promise<{ arn: string; via?: string }> {
  const s = input.trim();
  const list = async (op: string, body: object, key: string, arnKey: string) => {
    const r = await sagemaker<Record<string, Record<string, string>[]>>(op, { ...body, MaxResults: 1 }, signal);
    const hit = r[key]?.[0]?.[arnKey];
    if (!hit) throw new ApiError('NoLineage', `No lineage entity records ${s}: SageMaker has not tracked it yet.`, 404);
    return { arn: hit, via: s };
  };
  if (s.startsWith('s3://')) return list('ListArtifacts', { SourceUri: s }, 'ArtifactSummaries', 'ArtifactArn');
  const a = parseArn(s);
  if (!a) throw new ApiError('InvalidStart', `'${s}' is neither an ARN nor an s3:// URI.`, 400);
  if (LINEAGE_KINDS[a.resourceType]) return { arn: s };
  switch (a.resourceType) {
    case 'endpoint':
    case 'model-package-group':
      return list('ListContexts', { SourceUri: s }, 'ContextSummaries', 'ContextArn');
    case 'model-package':
    case 'model':
      return list('ListArtifacts', { SourceUri: s }, 'ArtifactSummaries', 'ArtifactArn');
    case 'training-job':
    case 'processing-job':
    case 'transform-job':
      return list('ListTrialComponents', { SourceArn: s }, 'TrialComponentSummaries', 'TrialComponentArn');
    default:
      throw new ApiError('InvalidStart', `SageMaker keeps no lineage for a ${a.resourceType}.`, 400);
  }
}

export interface LineagePage {
  readonly vertices: Vertex[];
  readonly edges: Edge[];
  readonly next?: string;
}

/** Reads QueryLineage pages (50 vertices each, the API's maximum) until `max` vertices or the end. */
export async function queryLineage(
  start: string,
  direction: Direction,
  depth: number,
  max: number,
  token?: string,
  onPage?: (p: LineagePage) => void,
  signal?: AbortSignal,
): Promise<LineagePage> {
  const vertices: Vertex[] = [];
  const edges: Edge[] = [];
  let next = token;
  do {
    const r = await sagemaker<{ Vertices?: Vertex[]; Edges?: Edge[]; NextToken?: string }>(
      'QueryLineage',
      {
        StartArns: [start],
        Direction: direction,
        MaxDepth: depth,
        IncludeEdges: true,
        MaxResults: 50,
        NextToken: next,
      },
      signal,
    );
    vertices.push(...(r.Vertices ?? []));
    edges.push(...(r.Edges ?? []));
    next = r.NextToken;
    onPage?.({ vertices: r.Vertices ?? [], edges: r.Edges ?? [], next });
  } while (next && vertices.length < max);
  return { vertices, edges, next };
}

/** Describes a lineage entity (or a resource) by its ARN. */
export async function describeEntity(arn: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const a = parseArn(arn);
  switch (a?.resourceType) {
    case 'artifact':
      return sagemaker('DescribeArtifact', { ArtifactArn: arn }, signal);
    case 'action':
      return sagemaker('DescribeAction', { ActionName: a.resource }, signal);
    case 'context':
      return sagemaker('DescribeContext', { ContextName: a.resource }, signal);
    case 'experiment-trial-component':
      return sagemaker('DescribeTrialComponent', { TrialComponentName: a.resource }, signal);
    case 'experiment':
      return sagemaker('DescribeExperiment', { ExperimentName: a.resource }, signal);
    case 'experiment-trial':
      return sagemaker('DescribeTrial', { TrialName: a.resource }, signal);
    case 'model-package':
      return sagemaker('DescribeModelPackage', { ModelPackageName: arn }, signal);
    case 'endpoint':
      return sagemaker('DescribeEndpoint', { EndpointName: a.resource }, signal);
    default:
      throw new ApiError('UnknownEntity', `The console cannot describe ${arn}.`, 400);
  }
}

/** What a lineage entity is about: an artifact's source, a context's or action's name. */
export function labelOf(described: Record<string, unknown>): string | undefined {
  const source = (described.Source as { SourceUri?: string } | undefined)?.SourceUri;
  const name = (described.ArtifactName ??
    described.ContextName ??
    described.ActionName ??
    described.DisplayName ??
    described.TrialComponentName) as string | undefined;
  if (source && (!name || described.ArtifactArn)) return shortName(source);
  return name ?? (source ? shortName(source) : undefined);
}

/** The resource a lineage entity stands for (its source ARN), when it is one the console shows. */
export function sourceArnOf(described: Record<string, unknown>): string | undefined {
  const source = (described.Source as { SourceUri?: string; SourceArn?: string } | undefined) ?? {};
  const s = source.SourceUri ?? source.SourceArn;
  return s?.startsWith('arn:') ? s : undefined;
}

export interface LineageRead {
  /** The lineage entity the read starts from. */
  readonly start: Promise<string>;
  /** Calls `onPage` with every page read so far, then with each one as it arrives; ends with the read. */
  follow(onPage: (p: LineagePage) => void): Promise<LineagePage>;
}

/**
 * Starts reading an entity's lineage now (a page starts it as it first renders, not after the
 * browser has painted and run its effects), keeping the pages until someone follows them.
 */
export function readLineage(
  input: string,
  direction: Direction,
  depth: number,
  max: number,
  signal: AbortSignal,
): LineageRead {
  const pages: LineagePage[] = [];
  let listener: ((p: LineagePage) => void) | undefined;
  const start = resolveStart(input, signal).then((s) => s.arn);
  const done = start.then((arn) =>
    queryLineage(
      arn,
      direction,
      depth,
      max,
      undefined,
      (p) => {
        pages.push(p);
        listener?.(p);
      },
      signal,
    ),
  );
  // Whoever follows sees the failure; until then it is not an unhandled rejection.
  done.catch(() => undefined);
  return {
    start,
    follow(onPage) {
      listener = onPage;
      for (const p of pages) onPage(p);
      return done;
    },
  };
}
