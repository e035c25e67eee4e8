// One job: status and secondary status transitions, failure reason, hyperparameters, input and
// output, final metrics, the per-round metric curves the metrics store keeps (read off its log for
// jobs from before it), the log itself (paged
// forward with nextForwardToken) and a link to its lineage. Polled while it runs.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { batchGetMetrics, sagemaker } from '../api/client';
import { Chart } from '../components/chart';
import {
  Badge,
  ErrorBox,
  Json,
  Loading,
  SortableTable,
  describeError,
  useAsync,
  useInterval,
  when,
} from '../components/ui';
import { shortName } from '../lib/arn';
import { metricCurves, type MetricDefinition, type MetricQueryResult, storedCurves } from '../lib/job-metrics';
import { builtinAlgorithm, FINISHED, type KindInfo, type LogEvent, jobStreams, logPage, ops, wholeLog } from '../lib/jobs';
import { Link, setQuery, useLocation, withQuery } from '../router';
import { duration } from './jobs';

type Obj = Record<string, unknown>;
/** Lines shown per log page. */
const LOG_PAGE = 200;
/** Lines read at most for the metric curves. */
const CURVE_LINES = 50_000;
const COLORS = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2'];

export function JobDetail({ k, name }: { k: KindInfo; name: string }) {
  const o = ops(k);
  const job = useAsync((signal) => sagemaker<Obj>(o.describe, { [o.name]: name }, signal), [k.kind, name]);
  const status = job.data?.[o.status] as string | undefined;
  const running = status !== undefined && !FINISHED.has(status);
  useInterval(job.reload, 2000, running);
  const j = job.data;
  return (
    <section class="job">
      <nav class="crumbs">
        <Link to="/jobs">Jobs</Link> / <Link to={`/jobs/${k.kind}`}>{k.title}</Link> / {name}
      </nav>
      <h1>
        {name} {status ? <Badge status={status} /> : null}
        {j?.SecondaryStatus ? <span class="muted small">{String(j.SecondaryStatus)}</span> : null}
      </h1>
      {j ? <JobActions k={k} name={name} status={status} onStopped={job.reload} /> : null}
      <ErrorBox error={job.error} title={`Could not read ${k.kind} job ${name}`} />
      {job.loading && !j ? <Loading what="job" /> : null}
      {j ? (
        <>
          <div class="columns">
            <div>
              <Facts k={k} j={j} arn={String(j[o.arn])} />
              <Transitions j={j} />
            </div>
            <div>
              <Config k={k} j={j} />
            </div>
          </div>
          {k.kind === 'training' ? <FinalMetrics j={j} /> : null}
          <JobLog k={k} name={name} running={running} definitions={(j.AlgorithmSpecification as { MetricDefinitions?: MetricDefinition[] } | undefined)?.MetricDefinitions} training={k.kind === 'training'} stored={storedMetrics(j, String(j[o.arn]))} />
        </>
      ) : null}
    </section>
  );
}

/** Stop (while it runs) and Clone (a new job from this one's request). */
function JobActions(p: { k: KindInfo; name: string; status?: string; onStopped: () => void }) {
  const o = ops(p.k);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <div class="buttons job-actions">
      {p.status === 'InProgress' ? (
        <button
          type="button"
          disabled={busy}
          onClick={async () => {
            if (!confirm(`Stop ${p.name}?`)) return;
            setBusy(true);
            setError(undefined);
            try {
              await sagemaker(`Stop${p.k.word}Job`, { [o.name]: p.name });
              p.onStopped();
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          {busy ? 'Stopping…' : 'Stop'}
        </button>
      ) : null}
      <Link to={withQuery(`/jobs/${p.k.kind}/new`, { from: p.name })} class="button">
        Clone
      </Link>
      <ErrorBox error={error} title={`Stop${p.k.word}Job failed`} />
    </div>
  );
}

function Facts({ k, j, arn }: { k: KindInfo; j: Obj; arn: string }) {
  const lineage = withQuery('/lineage', { arn, direction: 'Both' });
  const model = j.ModelName as string | undefined;
  const artifact = (j.ModelArtifacts as { S3ModelArtifacts?: string } | undefined)?.S3ModelArtifacts;
  return (
    <dl class="facts">
      <dt>ARN</dt>
      <dd class="mono">{arn}</dd>
      <dt>Created</dt>
      <dd>{when(j.CreationTime)}</dd>
      <dt>Started</dt>
      <dd>{when(j[k.startField])}</dd>
      <dt>Ended</dt>
      <dd>
        {when(j[k.endField])}
        {duration(j[k.startField] ?? j.CreationTime, j[k.endField]) ? (
          <span class="muted"> ({duration(j[k.startField] ?? j.CreationTime, j[k.endField])})</span>
        ) : null}
      </dd>
      {j.FailureReason ? (
        <>
          <dt>Failure reason</dt>
          <dd class="bad-text failure-reason">{String(j.FailureReason)}</dd>
        </>
      ) : null}
      {j.ExitMessage ? (
        <>
          <dt>Exit message</dt>
          <dd>{String(j.ExitMessage)}</dd>
        </>
      ) : null}
      {artifact ? (
        <>
          <dt>Model artifact</dt>
          <dd class="mono">{artifact}</dd>
        </>
      ) : null}
      {model ? (
        <>
          <dt>Model</dt>
          <dd class="mono">{model}</dd>
        </>
      ) : null}
      {j.TuningJobArn ? (
        <>
          <dt>Tuning job</dt>
          <dd>
            <Link to={`/tuning/${encodeURIComponent(shortName(String(j.TuningJobArn)))}`} class="tuning-link">
              {shortName(String(j.TuningJobArn))}
            </Link>
          </dd>
        </>
      ) : null}
      <dt>Lineage</dt>
      <dd>
        <Link to={lineage} class="lineage-link">
          Show the lineage of this job
        </Link>{' '}
        <span class="muted small">
          (its trial component {shortName(arn)}-aws-{k.kind}-job)
        </span>
      </dd>
    </dl>
  );
}

function Transitions({ j }: { j: Obj }) {
  const steps = (j.SecondaryStatusTransitions as Obj[] | undefined) ?? [];
  if (steps.length === 0) return null;
  return (
    <>
      <h2>Status transitions</h2>
      <table class="grid transitions">
        <thead>
          <tr>
            <th>Status</th>
            <th>Start</th>
            <th>Duration</th>
            <th>Message</th>
          </tr>
        </thead>
        <tbody>
          {steps.map((s, i) => (
            <tr key={i}>
              <td>{String(s.Status)}</td>
              <td>{when(s.StartTime)}</td>
              <td>{duration(s.StartTime, s.EndTime) ?? '…'}</td>
              <td class="small">{String(s.StatusMessage ?? '')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** Hyperparameters, algorithm or app, inputs and outputs, resources: what the job was asked to do. */
function Config({ k, j }: { k: KindInfo; j: Obj }) {
  const hp = Object.entries((j.HyperParameters as Record<string, string> | undefined) ?? {});
  const image =
    (j.AlgorithmSpecification as Obj | undefined)?.TrainingImage ?? (j.AppSpecification as Obj | undefined)?.ImageUri;
  const sections: [string, unknown][] =
    k.kind === 'training'
      ? [
          ['Input data', j.InputDataConfig],
          ['Output', j.OutputDataConfig],
          ['Resources', j.ResourceConfig],
          ['Stopping condition', j.StoppingCondition],
        ]
      : k.kind === 'transform'
        ? [
            ['Input', j.TransformInput],
            ['Output', j.TransformOutput],
            ['Resources', j.TransformResources],
            ['Data processing', j.DataProcessing],
          ]
        : [
            ['Inputs', j.ProcessingInputs],
            ['Output', j.ProcessingOutputConfig],
            ['App', j.AppSpecification],
            ['Resources', j.ProcessingResources],
          ];
  return (
    <>
      {image ? (
        <p>
          <span class="muted">Image </span>
          <span class="mono">{String(image)}</span>
        </p>
      ) : null}
      {k.kind === 'training' ? (
        <>
          <h2>Hyperparameters</h2>
          {hp.length ? (
            <table class="grid hyperparameters">
              <tbody>
                {hp.map(([key, v]) => (
                  <tr key={key}>
                    <td class="param">{key}</td>
                    <td class="mono">{v}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p class="muted">None.</p>
          )}
        </>
      ) : null}
      {sections
        .filter(([, v]) => v !== undefined)
        .map(([title, v]) => (
          <div key={title}>
            <h2>{title}</h2>
            <Json value={v} />
          </div>
        ))}
    </>
  );
}

function FinalMetrics({ j }: { j: Obj }) {
  const rows = (j.FinalMetricDataList as { MetricName: string; Value: number; Timestamp?: number }[] | undefined) ?? [];
  if (rows.length === 0) return null;
  return (
    <>
      <h2>Final metrics</h2>
      <SortableTable
        rowKey={(m) => m.MetricName}
        rows={rows}
        columns={[
          { key: 'name', label: 'Metric', value: (m) => m.MetricName, class: 'metric' },
          { key: 'value', label: 'Value', value: (m) => m.Value, class: 'num' },
          { key: 'at', label: 'At', value: (m) => m.Timestamp, render: (m) => when(m.Timestamp) },
        ]}
      />
    </>
  );
}

/**
 * The job's log stream (a choice when a restart wrote several), read LOG_PAGE lines at a time
 * forward; the training metric curves are read off the whole stream.
 */
/** What the metrics store holds for a training job: its ARN, its metrics' names, how they are counted. */
interface StoredMetrics {
  readonly arn: string;
  readonly names: string[];
  /** A built-in algorithm's metrics are per round; a custom image's per report. */
  readonly byRound: boolean;
}

function storedMetrics(j: Obj, arn: string): StoredMetrics {
  const final = (j.FinalMetricDataList as { MetricName: string }[] | undefined) ?? [];
  const spec = j.AlgorithmSpecification as { TrainingImage?: string; MetricDefinitions?: MetricDefinition[] } | undefined;
  const names = final.length ? final.map((m) => m.MetricName) : (spec?.MetricDefinitions ?? []).map((d) => d.Name);
  return { arn, names: names.slice(0, 100), byRound: builtinAlgorithm(j) };
}

function JobLog(p: { k: KindInfo; name: string; running: boolean; training: boolean; definitions?: MetricDefinition[]; stored?: StoredMetrics }) {
  const { query } = useLocation();
  // Read again when the job ends: a job that finished between two polls has its stream by then.
  const streams = useAsync((signal) => jobStreams(p.k, p.name, signal), [p.k.kind, p.name, p.running]);
  useInterval(streams.reload, 3000, p.running && (streams.data?.length ?? 0) === 0);
  const chosen = query.get('stream') ?? streams.data?.[streams.data.length - 1];
  return (
    <>
      {chosen ? null : <h2>Log</h2>}
      <ErrorBox error={streams.error} title="Could not read the job's log streams" />
      {streams.data && streams.data.length === 0 ? (
        <p class="muted log-empty">
          {p.running
            ? 'No log lines yet: the job has not started writing.'
            : `The job wrote no log to ${p.k.logGroup}.`}
        </p>
      ) : null}
      {streams.data && streams.data.length > 1 ? (
        <label>
          Stream{' '}
          <select value={chosen} onChange={(e) => setQuery({ stream: e.currentTarget.value }, true)}>
            {streams.data.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      ) : null}
      {chosen ? <StreamView key={chosen} k={p.k} stream={chosen} running={p.running} training={p.training} definitions={p.definitions} stored={p.stored} /> : null}
    </>
  );
}

function StreamView(p: { k: KindInfo; stream: string; running: boolean; training: boolean; definitions?: MetricDefinition[]; stored?: StoredMetrics }) {
  const [events, setEvents] = useState<LogEvent[]>([]);
  const [token, setToken] = useState<string | undefined>();
  const [atEnd, setAtEnd] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const more = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const page = await logPage(p.k, p.stream, token, LOG_PAGE);
      setEvents((es) => [...es, ...page.events]);
      // A short page is the end for now (a running job may write more).
      setAtEnd(page.events.length < LOG_PAGE || page.next === token);
      setToken(page.next);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => void more(), []);
  // While the job runs, what it writes is read as it comes (tailed), and the view follows the end.
  useInterval(() => !busy && void more(), 1000, p.running && atEnd);
  const [find, setFind] = useState('');
  const [follow, setFollow] = useState(true);
  const logEl = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (follow && p.running && logEl.current) logEl.current.scrollTop = logEl.current.scrollHeight;
  }, [events.length, follow, p.running]);
  const needle = find.trim().toLowerCase();
  const shown = needle ? events.filter((e) => e.message.toLowerCase().includes(needle)) : events;
  // The curves the metrics store keeps for the job (BatchGetMetrics by iteration); a job that ran
  // before it kept them is read off its log.
  const curves = useAsync(
    async (signal) => {
      if (!p.training) return undefined;
      const st = p.stored;
      if (st && st.names.length > 0) {
        const r = await batchGetMetrics<{ MetricQueryResults?: MetricQueryResult[] }>(
          st.names.map((MetricName) => ({ MetricName, ResourceArn: st.arn, MetricStat: 'Avg', Period: 'IterationNumber', XAxisType: 'IterationNumber' })),
          signal,
        );
        const c = storedCurves(st.names, r.MetricQueryResults ?? [], st.byRound);
        if (c) return c;
      }
      return metricCurves(await wholeLog(p.k, p.stream, CURVE_LINES, signal), p.definitions);
    },
    [p.stream, p.running ? events.length : -1],
  );
  return (
    <div class="job-log">
      {p.training ? <Curves c={curves.data} error={curves.error} /> : null}
      <h2>Log</h2>
      <div class="muted small">
        {p.k.logGroup} · {p.stream}
      </div>
      <ErrorBox error={error} title="Could not read the log" />
      <div class="toolbar log-tools">
        <input type="search" name="find" placeholder="Find in the log…" value={find} onInput={(e) => setFind(e.currentTarget.value)} />
        {needle ? (
          <span class="muted small" data-testid="log-matches">
            {shown.length} of {events.length} lines match
          </span>
        ) : null}
        {p.running ? (
          <label class="small">
            <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} /> follow the end
          </label>
        ) : null}
      </div>
      <pre class="log" data-lines={events.length} ref={logEl}>
        {shown.map((e, i) => (
          <div key={i}>
            <span class="muted">{new Date(e.timestamp).toISOString().slice(11, 23)} </span>
            {highlight(e.message.replace(/#011/g, '\t'), needle)}
          </div>
        ))}
      </pre>
      <div class="buttons">
        <button type="button" disabled={busy || (atEnd && !p.running)} onClick={() => void more()}>
          {atEnd ? (p.running ? 'Waiting for more lines…' : 'End of the log') : `Next ${LOG_PAGE} lines`}
        </button>
        <span class="muted small">{events.length} lines shown</span>
      </div>
    </div>
  );
}

function Curves({ c, error }: { c?: ReturnType<typeof metricCurves>; error?: unknown }) {
  const series = useMemo(
    () => (c ? [...c.series].map(([label, values], i) => ({ label, values, color: COLORS[i % COLORS.length]! })) : []),
    [c],
  );
  if (error) return <div class="error">Could not read the metric curves: {describeError(error)}</div>;
  if (!c) return null;
  if (c.x.length === 0)
    return (
      <p class="muted curves-empty">
        No metric values in the log (the built-in algorithm's evaluation lines, or the MetricDefinitions regexes).
      </p>
    );
  return (
    <div class="curves">
      <h2>Metric curves</h2>
      <Chart
        title={c.xLabel === 'round' ? 'Metrics per round' : 'Metrics as the job reported them'}
        unit="value"
        x={c.x}
        series={series}
        xLabel={c.xLabel}
        height={220}
      />
    </div>
  );
}

/** The line with each case-insensitive occurrence of `needle` marked. */
function highlight(line: string, needle: string) {
  if (!needle) return line;
  const parts: (string | ReturnType<typeof Mark>)[] = [];
  const lower = line.toLowerCase();
  let at = 0;
  for (let i = lower.indexOf(needle); i >= 0; i = lower.indexOf(needle, i + needle.length)) {
    parts.push(line.slice(at, i), <Mark key={i} text={line.slice(i, i + needle.length)} />);
    at = i + needle.length;
  }
  parts.push(line.slice(at));
  return parts;
}

function Mark({ text }: { text: string }) {
  return <mark>{text}</mark>;
}
