// Models: CreateModel, DescribeModel, ListModels, DeleteModel.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateModel.html
import { sagemakerArn, type Partition } from '../../domain/arn.js';
import type {
  ContainerDefinition,
  CreateModelInput,
  CreateModelOutput,
  DeleteModelInput,
  DescribeModelInput,
  DescribeModelOutput,
  ListModelsInput,
  ListModelsOutput,
} from '../../generated/sagemaker/shapes.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { RequestContext } from '../../protocol/context.js';
import type { Queryable } from '../../storage/db/types.js';
import type { ServiceDeps } from '../common/deps.js';
import { tableKind, tableQuery } from '../common/table-kind.js';
import { findModelPackage } from './model-packages.js';

type ModelDoc = Omit<CreateModelInput, 'ModelName' | 'Tags'>;

export const modelNotFound = (p: Partition, name: string) =>
  new ValidationException(`Could not find model "${sagemakerArn(p, 'model', name)}".`);

/** A container as a deployment needs it: image, artifact and environment, packages resolved. */
export interface ResolvedContainer {
  readonly image: string;
  readonly modelDataUrl?: string;
  readonly environment: Record<string, string>;
  readonly modelPackageArn?: string;
  /** The model's EnableNetworkIsolation. */
  readonly networkIsolation: boolean;
}

/** The containers of a model, with ModelPackageName references replaced by the package's containers. */
export async function resolveModelContainers(deps: ServiceDeps, q: Queryable, p: Partition, modelName: string) {
  const row = await deps.repos.models.get(q, p, modelName.toLowerCase());
  if (!row) throw modelNotFound(p, modelName);
  const doc = JSON.parse(row.doc) as ModelDoc;
  const defs = doc.Containers ?? (doc.PrimaryContainer ? [doc.PrimaryContainer] : []);
  const out: ResolvedContainer[] = [];
  for (const c of defs) {
    if (c.ModelPackageName) {
      const pkg = await findModelPackage(deps, q, p, c.ModelPackageName);
      if (!pkg) throw new ValidationException(`ModelPackage ${c.ModelPackageName} does not exist.`);
      const spec = JSON.parse(pkg.doc).InferenceSpecification as { Containers?: ContainerDefinition[] } | undefined;
      for (const pc of spec?.Containers ?? []) {
        out.push({
          image: pc.Image!,
          modelDataUrl: pc.ModelDataUrl,
          environment: { ...(pc.Environment ?? {}), ...(c.Environment ?? {}) },
          modelPackageArn: pkg.arn,
          networkIsolation: doc.EnableNetworkIsolation === true,
        });
      }
    } else {
      out.push({
        image: c.Image!,
        modelDataUrl: c.ModelDataUrl,
        environment: { ...(c.Environment ?? {}) },
        networkIsolation: doc.EnableNetworkIsolation === true,
      });
    }
  }
  return { row, containers: out };
}

export function modelHandlers(deps: ServiceDeps) {
  const models = tableKind<ModelDoc>(deps, deps.repos.models, {
    notFound: modelNotFound,
    taken: (_p, arn) => new ValidationException(`Cannot create already existing model "${arn}".`),
  });
  return {
    async createModel(input: CreateModelInput, ctx: RequestContext): Promise<CreateModelOutput> {
      const { ModelName, Tags, ...doc } = input;
      const arn = sagemakerArn(ctx, 'model', ModelName);
      if (!doc.ExecutionRoleArn) {
        throw new ValidationException(
          "1 validation error detected: Value null at 'executionRoleArn' failed to satisfy constraint: Member must not be null",
        );
      }
      if (doc.PrimaryContainer && doc.Containers) {
        throw new ValidationException('Both PrimaryContainer and Containers are provided. Specify only one of them.');
      }
      const containers = doc.Containers ?? (doc.PrimaryContainer ? [doc.PrimaryContainer] : []);
      if (containers.length === 0)
        throw new ValidationException('Either PrimaryContainer or Containers must be provided.');
      // The packages are checked in the transaction that writes the model, so none can go missing in between.
      await models.create(ctx, { arn, name: ModelName }, doc, Tags, async (tx) => {
        for (const [i, c] of containers.entries()) {
          if (c.ModelPackageName) {
            const pkg = await findModelPackage(deps, tx, ctx, c.ModelPackageName);
            if (!pkg) throw new ValidationException(`ModelPackage ${c.ModelPackageName} does not exist.`);
            if (!JSON.parse(pkg.doc).InferenceSpecification) {
              throw new ValidationException(`ModelPackage ${pkg.arn} has no InferenceSpecification to deploy.`);
            }
          } else if (!c.Image) {
            throw new ValidationException(`Container ${i + 1} must have either Image or ModelPackageName.`);
          }
        }
      });
      return { ModelArn: arn };
    },

    async describeModel(input: DescribeModelInput, ctx: RequestContext): Promise<DescribeModelOutput> {
      const row = await models.get(deps.db, ctx, input.ModelName);
      return { ...models.doc(row), ModelName: row.name, ModelArn: row.arn, CreationTime: new Date(row.created_at) };
    },

    async listModels(input: ListModelsInput, ctx: RequestContext): Promise<ListModelsOutput> {
      // ListModels sorts newest first unless asked otherwise.
      const query = tableQuery(input, { sortBy: 'created', descending: true });
      const page = await models.list(ctx, 'ListModels', input, query);
      return {
        Models: page.rows.map((r) => ({ ModelName: r.name, ModelArn: r.arn, CreationTime: new Date(r.created_at) })),
        NextToken: page.NextToken,
      };
    },

    async deleteModel(input: DeleteModelInput, ctx: RequestContext): Promise<void> {
      await models.delete(ctx, input.ModelName);
    },
  };
}
