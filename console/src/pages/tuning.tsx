// Hyperparameter tuning jobs: a list (status, strategy, progress, best objective; filters, pages)
// and one tuning job: its settings and counters, its training jobs ranked by objective, the
// objective over time with the best so far, and the objective against each tuned hyperparameter.
// Paths: /tuning?status=&q=, /tuning/{name}. Polled while the job runs.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { sagemaker } from '../api/client';
import { type Point, Scatter } from '../components/scatter';
import {
  Badge,
  ErrorBox,
  Json,
  Loading,
  Pager,
  Snippet,
  SortableTable,
  useAsync,
  useInterval,
  usePaged,
  when,
} from '../components/ui';
import { type Child, objectiveOf, objectiveSpec, rank, tunedParams } from '../lib/tuning';
import { Link, setQuery, useLocation, withQuery } from '../router';
import { duration } from './jobs';

type Obj = Record<string, unknown>;
const STATUSES = ['InProgress', 'Completed', 'Failed', 'Stopping', 'Stopped'];
const RUNNING = new Set(['InProgress', 'Stopping']);

const FIRST_STEPS = `sm = boto3.client("sagemaker", endpoint_url="http://127.0.0.1:4810")
sm.create_hyper_parameter_tuning_job(
    HyperParameterTuningJobName="abalone-tuning",
    HyperParameterTuningJobConfig={
        "Strategy": "Bayesian",
        "ResourceLimits": {"MaxNumberOfTrainingJobs": 20, "MaxParallelTrainingJobs": 2},
        "HyperParameterTuningJobObjective": {"Type": "Minimize", "MetricName": "validation:rmse"},
        "ParameterRanges": {"ContinuousParameterRanges": [{"Name": "eta", "MinValue": "0.05", "MaxValue": "0.5"}],
                            "IntegerParameterRanges": [{"Name": "max_depth", "MinValue": "2", "MaxValue": "10"}]}},
    TrainingJobDefinition={
        "StaticHyperParameters": {"objective": "reg:squarederror", "num_round": "50"},
        "AlgorithmSpecification": {"TrainingImage": "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1",
                                   "TrainingInputMode": "File"},
        "RoleArn": "arn:aws:iam::000000000000:role/sm",
        "InputDataConfig": [{"ChannelName": c, "ContentType": "text/csv",
                             "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": f"s3://ml-data/abalone/{c}/"}}}
                            for c in ("train", "validation")],
        "OutputDataConfig": {"S3OutputPath": "s3://ml-data/models/"},
        "ResourceConfig": {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 5},
        "StoppingCondition": {"MaxRuntimeInSeconds": 3600}})`;

export function TuningPage() {
  const { segments } = useLocation();
  return segments[1] ? <TuningDetail name={decodeURIComponent(segments[1])} /> : <TuningList />;
}

const counters = (j: Obj) => (j.TrainingJobStatusCounters as Record<string, number> | undefined) ?? {};
const total = (c: Record<string, number>) =>
  (c.Completed ?? 0) + (c.InProgress ?? 0) + (c.Stopped ?? 0) + (c.RetryableError ?? 0) + (c.NonRetryableError ?? 0);

function TuningList() {
  const { query } = useLocation();
  const q = query.get('q') ?? '';
  const status = query.get('status') ?? '';
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  const list = usePaged(`tuning|${q}|${status}`, async (token, signal) => {
    const r = await sagemaker<{ HyperParameterTuningJobSummaries?: Obj[]; NextToken?: string }>(
      'ListHyperParameterTuningJobs',
      {
        MaxResults: 25,
        NextToken: token,
        NameContains: q || undefined,
        StatusEquals: status || undefined,
        SortBy: 'CreationTime',
        SortOrder: 'Descending',
      },
      signal,
    );
    return { items: r.HyperParameterTuningJobSummaries ?? [], next: r.NextToken };
  });
  useInterval(
    list.reload,
    2000,
    list.data?.items.some((j) => RUNNING.has(String(j.HyperParameterTuningJobStatus))) ?? false,
  );
  const filtered = q !== '' || status !== '';
  return (
    <section class="tuning">
      <h1>Hyperparameter tuning jobs</h1>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ q: text.trim(), page: undefined });
        }}
      >
        <input
          type="search"
          name="q"
          placeholder="Name contains…"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <label>
          Status{' '}
          <select
            name="status"
            value={status}
            onChange={(e) => setQuery({ status: e.currentTarget.value, page: undefined })}
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Loading what="tuning jobs" /> : null}
      {list.data && list.data.items.length === 0 && list.first && !filtered ? (
        <div class="empty">
          <p>
            No hyperparameter tuning jobs yet. Start one with any SageMaker client pointed at this server, for example:
          </p>
          <Snippet title="boto3" code={FIRST_STEPS} />
        </div>
      ) : list.data ? (
        <>
          <SortableTable
            rowKey={(j) => String(j.HyperParameterTuningJobArn)}
            rows={list.data.items}
            empty="No tuning job matches."
            columns={[
              {
                key: 'name',
                label: 'Tuning job',
                value: (j) => String(j.HyperParameterTuningJobName),
                render: (j) => (
                  <Link to={`/tuning/${encodeURIComponent(String(j.HyperParameterTuningJobName))}`}>
                    {String(j.HyperParameterTuningJobName)}
                  </Link>
                ),
              },
              {
                key: 'status',
                label: 'Status',
                value: (j) => String(j.HyperParameterTuningJobStatus),
                render: (j) => <Badge status={String(j.HyperParameterTuningJobStatus)} />,
              },
              { key: 'strategy', label: 'Strategy', value: (j) => String(j.Strategy) },
              {
                key: 'jobs',
                label: 'Training jobs',
                value: (j) => total(counters(j)),
                render: (j) => {
                  const c = counters(j);
                  const max = (j.ResourceLimits as Obj | undefined)?.MaxNumberOfTrainingJobs;
                  return `${c.Completed ?? 0} completed, ${c.InProgress ?? 0} running · ${total(c)}${max ? ` of ${max}` : ''}`;
                },
              },
              {
                key: 'created',
                label: 'Created',
                value: (j) => j.CreationTime as number,
                render: (j) => when(j.CreationTime),
              },
              {
                key: 'duration',
                label: 'Duration',
                value: (j) => duration(j.CreationTime, j.HyperParameterTuningEndTime),
              },
            ]}
          />
          <Pager {...list} next={list.data.next} count={list.data.items.length} />
          {filtered ? (
            <p class="muted small">
              <Link to={withQuery('/tuning', {})}>Show all</Link>
            </p>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

/** Every training job of a tuning job (pages of 100). */
async function allChildren(name: string, signal: AbortSignal): Promise<Child[]> {
  const out: Child[] = [];
  let token: string | undefined;
  do {
    const r = await sagemaker<{ TrainingJobSummaries?: Child[]; NextToken?: string }>(
      'ListTrainingJobsForHyperParameterTuningJob',
      { HyperParameterTuningJobName: name, MaxResults: 100, NextToken: token },
      signal,
    );
    out.push(...(r.TrainingJobSummaries ?? []));
    token = r.NextToken;
  } while (token);
  return out;
}

function TuningDetail({ name }: { name: string }) {
  const job = useAsync(
    (signal) => sagemaker<Obj>('DescribeHyperParameterTuningJob', { HyperParameterTuningJobName: name }, signal),
    [name],
  );
  const children = useAsync((signal) => allChildren(name, signal), [name]);
  const status = job.data?.HyperParameterTuningJobStatus as string | undefined;
  const running = status !== undefined && RUNNING.has(status);
  useInterval(
    () => {
      job.reload();
      children.reload();
    },
    2000,
    running,
  );
  const [stopError, setStopError] = useState<unknown>();
  const j = job.data;
  return (
    <section class="tuning-job">
      <nav class="crumbs">
        <Link to="/tuning">Tuning jobs</Link> / {name}
      </nav>
      <h1>
        {name} {status ? <Badge status={status} /> : null}
        {status === 'InProgress' ? (
          <button
            type="button"
            class="stop"
            onClick={() =>
              void sagemaker('StopHyperParameterTuningJob', { HyperParameterTuningJobName: name })
                .then(job.reload)
                .catch(setStopError)
            }
          >
            Stop
          </button>
        ) : null}
      </h1>
      <ErrorBox error={job.error} title={`Could not read tuning job ${name}`} />
      <ErrorBox error={stopError} title="Could not stop the tuning job" />
      {job.loading && !j ? <Loading what="tuning job" /> : null}
      {j ? (
        <>
          <div class="columns">
            <Facts j={j} />
            <Settings j={j} />
          </div>
          <ErrorBox error={children.error} title="Could not list the training jobs" />
          {children.data ? <Children j={j} children={children.data} /> : null}
        </>
      ) : null}
    </section>
  );
}

function Facts({ j }: { j: Obj }) {
  const c = counters(j);
  const o = (j.ObjectiveStatusCounters as Record<string, number> | undefined) ?? {};
  const best = j.BestTrainingJob as Child | undefined;
  const overall = j.OverallBestTrainingJob as Child | undefined;
  const config = j.HyperParameterTuningJobConfig as Obj;
  const limits = config.ResourceLimits as Obj;
  const spec = objectiveSpec(j);
  return (
    <dl class="facts">
      <dt>ARN</dt>
      <dd class="mono">{String(j.HyperParameterTuningJobArn)}</dd>
      <dt>Strategy</dt>
      <dd>
        {String(config.Strategy)}
        {config.TrainingJobEarlyStoppingType === 'Auto' ? ', early stopping' : ''}
        {config.RandomSeed !== undefined ? <span class="muted">, RandomSeed {String(config.RandomSeed)}</span> : null}
      </dd>
      <dt>Objective</dt>
      <dd>{spec ? `${spec.maximize ? 'Maximize' : 'Minimize'} ${spec.name}` : '—'}</dd>
      <dt>Training jobs</dt>
      <dd class="counters">
        {c.Completed ?? 0} completed, {c.InProgress ?? 0} in progress, {c.Stopped ?? 0} stopped,{' '}
        {(c.NonRetryableError ?? 0) + (c.RetryableError ?? 0)} failed — {total(c)} of{' '}
        {String(limits.MaxNumberOfTrainingJobs ?? '—')}, {String(limits.MaxParallelTrainingJobs)} at a time
      </dd>
      <dt>Objective status</dt>
      <dd>
        {o.Succeeded ?? 0} succeeded, {o.Pending ?? 0} pending, {o.Failed ?? 0} failed
      </dd>
      <dt>Best training job</dt>
      <dd class="best-job">
        {best ? (
          <>
            <Link to={`/jobs/training/${encodeURIComponent(best.TrainingJobName)}`}>{best.TrainingJobName}</Link>{' '}
            <span class="mono">{objectiveOf(best)}</span>
          </>
        ) : (
          '—'
        )}
      </dd>
      {overall && overall.TrainingJobName !== best?.TrainingJobName ? (
        <>
          <dt>Best with the parents</dt>
          <dd>
            <Link to={`/jobs/training/${encodeURIComponent(overall.TrainingJobName)}`}>{overall.TrainingJobName}</Link>{' '}
            <span class="mono">{objectiveOf(overall)}</span>
          </dd>
        </>
      ) : null}
      <dt>Created</dt>
      <dd>{when(j.CreationTime)}</dd>
      <dt>Ended</dt>
      <dd>
        {when(j.HyperParameterTuningEndTime)}
        {duration(j.CreationTime, j.HyperParameterTuningEndTime) ? (
          <span class="muted"> ({duration(j.CreationTime, j.HyperParameterTuningEndTime)})</span>
        ) : null}
      </dd>
      {j.FailureReason ? (
        <>
          <dt>Failure reason</dt>
          <dd class="bad-text failure-reason">{String(j.FailureReason)}</dd>
        </>
      ) : null}
    </dl>
  );
}

function Settings({ j }: { j: Obj }) {
  const config = j.HyperParameterTuningJobConfig as Obj;
  const def = j.TrainingJobDefinition as Obj | undefined;
  const image = (def?.AlgorithmSpecification as Obj | undefined)?.TrainingImage;
  return (
    <div>
      {image ? (
        <p>
          <span class="muted">Image </span>
          <span class="mono">{String(image)}</span>
        </p>
      ) : null}
      {[
        ['Ranges', config.ParameterRanges],
        ['Static hyperparameters', def?.StaticHyperParameters],
        ['Training job definitions', j.TrainingJobDefinitions],
        ['Completion criteria', config.TuningJobCompletionCriteria],
        ['Warm start', j.WarmStartConfig],
      ]
        .filter(([, v]) => v !== undefined)
        .map(([title, v]) => (
          <div key={String(title)}>
            <h2>{String(title)}</h2>
            <Json value={v} />
          </div>
        ))}
    </div>
  );
}

function Children({ j, children }: { j: Obj; children: readonly Child[] }) {
  const spec = objectiveSpec(j) ?? { name: 'objective', maximize: false };
  const params = useMemo(() => tunedParams(j), [j]);
  const ranked = useMemo(() => rank(children, spec.maximize), [children, spec.maximize]);
  const best = ranked[0] && objectiveOf(ranked[0]) !== undefined ? ranked[0].TrainingJobName : undefined;
  const start = Number(j.CreationTime);
  const scored = ranked.filter((c) => objectiveOf(c) !== undefined && c.TrainingEndTime !== undefined);
  const overTime: Point[] = scored.map((c) => ({
    x: Number(c.TrainingEndTime) - start,
    y: objectiveOf(c)!,
    label: c.TrainingJobName,
    best: c.TrainingJobName === best,
  }));
  return (
    <>
      <h2>Objective</h2>
      <div class="plots">
        <Scatter
          title={`${spec.name} as the training jobs ended`}
          xLabel="seconds since the tuning job started"
          yLabel={spec.name}
          points={overTime}
          best={{ maximize: spec.maximize }}
        />
        {params.map((p) => (
          <Scatter
            key={p.name}
            title={`${spec.name} against ${p.name}`}
            xLabel={p.name}
            yLabel={spec.name}
            logX={p.log}
            categories={p.categories}
            points={scored
              .filter((c) => c.TunedHyperParameters[p.name] !== undefined)
              .map((c) => ({
                x: p.kind === 'Categorical' ? c.TunedHyperParameters[p.name]! : Number(c.TunedHyperParameters[p.name]),
                y: objectiveOf(c)!,
                label: c.TrainingJobName,
                best: c.TrainingJobName === best,
              }))}
          />
        ))}
      </div>
      <h2>Training jobs, best first</h2>
      <SortableTable
        rowKey={(c) => c.TrainingJobName}
        rows={ranked}
        empty="No training job launched yet."
        columns={[
          { key: 'rank', label: '#', value: (c) => ranked.indexOf(c) + 1, class: 'num' },
          {
            key: 'name',
            label: 'Training job',
            value: (c) => c.TrainingJobName,
            render: (c) => (
              <Link to={`/jobs/training/${encodeURIComponent(c.TrainingJobName)}`}>{c.TrainingJobName}</Link>
            ),
          },
          {
            key: 'status',
            label: 'Status',
            value: (c) => c.TrainingJobStatus,
            render: (c) => <Badge status={c.TrainingJobStatus} />,
          },
          { key: 'objective', label: spec.name, value: (c) => objectiveOf(c), class: 'num objective' },
          ...params.map((p) => ({
            key: `hp-${p.name}`,
            label: p.name,
            value: (c: Child) => c.TunedHyperParameters[p.name],
            class: 'mono small',
          })),
          { key: 'duration', label: 'Duration', value: (c) => duration(c.TrainingStartTime, c.TrainingEndTime) },
          {
            key: 'failure',
            label: 'Failure',
            class: 'small',
            value: (c) => c.FailureReason,
            render: (c) => (c.FailureReason ? <span class="bad-text">{c.FailureReason}</span> : '—'),
          },
        ]}
      />
    </>
  );
}
