// An endpoint's traffic charts: invocations, errors and latency over a window the user picks (the
// last 15 minutes to a day, always ending now), with the time axis spanning that
// whole window and saying when it holds no points yet. The points come from endpointMetrics()
// (console/src/lib/endpoint-metrics.ts), the one seam between the charts and where metrics live.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Chart } from '../components/chart';
import { ErrorBox, useInterval } from '../components/ui';
import { DEFAULT_WINDOW, type EndpointMetrics, WINDOWS, endpointMetrics } from '../lib/endpoint-metrics';
import { setQuery, useLocation } from '../router';

const COLORS = ['#2563eb', '#dc2626', '#d97706', '#059669'];

const clock = (ms: number) => new Date(ms).toLocaleTimeString();

export function Traffic({ endpoint, variant }: { endpoint: string; variant: string }) {
  const { query } = useLocation();
  const win = WINDOWS.find((w) => w.key === (query.get('window') ?? DEFAULT_WINDOW))!;
  const [read, setRead] = useState<{ m: EndpointMetrics; end: number }>();
  const [error, setError] = useState<unknown>();
  // Only the newest answer is drawn: a slow read must not replace a later one.
  const asked = useRef(0);
  const take = () => {
    const n = ++asked.current;
    const end = Date.now();
    endpointMetrics(endpoint, variant, { start: end - win.ms, end }).then(
      (m) => {
        if (n !== asked.current) return;
        setError(undefined);
        setRead({ m, end });
      },
      (err) => n === asked.current && setError(err),
    );
  };
  useEffect(take, [endpoint, variant, win.key]);
  useEffect(
    () => () => {
      asked.current++;
    },
    [],
  );
  useInterval(take, read?.m.refreshMs ?? 30_000);

  const end = read?.end ?? Date.now();
  const start = end - win.ms;
  const points = read?.m.points ?? [];
  const x = points.map((p) => p.t);
  const xRange = [start / 1000, end / 1000] as const;
  const any = points.some((p) => p.invocations > 0 || p.errors4xx > 0 || p.errors5xx > 0);
  const empty = read ? (any ? undefined : 'No invocations in this window') : 'Reading…';
  const per = read ? `per ${read.m.period / 60} min` : 'per min';
  const chart = (title: string, unit: string, series: { label: string; color: string; values: (number | null)[] }[]) => (
    <Chart title={title} unit={unit} x={x} xRange={xRange} empty={empty} series={series} />
  );
  return (
    <div class="traffic">
      <div class="toolbar">
        <label>
          Window{' '}
          <select name="window" value={win.key} onChange={(e) => setQuery({ window: e.currentTarget.value }, true)}>
            {WINDOWS.map((w) => (
              <option key={w.key} value={w.key}>
                {w.label}
              </option>
            ))}
          </select>
        </label>
        <span class="muted small">
          {clock(start)} – {clock(end)}
        </span>
        <button type="button" class="refresh" onClick={take}>
          Refresh
        </button>
      </div>
      <div class="charts" data-samples={points.length} data-points={points.length} data-invocations={points.reduce((a, p) => a + p.invocations, 0)}>
        <ErrorBox error={error} title="Could not read the endpoint's metrics" />
        {chart('Invocations', per, [{ label: 'invocations', color: COLORS[0]!, values: points.map((p) => p.invocations) }])}
        {chart('Errors', per, [
          { label: '4xx', color: COLORS[2]!, values: points.map((p) => p.errors4xx) },
          { label: '5xx', color: COLORS[1]!, values: points.map((p) => p.errors5xx) },
        ])}
        {chart('Latency', 'ms', [
          { label: 'model (average)', color: COLORS[3]!, values: points.map((p) => p.latencyMs) },
          { label: 'model (p99)', color: COLORS[1]!, values: points.map((p) => p.latencyP99Ms) },
          { label: 'overhead (average)', color: COLORS[0]!, values: points.map((p) => p.overheadMs) },
        ])}
        {read ? <p class="muted small traffic-source">{read.m.source}.</p> : null}
      </div>
    </div>
  );
}
