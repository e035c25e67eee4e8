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
  height?: number;
}) {
  const el = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
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
            x: { time: p.xLabel === undefined },
            // Rates and counts from zero; other values (a loss) where they lie.
            y: p.xLabel === undefined ? { range: (_u, min, max) => [0, Math.max(max ?? 1, min ?? 0, 1)] } : {},
          },
          axes: [p.xLabel === undefined ? {} : { label: p.xLabel }, { label: p.unit, size: 50 }],
          series: [{}, ...p.series.map((s) => ({ label: s.label, stroke: s.color, width: 2, spanGaps: false }))],
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
  return (
    <figure class="chart">
      <figcaption>{p.title}</figcaption>
      <div ref={el} />
    </figure>
  );
}
