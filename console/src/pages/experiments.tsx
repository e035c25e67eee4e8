// Experiments as people compare runs: a run table with metrics first (the statistic shown is chosen
// and labelled), parameters after, run names that stay in view, columns to hide; a chart of one
// metric across the runs; and runs picked side by side with their curves overlaid
// (experiments-compare.tsx). Paths: /experiments, /experiments/{name}?trial=&stat=&hide=&metric=&sel=
import { sagemaker } from '../api/client';
import { Badge, type Column, ErrorBox, Loading, Pager, Snippet, SortableTable, useAsync, usePaged, when } from '../components/ui';
import { metricValue, namesOf, paramValue, runLabel, runName, STATS, type Stat } from '../lib/runs';
import { Link, setQuery, useLocation, withQuery } from '../router';
import { CompareRuns, MetricAcrossRuns } from './experiments-compare';
import { mapLimit } from './registry';

type Obj = Record<string, unknown>;

export function ExperimentsPage() {
  const { segments } = useLocation();
  return segments[1] ? <Experiment name={segments[1]} /> : <ExperimentList />;
}

const FIRST_STEPS = `sm.create_experiment(ExperimentName="abalone")
sm.create_trial(TrialName="abalone-depth-6", ExperimentName="abalone")
sm.create_trial_component(TrialComponentName="train-depth-6", Parameters={"max_depth": {"NumberValue": 6}})
sm.associate_trial_component(TrialComponentName="train-depth-6", TrialName="abalone-depth-6")
# or: npx slipway demo`;

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
                render: (e) => <Link to={`/experiments/${encodeURIComponent(String(e.ExperimentName))}`}>{String(e.DisplayName ?? e.ExperimentName)}</Link>,
              },
              { key: 'created', label: 'Created', value: (e) => e.CreationTime as number, render: (e) => when(e.CreationTime) },
              { key: 'modified', label: 'Last modified', value: (e) => e.LastModifiedTime as number, render: (e) => when(e.LastModifiedTime) },
            ]}
          />
          <Pager {...list} next={list.data.next} count={list.data.items.length} />
        </>
      ) : null}
    </section>
  );
}

const list = (s: string | null): string[] => (s ? s.split(',').filter((x) => x !== '') : []);

function Experiment({ name }: { name: string }) {
  const { query } = useLocation();
  const trial = query.get('trial') ?? '';
  const stat = (STATS.includes(query.get('stat') as Stat) ? query.get('stat') : 'Last') as Stat;
  const hidden = new Set(list(query.get('hide')));
  const selected = list(query.get('sel'));
  const trials = useAsync(
    (signal) => sagemaker<{ TrialSummaries: Obj[] }>('ListTrials', { ExperimentName: name, MaxResults: 100, SortBy: 'CreationTime', SortOrder: 'Descending' }, signal),
    [name],
  );
  const components = usePaged(`tc|${name}|${trial}`, async (token, signal) => {
    const r = await sagemaker<{ TrialComponentSummaries: Obj[]; NextToken?: string }>(
      'ListTrialComponents',
      { ...(trial ? { TrialName: trial } : { ExperimentName: name }), MaxResults: 50, NextToken: token, SortBy: 'CreationTime', SortOrder: 'Descending' },
      signal,
    );
    // Parameters and metrics are only in DescribeTrialComponent.
    const items = await mapLimit(r.TrialComponentSummaries, 8, (s) =>
      sagemaker<Obj>('DescribeTrialComponent', { TrialComponentName: s.TrialComponentName }, signal).catch(() => s),
    );
    return { items, next: r.NextToken };
  });
  const rows = components.data?.items ?? [];
  const { params, metrics } = namesOf(rows);
  const toggle = (sel: string[], x: string) => (sel.includes(x) ? sel.filter((y) => y !== x) : [...sel, x]);
  const columns: Column<Obj>[] = [
    {
      key: 'pick',
      label: '',
      value: () => undefined,
      class: 'pick sticky',
      render: (r) => (
        <input
          type="checkbox"
          aria-label={`compare ${runLabel(r)}`}
          checked={selected.includes(runName(r))}
          onChange={() => setQuery({ sel: toggle(selected, runName(r)).join(',') }, true)}
        />
      ),
    },
    { key: 'name', label: 'Run', value: runLabel, class: 'run sticky' },
    {
      key: 'status',
      label: 'Status',
      value: (r) => (r.Status as Obj | undefined)?.PrimaryStatus as string,
      render: (r) => <Badge status={(r.Status as Obj | undefined)?.PrimaryStatus as string} />,
    },
    ...metrics
      .filter((k) => !hidden.has(`m:${k}`))
      .map((k) => ({
        key: `m:${k}`,
        label: (
          <span class="metric">
            {k} <span class="stat">{stat.toLowerCase()}</span>
          </span>
        ),
        value: (r: Obj) => metricValue(r, k, stat),
        class: 'num',
      })),
    ...params
      .filter((k) => !hidden.has(`p:${k}`))
      .map((k) => ({ key: `p:${k}`, label: <span class="param">{k}</span>, value: (r: Obj) => paramValue(r, k), class: 'num' })),
    { key: 'created', label: 'Created', value: (r) => r.CreationTime as number, render: (r) => when(r.CreationTime) },
    {
      key: 'lineage',
      label: '',
      value: () => undefined,
      render: (r) => (r.TrialComponentArn ? <Link to={withQuery('/lineage', { arn: String(r.TrialComponentArn) })}>lineage</Link> : null),
    },
  ];
  const picked = rows.filter((r) => selected.includes(runName(r)));
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
        <label>
          Metrics show{' '}
          <select name="stat" value={stat} onChange={(e) => setQuery({ stat: e.currentTarget.value === 'Last' ? undefined : e.currentTarget.value }, true)}>
            {STATS.map((s) => (
              <option key={s} value={s}>
                {s === 'Avg' ? 'average' : s.toLowerCase()}
              </option>
            ))}
          </select>
        </label>
        <ColumnChooser params={params} metrics={metrics} hidden={hidden} />
        <span class="muted">
          {metrics.length} metrics, {params.length} parameters · click a column to sort · tick runs to compare
        </span>
      </div>
      <ErrorBox error={components.error} />
      {components.loading && !components.data ? <Loading what="runs" /> : null}
      {components.data ? (
        <>
          <div class="scroll-x runs-table">
            <SortableTable rowKey={(r) => String(r.TrialComponentArn ?? r.TrialComponentName)} rows={rows} columns={columns} empty="No runs in this experiment yet." />
          </div>
          <Pager {...components} next={components.data.next} count={rows.length} />
          {metrics.length > 0 ? <MetricAcrossRuns rows={rows} metrics={metrics} stat={stat} selected={selected} /> : null}
          {picked.length >= 2 ? <CompareRuns runs={picked} params={params} metrics={metrics} /> : picked.length === 1 ? <p class="muted">Tick one more run to compare them side by side.</p> : null}
        </>
      ) : null}
    </section>
  );
}

/** Which parameter and metric columns the table shows; kept in the URL (`hide=`). */
function ColumnChooser({ params, metrics, hidden }: { params: string[]; metrics: string[]; hidden: Set<string> }) {
  const flip = (key: string) => {
    const next = new Set(hidden);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    setQuery({ hide: [...next].join(',') }, true);
  };
  const box = (key: string, label: string) => (
    <label key={key} class="choice">
      <input type="checkbox" checked={!hidden.has(key)} onChange={() => flip(key)} /> {label}
    </label>
  );
  return (
    <details class="column-chooser">
      <summary>Columns ({metrics.length + params.length - hidden.size} of {metrics.length + params.length})</summary>
      <div class="chooser-panel">
        {metrics.length ? <strong>Metrics</strong> : null}
        {metrics.map((m) => box(`m:${m}`, m))}
        {params.length ? <strong>Parameters</strong> : null}
        {params.map((p) => box(`p:${p}`, p))}
      </div>
    </details>
  );
}
