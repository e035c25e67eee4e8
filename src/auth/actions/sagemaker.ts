// The resource ARN each SageMaker operation is authorized against, derived from its input: one
// declared table, as the SageMaker authorization reference lists them (List* operations use `*`).
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsagemaker.html
import { sagemakerArn } from '../../domain/arn.js';
import type { ActionRequest, ActionTable, Partition } from './types.js';

/** A resource: its type and the input member naming it (a name, or already an ARN). */
type Ref = readonly [resourceType: string, member: string];

const action =
  (t: string) =>
  (m: string): Ref => [t, m];
const endpoint = action('endpoint');
const endpointConfig = action('endpoint-config');
const model = action('model');
const modelPackage = action('model-package');
const modelPackageGroup = action('model-package-group');
const experiment = action('experiment');
const trial = action('experiment-trial');
const trialComponent = action('experiment-trial-component');
const lineageAction = action('action');
const context = action('context');
const artifact = action('artifact');
const trainingJob = action('training-job');
const transformJob = action('transform-job');
const processingJob = action('processing-job');
const pipeline = action('pipeline');
const tuningJob = action('hyper-parameter-tuning-job');
/** A member that always holds an ARN (tags, associations). */
const arn = (m: string): Ref => ['', m];

/** Operation → the resources it acts on. Operations named List* and QueryLineage act on `*`. */
export const SAGEMAKER_RESOURCES: Readonly<Record<string, readonly Ref[]>> = {
  AddAssociation: [arn('SourceArn'), arn('DestinationArn')],
  DeleteAssociation: [arn('SourceArn'), arn('DestinationArn')],
  AddTags: [arn('ResourceArn')],
  DeleteTags: [arn('ResourceArn')],
  ListTags: [arn('ResourceArn')],
  AssociateTrialComponent: [trialComponent('TrialComponentName'), trial('TrialName')],
  DisassociateTrialComponent: [trialComponent('TrialComponentName'), trial('TrialName')],
  BatchDescribeModelPackage: [arn('ModelPackageArnList')],
  CreateAction: [lineageAction('ActionName')],
  DescribeAction: [lineageAction('ActionName')],
  UpdateAction: [lineageAction('ActionName')],
  DeleteAction: [lineageAction('ActionName')],
  // Artifact ARNs are made by SageMaker; creating one names no resource yet.
  CreateArtifact: [['artifact', '*']],
  DescribeArtifact: [artifact('ArtifactArn')],
  UpdateArtifact: [artifact('ArtifactArn')],
  DeleteArtifact: [artifact('ArtifactArn')],
  CreateContext: [context('ContextName')],
  DescribeContext: [context('ContextName')],
  UpdateContext: [context('ContextName')],
  DeleteContext: [context('ContextName')],
  CreateHyperParameterTuningJob: [tuningJob('HyperParameterTuningJobName')],
  DescribeHyperParameterTuningJob: [tuningJob('HyperParameterTuningJobName')],
  StopHyperParameterTuningJob: [tuningJob('HyperParameterTuningJobName')],
  DeleteHyperParameterTuningJob: [tuningJob('HyperParameterTuningJobName')],
  ListTrainingJobsForHyperParameterTuningJob: [tuningJob('HyperParameterTuningJobName')],
  CreateTrainingJob: [trainingJob('TrainingJobName')],
  DescribeTrainingJob: [trainingJob('TrainingJobName')],
  StopTrainingJob: [trainingJob('TrainingJobName')],
  CreateTransformJob: [transformJob('TransformJobName')],
  DescribeTransformJob: [transformJob('TransformJobName')],
  StopTransformJob: [transformJob('TransformJobName')],
  CreateProcessingJob: [processingJob('ProcessingJobName')],
  DescribeProcessingJob: [processingJob('ProcessingJobName')],
  StopProcessingJob: [processingJob('ProcessingJobName')],
  CreateEndpoint: [endpoint('EndpointName')],
  DescribeEndpoint: [endpoint('EndpointName')],
  UpdateEndpoint: [endpoint('EndpointName')],
  UpdateEndpointWeightsAndCapacities: [endpoint('EndpointName')],
  DeleteEndpoint: [endpoint('EndpointName')],
  InvokeEndpoint: [endpoint('EndpointName')],
  CreateEndpointConfig: [endpointConfig('EndpointConfigName')],
  DescribeEndpointConfig: [endpointConfig('EndpointConfigName')],
  DeleteEndpointConfig: [endpointConfig('EndpointConfigName')],
  CreateExperiment: [experiment('ExperimentName')],
  DescribeExperiment: [experiment('ExperimentName')],
  UpdateExperiment: [experiment('ExperimentName')],
  DeleteExperiment: [experiment('ExperimentName')],
  CreateModel: [model('ModelName')],
  DescribeModel: [model('ModelName')],
  DeleteModel: [model('ModelName')],
  // An unversioned package is named; a versioned one is a new version in its group.
  CreateModelPackage: [modelPackage('ModelPackageName'), modelPackage('ModelPackageGroupName/*')],
  DescribeModelPackage: [modelPackage('ModelPackageName')],
  UpdateModelPackage: [modelPackage('ModelPackageArn')],
  DeleteModelPackage: [modelPackage('ModelPackageName')],
  CreateModelPackageGroup: [modelPackageGroup('ModelPackageGroupName')],
  DescribeModelPackageGroup: [modelPackageGroup('ModelPackageGroupName')],
  DeleteModelPackageGroup: [modelPackageGroup('ModelPackageGroupName')],
  CreateTrial: [trial('TrialName')],
  DescribeTrial: [trial('TrialName')],
  UpdateTrial: [trial('TrialName')],
  DeleteTrial: [trial('TrialName')],
  // Pipelines (issue 32): a pipeline by name (or ARN), an execution by its ARN
  // (`pipeline/<name>/execution/<id>`); a callback token names no resource the caller can see.
  CreatePipeline: [pipeline('PipelineName')],
  DescribePipeline: [pipeline('PipelineName')],
  UpdatePipeline: [pipeline('PipelineName')],
  DeletePipeline: [pipeline('PipelineName')],
  StartPipelineExecution: [pipeline('PipelineName')],
  DescribePipelineExecution: [arn('PipelineExecutionArn')],
  DescribePipelineDefinitionForExecution: [arn('PipelineExecutionArn')],
  StopPipelineExecution: [arn('PipelineExecutionArn')],
  RetryPipelineExecution: [arn('PipelineExecutionArn')],
  UpdatePipelineExecution: [arn('PipelineExecutionArn')],
  SendPipelineExecutionStepSuccess: [['pipeline', '*']],
  SendPipelineExecutionStepFailure: [['pipeline', '*']],
  CreateTrialComponent: [trialComponent('TrialComponentName')],
  DescribeTrialComponent: [trialComponent('TrialComponentName')],
  UpdateTrialComponent: [trialComponent('TrialComponentName')],
  DeleteTrialComponent: [trialComponent('TrialComponentName')],
};

/** Operations that act on no particular resource (the reference lists `*`). */
export const actsOnAll = (operation: string): boolean =>
  operation.startsWith('List') || operation.startsWith('Search') || operation === 'QueryLineage';

/** A table entry worked out once: the input member, the suffix (`Group/*`), or a fixed `*`. */
interface CompiledRef {
  readonly type: string;
  readonly member: string;
  readonly suffix: string | undefined;
  readonly all: boolean;
}

const COMPILED = new Map<string, { action: string; refs: readonly CompiledRef[] }>(
  Object.entries(SAGEMAKER_RESOURCES).map(([op, refs]) => [
    op,
    {
      action: `sagemaker:${op}`,
      refs: refs.map(([type, member]) => {
        const [name, suffix] = member.split('/');
        return { type, member: name!, suffix, all: member === '*' };
      }),
    },
  ]),
);

function push(out: string[], ref: CompiledRef, v: unknown, p: Partition): void {
  if (typeof v !== 'string') return;
  if (v.startsWith('arn:')) out.push(v);
  else out.push(ref.suffix ? `${sagemakerArn(p, ref.type, v)}/${ref.suffix}` : sagemakerArn(p, ref.type, v));
}

export const sagemakerActions: ActionTable = (operation, input, p): ActionRequest => {
  const entry = COMPILED.get(operation);
  if (!entry) {
    // Unlisted operations (a new one added without an entry) act on `*`: only a policy granting
    // every resource allows them, never a narrower one by accident. The table test lists them.
    return { action: `sagemaker:${operation}`, resources: ['*'] };
  }
  const resources: string[] = [];
  for (const ref of entry.refs) {
    if (ref.all) {
      resources.push(sagemakerArn(p, ref.type, '*'));
      continue;
    }
    const v = input[ref.member];
    if (Array.isArray(v)) for (const x of v) push(resources, ref, x, p);
    else push(resources, ref, v, p);
  }
  return { action: entry.action, resources: resources.length ? resources : ['*'] };
};

/**
 * Operations acting on exactly one resource named by one input member (DescribeEndpoint,
 * InvokeEndpoint, ...), by that member: their resource is a function of the member's value and
 * the partition alone, so a decision can be recognised by the name without writing the ARN.
 */
const NAMED = new Map<string, string>(
  [...COMPILED].flatMap(([op, { refs }]) => {
    const [ref, ...more] = refs;
    return ref && more.length === 0 && !ref.all && ref.suffix === undefined && ref.type !== ''
      ? [[op, ref.member] as const]
      : [];
  }),
);

export const sagemakerNamedMember = (operation: string): string | undefined => NAMED.get(operation);

/**
 * Operation → the input members naming a role SageMaker will act as, which the caller must be
 * allowed to pass (iam:PassRole on that role, as AWS checks it): dotted member paths, `[]` for the
 * elements of a list. Operations not served yet (tuning, pipelines) are listed so that serving them
 * needs no change here. An operation whose role is stored rather than given (StartPipelineExecution
 * runs as its pipeline's RoleArn) lists none: its handler asks `ctx.gate.passRole(storedRole)`.
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_passrole.html
 * https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-roles.html#sagemaker-roles-pass-role
 */
export const SAGEMAKER_PASSED_ROLES: Readonly<Record<string, readonly string[]>> = {
  CreateTrainingJob: ['RoleArn'],
  CreateProcessingJob: ['RoleArn'],
  CreateModel: ['ExecutionRoleArn'],
  CreateEndpointConfig: ['ExecutionRoleArn'],
  CreateModelPackage: ['ValidationSpecification.ValidationRole'],
  // A transform job runs as its model's ExecutionRoleArn, passed when the model was created.
  CreateTransformJob: [],
  CreateHyperParameterTuningJob: ['TrainingJobDefinition.RoleArn', 'TrainingJobDefinitions[].RoleArn'],
  CreatePipeline: ['RoleArn'],
  UpdatePipeline: ['RoleArn'],
  StartPipelineExecution: [],
  CreateAutoMLJob: ['RoleArn'],
  CreateAutoMLJobV2: ['RoleArn'],
  CreateCompilationJob: ['RoleArn'],
  CreateLabelingJob: ['RoleArn'],
  CreateNotebookInstance: ['RoleArn'],
};

/** The role ARNs `input` names at `paths` (SAGEMAKER_PASSED_ROLES' form). */
export function rolesAt(input: unknown, paths: readonly string[]): string[] {
  const out: string[] = [];
  const visit = (v: unknown, steps: readonly string[]): void => {
    if (steps.length === 0) {
      if (typeof v === 'string' && v !== '') out.push(v);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    const [step, ...rest] = steps as [string, ...string[]];
    const list = step.endsWith('[]');
    const next = (v as Record<string, unknown>)[list ? step.slice(0, -2) : step];
    if (list) {
      if (Array.isArray(next)) for (const x of next) visit(x, rest);
    } else visit(next, rest);
  };
  for (const p of paths) visit(input, p.split('.'));
  return [...new Set(out)];
}

export const sagemakerPassedRoles = (operation: string, input: Record<string, unknown>): string[] =>
  rolesAt(input, SAGEMAKER_PASSED_ROLES[operation] ?? []);
