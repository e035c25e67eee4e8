// AddTags, ListTags, DeleteTags on any taggable SageMaker resource, by ARN.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_AddTags.html
import { parseArn, type Partition } from '../../domain/arn.js';
import type {
  AddTagsInput,
  AddTagsOutput,
  DeleteTagsInput,
  DeleteTagsOutput,
  ListTagsInput,
  ListTagsOutput,
} from '../../generated/sagemaker/shapes.js';
import type { RequestContext } from '../../protocol/context.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { Queryable } from '../../storage/db/types.js';
import type { ServiceDeps } from '../common/deps.js';

/** Tags per resource (https://docs.aws.amazon.com/general/latest/gr/sagemaker.html). */
export const MAX_TAGS = 50;

/**
 * Finds a resource of a type by the resource part of its ARN and returns its canonical ARN (the
 * one SageMaker formed: names in lower case where SageMaker lower-cases them), or undefined.
 * Each resource module registers its own.
 */
export type ResourceExists = (q: Queryable, p: Partition, resource: string) => Promise<string | undefined>;

export function tagHandlers({ db, repos, tokens }: ServiceDeps, taggable: ReadonlyMap<string, ResourceExists>) {
  /** Resolves the ARN to a resource of the caller that exists; tags are kept under its canonical ARN. */
  const mustExist = async (q: Queryable, ctx: RequestContext, arn: string): Promise<string> => {
    const a = parseArn(arn);
    const find =
      a && a.accountId === ctx.accountId && a.region === ctx.region ? taggable.get(a.resourceType) : undefined;
    const canonical = a && find ? await find(q, ctx, a.resource) : undefined;
    if (!canonical) throw new ValidationException(`Resource ${arn} does not exist or cannot be tagged.`);
    return canonical;
  };

  return {
    async addTags(input: AddTagsInput, ctx: RequestContext): Promise<AddTagsOutput> {
      for (const t of input.Tags) {
        if (t.Key.toLowerCase().startsWith('aws:')) {
          throw new ValidationException(`Tag keys beginning with 'aws:' are reserved for AWS use: ${t.Key}`);
        }
      }
      await db.transaction(async (tx) => {
        const arn = await mustExist(tx, ctx, input.ResourceArn);
        const added = await repos.tags.newKeys(
          tx,
          arn,
          input.Tags.map((t) => t.Key),
        );
        if ((await repos.tags.count(tx, arn)) + added.length > MAX_TAGS) {
          throw new ValidationException(`Resource ${input.ResourceArn} cannot have more than ${MAX_TAGS} tags.`);
        }
        await repos.tags.put(tx, arn, input.Tags);
      });
      return { Tags: input.Tags };
    },

    async listTags(input: ListTagsInput, ctx: RequestContext): Promise<ListTagsOutput> {
      const arn = await mustExist(db, ctx, input.ResourceArn);
      const limit = input.MaxResults ?? 50;
      const scope = `ListTags|${arn}`;
      const after = input.NextToken ? tokens.decode<number>(scope, input.NextToken) : undefined;
      const rows = await repos.tags.page(db, arn, after, limit + 1);
      const page = rows.slice(0, limit);
      return {
        Tags: page.map((r) => ({ Key: r.tag_key, Value: r.tag_value })),
        NextToken: rows.length > limit ? tokens.encode(scope, page[page.length - 1]!.seq) : undefined,
      };
    },

    async deleteTags(input: DeleteTagsInput, ctx: RequestContext): Promise<DeleteTagsOutput> {
      await db.transaction(async (tx) => {
        await repos.tags.remove(tx, await mustExist(tx, ctx, input.ResourceArn), input.TagKeys);
      });
      return {};
    },
  };
}
