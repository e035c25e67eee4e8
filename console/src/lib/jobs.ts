// The three kinds of SageMaker job as the console reads them: which List/Describe operations,
// which fields hold the name, status and times, and where CloudWatch Logs keeps their output.
import { cloudWatchLogs } from '../api/client';

export type JobKind = 'training' | 'transform' | 'processing';

export interface KindInfo {
  readonly kind: JobKind;
  readonly title: string;
  /** `Training` → ListTrainingJobs, DescribeTrainingJob, TrainingJobSummaries, TrainingJobStatus … */
  readonly word: 'Training' | 'Transform' | 'Processing';
  readonly logGroup: string;
  /** The field with the job's end time in its summary and description. */
  readonly endField: string;
  readonly startField: string;
  readonly statuses: readonly string[];
}

const info = (kind: JobKind, word: KindInfo['word'], statuses: string[]): KindInfo => ({
  kind,
  word,
  title: `${word} jobs`,
  logGroup: `/aws/sagemaker/${word}Jobs`,
  endField: `${word}EndTime`,
  startField: `${word}StartTime`,
  statuses,
});

export const KINDS: Record<JobKind, KindInfo> = {
  training: info('training', 'Training', ['InProgress', 'Completed', 'Failed', 'Stopping', 'Stopped']),
  transform: info('transform', 'Transform', ['InProgress', 'Completed', 'Failed', 'Stopping', 'Stopped']),
  processing: info('processing', 'Processing', ['InProgress', 'Completed', 'Failed', 'Stopping', 'Stopped']),
};

export const isKind = (s: string | undefined): s is JobKind =>
  s === 'training' || s === 'transform' || s === 'processing';

export const ops = (k: KindInfo) => ({
  list: `List${k.word}Jobs`,
  describe: `Describe${k.word}Job`,
  summaries: `${k.word}JobSummaries`,
  name: `${k.word}JobName`,
  arn: `${k.word}JobArn`,
  status: `${k.word}JobStatus`,
});

export const FINISHED = new Set(['Completed', 'Failed', 'Stopped']);

export interface LogEvent {
  readonly timestamp: number;
  readonly message: string;
}

/** The job's log streams (`<job>/algo-1-<epoch>`), oldest first. */
export async function jobStreams(k: KindInfo, job: string, signal?: AbortSignal): Promise<string[]> {
  const names: string[] = [];
  let nextToken: string | undefined;
  do {
    const r = await cloudWatchLogs<{ logStreams?: { logStreamName: string }[]; nextToken?: string }>(
      'DescribeLogStreams',
      { logGroupName: k.logGroup, logStreamNamePrefix: `${job}/`, nextToken },
      signal,
    ).catch((err: { code?: string }) => {
      // No job of this kind has written a line yet: the group does not exist.
      if (err.code === 'ResourceNotFoundException') return { logStreams: [], nextToken: undefined };
      throw err;
    });
    names.push(...(r.logStreams ?? []).map((s) => s.logStreamName));
    nextToken = r.nextToken;
  } while (nextToken);
  return names.sort((a, b) => epochOf(a) - epochOf(b) || a.localeCompare(b));
}

const epochOf = (stream: string) => Number(/-(\d+)$/.exec(stream)?.[1] ?? 0);

export interface LogPage {
  readonly events: LogEvent[];
  /** Where the next read starts (GetLogEvents' nextForwardToken). */
  readonly next: string;
}

/** One forward page of a stream from `token` (or its head). */
export async function logPage(
  k: KindInfo,
  stream: string,
  token: string | undefined,
  limit: number,
  signal?: AbortSignal,
): Promise<LogPage> {
  const r = await cloudWatchLogs<{ events?: LogEvent[]; nextForwardToken: string }>(
    'GetLogEvents',
    { logGroupName: k.logGroup, logStreamName: stream, startFromHead: true, nextToken: token, limit },
    signal,
  );
  return { events: r.events ?? [], next: r.nextForwardToken };
}

/**
 * Every line of a stream, read forward until the token stops moving (how CloudWatch says "the
 * end for now"), at most `max` lines.
 */
export async function wholeLog(k: KindInfo, stream: string, max: number, signal?: AbortSignal): Promise<string[]> {
  const lines: string[] = [];
  let token: string | undefined;
  for (;;) {
    const page = await logPage(k, stream, token, 10_000, signal);
    for (const e of page.events) lines.push(e.message);
    if (page.events.length === 0 || page.next === token || lines.length >= max) return lines.slice(0, max);
    token = page.next;
  }
}

/**
 * Whether a training job ran SageMaker's built-in XGBoost algorithm (its image, without a script-mode
 * program): SageMaker then fills AlgorithmSpecification.MetricDefinitions with the algorithm's own,
 * which a CreateTrainingJob may not repeat.
 */
export function builtinAlgorithm(j: Record<string, unknown>): boolean {
  const image = (j.AlgorithmSpecification as { TrainingImage?: string } | undefined)?.TrainingImage ?? '';
  const script = (j.HyperParameters as Record<string, unknown> | undefined)?.sagemaker_program !== undefined;
  return /\/(sagemaker-)?xgboost:/.test(image) && !script;
}
