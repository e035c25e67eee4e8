// Runs (trial components) as the experiments page compares them: their parameters and metric
// summaries as plain values, which columns exist, and a run's per-step curve where one can be read.

import { sagemaker } from '../api/client';
import { KINDS, jobStreams, wholeLog } from './jobs';
import { type Curves, metricCurves } from './job-metrics';

type Obj = Record<string, unknown>;

export type Stat = 'Last' | 'Min' | 'Max' | 'Avg';
export const STATS: readonly Stat[] = ['Last', 'Min', 'Max', 'Avg'];

export interface MetricSummary {
  readonly MetricName: string;
  readonly Last?: number;
  readonly Avg?: number;
  readonly Max?: number;
  readonly Min?: number;
  readonly Count?: number;
}

export const runName = (r: Obj): string => String(r.TrialComponentName);
export const runLabel = (r: Obj): string => String(r.DisplayName ?? r.TrialComponentName);

export function paramValue(r: Obj, name: string): string | number | undefined {
  const v = (r.Parameters as Record<string, Obj> | undefined)?.[name];
  if (!v) return undefined;
  return (v.NumberValue as number | undefined) ?? (v.StringValue as string | undefined);
}

export function metricValue(r: Obj, name: string, stat: Stat): number | undefined {
  const m = ((r.Metrics as MetricSummary[] | undefined) ?? []).find((x) => x.MetricName === name);
  const v = m?.[stat] ?? (stat === 'Last' ? m?.Avg : undefined);
  return v === undefined ? undefined : Math.round(v * 1e6) / 1e6;
}

/** Every parameter and metric name among the runs, sorted. */
export function namesOf(rows: readonly Obj[]): { params: string[]; metrics: string[] } {
  return {
    // The user's own hyperparameters first; SageMaker's (SageMaker.InstanceType ...) after them.
    params: [...new Set(rows.flatMap((r) => Object.keys((r.Parameters as Obj) ?? {})))].sort(
      (a, b) => Number(a.startsWith('SageMaker.')) - Number(b.startsWith('SageMaker.')) || a.localeCompare(b),
    ),
    metrics: [...new Set(rows.flatMap((r) => ((r.Metrics as MetricSummary[]) ?? []).map((m) => m.MetricName)))].sort(),
  };
}

/**
 * A run's metric values step by step: for a SageMaker training job, read off its log as its own page
 * reads them (the built-in algorithm's evaluation lines, or its MetricDefinitions); other runs have
 * only their summaries.
 */
export async function runCurves(r: Obj, signal?: AbortSignal): Promise<Curves | undefined> {
  const source = r.Source as { SourceArn?: string; SourceType?: string } | undefined;
  const m = /:training-job\/(.+)$/.exec(source?.SourceArn ?? '');
  if (!m) return undefined;
  const k = KINDS.training;
  const job = await sagemaker<Obj>('DescribeTrainingJob', { TrainingJobName: m[1] }, signal).catch(() => undefined);
  const name = String(job?.TrainingJobName ?? m[1]);
  const streams = await jobStreams(k, name, signal);
  if (!streams[0]) return undefined;
  const lines = await wholeLog(k, streams[0], 20_000, signal);
  const defs = (job?.AlgorithmSpecification as { MetricDefinitions?: { Name: string; Regex: string }[] } | undefined)
    ?.MetricDefinitions;
  return metricCurves(lines, defs);
}
