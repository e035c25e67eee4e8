// What a running job writes as it goes: its log stream in CloudWatch Logs (lines buffered and
// appended in batches) and the metrics read off its output, as SageMaker does for training jobs:
// the built-in algorithm's evaluation lines (`[12]#011train-rmse:0.51#011validation-rmse:0.60` →
// train:rmse, validation:rmse), or a custom image's AlgorithmSpecification.MetricDefinitions regexes.
// https://docs.aws.amazon.com/sagemaker/latest/dg/training-metrics.html
import { RE2JS } from 're2js';
import type { Partition } from '../domain/arn.js';
import type { MetricData, MetricDefinition, TrialComponentMetricSummary } from '../generated/sagemaker/shapes.js';
import type { LogLine } from '../storage/repositories/log-events.js';

/** Lines are appended at most this often (and at once when this many are waiting). */
const FLUSH_MS = 200;
const FLUSH_LINES = 500;

export type AppendLogs = (p: Partition, group: string, stream: string, lines: readonly LogLine[]) => Promise<void>;

/** A job's log stream: `write` never waits; `close` flushes what is left. */
export class JobLog {
  #buffer: LogLine[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  /** The last lines, for a FailureReason that quotes the end of the output. */
  readonly tail: string[] = [];

  constructor(
    private readonly append: AppendLogs,
    private readonly p: Partition,
    readonly group: string,
    readonly stream: string,
  ) {}

  write(message: string): void {
    this.#buffer.push({ timestamp: Date.now(), message });
    this.tail.push(message);
    if (this.tail.length > 20) this.tail.shift();
    if (this.#buffer.length >= FLUSH_LINES) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Appends what is buffered; errors are swallowed so a log write never fails a job. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const lines = this.#buffer;
    this.#buffer = [];
    if (lines.length > 0) {
      this.#flushing = this.#flushing.then(() => this.append(this.p, this.group, this.stream, lines).catch(() => {}));
    }
    return this.#flushing;
  }

  close(): Promise<void> {
    return this.flush();
  }
}

/** Every value each metric took, in order, with when it was seen. */
export class MetricSeries {
  readonly #values = new Map<string, Array<{ value: number; at: number }>>();

  add(name: string, value: number, at = Date.now()): void {
    if (!Number.isFinite(value)) return;
    const s = this.#values.get(name);
    if (s) s.push({ value, at });
    else this.#values.set(name, [{ value, at }]);
  }

  /** FinalMetricDataList: each metric's last value. */
  final(): MetricData[] {
    return [...this.#values].map(([MetricName, s]) => {
      const last = s[s.length - 1]!;
      return { MetricName, Value: last.value, Timestamp: new Date(last.at) };
    });
  }

  /** The trial component's Metrics: Min, Max, Last, Count, Avg and StdDev of each metric. */
  summaries(sourceArn: string): TrialComponentMetricSummary[] {
    return [...this.#values].map(([MetricName, s]) => {
      const vals = s.map((x) => x.value);
      const avg = vals.reduce((a, b) => a + b, 0) / vals.length;
      const variance = vals.length > 1 ? vals.reduce((a, b) => a + (b - avg) ** 2, 0) / (vals.length - 1) : 0;
      return {
        MetricName,
        SourceArn: sourceArn,
        TimeStamp: new Date(s[s.length - 1]!.at),
        Min: Math.min(...vals),
        Max: Math.max(...vals),
        Last: vals[vals.length - 1],
        Count: vals.length,
        Avg: avg,
        StdDev: Math.sqrt(variance),
      };
    });
  }
}

/** `[12]\ttrain-rmse:0.51\tvalidation-rmse:0.60` → train:rmse 0.51, validation:rmse 0.60. */
export function evaluationMetrics(line: string): Array<[string, number]> {
  if (!line.startsWith('[')) return [];
  const out: Array<[string, number]> = [];
  for (const field of line.split('\t').slice(1)) {
    const m = /^([A-Za-z0-9_]+)-(.+):(-?[0-9.eE+-]+|nan|inf|-inf)$/.exec(field);
    if (m) out.push([`${m[1]}:${m[2]}`, Number(m[3])]);
  }
  return out;
}

/** A custom image's MetricDefinitions: each regex's first group is the metric's value. */
export function metricMatchers(
  defs: readonly MetricDefinition[] | undefined,
): (line: string) => Array<[string, number]> {
  const compiled = (defs ?? []).map((d) => ({ name: d.Name, re: RE2JS.compile(d.Regex) }));
  return (line) => {
    const out: Array<[string, number]> = [];
    for (const { name, re } of compiled) {
      const m = re.matcher(line);
      if (m.find() && m.groupCount() >= 1) {
        const v = Number(m.group(1));
        if (Number.isFinite(v)) out.push([name, v]);
      }
    }
    return out;
  };
}
