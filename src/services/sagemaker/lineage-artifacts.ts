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
import type { LineageEntityRow } from '../../storage/repositories/lineage-entities.js';
import type { ServiceDeps } from '../common/deps.js';
import {
  alreadyExists,
  deleteEntity,
  insertNew,
  listEntities,
  MAX_PROPERTIES,
  mergeMap,
  mustGetByArn,
  NO_USER,
  notFound,
  parseDoc,
  toDate,
} from './lineage-common.js';

/** What CreateArtifact was given (all but Tags), kept as is: DescribeArtifact echoes it. */
type ArtifactDoc = Omit<CreateArtifactRequest, 'Tags'>;

function summary(row: LineageEntityRow): ArtifactSummary {
  const d = parseDoc<ArtifactDoc>(row);
  return {
    ArtifactArn: row.arn,
    ArtifactName: d.ArtifactName,
    Source: d.Source,
    ArtifactType: d.ArtifactType,
    CreationTime: toDate(row.created_at),
    LastModifiedTime: toDate(row.last_modified_at),
  };
}

export function lineageArtifactHandlers(deps: ServiceDeps) {
  const { db, repos } = deps;
  return {
    async createArtifact(input: CreateArtifactRequest, ctx: RequestContext): Promise<CreateArtifactResponse> {
      const { Tags, ...doc } = input;
      // Artifacts are addressed by an opaque id, as SageMaker's `artifact/<32 hex digits>`.
      const arn = entityArn(ctx, 'artifact', randomBytes(16).toString('hex'));
      await insertNew(
        deps,
        ctx,
        {
          arn,
          kind: 'artifact',
          name: input.ArtifactName ?? null,
          entity_type: input.ArtifactType,
          source_key: sourceKey(input.Source.SourceUri),
          unique_source: artifactSourceKey(input.Source.SourceUri, input.Source.SourceTypes),
          doc,
        },
        Tags,
      );
      return { ArtifactArn: arn };
    },

    async describeArtifact(input: DescribeArtifactRequest, ctx: RequestContext): Promise<DescribeArtifactResponse> {
      const row = await mustGetByArn(db, deps, ctx, 'artifact', input.ArtifactArn);
      const d = parseDoc<ArtifactDoc>(row);
      return {
        ...d,
        ArtifactArn: row.arn,
        CreationTime: toDate(row.created_at),
        CreatedBy: NO_USER,
        LastModifiedTime: toDate(row.last_modified_at),
        LastModifiedBy: NO_USER,
      };
    },

    async listArtifacts(input: ListArtifactsRequest, ctx: RequestContext): Promise<ListArtifactsResponse> {
      const { rows, NextToken } = await listEntities(deps, ctx, 'ListArtifacts', input, {
        kind: 'artifact',
        sourceKey: input.SourceUri === undefined ? undefined : sourceKey(input.SourceUri),
        entityType: input.ArtifactType,
      });
      return { ArtifactSummaries: rows.map(summary), NextToken };
    },

    async updateArtifact(input: UpdateArtifactRequest, ctx: RequestContext): Promise<UpdateArtifactResponse> {
      await db.transaction(async (tx) => {
        const row = await mustGetByArn(tx, deps, ctx, 'artifact', input.ArtifactArn, true);
        const d = parseDoc<ArtifactDoc>(row);
        d.Properties = mergeMap(d.Properties, input.Properties, input.PropertiesToRemove, MAX_PROPERTIES, 'properties');
        const renamed = input.ArtifactName !== undefined && input.ArtifactName !== row.name;
        if (renamed) {
          const holder = await repos.lineageEntities.getByName(tx, ctx, 'artifact', input.ArtifactName!);
          if (holder && holder.arn !== row.arn) throw alreadyExists('artifact', holder.arn);
          d.ArtifactName = input.ArtifactName;
        }
        await repos.lineageEntities.update(tx, row.arn, {
          doc: JSON.stringify(d),
          last_modified_at: ctx.receivedAt,
          ...(renamed ? { name: input.ArtifactName!, name_key: input.ArtifactName!.toLowerCase() } : {}),
        });
        if (renamed) await repos.lineageAssociations.rename(tx, row.arn, input.ArtifactName!);
      });
      return { ArtifactArn: input.ArtifactArn };
    },

    async deleteArtifact(input: DeleteArtifactRequest, ctx: RequestContext): Promise<DeleteArtifactResponse> {
      if (input.ArtifactArn === undefined && input.Source === undefined) {
        throw new ValidationException('Either ArtifactArn or Source must be specified.');
      }
      const arn = await db.transaction(async (tx) => {
        let row: LineageEntityRow | undefined;
        if (input.ArtifactArn !== undefined) {
          row = await mustGetByArn(tx, deps, ctx, 'artifact', input.ArtifactArn, true);
        } else {
          const key = artifactSourceKey(input.Source!.SourceUri, input.Source!.SourceTypes);
          row = await repos.lineageEntities.getArtifactBySource(tx, ctx, key);
          if (!row) throw notFound('artifact', input.Source!.SourceUri);
        }
        if (input.ArtifactArn !== undefined && input.Source !== undefined) {
          const key = artifactSourceKey(input.Source.SourceUri, input.Source.SourceTypes);
          if (row.unique_source !== key) throw notFound('artifact', input.ArtifactArn);
        }
        await deleteEntity(tx, deps, row);
        return row.arn;
      });
      return { ArtifactArn: arn };
    },
  };
}
