// A tuning job's children as the console shows them: ranked by their objective (best first, jobs
// without one last), and the tuned hyperparameters with how to plot each (log axis, categories).
type Obj = Record<string, unknown>;

export interface Child {
  readonly TrainingJobName: string;
  readonly TrainingJobStatus: string;
  readonly TunedHyperParameters: Record<string, string>;
  readonly TrainingJobDefinitionName?: string;
  readonly CreationTime?: number;
  readonly TrainingStartTime?: number;
  readonly TrainingEndTime?: number;
  readonly ObjectiveStatus?: string;
  readonly FailureReason?: string;
  readonly FinalHyperParameterTuningJobObjectiveMetric?: { MetricName: string; Value: number; Type?: string };
}

export const objectiveOf = (c: Child): number | undefined => c.FinalHyperParameterTuningJobObjectiveMetric?.Value;

/** Best first (by the objective's direction), then the jobs without an objective in launch order. */
export function rank(children: readonly Child[], maximize: boolean): Child[] {
  const scored = children.filter((c) => objectiveOf(c) !== undefined);
  const rest = children.filter((c) => objectiveOf(c) === undefined);
  scored.sort((a, b) => (maximize ? objectiveOf(b)! - objectiveOf(a)! : objectiveOf(a)! - objectiveOf(b)!));
  rest.sort((a, b) => a.TrainingJobName.localeCompare(b.TrainingJobName));
  return [...scored, ...rest];
}

export interface TunedParam {
  readonly name: string;
  readonly kind: 'Integer' | 'Continuous' | 'Categorical';
  /** Plot on a log axis (Logarithmic scaling, or Auto over two orders of magnitude). */
  readonly log: boolean;
  readonly categories?: readonly string[];
}

/** The hyperparameters a tuning job tunes (across its definitions), in declaration order. */
export function tunedParams(d: Obj): TunedParam[] {
  const config = d.HyperParameterTuningJobConfig as Obj | undefined;
  const defs = (d.TrainingJobDefinitions as Obj[] | undefined) ?? [];
  const all = [
    config?.ParameterRanges as Obj | undefined,
    ...defs.map((x) => x.HyperParameterRanges as Obj | undefined),
  ];
  const out = new Map<string, TunedParam>();
  for (const r of all) {
    if (!r) continue;
    for (const [key, kind] of [
      ['IntegerParameterRanges', 'Integer'],
      ['ContinuousParameterRanges', 'Continuous'],
      ['CategoricalParameterRanges', 'Categorical'],
    ] as const) {
      for (const p of (r[key] as Obj[] | undefined) ?? []) {
        const name = String(p.Name);
        if (out.has(name)) continue;
        if (kind === 'Categorical') {
          out.set(name, { name, kind, log: false, categories: (p.Values as string[]) ?? [] });
        } else {
          const min = Number(p.MinValue);
          const max = Number(p.MaxValue);
          const scale = p.ScalingType ?? 'Auto';
          const log = scale === 'Logarithmic' || (scale === 'Auto' && min > 0 && max / min >= 100);
          out.set(name, { name, kind, log });
        }
      }
    }
  }
  return [...out.values()];
}

/** The objective the tuning job optimises (the first definition's when there are several). */
export function objectiveSpec(d: Obj): { name: string; maximize: boolean } | undefined {
  const config = d.HyperParameterTuningJobConfig as Obj | undefined;
  const o = (config?.HyperParameterTuningJobObjective ??
    ((d.TrainingJobDefinitions as Obj[] | undefined)?.[0]?.TuningObjective as Obj | undefined)) as Obj | undefined;
  return o ? { name: String(o.MetricName), maximize: o.Type === 'Maximize' } : undefined;
}
