// What a running job writes as it goes: its log stream in CloudWatch Logs (lines appended in
// bounded batches with backpressure, up to a per-job limit) and the metrics read off its output, as SageMaker does for training jobs:
// the built-in algorithm's evaluation lines (`[12]#011train-rmse:0.51#011validation-rmse:0.60` →
// train:rmse, validation:rmse), or a custom image's AlgorithmSpecification.MetricDefinitions regexes.
// https://docs.aws.amazon.com/sagemaker/latest/dg/training-metrics.html
import { RE2JS } from 're2js';
import type { Partition } from '../domain/arn.js';
import type { MetricData, MetricDefinition, TrialComponentMetricSummary } from '../generated/sagemaker/shapes.js';
import type { LogLine } from '../storage/repositories/log-events.js';

/** Lines are appended at most this often (and at once when a batch is full). */
const FLUSH_MS = 200;
/** A batch: at most this many lines or bytes, one transaction. */
const BATCH_LINES = 500;
const BATCH_BYTES = 1024 * 1024;
/** Batches waiting for the database before the program's output is paused. */
const MAX_PENDING = 2;
/** CloudWatch Logs counts 26 bytes per event on top of its message. */
const EVENT_OVERHEAD = 26;
/** The per-job log limit unless the server is given another (--job-log-limit-mb). */
export const DEFAULT_LOG_LIMIT_BYTES = 32 * 1024 * 1024;

export type AppendLogs = (p: Partition, group: string, stream: string, lines: readonly LogLine[]) => Promise<void>;

const MiB = (n: number) => `${+(n / 1024 / 1024).toFixed(1)} MiB`;

/**
 * A job's log stream. `write` appends in bounded batches and returns a promise when two batches
 * already wait for the database: its caller (the sandbox's line reader) then pauses the program's
 * output until it settles, so a flood is held in the program's pipe, not in the server's memory.
 * Past `limitBytes` lines are counted but not kept, and the stream says so.
 */
export class JobLog {
  #buffer: LogLine[] = [];
  #bufferBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #pending = 0;
  #kept = 0;
  #truncated = false;
  #summarized = false;
  #droppedLines = 0;
  #droppedBytes = 0;
  /** The last lines, for a FailureReason that quotes the end of the output. */
  readonly tail: string[] = [];

  constructor(
    private readonly append: AppendLogs,
    private readonly p: Partition,
    readonly group: string,
    readonly stream: string,
    readonly limitBytes = DEFAULT_LOG_LIMIT_BYTES,
  ) {}

  /** Bytes of the stream not kept (past the limit). */
  get droppedBytes(): number {
    return this.#droppedBytes;
  }

  /** The limit was reached: further lines are only counted (the sandbox's reader may stop splitting them). */
  get truncated(): boolean {
    return this.#truncated;
  }

  /** Output past the limit, counted without being split into lines; `end` refreshes the tail. */
  skipped(lines: number, bytes: number, end: string): void {
    this.#droppedLines += lines;
    this.#droppedBytes += bytes;
    const last = end.split('\n').slice(1, -1).slice(-20);
    this.tail.push(...last.map((l) => (l.length > 2048 ? l.slice(0, 2048) : l)));
    this.tail.splice(0, Math.max(0, this.tail.length - 20));
  }

  write(message: string): void | Promise<void> {
    this.tail.push(message.length > 2048 ? message.slice(0, 2048) : message);
    if (this.tail.length > 20) this.tail.shift();
    const size = Buffer.byteLength(message) + EVENT_OVERHEAD;
    if (this.#truncated || this.#kept + size > this.limitBytes) {
      if (!this.#truncated) {
        this.#truncated = true;
        this.#push(
          `[Slipway] This log reached its limit of ${MiB(this.limitBytes)} (--job-log-limit-mb): further output is counted, not kept.`,
        );
        this.flush();
      }
      this.#droppedLines++;
      this.#droppedBytes += size - EVENT_OVERHEAD;
      return;
    }
    this.#kept += size;
    this.#push(message);
    if (this.#buffer.length >= BATCH_LINES || this.#bufferBytes >= BATCH_BYTES) return this.#backpressure(this.flush());
    this.#timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  #push(message: string): void {
    this.#buffer.push({ timestamp: Date.now(), message });
    this.#bufferBytes += message.length;
  }

  #backpressure(flushed: Promise<void>): Promise<void> | undefined {
    return this.#pending >= MAX_PENDING ? flushed : undefined;
  }

  /** Appends what is buffered (after the batches before it); errors are swallowed so a log write never fails a job. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const lines = this.#buffer;
    this.#buffer = [];
    this.#bufferBytes = 0;
    if (lines.length > 0) {
      this.#pending++;
      this.#flushing = this.#flushing.then(() =>
        this.append(this.p, this.group, this.stream, lines)
          .catch(() => {})
          .finally(() => {
            this.#pending--;
          }),
      );
    }
    return this.#flushing;
  }

  /** Flushes what is left, with a last line counting what the limit cut. */
  close(): Promise<void> {
    if (this.#truncated && !this.#summarized) {
      this.#summarized = true;
      this.#push(
        `[Slipway] Log truncated: ${this.#droppedLines} more lines (${MiB(this.#droppedBytes)}) were written than the log's limit of ${MiB(this.limitBytes)} keeps.`,
      );
    }
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
