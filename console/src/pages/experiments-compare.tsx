// Comparing runs: one metric across every run of the table (bars, best first), and the runs a user
// ticked side by side (parameters that differ marked, min/max/last of each metric) with their metric
// curves overlaid where the runs' logs hold them.
import { useMemo } from 'preact/hooks';
import { Chart } from '../components/chart';
import { ErrorBox, Loading, useAsync } from '../components/ui';
import { metricValue, paramValue, runCurves, runLabel, runName, type Stat } from '../lib/runs';
import { setQuery, useLocation } from '../router';

type Obj = Record<string, unknown>;

const COLORS = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2', '#be185d', '#4d7c0f'];

/** Whether a smaller value of the metric is the better one (losses and errors). */
const lowerIsBetter = (metric: string) => /rmse|mse|mae|loss|error|logloss|mape/i.test(metric);

/** One metric across the runs as horizontal bars, best first; the metric is chosen (`metric=`). */
export function MetricAcrossRuns(p: { rows: readonly Obj[]; metrics: readonly string[]; stat: Stat; selected: readonly string[] }) {
  const { query } = useLocation();
  // A validation metric is what runs are usually judged on: shown first unless another is chosen.
  const metric = p.metrics.includes(query.get('metric') ?? '')
    ? query.get('metric')!
    : (p.metrics.find((m) => /^validation[:_-]/.test(m)) ?? p.metrics[0]!);
  const bars = p.rows
    .map((r) => ({ name: runName(r), label: runLabel(r), v: metricValue(r, metric, p.stat) }))
    .filter((b): b is { name: string; label: string; v: number } => b.v !== undefined)
    .sort((a, b) => (lowerIsBetter(metric) ? a.v - b.v : b.v - a.v));
  const max = Math.max(...bars.map((b) => Math.abs(b.v)), 1e-12);
  return (
    <div class="across-runs">
      <h2>
        <label>
          Compare runs on{' '}
          <select name="metric" value={metric} onChange={(e) => setQuery({ metric: e.currentTarget.value }, true)}>
            {p.metrics.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>{' '}
        <span class="muted small">
          ({p.stat.toLowerCase()}, {lowerIsBetter(metric) ? 'lowest' : 'highest'} first)
        </span>
      </h2>
      {bars.length === 0 ? <p class="muted">No run has a value of {metric}.</p> : null}
      <ol class="bars" data-metric={metric}>
        {bars.map((b, i) => (
          <li key={b.name} class={p.selected.includes(b.name) ? 'picked' : ''} data-run={b.name}>
            <span class="bar-label">{b.label}</span>
            <span class="bar" style={{ width: `${Math.max(2, (Math.abs(b.v) / max) * 100)}%` }} data-best={i === 0 ? 'true' : undefined} />
            <span class="bar-value">{b.v}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** The ticked runs side by side, and their curves overlaid per metric. */
export function CompareRuns(p: { runs: readonly Obj[]; params: readonly string[]; metrics: readonly string[] }) {
  const curves = useAsync((signal) => Promise.all(p.runs.map((r) => runCurves(r, signal).catch(() => undefined))), [p.runs.map(runName).join(',')]);
  const differs = (k: string) => new Set(p.runs.map((r) => String(paramValue(r, k) ?? ''))).size > 1;
  const charts = useMemo(() => {
    const all = curves.data ?? [];
    const names = [...new Set(all.flatMap((c) => (c ? [...c.series.keys()] : [])))].sort();
    return names.map((metric) => {
      const xs = [...new Set(all.flatMap((c) => (c?.series.has(metric) ? c.x : [])))].sort((a, b) => a - b);
      const series = p.runs.flatMap((r, i) => {
        const c = all[i];
        const values = c?.series.get(metric);
        if (!c || !values) return [];
        const at = new Map(c.x.map((x, j) => [x, values[j] ?? null]));
        return [{ label: runLabel(r), color: COLORS[i % COLORS.length]!, values: xs.map((x) => at.get(x) ?? null) }];
      });
      const xLabel = all.find((c) => c?.series.has(metric))?.xLabel ?? 'round';
      return { metric, xs, series, xLabel };
    });
  }, [curves.data]);
  return (
    <div class="compare">
      <h2>
        {p.runs.length} runs side by side{' '}
        <button type="button" class="link" onClick={() => setQuery({ sel: undefined }, true)}>
          clear
        </button>
      </h2>
      <div class="scroll-x">
        <table class="grid compare-table">
          <thead>
            <tr>
              <th class="sticky" />
              {p.runs.map((r, i) => (
                <th key={runName(r)}>
                  <span class="swatch" style={{ background: COLORS[i % COLORS.length] }} /> {runLabel(r)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {p.metrics.map((m) => (
              <tr key={`m:${m}`}>
                <th class="sticky metric">{m}</th>
                {p.runs.map((r) => (
                  <td key={runName(r)} class="num">
                    {(['Min', 'Max', 'Last'] as const).map((s) => (
                      <span key={s} class="stat-cell">
                        <span class="stat">{s.toLowerCase()}</span> {metricValue(r, m, s) ?? '—'}
                      </span>
                    ))}
                  </td>
                ))}
              </tr>
            ))}
            {p.params.map((k) => (
              <tr key={`p:${k}`} class={differs(k) ? 'differs' : ''}>
                <th class="sticky param">{k}</th>
                {p.runs.map((r) => (
                  <td key={runName(r)} class="num">
                    {paramValue(r, k) ?? '—'}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ErrorBox error={curves.error} title="Could not read the runs' curves" />
      {curves.loading && !curves.data ? <Loading what="metric curves" /> : null}
      {curves.data && charts.length === 0 ? (
        <p class="muted">These runs have no per-step values to overlay (only training jobs' logs hold them).</p>
      ) : null}
      <div class="charts">
        {charts.map((c) => (
          <Chart key={c.metric} title={c.metric} unit="value" x={c.xs} series={c.series} xLabel={c.xLabel} height={200} />
        ))}
      </div>
    </div>
  );
}
