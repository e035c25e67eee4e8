// A training job's metric curves, read off its log as SageMaker reads them: the built-in XGBoost
// algorithm's evaluation lines (`[12]\ttrain-rmse:0.51\tvalidation-rmse:0.60`; CloudWatch shows the
// tab as `#011` when the line went through syslog) give one point per round, a custom image's
// AlgorithmSpecification.MetricDefinitions regexes one point per matching line.
// https://docs.aws.amazon.com/sagemaker/latest/dg/training-metrics.html

export interface MetricDefinition {
  readonly Name: string;
  readonly Regex: string;
}

export interface Curves {
  /** What the x axis counts: the boosting round, or the how-many-th value of the metric. */
  readonly xLabel: 'round' | 'report';
  readonly x: number[];
  /** Metric name → its value at each x (null where it has none). */
  readonly series: Map<string, (number | null)[]>;
}

const EVAL_LINE = /^\[(\d+)\](?:\t|#011)(.*)$/;
const EVAL_FIELD = /^([A-Za-z0-9_]+)-(.+):(-?[0-9.eE+-]+|nan|inf|-inf)$/;

/** `[12]\ttrain-rmse:0.51\tvalidation-rmse:0.60` → round 12, train:rmse 0.51, validation:rmse 0.60. */
export function evaluationLine(line: string): { round: number; metrics: [string, number][] } | undefined {
  const m = EVAL_LINE.exec(line.trimEnd());
  if (!m) return undefined;
  const metrics: [string, number][] = [];
  for (const field of m[2]!.split(/\t|#011/)) {
    const f = EVAL_FIELD.exec(field.trim());
    if (f) metrics.push([`${f[1]}:${f[2]}`, Number(f[3])]);
  }
  return metrics.length ? { round: Number(m[1]), metrics } : undefined;
}

/**
 * The curves in a log. With MetricDefinitions (a custom image), each regex's first group is a value;
 * a regex JavaScript cannot compile is skipped. Without them, the built-in evaluation lines.
 */
export function metricCurves(lines: readonly string[], definitions?: readonly MetricDefinition[]): Curves {
  if (definitions?.length) {
    const compiled = definitions.flatMap((d) => {
      try {
        // `#011` is a tab as syslog shows it; the trainer's own lines hold the tab itself.
        return [{ name: d.Name, re: new RegExp(d.Regex.replace(/#011/g, '(?:#011|\t)')) }];
      } catch {
        return [];
      }
    });
    const values = new Map<string, number[]>(compiled.map((c) => [c.name, []]));
    for (const line of lines)
      for (const { name, re } of compiled) {
        const g = re.exec(line)?.[1];
        if (g !== undefined && g.trim() !== '' && Number.isFinite(Number(g))) values.get(name)!.push(Number(g));
      }
    const n = Math.max(0, ...[...values.values()].map((v) => v.length));
    const series = new Map<string, (number | null)[]>();
    for (const [name, v] of values)
      if (v.length)
        series.set(
          name,
          Array.from({ length: n }, (_, i) => v[i] ?? null),
        );
    return { xLabel: 'report', x: Array.from({ length: n }, (_, i) => i + 1), series };
  }
  const byRound = new Map<number, Map<string, number>>();
  const names: string[] = [];
  for (const line of lines) {
    const e = evaluationLine(line);
    if (!e) continue;
    const at = byRound.get(e.round) ?? new Map<string, number>();
    byRound.set(e.round, at);
    for (const [name, v] of e.metrics) {
      if (!names.includes(name)) names.push(name);
      if (Number.isFinite(v)) at.set(name, v);
    }
  }
  const x = [...byRound.keys()].sort((a, b) => a - b);
  const series = new Map<string, (number | null)[]>(
    names.map((n) => [n, x.map((r) => byRound.get(r)!.get(n) ?? null)]),
  );
  return { xLabel: 'round', x, series };
}

/** What BatchGetMetrics answers for one query. */
export interface MetricQueryResult {
  readonly Status: string;
  readonly XAxisValues: readonly number[];
  readonly MetricValues: readonly number[];
}

/**
 * The curves of a job's stored metrics (BatchGetMetrics by iteration: a built-in algorithm's
 * rounds, else each metric's n-th value, shown from 1), or undefined when none were stored.
 */
export function storedCurves(
  names: readonly string[],
  results: readonly MetricQueryResult[],
  byRound: boolean,
): Curves | undefined {
  const at = new Map<string, Map<number, number>>();
  const xs = new Set<number>();
  names.forEach((name, i) => {
    const r = results[i];
    if (!r || r.XAxisValues.length === 0) return;
    const m = new Map<number, number>();
    r.XAxisValues.forEach((x, j) => {
      const v = r.MetricValues[j]!;
      const shown = byRound ? x : x + 1;
      m.set(shown, v);
      xs.add(shown);
    });
    at.set(name, m);
  });
  if (at.size === 0) return undefined;
  const x = [...xs].sort((a, b) => a - b);
  const series = new Map<string, (number | null)[]>();
  for (const [name, m] of at) series.set(name, x.map((v) => m.get(v) ?? null));
  return { xLabel: byRound ? 'round' : 'report', x, series };
}
