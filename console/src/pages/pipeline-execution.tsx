// One pipeline execution: its status, parameters and failure; its DAG with each step's status,
// timing, attempt, cache hit, the condition's outcome on its branches and a link to what the step
// made (job, model package); a table of the steps. Refreshed every second while it runs.
import { useState } from 'preact/hooks';
import { sagemaker } from '../api/client';
import { Badge, ErrorBox, Loading, useAsync, useInterval, when } from '../components/ui';
import { pageOf, shortName } from '../lib/arn';
import { type DagNode, pipelineDag } from '../lib/pipeline-dag';
import { Link } from '../router';

type Obj = Record<string, unknown>;
type Step = Obj & { StepName: string; StepStatus?: string; Metadata?: Record<string, Obj> };

const RUNNING = new Set(['Executing', 'Stopping']);
const NODE_W = 190;
const NODE_H = 54;
const GAP_X = 60;
const GAP_Y = 22;

/** What a step made, from its Metadata: the ARN and a label (a job, a model, a package ...). */
export function stepTarget(step: Step | undefined): { arn: string; label: string } | undefined {
  const m = step?.Metadata;
  if (!m) return undefined;
  for (const [key, label] of [
    ['TrainingJob', 'training job'],
    ['ProcessingJob', 'processing job'],
    ['TransformJob', 'transform job'],
    ['TuningJob', 'tuning job'],
    ['Model', 'model'],
    ['RegisterModel', 'model package'],
  ] as const) {
    const arn = m[key]?.Arn;
    if (typeof arn === 'string') return { arn, label };
  }
  return undefined;
}

function outcomeOf(step: Step | undefined): boolean | undefined {
  const o = step?.Metadata?.Condition?.Outcome;
  return o === 'True' ? true : o === 'False' ? false : undefined;
}

/** A step's duration: tenths of a second under a minute (steps are often quick), else as jobs show it. */
function duration(from: unknown, to: unknown): string | undefined {
  if (typeof from !== 'number' || typeof to !== 'number') return undefined;
  const s = Math.max(0, to - from);
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

const statusClass = (s?: string) =>
  s === 'Succeeded' ? 'ok' : s === 'Failed' ? 'bad' : s === 'Stopped' ? 'stopped' : s ? 'wait' : 'pending';

/** The definition's steps as a picture, each coloured by its status in `steps` (none: not run). */
export function DagPicture({
  definition,
  steps,
  selected,
  onSelect,
}: {
  definition: string;
  steps: Record<string, Step>;
  selected?: string;
  onSelect?: (name: string) => void;
}) {
  const dag = pipelineDag(definition);
  if (dag.nodes.length === 0) return <p class="muted">The definition has no steps to draw.</p>;
  const pos = (n: DagNode) => ({ x: 10 + n.layer * (NODE_W + GAP_X), y: 10 + n.row * (NODE_H + GAP_Y) });
  const byName = new Map(dag.nodes.map((n) => [n.name, n]));
  const width = 20 + dag.layers * (NODE_W + GAP_X) - GAP_X;
  const height = 20 + dag.rows * (NODE_H + GAP_Y) - GAP_Y;
  return (
    <div class="dag scroll-x">
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label="Pipeline steps">
        <defs>
          <marker id="dag-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto">
            <path d="M0,0 L10,5 L0,10 z" fill="#6b7280" />
          </marker>
        </defs>
        {dag.edges.map((e) => {
          const a = byName.get(e.from);
          const b = byName.get(e.to);
          if (!a || !b) return null;
          const p = pos(a);
          const q = pos(b);
          const x1 = p.x + NODE_W;
          const y1 = p.y + NODE_H / 2;
          const x2 = q.x;
          const y2 = q.y + NODE_H / 2;
          const mid = (x1 + x2) / 2;
          const outcome = e.branch === undefined ? undefined : outcomeOf(steps[e.from]);
          const cls =
            e.branch === undefined
              ? 'edge'
              : outcome === undefined
                ? 'edge branch'
                : outcome === e.branch
                  ? 'edge branch taken'
                  : 'edge branch not-taken';
          return (
            <g key={`${e.from}->${e.to}`} class={cls} data-from={e.from} data-to={e.to}>
              <path d={`M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`} marker-end="url(#dag-arrow)" />
              {e.branch !== undefined ? (
                <text x={mid} y={(y1 + y2) / 2 - 4} text-anchor="middle">
                  {e.branch ? 'if true' : 'if false'}
                </text>
              ) : null}
            </g>
          );
        })}
        {dag.nodes.map((n) => {
          const { x, y } = pos(n);
          const s = steps[n.name];
          const time = s
            ? duration(s.StartTime, s.EndTime ?? (RUNNING.has(String(s.StepStatus)) ? Date.now() / 1000 : undefined))
            : undefined;
          const outcome = outcomeOf(s);
          return (
            // biome-ignore lint/a11y/useSemanticElements: an SVG group cannot be a <button>; it has the role and the keyboard handling
            <g
              key={n.name}
              class={`dag-node ${statusClass(s?.StepStatus)}${selected === n.name ? ' selected' : ''}`}
              data-step={n.name}
              data-status={s?.StepStatus ?? 'NotStarted'}
              transform={`translate(${x},${y})`}
              onClick={() => onSelect?.(n.name)}
              role="button"
              aria-label={`Step ${n.name}${s ? `: ${s.StepStatus}` : ': not run'}`}
              tabIndex={0}
              onKeyDown={(ev) => (ev.key === 'Enter' ? onSelect?.(n.name) : undefined)}
            >
              <rect width={NODE_W} height={NODE_H} rx="8" />
              <text x="10" y="20" class="dag-name">
                {(n.displayName ?? n.name).length > 24
                  ? `${(n.displayName ?? n.name).slice(0, 23)}…`
                  : (n.displayName ?? n.name)}
              </text>
              <text x="10" y="40" class="dag-sub">
                {n.type}
                {s ? ` · ${s.StepStatus}` : ''}
                {outcome !== undefined ? ` · ${outcome ? 'true' : 'false'}` : ''}
                {time ? ` · ${time}` : ''}
                {s?.CacheHitResult ? ' · cached' : ''}
              </text>
              <title>{`${n.name} (${n.type})${s ? `: ${s.StepStatus}` : ': not run'}`}</title>
            </g>
          );
        })}
      </svg>
    </div>
  );
}

export function ExecutionDetail({ pipeline, id }: { pipeline: string; id: string }) {
  const pipelineInfo = useAsync(
    (signal) => sagemaker<Obj>('DescribePipeline', { PipelineName: pipeline }, signal),
    [pipeline],
  );
  const arn = pipelineInfo.data ? `${String(pipelineInfo.data.PipelineArn)}/execution/${id}` : undefined;
  const execution = useAsync(
    async (signal) => {
      if (!arn) return undefined;
      const [d, steps, params, def] = await Promise.all([
        sagemaker<Obj>('DescribePipelineExecution', { PipelineExecutionArn: arn }, signal),
        sagemaker<{ PipelineExecutionSteps?: Step[] }>(
          'ListPipelineExecutionSteps',
          { PipelineExecutionArn: arn, MaxResults: 100 },
          signal,
        ),
        sagemaker<{ PipelineParameters?: Obj[] }>(
          'ListPipelineParametersForExecution',
          { PipelineExecutionArn: arn, MaxResults: 100 },
          signal,
        ),
        sagemaker<{ PipelineDefinition?: string }>(
          'DescribePipelineDefinitionForExecution',
          { PipelineExecutionArn: arn },
          signal,
        ),
      ]);
      return {
        d,
        steps: Object.fromEntries((steps.PipelineExecutionSteps ?? []).map((s) => [s.StepName, s])),
        params: params.PipelineParameters ?? [],
        definition: def.PipelineDefinition ?? '',
      };
    },
    [arn],
  );
  const [selected, setSelected] = useState<string | undefined>();
  const data = execution.data;
  const status = data?.d.PipelineExecutionStatus as string | undefined;
  // Refreshed while it runs: step statuses, timings and outcomes move as the executor advances.
  useInterval(execution.reload, 1000, status !== undefined && RUNNING.has(status));
  const chosen = selected && data ? data.steps[selected] : undefined;
  return (
    <section class="pipeline-execution">
      <nav class="crumbs">
        <Link to="/pipelines">Pipelines</Link> /{' '}
        <Link to={`/pipelines/${encodeURIComponent(pipeline)}`}>{pipeline}</Link> / {id}
      </nav>
      <h1>
        {String(data?.d.PipelineExecutionDisplayName ?? id)} {status ? <Badge status={status} /> : null}
      </h1>
      <ErrorBox error={pipelineInfo.error ?? execution.error} title={`Could not read execution ${id}`} />
      {!data && !(pipelineInfo.error ?? execution.error) ? <Loading what="execution" /> : null}
      {data ? (
        <>
          <dl class="facts">
            <dt>ARN</dt>
            <dd class="mono">{arn}</dd>
            <dt>Started</dt>
            <dd>{when(data.d.CreationTime)}</dd>
            <dt>Last change</dt>
            <dd>{when(data.d.LastModifiedTime)}</dd>
            {data.d.FailureReason ? (
              <>
                <dt>Failure reason</dt>
                <dd class="bad-text failure-reason">{String(data.d.FailureReason)}</dd>
              </>
            ) : null}
            {data.d.PipelineExperimentConfig ? (
              <>
                <dt>Experiment</dt>
                <dd>
                  <Link
                    to={`/experiments/${encodeURIComponent(String((data.d.PipelineExperimentConfig as Obj).ExperimentName))}`}
                  >
                    {String((data.d.PipelineExperimentConfig as Obj).ExperimentName)}
                  </Link>{' '}
                  <span class="muted">trial {String((data.d.PipelineExperimentConfig as Obj).TrialName)}</span>
                </dd>
              </>
            ) : null}
            <dt>Parameters</dt>
            <dd>
              {data.params.map((p) => (
                <span key={String(p.Name)} class="param-chip">
                  <span class="param">{String(p.Name)}</span> = <span class="mono">{String(p.Value)}</span>
                </span>
              ))}
            </dd>
          </dl>
          <h2>Steps</h2>
          <DagPicture definition={data.definition} steps={data.steps} selected={selected} onSelect={setSelected} />
          {chosen ? (
            <StepFacts step={chosen} />
          ) : selected ? (
            <p class="muted">Step {selected} has not run in this execution.</p>
          ) : null}
          <StepTable steps={Object.values(data.steps)} onSelect={setSelected} />
        </>
      ) : null}
    </section>
  );
}

function StepLink({ step }: { step: Step }) {
  const target = stepTarget(step);
  if (!target) return <>—</>;
  const to = pageOf(target.arn);
  return to ? (
    <Link to={to} title={target.arn}>
      {target.label} {shortName(target.arn)}
    </Link>
  ) : (
    <span class="mono" title={target.arn}>
      {target.label} {shortName(target.arn)}
    </span>
  );
}

function StepFacts({ step }: { step: Step }) {
  const outcome = outcomeOf(step);
  return (
    <dl class="facts step-facts">
      <dt>Step</dt>
      <dd>
        {step.StepName} <Badge status={step.StepStatus} />
      </dd>
      <dt>Started</dt>
      <dd>{when(step.StartTime)}</dd>
      <dt>Ended</dt>
      <dd>{when(step.EndTime)}</dd>
      <dt>Attempt</dt>
      <dd>{String(step.AttemptCount ?? 1)}</dd>
      <dt>Made</dt>
      <dd>
        <StepLink step={step} />
      </dd>
      {outcome !== undefined ? (
        <>
          <dt>Condition</dt>
          <dd class="outcome">{outcome ? 'true: the IfSteps run' : 'false: the ElseSteps run'}</dd>
        </>
      ) : null}
      {step.CacheHitResult ? (
        <>
          <dt>Cache hit</dt>
          <dd class="mono">
            from{' '}
            {String((step.CacheHitResult as Obj).SourcePipelineExecutionArn)
              .split('/')
              .pop()}
          </dd>
        </>
      ) : null}
      {step.FailureReason ? (
        <>
          <dt>Failure reason</dt>
          <dd class="bad-text failure-reason">{String(step.FailureReason)}</dd>
        </>
      ) : null}
      {step.Metadata?.Callback ? (
        <>
          <dt>Callback token</dt>
          <dd class="mono">{String(step.Metadata.Callback.CallbackToken)}</dd>
        </>
      ) : null}
    </dl>
  );
}

function StepTable({ steps, onSelect }: { steps: Step[]; onSelect: (name: string) => void }) {
  const ordered = [...steps].sort((a, b) => Number(a.StartTime ?? 0) - Number(b.StartTime ?? 0));
  return (
    <table class="grid steps">
      <thead>
        <tr>
          <th>Step</th>
          <th>Status</th>
          <th>Started</th>
          <th>Duration</th>
          <th>Attempt</th>
          <th>Made</th>
          <th>Failure</th>
        </tr>
      </thead>
      <tbody>
        {ordered.map((s) => (
          <tr key={s.StepName}>
            <td>
              <button type="button" class="link" onClick={() => onSelect(s.StepName)}>
                {s.StepName}
              </button>
            </td>
            <td>
              <Badge status={s.StepStatus} />
              {s.CacheHitResult ? <span class="muted small"> cached</span> : null}
            </td>
            <td>{when(s.StartTime)}</td>
            <td>{duration(s.StartTime, s.EndTime) ?? '…'}</td>
            <td>{String(s.AttemptCount ?? 1)}</td>
            <td>
              <StepLink step={s} />
            </td>
            <td class="small">{s.FailureReason ? <span class="bad-text">{String(s.FailureReason)}</span> : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
