// Model packages (versions in a model package group, or unversioned): create, describe, list,
// update (approval), delete, batch describe.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateModelPackage.html
import { nameFromArnOrName, parseArn, sagemakerArn, type Partition } from '../../domain/arn.js';
import { approvalTransitionError } from '../../domain/approval.js';
import { ConflictException } from '../../generated/sagemaker/errors.js';
import type {
  BatchDescribeModelPackageInput,
  BatchDescribeModelPackageOutput,
  CreateModelPackageInput,
  CreateModelPackageOutput,
  DeleteModelPackageInput,
  DescribeModelPackageInput,
  DescribeModelPackageOutput,
  ListModelPackagesInput,
  ListModelPackagesOutput,
  ModelApprovalStatus,
  ModelPackageSummary,
  UpdateModelPackageInput,
  UpdateModelPackageOutput,
  UserContext,
} from '../../generated/sagemaker/shapes.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { RequestContext } from '../../protocol/context.js';
import { type Queryable, UniqueViolationError } from '../../storage/db/types.js';
import type { ModelPackageRow, ServiceDeps } from '../common/deps.js';
import { listPage, sortKey } from '../common/listing.js';
import { callerUserContext } from '../common/user-context.js';

const RESOURCE = 'model-package';

/** name_key of a version: lower(group)/zero-padded version, so versions sort in order. */
export const versionKey = (group: string, version: number) =>
  `${group.toLowerCase()}/${String(version).padStart(10, '0')}`;

/** The fields of CreateModelPackage kept verbatim and echoed by DescribeModelPackage. */
type PackageDoc = Omit<
  CreateModelPackageInput,
  'ModelPackageName' | 'ModelPackageGroupName' | 'Tags' | 'ClientToken' | 'ModelApprovalStatus'
> & {
  ApprovalDescription?: string;
  /** Who created the package and who last changed it (the approver, for an approval). */
  CreatedBy?: UserContext;
  LastModifiedBy?: UserContext;
};

function notFound(p: Partition, nameOrArn: string): ValidationException {
  const arn = nameOrArn.startsWith('arn:') ? nameOrArn : sagemakerArn(p, RESOURCE, nameOrArn);
  return new ValidationException(`ModelPackage ${arn} does not exist.`);
}

/**
 * Finds a package by ARN, by unversioned name, or by `group/version`.
 */
export async function findModelPackage(
  deps: ServiceDeps,
  q: Queryable,
  p: Partition,
  ref: string,
  lock = false,
): Promise<ModelPackageRow | undefined> {
  const table = deps.repos.modelPackages;
  let key: string | undefined;
  if (ref.startsWith('arn:')) {
    const a = parseArn(ref);
    if (!a || a.resourceType !== RESOURCE || a.accountId !== p.accountId || a.region !== p.region) return undefined;
    ref = a.resource;
  }
  const m = /^([^/]+)\/(\d+)$/.exec(ref);
  if (m) key = versionKey(m[1]!, Number(m[2]));
  else if (!ref.includes('/')) key = ref.toLowerCase();
  return key === undefined ? undefined : table.get(q, p, key, lock);
}

function summary(row: ModelPackageRow): ModelPackageSummary {
  const doc = JSON.parse(row.doc) as PackageDoc;
  const versioned = row.package_type === 'Versioned';
  return {
    ModelPackageName: row.name,
    ModelPackageGroupName: versioned ? row.name : undefined,
    ModelPackageVersion: row.version ?? undefined,
    ModelPackageArn: row.arn,
    ModelPackageDescription: doc.ModelPackageDescription,
    CreationTime: new Date(row.created_at),
    ModelPackageStatus: row.status as ModelPackageSummary['ModelPackageStatus'],
    ModelApprovalStatus: versioned ? (row.approval as ModelApprovalStatus) : undefined,
    ModelLifeCycle: doc.ModelLifeCycle,
    ModelPackageRegistrationType: doc.ModelPackageRegistrationType,
  };
}

/** DescribeModelPackage's answer for a stored package (also the base of Search's ModelPackage record). */
export function modelPackageDocument(row: ModelPackageRow): DescribeModelPackageOutput {
  const doc = JSON.parse(row.doc) as PackageDoc;
  const versioned = row.package_type === 'Versioned';
  return {
    ...doc,
    ModelPackageName: row.name,
    ModelPackageGroupName: versioned ? row.name : undefined,
    ModelPackageVersion: row.version ?? undefined,
    ModelPackageArn: row.arn,
    CreationTime: new Date(row.created_at),
    ModelPackageStatus: row.status as DescribeModelPackageOutput['ModelPackageStatus'],
    ModelPackageStatusDetails: { ValidationStatuses: [], ImageScanStatuses: [] },
    ModelApprovalStatus: versioned ? (row.approval as ModelApprovalStatus) : undefined,
    // Packages made before Slipway recorded callers have none.
    CreatedBy: doc.CreatedBy ?? {},
    LastModifiedTime: new Date(row.last_modified_at),
    LastModifiedBy: doc.LastModifiedBy ?? doc.CreatedBy ?? {},
  };
}

export function modelPackageHandlers(deps: ServiceDeps) {
  const { db, repos, tokens } = deps;

  const mustFind = async (q: Queryable, ctx: RequestContext, ref: string, lock = false) => {
    const row = await findModelPackage(deps, q, ctx, ref, lock);
    if (!row) throw notFound(ctx, ref);
    return row;
  };

  return {
    async createModelPackage(input: CreateModelPackageInput, ctx: RequestContext): Promise<CreateModelPackageOutput> {
      if (input.ModelPackageName && input.ModelPackageGroupName) {
        throw new ValidationException(
          'Both ModelPackageName and ModelPackageGroupName are provided in the input. Cannot determine which one to use.',
        );
      }
      if (!input.ModelPackageName && !input.ModelPackageGroupName) throw new ValidationException('Missing ARN.');
      const { ModelPackageName, ModelPackageGroupName, Tags, ClientToken, ModelApprovalStatus, ...fields } = input;
      const caller = callerUserContext(ctx);
      const doc: PackageDoc = { ...fields, CreatedBy: caller, LastModifiedBy: caller };
      // Idempotency: the same token returns the package it created the first time.
      const created = async (q: Queryable) =>
        ClientToken === undefined
          ? undefined
          : await q.get<{ arn: string }>(
              'SELECT arn FROM model_packages WHERE account_id = ? AND region = ? AND client_token = ?',
              [ctx.accountId, ctx.region, ClientToken],
            );
      try {
        return await db.transaction(async (tx) => {
          const previous = await created(tx);
          if (previous) return { ModelPackageArn: previous.arn };
          return { ModelPackageArn: await insertPackage(tx) };
        });
      } catch (err) {
        if (!(err instanceof UniqueViolationError)) throw err;
        // A call at the same moment wrote this token or this name first: PostgreSQL ran both
        // transactions at once and this one's insert met the other's row on the unique index.
        const previous = await created(db);
        if (previous) return { ModelPackageArn: previous.arn };
        const taken = ModelPackageName
          ? await repos.modelPackages.get(db, ctx, ModelPackageName.toLowerCase())
          : undefined;
        if (taken) throw new ValidationException(`Model Package already exists: ${taken.arn}`);
        throw err;
      }

      async function insertPackage(tx: Queryable): Promise<string> {
        let row: ModelPackageRow;
        const now = ctx.receivedAt;
        const common = {
          status: 'Completed',
          doc: JSON.stringify(doc),
          created_at: now,
          last_modified_at: now,
          client_token: ClientToken ?? null,
        };
        if (ModelPackageGroupName) {
          const groupName = nameFromArnOrName(ctx, ModelPackageGroupName, 'model-package-group');
          const group =
            groupName === undefined ? undefined : await repos.modelPackageGroups.get(tx, ctx, groupName, true);
          // SageMaker's words, which code written against it compares (moto records them too).
          if (!group) throw new ValidationException('Model Package Group does not exist.');
          // The group row is locked (PostgreSQL) or the writer is exclusive (SQLite): versions are dense.
          const last = await tx.get<{ v: number | null }>(
            'SELECT MAX(version) AS v FROM model_packages WHERE account_id = ? AND region = ? AND group_key = ?',
            [ctx.accountId, ctx.region, group.name_key],
          );
          const version = Number(last?.v ?? 0) + 1;
          row = {
            ...common,
            name_key: versionKey(group.name, version),
            name: group.name,
            arn: sagemakerArn(ctx, RESOURCE, `${group.name}/${version}`),
            group_key: group.name_key,
            version,
            approval: ModelApprovalStatus ?? 'PendingManualApproval',
            package_type: 'Versioned',
          };
        } else {
          const name = ModelPackageName!;
          row = {
            ...common,
            name_key: name.toLowerCase(),
            name,
            arn: sagemakerArn(ctx, RESOURCE, name),
            group_key: null,
            version: null,
            approval: ModelApprovalStatus ?? 'PendingManualApproval',
            package_type: 'Unversioned',
          };
          if (await repos.modelPackages.get(tx, ctx, row.name_key)) {
            // A call with this token may have committed it since the token was looked for
            // (PostgreSQL reads what is committed at each statement): its package is the answer.
            const previous = await created(tx);
            if (previous) return previous.arn;
            throw new ValidationException(`Model Package already exists: ${row.arn}`);
          }
        }
        await repos.modelPackages.insert(tx, ctx, row);
        if (Tags?.length) await repos.tags.put(tx, row.arn, Tags);
        await deps.lineage?.modelPackageCreated(tx, ctx, row, doc.InferenceSpecification?.Containers ?? []);
        return row.arn;
      }
    },

    async describeModelPackage(
      input: DescribeModelPackageInput,
      ctx: RequestContext,
    ): Promise<DescribeModelPackageOutput> {
      return modelPackageDocument(await mustFind(db, ctx, input.ModelPackageName));
    },

    async listModelPackages(input: ListModelPackagesInput, ctx: RequestContext): Promise<ListModelPackagesOutput> {
      const where: Record<string, string> = {};
      if (input.ModelPackageGroupName) {
        const g = nameFromArnOrName(ctx, input.ModelPackageGroupName, 'model-package-group');
        where.group_key = (g ?? `\0${input.ModelPackageGroupName}`).toLowerCase();
      }
      // SageMaker lists unversioned packages unless a group is named or a type is asked for.
      const type = input.ModelPackageType ?? (input.ModelPackageGroupName ? 'Versioned' : 'Unversioned');
      if (type !== 'Both') where.package_type = type;
      if (input.ModelApprovalStatus) where.approval = input.ModelApprovalStatus;
      const page = await listPage(db, tokens, ctx, repos.modelPackages, input, {
        sortBy: sortKey(input.SortBy, 'created'),
        descending: input.SortOrder === 'Descending',
        where,
      });
      return { ModelPackageSummaryList: page.rows.map(summary), NextToken: page.NextToken };
    },

    async updateModelPackage(input: UpdateModelPackageInput, ctx: RequestContext): Promise<UpdateModelPackageOutput> {
      await db.transaction(async (tx) => {
        const row = await mustFind(tx, ctx, input.ModelPackageArn, true);
        if (row.status !== 'Completed') {
          throw new ConflictException(`ModelPackage ${row.arn} is ${row.status} and cannot be updated now.`);
        }
        const doc = JSON.parse(row.doc) as PackageDoc;
        let approval = row.approval;
        if (input.ModelApprovalStatus !== undefined && input.ModelApprovalStatus !== row.approval) {
          if (row.package_type !== 'Versioned') {
            throw new ValidationException('ModelApprovalStatus can only be set on a versioned model package.');
          }
          const refused = approvalTransitionError(row.approval, input.ModelApprovalStatus);
          if (refused) throw new ValidationException(refused);
          approval = input.ModelApprovalStatus;
        }
        if (input.ApprovalDescription !== undefined) doc.ApprovalDescription = input.ApprovalDescription;
        if (input.CustomerMetadataPropertiesToRemove || input.CustomerMetadataProperties) {
          const meta = { ...(doc.CustomerMetadataProperties ?? {}) };
          for (const k of input.CustomerMetadataPropertiesToRemove ?? []) delete meta[k];
          Object.assign(meta, input.CustomerMetadataProperties ?? {});
          doc.CustomerMetadataProperties = Object.keys(meta).length ? meta : undefined;
        }
        if (input.AdditionalInferenceSpecificationsToAdd) {
          doc.AdditionalInferenceSpecifications = [
            ...(doc.AdditionalInferenceSpecifications ?? []),
            ...input.AdditionalInferenceSpecificationsToAdd,
          ];
        }
        if (input.InferenceSpecification) doc.InferenceSpecification = input.InferenceSpecification;
        if (input.SourceUri !== undefined) doc.SourceUri = input.SourceUri;
        if (input.ModelCard) doc.ModelCard = input.ModelCard;
        if (input.ModelLifeCycle) doc.ModelLifeCycle = input.ModelLifeCycle;
        if (input.ModelPackageRegistrationType) doc.ModelPackageRegistrationType = input.ModelPackageRegistrationType;
        doc.LastModifiedBy = callerUserContext(ctx);
        await repos.modelPackages.update(tx, ctx, row.name_key, {
          approval,
          doc: JSON.stringify(doc),
          last_modified_at: ctx.receivedAt,
        });
        if (approval !== row.approval) await deps.lineage?.approvalChanged(tx, ctx, row, approval);
      });
      return { ModelPackageArn: input.ModelPackageArn };
    },

    async deleteModelPackage(input: DeleteModelPackageInput, ctx: RequestContext): Promise<void> {
      await db.transaction(async (tx) => {
        const row = await mustFind(tx, ctx, input.ModelPackageName, true);
        await repos.modelPackages.delete(tx, ctx, row.name_key);
        await repos.tags.removeAll(tx, row.arn);
      });
    },

    async batchDescribeModelPackage(
      input: BatchDescribeModelPackageInput,
      ctx: RequestContext,
    ): Promise<BatchDescribeModelPackageOutput> {
      const summaries: NonNullable<BatchDescribeModelPackageOutput['ModelPackageSummaries']> = {};
      const errors: NonNullable<BatchDescribeModelPackageOutput['BatchDescribeModelPackageErrorMap']> = {};
      for (const arn of input.ModelPackageArnList) {
        const row = await findModelPackage(deps, db, ctx, arn);
        if (row?.package_type !== 'Versioned') {
          errors[arn] = { ErrorCode: 'ValidationException', ErrorResponse: notFound(ctx, arn).message };
          continue;
        }
        const doc = JSON.parse(row.doc) as PackageDoc;
        summaries[arn] = {
          ModelPackageGroupName: row.name,
          ModelPackageVersion: row.version ?? undefined,
          ModelPackageArn: row.arn,
          ModelPackageDescription: doc.ModelPackageDescription,
          CreationTime: new Date(row.created_at),
          InferenceSpecification: doc.InferenceSpecification ?? { Containers: [] },
          ModelPackageStatus: row.status as ModelPackageSummary['ModelPackageStatus'],
          ModelApprovalStatus: row.approval as ModelApprovalStatus,
          ModelPackageRegistrationType: doc.ModelPackageRegistrationType,
        };
      }
      return { ModelPackageSummaries: summaries, BatchDescribeModelPackageErrorMap: errors };
    },
  };
}
