// CreateModelPackageGroup, DescribeModelPackageGroup, ListModelPackageGroups, DeleteModelPackageGroup.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateModelPackageGroup.html
import { nameFromArnOrName, sagemakerArn, type Partition } from '../../domain/arn.js';
import type {
  CreateModelPackageGroupInput,
  CreateModelPackageGroupOutput,
  DeleteModelPackageGroupInput,
  DescribeModelPackageGroupInput,
  DescribeModelPackageGroupOutput,
  ListModelPackageGroupsInput,
  ListModelPackageGroupsOutput,
  ModelPackageGroupSummary,
} from '../../generated/sagemaker/shapes.js';
import type { RequestContext } from '../../protocol/context.js';
import { ConflictException } from '../../generated/sagemaker/errors.js';
import { ValidationException } from '../../protocol/common-errors.js';
import { UniqueViolationError } from '../../storage/db/types.js';
import type { ModelPackageGroupRow } from '../../storage/repositories/model-package-groups.js';
import type { ServiceDeps } from '../common/deps.js';
import { callerUserContext } from '../common/user-context.js';

const RESOURCE = 'model-package-group';

function notFound(p: Partition, name: string): ValidationException {
  return new ValidationException(`ModelPackageGroup ${sagemakerArn(p, RESOURCE, name)} does not exist.`);
}

function summary(row: ModelPackageGroupRow): ModelPackageGroupSummary {
  return {
    ModelPackageGroupName: row.name,
    ModelPackageGroupArn: row.arn,
    ModelPackageGroupDescription: row.description ?? undefined,
    CreationTime: new Date(row.created_at),
    ModelPackageGroupStatus: row.status as ModelPackageGroupSummary['ModelPackageGroupStatus'],
  };
}

/** DescribeModelPackageGroup's answer for a stored group (also the base of Search's record). */
export function modelPackageGroupDocument(row: ModelPackageGroupRow): DescribeModelPackageGroupOutput {
  return { ...summary(row), CreatedBy: JSON.parse(row.created_by) };
}

export function modelPackageGroupHandlers(deps: ServiceDeps) {
  const { db, repos, tokens } = deps;
  const resolve = async (ctx: RequestContext, nameOrArn: string) => {
    const name = nameFromArnOrName(ctx, nameOrArn, RESOURCE);
    const row = name === undefined ? undefined : await repos.modelPackageGroups.get(db, ctx, name);
    if (!row) throw notFound(ctx, name ?? nameOrArn);
    return row;
  };

  return {
    async createModelPackageGroup(
      input: CreateModelPackageGroupInput,
      ctx: RequestContext,
    ): Promise<CreateModelPackageGroupOutput> {
      const name = input.ModelPackageGroupName;
      const arn = sagemakerArn(ctx, RESOURCE, name);
      try {
        await db.transaction(async (tx) => {
          await repos.modelPackageGroups.insert(tx, ctx, {
            name_key: name.toLowerCase(),
            name,
            arn,
            description: input.ModelPackageGroupDescription ?? null,
            // Creation is synchronous here, so the group is usable as soon as the call returns.
            status: 'Completed',
            created_by: JSON.stringify(callerUserContext(ctx)),
            created_at: ctx.receivedAt,
          });
          if (input.Tags?.length) await repos.tags.put(tx, arn, input.Tags);
          await deps.lineage?.modelPackageGroupCreated(tx, ctx, { name, arn, createdAt: ctx.receivedAt });
        });
      } catch (err) {
        if (err instanceof UniqueViolationError) {
          const existing = await repos.modelPackageGroups.get(db, ctx, name);
          throw new ValidationException(`Model Package Group already exists: ${existing?.arn ?? arn}`);
        }
        throw err;
      }
      return { ModelPackageGroupArn: arn };
    },

    async describeModelPackageGroup(
      input: DescribeModelPackageGroupInput,
      ctx: RequestContext,
    ): Promise<DescribeModelPackageGroupOutput> {
      return modelPackageGroupDocument(await resolve(ctx, input.ModelPackageGroupName));
    },

    async deleteModelPackageGroup(input: DeleteModelPackageGroupInput, ctx: RequestContext): Promise<void> {
      const row = await resolve(ctx, input.ModelPackageGroupName);
      await db.transaction(async (tx) => {
        if (!(await repos.modelPackageGroups.get(tx, ctx, row.name, true))) throw notFound(ctx, row.name);
        if ((await repos.modelPackages.count(tx, ctx, { group_key: row.name_key })) > 0) {
          throw new ConflictException(
            `Model Package Group ${row.arn} contains model packages. Delete the model packages before deleting the group.`,
          );
        }
        await repos.modelPackageGroups.delete(tx, ctx, row.name);
        await repos.tags.removeAll(tx, row.arn);
      });
    },

    async listModelPackageGroups(
      input: ListModelPackageGroupsInput,
      ctx: RequestContext,
    ): Promise<ListModelPackageGroupsOutput> {
      // Groups shared from other accounts would come through resource policies, which Slipway does
      // not model: there are none to list.
      if (input.CrossAccountFilterOption === 'CrossAccount') return { ModelPackageGroupSummaryList: [] };
      const sortBy = input.SortBy ?? 'CreationTime';
      const descending = input.SortOrder === 'Descending';
      const limit = input.MaxResults ?? 10;
      const query = {
        nameContains: input.NameContains,
        createdAfter: input.CreationTimeAfter?.getTime(),
        createdBefore: input.CreationTimeBefore?.getTime(),
        sortBy,
        descending,
      };
      // The token is bound to the filters and order it was issued for.
      const scope = `ListModelPackageGroups|${ctx.accountId}|${ctx.region}|${JSON.stringify(query)}`;
      const after = input.NextToken ? tokens.decode<[number | string, string]>(scope, input.NextToken) : undefined;
      const rows = await repos.modelPackageGroups.list(db, ctx, { ...query, after, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        ModelPackageGroupSummaryList: page.map(summary),
        NextToken:
          rows.length > limit && last
            ? tokens.encode(scope, [sortBy === 'Name' ? last.name_key : last.created_at, last.name_key])
            : undefined,
      };
    },
  };
}
