// A small time-series chart (uPlot, loaded with the first chart on a page).
import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';

export interface Series {
  readonly label: string;
  readonly color: string;
  readonly values: readonly (number | null)[];
}

export function Chart(p: {
  title: string;
  unit: string;
  x: readonly number[];
  series: readonly Series[];
  /** What the x axis is, when not time (epoch seconds): a label such as 'round'. */
  xLabel?: string;
  /**
   * The time window the x axis spans (epoch seconds), whatever the data: without it uPlot fits the
   * axis to the points, and one point spreads over years.
   */
  xRange?: readonly [number, number];
  /** Said over the plot while it has no points. */
  empty?: string;
  /**
   * Before this time (epoch seconds) nothing is known (the page was not sampling): shaded, so no
   * one reads the blank as no traffic.
   */
  unknownBefore?: number;
  height?: number;
}) {
  const el = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  // Read by the scale on every setData, so a window that moves with the clock moves the axis.
  const range = useRef(p.xRange);
  range.current = p.xRange;
  const unknown = useRef(p.unknownBefore);
  unknown.current = p.unknownBefore;
  const data = [p.x as number[], ...p.series.map((s) => s.values as (number | null)[])] as uPlot.AlignedData;
  useEffect(() => {
    let disposed = false;
    void import('uplot').then(({ default: UPlot }) => {
      if (disposed || !el.current) return;
      plot.current = new UPlot(
        {
          width: el.current.clientWidth || 320,
          height: p.height ?? 140,
          legend: { show: p.series.length > 1, live: false },
          cursor: { drag: { x: false, y: false } },
          scales: {
            x: {
              time: p.xLabel === undefined,
              ...(p.xRange ? { range: (_u, min, max) => (range.current ? [range.current[0], range.current[1]] : [min, max]) } : {}),
            },
            // Rates and counts from zero; other values (a loss) where they lie.
            y: p.xLabel === undefined ? { range: (_u, min, max) => [0, Math.max(max ?? 1, min ?? 0, 1)] } : {},
          },
          axes: [p.xLabel === undefined ? {} : { label: p.xLabel }, { label: p.unit, size: 50 }],
          series: [{}, ...p.series.map((s) => ({ label: s.label, stroke: s.color, width: 2, spanGaps: false }))],
          hooks: { drawClear: [(u) => shadeUnknown(u, unknown.current)] },
        },
        data,
        el.current,
      );
    });
    return () => {
      disposed = true;
      plot.current?.destroy();
      plot.current = undefined;
    };
    // The chart is built once per set of series; data updates go through setData below.
  }, [p.series.length, p.unit]);
  useEffect(() => {
    plot.current?.setData(data);
  });
  const empty = p.empty !== undefined && p.x.length === 0;
  return (
    <figure class="chart" data-points={p.x.length} data-x-from={p.xRange?.[0]} data-x-to={p.xRange?.[1]}>
      <figcaption>{p.title}</figcaption>
      <div class="chart-plot">
        <div ref={el} />
        {empty ? <div class="chart-empty">{p.empty}</div> : null}
      </div>
    </figure>
  );
}

/** Shades the plot from its left edge to `before` (epoch seconds), under the grid and the lines. */
function shadeUnknown(u: uPlot, before: number | undefined): void {
  if (before === undefined) return;
  const { left, top, width, height } = u.bbox;
  const x = Math.min(left + width, Math.max(left, u.valToPos(before, 'x', true)));
  if (x <= left) return;
  u.ctx.save();
  u.ctx.fillStyle = 'rgba(107, 114, 128, 0.10)';
  u.ctx.fillRect(left, top, x - left, height);
  u.ctx.restore();
}
