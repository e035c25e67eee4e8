// Pipelines: the list (ListPipelines, NextToken pages), one pipeline (its definition drawn, its
// executions polled while one runs) and one execution (pipeline-execution.tsx).
// Paths: /pipelines, /pipelines/{name}, /pipelines/{name}/executions/{id}.
import { sagemaker } from '../api/client';
import {
  Badge,
  ErrorBox,
  Loading,
  Pager,
  Snippet,
  SortableTable,
  useAsync,
  useInterval,
  usePaged,
  when,
} from '../components/ui';
import { Link, useLocation } from '../router';
import { DagPicture, ExecutionDetail } from './pipeline-execution';

type Obj = Record<string, unknown>;

export function PipelinesPage() {
  const { segments } = useLocation();
  const name = segments[1];
  if (name === undefined) return <PipelineList />;
  if (segments[2] === 'executions' && segments[3]) return <ExecutionDetail pipeline={name} id={segments[3]} />;
  return <PipelineDetail name={name} />;
}

const FIRST_STEPS = `sm = boto3.client("sagemaker", endpoint_url="http://127.0.0.1:4810")
sm.create_pipeline(PipelineName="abalone", RoleArn="arn:aws:iam::000000000000:role/sm",
                   PipelineDefinition=pipeline.definition())   # a sagemaker.workflow Pipeline
sm.start_pipeline_execution(PipelineName="abalone")
# or, with the SageMaker Python SDK: pipeline.upsert(role_arn); pipeline.start().wait()`;

function PipelineList() {
  const list = usePaged('pipelines', async (token, signal) => {
    const r = await sagemaker<{ PipelineSummaries?: Obj[]; NextToken?: string }>(
      'ListPipelines',
      { MaxResults: 25, NextToken: token, SortBy: 'CreationTime', SortOrder: 'Descending' },
      signal,
    );
    return { items: r.PipelineSummaries ?? [], next: r.NextToken };
  });
  return (
    <section class="pipelines">
      <h1>Pipelines</h1>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Loading what="pipelines" /> : null}
      {list.data && list.data.items.length === 0 && list.first ? (
        <div class="empty">
          <p>No pipelines yet. Create one with any SageMaker client pointed at this server, for example:</p>
          <Snippet title="boto3" code={FIRST_STEPS} />
        </div>
      ) : list.data ? (
        <>
          <SortableTable
            rowKey={(p) => String(p.PipelineArn)}
            rows={list.data.items}
            columns={[
              {
                key: 'name',
                label: 'Pipeline',
                value: (p) => String(p.PipelineName),
                render: (p) => (
                  <Link to={`/pipelines/${encodeURIComponent(String(p.PipelineName))}`}>{String(p.PipelineName)}</Link>
                ),
              },
              {
                key: 'description',
                label: 'Description',
                class: 'small',
                value: (p) => p.PipelineDescription as string | undefined,
              },
              {
                key: 'last',
                label: 'Last execution',
                value: (p) => p.LastExecutionTime as number | undefined,
                render: (p) => when(p.LastExecutionTime),
              },
              {
                key: 'created',
                label: 'Created',
                value: (p) => p.CreationTime as number,
                render: (p) => when(p.CreationTime),
              },
            ]}
          />
          <Pager {...list} next={list.data.next} count={list.data.items.length} />
        </>
      ) : null}
    </section>
  );
}

const RUNNING = new Set(['Executing', 'Stopping']);

function PipelineDetail({ name }: { name: string }) {
  const pipeline = useAsync((signal) => sagemaker<Obj>('DescribePipeline', { PipelineName: name }, signal), [name]);
  const executions = usePaged(`executions|${name}`, async (token, signal) => {
    const r = await sagemaker<{ PipelineExecutionSummaries?: Obj[]; NextToken?: string }>(
      'ListPipelineExecutions',
      { PipelineName: name, MaxResults: 25, NextToken: token },
      signal,
    );
    return { items: r.PipelineExecutionSummaries ?? [], next: r.NextToken };
  });
  useInterval(
    executions.reload,
    2000,
    executions.data?.items.some((e) => RUNNING.has(String(e.PipelineExecutionStatus))) ?? false,
  );
  const p = pipeline.data;
  return (
    <section class="pipeline">
      <nav class="crumbs">
        <Link to="/pipelines">Pipelines</Link> / {name}
      </nav>
      <h1>{name}</h1>
      <ErrorBox error={pipeline.error} title={`Could not read pipeline ${name}`} />
      {pipeline.loading && !p ? <Loading what="pipeline" /> : null}
      {p ? (
        <>
          <dl class="facts">
            <dt>ARN</dt>
            <dd class="mono">{String(p.PipelineArn)}</dd>
            {p.PipelineDescription ? (
              <>
                <dt>Description</dt>
                <dd>{String(p.PipelineDescription)}</dd>
              </>
            ) : null}
            <dt>Role</dt>
            <dd class="mono">{String(p.RoleArn)}</dd>
            <dt>Created</dt>
            <dd>{when(p.CreationTime)}</dd>
            <dt>Last run</dt>
            <dd>{when(p.LastRunTime)}</dd>
          </dl>
          <h2>Steps</h2>
          <DagPicture definition={String(p.PipelineDefinition ?? '')} steps={{}} />
        </>
      ) : null}
      <h2>Executions</h2>
      <ErrorBox error={executions.error} />
      {executions.data ? (
        <>
          <SortableTable
            rowKey={(e) => String(e.PipelineExecutionArn)}
            rows={executions.data.items}
            empty="No executions yet: StartPipelineExecution starts one."
            columns={[
              {
                key: 'execution',
                label: 'Execution',
                value: (e) => String(e.PipelineExecutionDisplayName ?? e.PipelineExecutionArn),
                render: (e) => (
                  <Link
                    to={`/pipelines/${encodeURIComponent(name)}/executions/${String(e.PipelineExecutionArn).split('/').pop()}`}
                  >
                    {String(e.PipelineExecutionDisplayName ?? String(e.PipelineExecutionArn).split('/').pop())}
                  </Link>
                ),
              },
              {
                key: 'status',
                label: 'Status',
                value: (e) => String(e.PipelineExecutionStatus),
                render: (e) => <Badge status={String(e.PipelineExecutionStatus)} />,
              },
              {
                key: 'started',
                label: 'Started',
                value: (e) => e.StartTime as number,
                render: (e) => when(e.StartTime),
              },
              {
                key: 'failure',
                label: 'Failure',
                class: 'small',
                value: (e) => e.PipelineExecutionFailureReason as string | undefined,
                render: (e) =>
                  e.PipelineExecutionFailureReason ? (
                    <span class="bad-text">{String(e.PipelineExecutionFailureReason)}</span>
                  ) : (
                    '—'
                  ),
              },
            ]}
          />
          <Pager {...executions} next={executions.data.next} count={executions.data.items.length} />
        </>
      ) : null}
    </section>
  );
}
