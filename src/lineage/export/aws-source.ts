// Reads lineage from a SageMaker account (AWS, or any endpoint speaking its API, Slipway included)
// through the public List* operations: each entity type listed once and associations paged, with
// the adaptive retries the seed notebook used (max_attempts 20, mode adaptive).
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ListAssociations.html
import type { LineageEdge, LineageNode, LineageSource, NodeKind } from './model.js';

export interface AwsSourceOptions {
  readonly region?: string;
  /** e.g. a Slipway server; absent for AWS itself. */
  readonly endpoint?: string;
  readonly maxAttempts?: number;
  /** Absent: the AWS SDK's usual chain. */
  readonly credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

type Page = { NextToken?: string } & Record<string, unknown>;
type Client = { send(cmd: unknown): Promise<Page>; destroy(): void };

/**
 * The SDK is imported on demand: it is only needed for `--source aws` (it is a development
 * dependency of Slipway; install @aws-sdk/client-sagemaker where the CLI runs to use this).
 */
export async function awsLineageSource(o: AwsSourceOptions): Promise<LineageSource> {
  let sdk: typeof import('@aws-sdk/client-sagemaker');
  try {
    sdk = await import('@aws-sdk/client-sagemaker');
  } catch {
    throw new Error('--source aws needs @aws-sdk/client-sagemaker (npm install @aws-sdk/client-sagemaker)');
  }
  const client = new sdk.SageMakerClient({
    region: o.region,
    endpoint: o.endpoint,
    ...(o.credentials ? { credentials: o.credentials } : {}),
    maxAttempts: o.maxAttempts ?? 20,
    retryMode: 'adaptive',
  }) as unknown as Client;

  async function* pages(
    make: (token: string | undefined) => unknown,
    key: string,
  ): AsyncGenerator<Record<string, unknown>[]> {
    let token: string | undefined;
    do {
      const out = await client.send(make(token));
      yield (out[key] as Record<string, unknown>[] | undefined) ?? [];
      token = out.NextToken;
    } while (token);
  }
  const date = (v: unknown) => (v instanceof Date ? v : undefined);
  const src = (v: unknown) => (v ?? {}) as Record<string, string | undefined>;

  return {
    async *nodes(kind: NodeKind) {
      const MaxResults = 100;
      if (kind === 'artifact') {
        for await (const page of pages(
          (NextToken) => new sdk.ListArtifactsCommand({ NextToken, MaxResults }),
          'ArtifactSummaries',
        )) {
          yield page.map(
            (a): LineageNode => ({
              arn: a.ArtifactArn as string,
              sourceUri: src(a.Source).SourceUri,
              type: a.ArtifactType as string | undefined,
              creationTime: date(a.CreationTime),
              lastModifiedTime: date(a.LastModifiedTime),
            }),
          );
        }
      } else if (kind === 'action') {
        for await (const page of pages(
          (NextToken) => new sdk.ListActionsCommand({ NextToken, MaxResults }),
          'ActionSummaries',
        )) {
          yield page.map(
            (a): LineageNode => ({
              arn: a.ActionArn as string,
              sourceUri: src(a.Source).SourceUri,
              type: a.ActionType as string | undefined,
              status: a.Status as string | undefined,
              creationTime: date(a.CreationTime),
              lastModifiedTime: date(a.LastModifiedTime),
            }),
          );
        }
      } else if (kind === 'context') {
        for await (const page of pages(
          (NextToken) => new sdk.ListContextsCommand({ NextToken, MaxResults }),
          'ContextSummaries',
        )) {
          yield page.map(
            (c): LineageNode => ({
              arn: c.ContextArn as string,
              sourceUri: src(c.Source).SourceUri,
              type: c.ContextType as string | undefined,
              creationTime: date(c.CreationTime),
              lastModifiedTime: date(c.LastModifiedTime),
            }),
          );
        }
      } else {
        for await (const page of pages(
          (NextToken) => new sdk.ListTrialComponentsCommand({ NextToken, MaxResults }),
          'TrialComponentSummaries',
        )) {
          yield page.map((t): LineageNode => {
            const status = src(t.Status);
            const source = src(t.TrialComponentSource);
            return {
              arn: t.TrialComponentArn as string,
              sourceArn: source.SourceArn,
              sourceType: source.SourceType,
              status: status.PrimaryStatus,
              message: status.Message,
              creationTime: date(t.CreationTime),
              lastModifiedTime: date(t.LastModifiedTime),
            };
          });
        }
      }
    },
    async *edges() {
      // One paged listing of every association instead of one call per node.
      for await (const page of pages(
        (NextToken) => new sdk.ListAssociationsCommand({ NextToken, MaxResults: 100 }),
        'AssociationSummaries',
      )) {
        yield page.map(
          (a): LineageEdge => ({
            sourceArn: a.SourceArn as string,
            destinationArn: a.DestinationArn as string,
            associationType: a.AssociationType as string | undefined,
          }),
        );
      }
    },
    async close() {
      client.destroy();
    },
  };
}
