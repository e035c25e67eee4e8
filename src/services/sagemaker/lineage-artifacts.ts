// CreateArtifact, DescribeArtifact, ListArtifacts, UpdateArtifact, DeleteArtifact.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateArtifact.html
import { randomBytes } from 'node:crypto';
import type {
  ArtifactSummary,
  CreateArtifactRequest,
  CreateArtifactResponse,
  DeleteArtifactRequest,
  DeleteArtifactResponse,
  DescribeArtifactRequest,
  DescribeArtifactResponse,
  ListArtifactsRequest,
  ListArtifactsResponse,
  UpdateArtifactRequest,
  UpdateArtifactResponse,
} from '../../generated/sagemaker/shapes.js';
import { artifactSourceKey, entityArn, sourceKey } from '../../lineage/entities.js';
import type { RequestContext } from '../../protocol/context.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { ServiceDeps } from '../common/deps.js';
import { alreadyExists, entityKind, entityQuery, MAX_PROPERTIES, mergeMap, notFound } from './lineage-common.js';

/** What CreateArtifact was given (all but Tags), kept as is: DescribeArtifact echoes it. */
type ArtifactDoc = Omit<CreateArtifactRequest, 'Tags'>;

export function lineageArtifactHandlers(deps: ServiceDeps) {
  const { repos } = deps;
  const artifacts = entityKind<ArtifactDoc>(deps, 'artifact', 'arn');
  return {
    async createArtifact(input: CreateArtifactRequest, ctx: RequestContext): Promise<CreateArtifactResponse> {
      const { Tags, ...doc } = input;
      // Artifacts are addressed by an opaque id, as SageMaker's `artifact/<32 hex digits>`.
      const arn = entityArn(ctx, 'artifact', randomBytes(16).toString('hex'));
      const draft = {
        arn,
        name: input.ArtifactName ?? null,
        entity_type: input.ArtifactType,
        source_key: sourceKey(input.Source.SourceUri),
        unique_source: artifactSourceKey(input.Source.SourceUri, input.Source.SourceTypes),
      };
      await artifacts.create(ctx, draft, doc, Tags);
      return { ArtifactArn: arn };
    },

    async describeArtifact(input: DescribeArtifactRequest, ctx: RequestContext): Promise<DescribeArtifactResponse> {
      const row = await artifacts.get(deps.db, ctx, input.ArtifactArn);
      return { ...artifacts.doc(row), ArtifactArn: row.arn, ...artifacts.audit(row) };
    },

    async listArtifacts(input: ListArtifactsRequest, ctx: RequestContext): Promise<ListArtifactsResponse> {
      const query = entityQuery('artifact', input, {
        sourceKey: input.SourceUri === undefined ? undefined : sourceKey(input.SourceUri),
        entityType: input.ArtifactType,
      });
      const { rows, NextToken } = await artifacts.list(ctx, 'ListArtifacts', input, query);
      const ArtifactSummaries = rows.map(
        (row): ArtifactSummary => ({
          ArtifactArn: row.arn,
          ...artifacts.summary(row, ['ArtifactName', 'Source', 'ArtifactType']),
        }),
      );
      return { ArtifactSummaries, NextToken };
    },

    async updateArtifact(input: UpdateArtifactRequest, ctx: RequestContext): Promise<UpdateArtifactResponse> {
      await artifacts.update(ctx, input.ArtifactArn, async (d, row, tx) => {
        d.Properties = mergeMap(d.Properties, input.Properties, input.PropertiesToRemove, MAX_PROPERTIES, 'properties');
        const name = input.ArtifactName;
        if (name === undefined || name === row.name) return;
        const holder = await repos.lineageEntities.getByName(tx, ctx, 'artifact', name);
        if (holder && holder.arn !== row.arn) throw alreadyExists('artifact', holder.arn);
        d.ArtifactName = name;
        await repos.lineageAssociations.rename(tx, row.arn, name);
        return { name, name_key: name.toLowerCase() };
      });
      return { ArtifactArn: input.ArtifactArn };
    },

    async deleteArtifact(input: DeleteArtifactRequest, ctx: RequestContext): Promise<DeleteArtifactResponse> {
      if (input.ArtifactArn === undefined && input.Source === undefined) {
        throw new ValidationException('Either ArtifactArn or Source must be specified.');
      }
      const source = input.Source && artifactSourceKey(input.Source.SourceUri, input.Source.SourceTypes);
      let id = input.ArtifactArn;
      if (id === undefined) {
        // Found by its source only: DeleteArtifact then works on the artifact holding that source.
        id = (await repos.lineageEntities.getArtifactBySource(deps.db, ctx, source!))?.arn;
        if (id === undefined) throw notFound('artifact', input.Source!.SourceUri);
      }
      const row = await artifacts.delete(ctx, id, async (_tx, row) => {
        if (source !== undefined && row.unique_source !== source) throw notFound('artifact', input.ArtifactArn ?? id);
      });
      return { ArtifactArn: row.arn };
    },
  };
}
