// Experiments and trials, with their trial components side by side: parameters and metrics as
// columns of one sortable table. Paths: /experiments, /experiments/{name}?trial=
import { sagemaker } from '../api/client';
import {
  Badge,
  type Column,
  ErrorBox,
  Loading,
  Pager,
  Snippet,
  SortableTable,
  useAsync,
  usePaged,
  when,
} from '../components/ui';
import { Link, setQuery, useLocation, withQuery } from '../router';
import { mapLimit } from './registry';

type Obj = Record<string, unknown>;

export function ExperimentsPage() {
  const { segments } = useLocation();
  return segments[1] ? <Experiment name={segments[1]} /> : <ExperimentList />;
}

const FIRST_STEPS = `sm.create_experiment(ExperimentName="abalone")
sm.create_trial(TrialName="abalone-depth-6", ExperimentName="abalone")
sm.create_trial_component(TrialComponentName="train-depth-6", Parameters={"max_depth": {"NumberValue": 6}})
sm.associate_trial_component(TrialComponentName="train-depth-6", TrialName="abalone-depth-6")`;

function ExperimentList() {
  const list = usePaged('experiments', async (token, signal) => {
    const r = await sagemaker<{ ExperimentSummaries: Obj[]; NextToken?: string }>(
      'ListExperiments',
      { MaxResults: 25, NextToken: token, SortBy: 'CreationTime', SortOrder: 'Descending' },
      signal,
    );
    return { items: r.ExperimentSummaries, next: r.NextToken };
  });
  return (
    <section>
      <h1>Experiments</h1>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Loading what="experiments" /> : null}
      {list.data && list.data.items.length === 0 && list.first ? (
        <div class="empty">
          <p>No experiments yet. Track runs with trials and trial components, for example:</p>
          <Snippet title="boto3" code={FIRST_STEPS} />
        </div>
      ) : list.data ? (
        <>
          <SortableTable
            rowKey={(e) => String(e.ExperimentArn)}
            rows={list.data.items}
            columns={[
              {
                key: 'name',
                label: 'Experiment',
                value: (e) => String(e.ExperimentName),
                render: (e) => (
                  <Link to={`/experiments/${encodeURIComponent(String(e.ExperimentName))}`}>
                    {String(e.DisplayName ?? e.ExperimentName)}
                  </Link>
                ),
              },
              {
                key: 'created',
                label: 'Created',
                value: (e) => e.CreationTime as number,
                render: (e) => when(e.CreationTime),
              },
              {
                key: 'modified',
                label: 'Last modified',
                value: (e) => e.LastModifiedTime as number,
                render: (e) => when(e.LastModifiedTime),
              },
            ]}
          />
          <Pager {...list} next={list.data.next} count={list.data.items.length} />
        </>
      ) : null}
    </section>
  );
}

interface Metric {
  MetricName: string;
  Last?: number;
  Avg?: number;
  Max?: number;
  Min?: number;
}

function paramValue(v: Obj | undefined): string | number | undefined {
  if (!v) return undefined;
  return (v.NumberValue as number | undefined) ?? (v.StringValue as string | undefined);
}

function Experiment({ name }: { name: string }) {
  const { query } = useLocation();
  const trial = query.get('trial') ?? '';
  const trials = useAsync(
    (signal) =>
      sagemaker<{ TrialSummaries: Obj[] }>(
        'ListTrials',
        { ExperimentName: name, MaxResults: 100, SortBy: 'CreationTime', SortOrder: 'Descending' },
        signal,
      ),
    [name],
  );
  const components = usePaged(`tc|${name}|${trial}`, async (token, signal) => {
    const r = await sagemaker<{ TrialComponentSummaries: Obj[]; NextToken?: string }>(
      'ListTrialComponents',
      {
        ...(trial ? { TrialName: trial } : { ExperimentName: name }),
        MaxResults: 50,
        NextToken: token,
        SortBy: 'CreationTime',
        SortOrder: 'Descending',
      },
      signal,
    );
    // Parameters and metrics are only in DescribeTrialComponent.
    const items = await mapLimit(r.TrialComponentSummaries, 8, (s) =>
      sagemaker<Obj>('DescribeTrialComponent', { TrialComponentName: s.TrialComponentName }, signal).catch(() => s),
    );
    return { items, next: r.NextToken };
  });
  const rows = components.data?.items ?? [];
  const params = [...new Set(rows.flatMap((r) => Object.keys((r.Parameters as Obj) ?? {})))].sort();
  const metrics = [...new Set(rows.flatMap((r) => ((r.Metrics as Metric[]) ?? []).map((m) => m.MetricName)))].sort();
  const metricOf = (r: Obj, n: string) => {
    const m = ((r.Metrics as Metric[]) ?? []).find((x) => x.MetricName === n);
    return m?.Last ?? m?.Avg;
  };
  const columns: Column<Obj>[] = [
    { key: 'name', label: 'Trial component', value: (r) => String(r.DisplayName ?? r.TrialComponentName) },
    {
      key: 'status',
      label: 'Status',
      value: (r) => (r.Status as Obj | undefined)?.PrimaryStatus as string,
      render: (r) => <Badge status={(r.Status as Obj | undefined)?.PrimaryStatus as string} />,
    },
    ...params.map((k) => ({
      key: `p:${k}`,
      label: <span class="param">{k}</span>,
      value: (r: Obj) => paramValue((r.Parameters as Record<string, Obj>)?.[k]),
      class: 'num',
    })),
    ...metrics.map((k) => ({
      key: `m:${k}`,
      label: <span class="metric">{k}</span>,
      value: (r: Obj) => fmt(metricOf(r, k)),
      class: 'num',
    })),
    { key: 'created', label: 'Created', value: (r) => r.CreationTime as number, render: (r) => when(r.CreationTime) },
    {
      key: 'lineage',
      label: '',
      value: () => undefined,
      render: (r) =>
        r.TrialComponentArn ? (
          <Link to={withQuery('/lineage', { arn: String(r.TrialComponentArn) })}>lineage</Link>
        ) : null,
    },
  ];
  return (
    <section>
      <nav class="crumbs">
        <Link to="/experiments">Experiments</Link> / <span>{name}</span>
      </nav>
      <h1>{name}</h1>
      <ErrorBox error={trials.error} />
      <div class="toolbar">
        <label>
          Trial{' '}
          <select value={trial} onChange={(e) => setQuery({ trial: e.currentTarget.value, page: undefined })}>
            <option value="">All trials</option>
            {(trials.data?.TrialSummaries ?? []).map((t) => (
              <option key={String(t.TrialName)} value={String(t.TrialName)}>
                {String(t.DisplayName ?? t.TrialName)}
              </option>
            ))}
          </select>
        </label>
        <span class="muted">
          {params.length} parameters, {metrics.length} metrics · click a column to sort
        </span>
      </div>
      <ErrorBox error={components.error} />
      {components.loading && !components.data ? <Loading what="trial components" /> : null}
      {components.data ? (
        <>
          <div class="scroll-x">
            <SortableTable
              rowKey={(r) => String(r.TrialComponentArn ?? r.TrialComponentName)}
              rows={rows}
              columns={columns}
              empty="No trial components in this experiment yet."
            />
          </div>
          <Pager {...components} next={components.data.next} count={rows.length} />
        </>
      ) : null}
    </section>
  );
}

function fmt(n: number | undefined): number | undefined {
  return n === undefined ? undefined : Math.round(n * 1e6) / 1e6;
}
