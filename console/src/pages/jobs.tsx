// Jobs: training, transform and processing jobs, a list per kind (status, times, failure reasons and,
// for training, final metrics as columns; filters by status and name; NextToken pages), one job's
// detail (jobs-detail.tsx) and a new job cloned from another (job-clone.tsx).
// Paths: /jobs → /jobs/training, /jobs/{kind}?status=&q=&page=, /jobs/{kind}/{name}, /jobs/{kind}/new?from=.
import { useEffect, useState } from 'preact/hooks';
import { sagemaker } from '../api/client';
import { Badge, ErrorBox, Loading, Pager, Snippet, SortableTable, useInterval, usePaged, when } from '../components/ui';
import { isKind, KINDS, type KindInfo, ops } from '../lib/jobs';
import { Link, navigate, setQuery, useLocation, withQuery } from '../router';
import { CloneJob } from './job-clone';
import { JobDetail } from './jobs-detail';

type Obj = Record<string, unknown>;
type Metric = { MetricName: string; Value: number };

export function JobsPage() {
  const { segments } = useLocation();
  const kind = segments[1];
  useEffect(() => {
    if (kind === undefined) navigate('/jobs/training', { replace: true });
  }, [kind]);
  if (kind === undefined) return null;
  if (!isKind(kind)) {
    return (
      <section>
        <h1>Jobs</h1>
        <ErrorBox title="No such kind of job" error={new Error(`'${kind}' is not training, transform or processing.`)} />
      </section>
    );
  }
  const k = KINDS[kind];
  if (segments[2] === 'new') return <CloneJob k={k} />;
  return segments[2] ? <JobDetail k={k} name={segments[2]} /> : <JobList k={k} />;
}

const FIRST_STEPS: Record<string, string> = {
  training: `sm = boto3.client("sagemaker", endpoint_url="http://127.0.0.1:4810")
sm.create_training_job(
    TrainingJobName="abalone-xgb",
    RoleArn="arn:aws:iam::000000000000:role/sm",
    AlgorithmSpecification={"TrainingImage": "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1",
                            "TrainingInputMode": "File"},
    HyperParameters={"objective": "reg:squarederror", "num_round": "50"},
    InputDataConfig=[{"ChannelName": c, "ContentType": "text/csv",
                      "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": f"s3://ml-data/abalone/{c}/"}}}
                     for c in ("train", "validation")],
    OutputDataConfig={"S3OutputPath": "s3://ml-data/models/"},
    ResourceConfig={"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 5},
    StoppingCondition={"MaxRuntimeInSeconds": 3600})`,
  transform: `sm = boto3.client("sagemaker", endpoint_url="http://127.0.0.1:4810")
sm.create_transform_job(
    TransformJobName="abalone-batch", ModelName="my-model",
    TransformInput={"DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://ml-data/abalone/batch/"}},
                    "ContentType": "text/csv", "SplitType": "Line"},
    TransformOutput={"S3OutputPath": "s3://ml-data/predictions/"},
    TransformResources={"InstanceType": "ml.m5.xlarge", "InstanceCount": 1})`,
  processing: `sm = boto3.client("sagemaker", endpoint_url="http://127.0.0.1:4810")
sm.create_processing_job(
    ProcessingJobName="abalone-prep", RoleArn="arn:aws:iam::000000000000:role/sm",
    AppSpecification={"ImageUri": "my-processing-image:latest", "ContainerEntrypoint": ["python3", "prep.py"]},
    ProcessingInputs=[{"InputName": "raw", "S3Input": {"S3Uri": "s3://ml-data/raw/", "LocalPath": "/opt/ml/processing/input",
                       "S3DataType": "S3Prefix", "S3InputMode": "File"}}],
    ProcessingResources={"ClusterConfig": {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 5}})`,
};

function KindTabs({ current }: { current: KindInfo }) {
  return (
    <nav class="tabs">
      {Object.values(KINDS).map((k) => (
        <Link key={k.kind} to={`/jobs/${k.kind}`} class={k.kind === current.kind ? 'on' : ''}>
          {k.title}
        </Link>
      ))}
    </nav>
  );
}

function JobList({ k }: { k: KindInfo }) {
  const { query } = useLocation();
  const o = ops(k);
  const q = query.get('q') ?? '';
  const status = query.get('status') ?? '';
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  const list = usePaged(`${k.kind}|${q}|${status}`, async (token, signal) => {
    if (k.kind === 'training') {
      // A TrainingJobSummary has no FailureReason nor metrics; Search returns whole jobs, with both.
      const filters = [
        ...(q ? [{ Name: 'TrainingJobName', Operator: 'Contains', Value: q }] : []),
        ...(status ? [{ Name: 'TrainingJobStatus', Operator: 'Equals', Value: status }] : []),
      ];
      const r = await sagemaker<{ Results?: { TrainingJob?: Obj }[]; NextToken?: string }>(
        'Search',
        {
          Resource: 'TrainingJob',
          ...(filters.length ? { SearchExpression: { Filters: filters } } : {}),
          SortBy: 'CreationTime',
          SortOrder: 'Descending',
          MaxResults: 25,
          NextToken: token,
        },
        signal,
      );
      return { items: (r.Results ?? []).flatMap((x) => (x.TrainingJob ? [x.TrainingJob] : [])), next: r.NextToken };
    }
    const r = await sagemaker<Record<string, Obj[] | string | undefined>>(
      o.list,
      { MaxResults: 25, NextToken: token, NameContains: q || undefined, StatusEquals: status || undefined, SortBy: 'CreationTime', SortOrder: 'Descending' },
      signal,
    );
    return { items: (r[o.summaries] as Obj[] | undefined) ?? [], next: r.NextToken as string | undefined };
  });
  const metricNames = [
    ...new Set((list.data?.items ?? []).flatMap((j) => ((j.FinalMetricDataList as Metric[] | undefined) ?? []).map((m) => m.MetricName))),
  ].sort();
  // Jobs still running are shown live.
  useInterval(list.reload, 2000, list.data?.items.some((j) => j[o.status] === 'InProgress' || j[o.status] === 'Stopping') ?? false);
  const filtered = q !== '' || status !== '';
  return (
    <section class="jobs">
      <h1>Jobs</h1>
      <KindTabs current={k} />
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ q: text.trim(), page: undefined });
        }}
      >
        <input type="search" name="q" placeholder="Name contains…" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <label>
          Status{' '}
          <select name="status" value={status} onChange={(e) => setQuery({ status: e.currentTarget.value, page: undefined })}>
            <option value="">any</option>
            {k.statuses.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Loading what={k.title.toLowerCase()} /> : null}
      {list.data && list.data.items.length === 0 && list.first && !filtered ? (
        <div class="empty">
          <p>No {k.title.toLowerCase()} yet. Start one with any SageMaker client pointed at this server, for example:</p>
          <Snippet title="boto3" code={FIRST_STEPS[k.kind]!} />
        </div>
      ) : list.data ? (
        <>
          <SortableTable
            rowKey={(j) => String(j[o.arn])}
            rows={list.data.items}
            empty={`No ${k.kind} job matches.`}
            columns={[
              {
                key: 'name',
                label: 'Job',
                value: (j) => String(j[o.name]),
                render: (j) => <Link to={`/jobs/${k.kind}/${encodeURIComponent(String(j[o.name]))}`}>{String(j[o.name])}</Link>,
              },
              { key: 'status', label: 'Status', value: (j) => String(j[o.status]), render: (j) => <Badge status={String(j[o.status])} /> },
              ...(k.kind === 'training' ? [{ key: 'secondary', label: 'Secondary status', value: (j: Obj) => j.SecondaryStatus as string | undefined }] : []),
              ...metricNames.map((m) => ({
                key: `m:${m}`,
                label: <span class="metric">{m}</span>,
                class: 'num',
                value: (j: Obj) => {
                  const v = ((j.FinalMetricDataList as Metric[] | undefined) ?? []).find((x) => x.MetricName === m)?.Value;
                  return v === undefined ? undefined : Math.round(v * 1e6) / 1e6;
                },
              })),
              { key: 'created', label: 'Created', value: (j) => j.CreationTime as number, render: (j) => when(j.CreationTime) },
              { key: 'ended', label: 'Ended', value: (j) => j[k.endField] as number | undefined, render: (j) => when(j[k.endField]) },
              { key: 'duration', label: 'Duration', value: (j) => duration(j.CreationTime, j[k.endField]) },
              {
                key: 'failure',
                label: 'Failure',
                class: 'small',
                value: (j) => j.FailureReason as string | undefined,
                render: (j) => (j.FailureReason ? <span class="bad-text">{String(j.FailureReason)}</span> : '—'),
              },
            ]}
          />
          <Pager {...list} next={list.data.next} count={list.data.items.length} />
          {filtered ? (
            <p class="muted small">
              Filtered by {[q && `name containing “${q}”`, status && `status ${status}`].filter(Boolean).join(' and ')}.{' '}
              <Link to={withQuery(`/jobs/${k.kind}`, {})}>Show all</Link>
            </p>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

/** `1 min 12 s` from two epoch-second times (the JSON protocol's timestamps). */
export function duration(from: unknown, to: unknown): string | undefined {
  if (typeof from !== 'number' || typeof to !== 'number') return undefined;
  const s = Math.max(0, Math.round(to - from));
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}
