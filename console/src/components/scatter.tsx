// A small scatter plot in SVG (no library): points, an optional step line through them (the best
// value so far), a linear or logarithmic x axis, or categories along x. Each point has a title, so
// hovering names the training job.
export interface Point {
  readonly x: number | string;
  readonly y: number;
  readonly label: string;
  /** Drawn emphasised (the best job). */
  readonly best?: boolean;
}

const W = 360;
const H = 200;
const PAD = { left: 52, right: 10, top: 10, bottom: 34 };

const fmt = (v: number) => {
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(1);
  return Number(v.toPrecision(3)).toString();
};

function ticks(lo: number, hi: number, log: boolean): number[] {
  if (log) {
    const out: number[] = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
      const t = 10 ** e;
      if (t >= lo * 0.999 && t <= hi * 1.001) out.push(t);
    }
    return out.length >= 2 ? out : [lo, hi];
  }
  if (hi === lo) return [lo];
  return [0, 1, 2, 3, 4].map((i) => lo + ((hi - lo) * i) / 4);
}

export function Scatter(p: {
  title: string;
  xLabel: string;
  yLabel: string;
  points: readonly Point[];
  /** Steps through the running best of `points` in x order (minimising unless `maximize`). */
  best?: { maximize: boolean };
  logX?: boolean;
  /** Categories along x, in this order (for categorical hyperparameters). */
  categories?: readonly string[];
}) {
  const pts = p.points.filter((q) => Number.isFinite(q.y));
  if (pts.length === 0) {
    return (
      <figure class="scatter">
        <figcaption>{p.title}</figcaption>
        <p class="muted small">No values yet.</p>
      </figure>
    );
  }
  const cats = p.categories;
  const xs = pts.map((q) => (cats ? cats.indexOf(String(q.x)) : Number(q.x)));
  const ys = pts.map((q) => q.y);
  const log = !cats && p.logX === true && Math.min(...xs) > 0;
  const tx = (v: number) => (log ? Math.log10(v) : v);
  let [x0, x1] = cats ? [-0.5, cats.length - 0.5] : [Math.min(...xs), Math.max(...xs)];
  if (x0 === x1) [x0, x1] = log ? [x0 / 2, x1 * 2] : [x0 - 1, x1 + 1];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (y0 === y1) [y0, y1] = [y0 - 1, y1 + 1];
  const pad = (y1 - y0) * 0.05;
  y0 -= pad;
  y1 += pad;
  const sx = (v: number) => PAD.left + ((tx(v) - tx(x0)) / (tx(x1) - tx(x0))) * (W - PAD.left - PAD.right);
  const sy = (v: number) => H - PAD.bottom - ((v - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
  let line = '';
  if (p.best) {
    const order = pts.map((_, i) => i).sort((a, b) => xs[a]! - xs[b]!);
    let run: number | undefined;
    for (const i of order) {
      const y = ys[i]!;
      if (run === undefined || (p.best.maximize ? y > run : y < run)) {
        if (run !== undefined) line += ` L${sx(xs[i]!).toFixed(1)},${sy(run).toFixed(1)}`;
        run = y;
        line += `${line ? ' L' : 'M'}${sx(xs[i]!).toFixed(1)},${sy(run).toFixed(1)}`;
      }
    }
    line += ` L${sx(x1).toFixed(1)},${sy(run!).toFixed(1)}`;
  }
  const xt = cats ? cats.map((_, i) => i) : ticks(x0, x1, log);
  return (
    <figure class="scatter">
      <figcaption>{p.title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={p.title}>
        <line x1={PAD.left} y1={H - PAD.bottom} x2={W - PAD.right} y2={H - PAD.bottom} class="axis" />
        <line x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={H - PAD.bottom} class="axis" />
        {xt.map((t) => (
          <text key={`x${t}`} x={sx(t)} y={H - PAD.bottom + 14} class="tick" text-anchor="middle">
            {cats ? cats[t] : fmt(t)}
          </text>
        ))}
        {ticks(y0, y1, false).map((t) => (
          <text key={`y${t}`} x={PAD.left - 4} y={sy(t) + 3} class="tick" text-anchor="end">
            {fmt(t)}
          </text>
        ))}
        <text x={(PAD.left + W - PAD.right) / 2} y={H - 4} class="label" text-anchor="middle">
          {p.xLabel}
        </text>
        <text
          x={10}
          y={(PAD.top + H - PAD.bottom) / 2}
          class="label"
          text-anchor="middle"
          transform={`rotate(-90 10 ${(PAD.top + H - PAD.bottom) / 2})`}
        >
          {p.yLabel}
        </text>
        {line ? <path d={line} class="best-line" /> : null}
        {pts.map((q, i) => (
          <circle
            key={q.label}
            cx={sx(xs[i]!)}
            cy={sy(ys[i]!)}
            r={q.best ? 5 : 3.5}
            class={q.best ? 'point best' : 'point'}
          >
            <title>
              {q.label}: {fmt(q.y)}
            </title>
          </circle>
        ))}
      </svg>
    </figure>
  );
}
