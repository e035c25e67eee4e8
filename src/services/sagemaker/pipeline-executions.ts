// StartPipelineExecution and what follows an execution: Describe/List/ListSteps/ListParameters/
// DescribeDefinitionForExecution, Stop, Retry, Update, and the callback operations. An execution's
// row and its work item on the job runner commit together; the executor (src/pipelines) runs it.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_StartPipelineExecution.html
import { randomBytes } from 'node:crypto';
import { type Partition, parseArn } from '../../domain/arn.js';
import { ResourceNotFound } from '../../generated/sagemaker/errors.js';
import type {
  DescribePipelineDefinitionForExecutionRequest,
  DescribePipelineDefinitionForExecutionResponse,
  DescribePipelineExecutionRequest,
  DescribePipelineExecutionResponse,
  ListPipelineExecutionsRequest,
  ListPipelineExecutionsResponse,
  ListPipelineExecutionStepsRequest,
  ListPipelineExecutionStepsResponse,
  ListPipelineParametersForExecutionRequest,
  ListPipelineParametersForExecutionResponse,
  PipelineExecutionStep,
  RetryPipelineExecutionRequest,
  RetryPipelineExecutionResponse,
  SendPipelineExecutionStepFailureRequest,
  SendPipelineExecutionStepFailureResponse,
  SendPipelineExecutionStepSuccessRequest,
  SendPipelineExecutionStepSuccessResponse,
  StartPipelineExecutionRequest,
  StartPipelineExecutionResponse,
  StopPipelineExecutionRequest,
  StopPipelineExecutionResponse,
  UpdatePipelineExecutionRequest,
  UpdatePipelineExecutionResponse,
} from '../../generated/sagemaker/shapes.js';
import { compileDefinition, type PipelineStep } from '../../pipelines/definition.js';
import { type ExecutionDoc, executionVariables, parameterText, parameterValues } from '../../pipelines/execution.js';
import { evaluate, ExpressionError, type Json, render, type Scope } from '../../pipelines/expressions.js';
import { listSteps, type StepDoc, type StepRow, stepByCallbackToken, updateStep } from '../../pipelines/store.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { RequestContext } from '../../protocol/context.js';
import type { Queryable } from '../../storage/db/types.js';
import type { PipelineExecutionRow, ServiceDeps } from '../common/deps.js';
import { NO_USER, toDate } from '../common/resource-kind.js';
import { type PipelineDoc, type PipelineService, pipelineKind, pipelineName, pipelineNotFound } from './pipelines.js';

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A 12-character execution id, as SageMaker's (`9qdq4zh3ohdj`). */
function executionId(): string {
  return [...randomBytes(12)].map((b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}

/** A callback's output value, typed as its step declares it. */
function typedOutput(step: string, name: string, type: string, value: string): Json {
  const bad = () =>
    new ValidationException(`The value '${value}' of output parameter ${name} of step ${step} is not a valid ${type}.`);
  if (type === 'Integer') {
    if (!/^-?\d+$/.test(value.trim())) throw bad();
    return Number(value);
  }
  if (type === 'Float') {
    if (value.trim() === '' || !Number.isFinite(Number(value))) throw bad();
    return Number(value);
  }
  if (type === 'Boolean') {
    if (!/^(true|false)$/i.test(value.trim())) throw bad();
    return value.trim().toLowerCase() === 'true';
  }
  return value;
}

export const executionNotFound = (arn: string) => new ResourceNotFound(`Pipeline execution '${arn}' does not exist.`);

/** ExperimentEntityName: at most 120 characters. */
const experimentName = (s: string) => s.slice(0, 120);

/** Finds an execution by ARN (the ARN is the only way the API names one). */
export async function findExecution(
  deps: ServiceDeps,
  q: Queryable,
  p: Partition,
  arn: string,
): Promise<PipelineExecutionRow> {
  const a = parseArn(arn);
  const row =
    a && a.accountId === p.accountId && a.region === p.region
      ? await deps.repos.pipelineExecutions.getByArn(q, p, arn)
      : undefined;
  if (!row) throw executionNotFound(arn);
  return row;
}

const docOf = (row: PipelineExecutionRow) => JSON.parse(row.doc) as ExecutionDoc;

/** A step as ListPipelineExecutionSteps shows it. */
export function stepSummary(row: StepRow, displayName?: string, description?: string): PipelineExecutionStep {
  const d = JSON.parse(row.doc) as StepDoc;
  return {
    StepName: row.step_name,
    StepDisplayName: displayName,
    StepDescription: description,
    StartTime: toDate(row.started_at),
    EndTime: toDate(row.ended_at),
    StepStatus: row.status as PipelineExecutionStep['StepStatus'],
    CacheHitResult: d.CacheHitResult,
    FailureReason: d.FailureReason,
    Metadata: d.Metadata as PipelineExecutionStep['Metadata'],
    AttemptCount: row.attempt,
  };
}

/** DescribePipelineExecution's answer for a stored execution. */
export function describeExecution(row: PipelineExecutionRow): DescribePipelineExecutionResponse {
  const d = docOf(row);
  return {
    PipelineArn: d.PipelineArn,
    PipelineExecutionArn: row.arn,
    PipelineExecutionDisplayName: d.PipelineExecutionDisplayName,
    PipelineExecutionStatus: row.status as DescribePipelineExecutionResponse['PipelineExecutionStatus'],
    PipelineExecutionDescription: d.PipelineExecutionDescription,
    PipelineExperimentConfig: d.PipelineExperimentConfig,
    FailureReason: d.FailureReason,
    CreationTime: new Date(row.created_at),
    LastModifiedTime: new Date(row.last_modified_at),
    CreatedBy: NO_USER,
    LastModifiedBy: NO_USER,
    ParallelismConfiguration: d.ParallelismConfiguration,
  };
}

/** The execution's parameters as ListPipelineParametersForExecution shows them. */
function parametersOf(d: ExecutionDoc): Array<{ Name: string; Value: string }> {
  const declared = new Map(compileDefinition(d.PipelineDefinition).parameters.map((p) => [p.Name, p]));
  return Object.entries(d.ParameterValues).map(([Name, v]) => ({ Name, Value: parameterText(declared.get(Name), v) }));
}

/** Search's PipelineExecution record: the description and the parameters. */
export function pipelineExecutionDocument(row: PipelineExecutionRow) {
  return { ...describeExecution(row), PipelineParameters: parametersOf(docOf(row)) };
}

export function pipelineExecutionHandlers(deps: ServiceDeps, service: PipelineService) {
  const { db, repos, tokens } = deps;
  const pipelines = pipelineKind(deps);
  const executions = repos.pipelineExecutions;

  /** One page of a list held in memory (steps, parameters), its NextToken bound to the request. */
  const page = <T>(
    operation: string,
    ctx: RequestContext,
    key: string,
    input: { NextToken?: string; MaxResults?: number },
    all: T[],
  ) => {
    const scope = `${operation}|${ctx.accountId}|${ctx.region}|${key}`;
    const from = input.NextToken ? tokens.decode<number>(scope, input.NextToken) : 0;
    const limit = input.MaxResults ?? 50;
    const items = all.slice(from, from + limit);
    return { items, NextToken: from + limit < all.length ? tokens.encode(scope, from + limit) : undefined };
  };

  /** A callback's step, which must be waiting for it. */
  const callbackStep = async (tx: Queryable, ctx: RequestContext, token: string) => {
    const row = await stepByCallbackToken(tx, token, true);
    const a = row ? parseArn(row.execution_arn) : undefined;
    if (!row || a?.accountId !== ctx.accountId || a.region !== ctx.region)
      throw new ResourceNotFound(`Callback token '${token}' does not exist.`);
    return row;
  };

  const settleCallback = async (
    ctx: RequestContext,
    token: string,
    requestToken: string | undefined,
    settle: (
      row: StepRow,
      doc: StepDoc & { ClientRequestToken?: string },
      step: PipelineStep | undefined,
    ) => { status: 'Succeeded' | 'Failed' },
  ) => {
    const arn = await db.transaction(async (tx) => {
      const row = await callbackStep(tx, ctx, token);
      const doc = JSON.parse(row.doc) as StepDoc & { ClientRequestToken?: string };
      if (row.status !== 'Executing') {
        // The same request again (ClientRequestToken) is answered as the first time.
        if (requestToken && doc.ClientRequestToken === requestToken) return row.execution_arn;
        throw new ValidationException(
          `The step ${row.step_name} of callback token '${token}' is ${row.status}; it no longer waits for a callback.`,
        );
      }
      const execution = await executions.getByArn(tx, ctx, row.execution_arn);
      const step = execution
        ? compileDefinition(docOf(execution).PipelineDefinition).byName.get(row.step_name)
        : undefined;
      const { status } = settle(row, doc, step);
      doc.ClientRequestToken = requestToken;
      await updateStep(
        tx,
        row.execution_arn,
        row.step_name,
        { status, ended_at: ctx.receivedAt, doc: JSON.stringify(doc) },
        'Executing',
      );
      return row.execution_arn;
    });
    service.wakeups.wake(arn);
    return { PipelineExecutionArn: arn };
  };

  return {
    async startPipelineExecution(
      input: StartPipelineExecutionRequest,
      ctx: RequestContext,
    ): Promise<StartPipelineExecutionResponse> {
      if (input.SelectiveExecutionConfig) {
        // DEVIATION(aws): selective execution is not offered; RetryPipelineExecution re-runs failed steps.
        throw new ValidationException('SelectiveExecutionConfig is not supported by Slipway.');
      }
      const name = pipelineName(ctx, input.PipelineName);
      if (name === undefined) throw pipelineNotFound(ctx, input.PipelineName);
      const pipeline = await pipelines.get(db, ctx, name);
      const pdoc = pipelines.doc(pipeline);
      // The execution runs as the pipeline's stored role: the caller must be allowed to pass it
      // (iam:PassRole, asked of the gate once it offers it: the credentials file's policies).
      (ctx.gate as { passRole?(roleArn: string): void } | undefined)?.passRole?.(pdoc.RoleArn);
      // The definition was checked when stored; a server of another version checks it again.
      const compiled = compileDefinition(pdoc.PipelineDefinition, { canRun: (t) => service.canRun(t) });
      const values = parameterValues(compiled.parameters, input.PipelineParameters ?? []);
      const token = input.ClientRequestToken;
      const previous = token
        ? await executions.list(db, ctx, {
            where: { pipeline_key: pipeline.name_key, client_token: token },
            sortBy: 'created',
            descending: true,
            limit: 1,
          })
        : [];
      if (previous[0]) return { PipelineExecutionArn: previous[0].arn };

      const id = executionId();
      const arn = `${pipeline.arn}/execution/${id}`;
      const doc: ExecutionDoc = {
        PipelineArn: pipeline.arn,
        PipelineName: pipeline.name,
        PipelineExecutionId: id,
        RoleArn: pdoc.RoleArn,
        PipelineDefinition: pdoc.PipelineDefinition,
        PipelineExecutionDisplayName: input.PipelineExecutionDisplayName ?? `execution-${ctx.receivedAt}`,
        PipelineExecutionDescription: input.PipelineExecutionDescription,
        ParallelismConfiguration: input.ParallelismConfiguration ?? pdoc.ParallelismConfiguration,
        ParameterValues: values,
        StartTime: ctx.receivedAt,
        ClientRequestToken: token,
      };
      if (compiled.experiment) {
        const vars = executionVariables(arn, doc);
        const types = new Map(compiled.parameters.map((p) => [p.Name, p]));
        const scope: Scope = {
          parameter: (n) => {
            const v = values[n]!;
            return types.get(n)?.Type === 'Float' ? parameterText(types.get(n), v) : v;
          },
          execution: (n) => vars[n]!(),
          stepProperty: () => undefined,
          propertyFile: () => '',
          readJson: async () => undefined,
        };
        try {
          doc.PipelineExperimentConfig = {
            ExperimentName: experimentName(render(await evaluate(compiled.experiment.ExperimentName as Json, scope))),
            TrialName: experimentName(render(await evaluate(compiled.experiment.TrialName as Json, scope))),
          };
        } catch (e) {
          if (e instanceof ExpressionError) throw new ValidationException(`PipelineExperimentConfig: ${e.message}`);
          throw e;
        }
      }
      await db.transaction(async (tx) => {
        await executions.insert(tx, ctx, {
          name_key: id,
          name: id,
          arn,
          status: 'Executing',
          doc: JSON.stringify(doc),
          created_at: ctx.receivedAt,
          last_modified_at: ctx.receivedAt,
          pipeline_key: pipeline.name_key,
          client_token: token ?? null,
        });
        await pipelines.store.save(tx, ctx, pipeline, {
          doc: JSON.stringify({ ...pdoc, LastRunTime: ctx.receivedAt } satisfies PipelineDoc),
        });
        await service.runner.submit(
          service.kind,
          arn,
          { accountId: ctx.accountId, region: ctx.region, executionArn: arn },
          { tx, status: 'Executing' },
        );
      });
      service.runner.wake();
      return { PipelineExecutionArn: arn };
    },

    async describePipelineExecution(
      input: DescribePipelineExecutionRequest,
      ctx: RequestContext,
    ): Promise<DescribePipelineExecutionResponse> {
      return describeExecution(await findExecution(deps, db, ctx, input.PipelineExecutionArn));
    },

    async listPipelineExecutions(
      input: ListPipelineExecutionsRequest,
      ctx: RequestContext,
    ): Promise<ListPipelineExecutionsResponse> {
      const name = pipelineName(ctx, input.PipelineName);
      if (name === undefined) throw pipelineNotFound(ctx, input.PipelineName);
      const pipeline = await pipelines.get(db, ctx, name);
      const query = {
        where: { pipeline_key: pipeline.name_key },
        createdAfter: input.CreatedAfter?.getTime(),
        createdBefore: input.CreatedBefore?.getTime(),
        sortBy: (input.SortBy === 'PipelineExecutionArn' ? 'name' : 'created') as 'name' | 'created',
        descending: input.SortOrder !== 'Ascending',
      };
      const scope = `ListPipelineExecutions|${ctx.accountId}|${ctx.region}|${JSON.stringify(query)}`;
      const after = input.NextToken
        ? tokens.decode<[string | number | null, string]>(scope, input.NextToken)
        : undefined;
      const limit = input.MaxResults ?? 50;
      const rows = await executions.list(db, ctx, { ...query, after, limit: limit + 1 });
      const shown = rows.slice(0, limit);
      const last = shown[shown.length - 1];
      return {
        PipelineExecutionSummaries: shown.map((row) => {
          const d = docOf(row);
          return {
            PipelineExecutionArn: row.arn,
            StartTime: new Date(row.created_at),
            PipelineExecutionStatus: row.status as 'Executing',
            PipelineExecutionDescription: d.PipelineExecutionDescription,
            PipelineExecutionDisplayName: d.PipelineExecutionDisplayName,
            PipelineExecutionFailureReason: d.FailureReason,
          };
        }),
        NextToken:
          rows.length > limit && last
            ? tokens.encode(scope, [executions.sortValue(last, query.sortBy), last.name_key])
            : undefined,
      };
    },

    async listPipelineExecutionSteps(
      input: ListPipelineExecutionStepsRequest,
      ctx: RequestContext,
    ): Promise<ListPipelineExecutionStepsResponse> {
      if (!input.PipelineExecutionArn) throw new ValidationException('PipelineExecutionArn is required.');
      const row = await findExecution(deps, db, ctx, input.PipelineExecutionArn);
      const compiled = compileDefinition(docOf(row).PipelineDefinition);
      const steps = (await listSteps(db, row.arn)).filter((s) => s.status !== 'Pending');
      // Most recent first unless asked otherwise (SortOrder applies to the steps' start times).
      if (input.SortOrder !== 'Ascending') steps.reverse();
      const { items, NextToken } = page(
        'ListPipelineExecutionSteps',
        ctx,
        `${row.arn}|${input.SortOrder ?? ''}`,
        input,
        steps,
      );
      return {
        PipelineExecutionSteps: items.map((s) => {
          const def = compiled.byName.get(s.step_name);
          return stepSummary(s, def?.displayName, def?.description);
        }),
        NextToken,
      };
    },

    async listPipelineParametersForExecution(
      input: ListPipelineParametersForExecutionRequest,
      ctx: RequestContext,
    ): Promise<ListPipelineParametersForExecutionResponse> {
      const row = await findExecution(deps, db, ctx, input.PipelineExecutionArn);
      const all = parametersOf(docOf(row));
      const { items, NextToken } = page('ListPipelineParametersForExecution', ctx, row.arn, input, all);
      return { PipelineParameters: items, NextToken };
    },

    async describePipelineDefinitionForExecution(
      input: DescribePipelineDefinitionForExecutionRequest,
      ctx: RequestContext,
    ): Promise<DescribePipelineDefinitionForExecutionResponse> {
      const row = await findExecution(deps, db, ctx, input.PipelineExecutionArn);
      return { PipelineDefinition: docOf(row).PipelineDefinition, CreationTime: new Date(row.created_at) };
    },

    async stopPipelineExecution(
      input: StopPipelineExecutionRequest,
      ctx: RequestContext,
    ): Promise<StopPipelineExecutionResponse> {
      const arn = await db.transaction(async (tx) => {
        const row = await findExecution(deps, tx, ctx, input.PipelineExecutionArn);
        const locked = (await executions.get(tx, ctx, row.name_key, true))!;
        if (locked.status === 'Stopping') return locked.arn;
        if (locked.status !== 'Executing')
          throw new ValidationException(
            `Pipeline execution '${locked.arn}' is ${locked.status}; only an Executing execution can be stopped.`,
          );
        await executions.update(tx, ctx, locked.name_key, { status: 'Stopping', last_modified_at: ctx.receivedAt });
        return locked.arn;
      });
      service.wakeups.wake(arn);
      return { PipelineExecutionArn: arn };
    },

    async retryPipelineExecution(
      input: RetryPipelineExecutionRequest,
      ctx: RequestContext,
    ): Promise<RetryPipelineExecutionResponse> {
      const arn = await db.transaction(async (tx) => {
        const found = await findExecution(deps, tx, ctx, input.PipelineExecutionArn);
        const row = (await executions.get(tx, ctx, found.name_key, true))!;
        if (row.status !== 'Failed' && row.status !== 'Stopped')
          throw new ValidationException(
            `Pipeline execution '${row.arn}' is ${row.status}; only a Failed or Stopped execution can be retried.`,
          );
        const d = docOf(row);
        d.FailureReason = undefined;
        d.EndTime = undefined;
        if (input.ParallelismConfiguration) d.ParallelismConfiguration = input.ParallelismConfiguration;
        // Failed and stopped steps run again (a new attempt); succeeded ones keep their results.
        for (const s of await listSteps(tx, row.arn)) {
          if (s.status !== 'Failed' && s.status !== 'Stopped') continue;
          await updateStep(tx, row.arn, s.step_name, {
            status: 'Pending',
            ended_at: null,
            not_before: null,
            job_arn: null,
            callback_token: null,
            doc: '{}',
          });
        }
        await executions.update(tx, ctx, row.name_key, {
          status: 'Executing',
          doc: JSON.stringify(d),
          last_modified_at: ctx.receivedAt,
        });
        await service.runner.submit(
          service.kind,
          row.arn,
          { accountId: ctx.accountId, region: ctx.region, executionArn: row.arn },
          { tx, status: 'Executing', message: 'Retried', whenActive: 'rerun' },
        );
        return row.arn;
      });
      service.runner.wake();
      return { PipelineExecutionArn: arn };
    },

    async updatePipelineExecution(
      input: UpdatePipelineExecutionRequest,
      ctx: RequestContext,
    ): Promise<UpdatePipelineExecutionResponse> {
      const arn = await db.transaction(async (tx) => {
        const found = await findExecution(deps, tx, ctx, input.PipelineExecutionArn);
        const row = (await executions.get(tx, ctx, found.name_key, true))!;
        const d = docOf(row);
        if (input.PipelineExecutionDisplayName !== undefined)
          d.PipelineExecutionDisplayName = input.PipelineExecutionDisplayName;
        if (input.PipelineExecutionDescription !== undefined)
          d.PipelineExecutionDescription = input.PipelineExecutionDescription;
        if (input.ParallelismConfiguration !== undefined) d.ParallelismConfiguration = input.ParallelismConfiguration;
        await executions.update(tx, ctx, row.name_key, { doc: JSON.stringify(d), last_modified_at: ctx.receivedAt });
        return row.arn;
      });
      service.wakeups.wake(arn);
      return { PipelineExecutionArn: arn };
    },

    sendPipelineExecutionStepSuccess: (
      input: SendPipelineExecutionStepSuccessRequest,
      ctx: RequestContext,
    ): Promise<SendPipelineExecutionStepSuccessResponse> =>
      settleCallback(ctx, input.CallbackToken, input.ClientRequestToken, (row, doc, step) => {
        const outputs = input.OutputParameters ?? [];
        const declared = new Map((step?.outputParameters ?? []).map((o) => [o.OutputName, o.OutputType ?? 'String']));
        const values: Record<string, Json> = {};
        for (const o of outputs) {
          const type = declared.get(o.Name);
          if (!type) throw new ValidationException(`Step ${row.step_name} declares no output parameter ${o.Name}.`);
          values[o.Name] = typedOutput(row.step_name, o.Name, type, o.Value);
        }
        doc.Metadata = {
          Callback: {
            ...((doc.Metadata?.Callback as Record<string, Json> | undefined) ?? {}),
            OutputParameters: outputs.map((o) => ({ Name: o.Name, Value: o.Value })),
          },
        };
        doc.Properties = { OutputParameters: values };
        return { status: 'Succeeded' };
      }),

    sendPipelineExecutionStepFailure: (
      input: SendPipelineExecutionStepFailureRequest,
      ctx: RequestContext,
    ): Promise<SendPipelineExecutionStepFailureResponse> =>
      settleCallback(ctx, input.CallbackToken, input.ClientRequestToken, (_row, doc) => {
        doc.FailureReason = input.FailureReason ?? 'The callback reported a failure.';
        return { status: 'Failed' };
      }),
  };
}
