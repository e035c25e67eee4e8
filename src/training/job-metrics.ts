// A training job's metrics as SageMaker publishes them, into the metrics store: CloudWatch's
// /aws/sagemaker/TrainingJobs namespace (by TrainingJobName, and by Host `<job>/algo-1`), which the
// SageMaker SDK's TrainingJobAnalytics reads with GetMetricStatistics, and the job's own series by
// iteration (the round of a built-in algorithm's `[n]` line, else the metric's n-th value), which
// BatchGetMetrics and the console's metric curves read.
// https://docs.aws.amazon.com/sagemaker/latest/dg/training-metrics.html#define-train-metrics
import type { Logger } from 'pino';
import type { Partition } from '../domain/arn.js';
import type { Metrics } from '../metrics/index.js';
import { aggregateOf } from '../metrics/series.js';
import type { PointInput } from '../metrics/store.js';
import { runSeries } from '../services/sagemaker-metrics/index.js';

export const TRAINING_JOBS_NAMESPACE = '/aws/sagemaker/TrainingJobs';
const FLUSH_MS = 1000;

export class JobMetricsPublisher {
  #buffer: PointInput[] = [];
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  readonly #seen = new Map<string, number>();

  constructor(
    private readonly metrics: Metrics,
    private readonly p: Partition,
    private readonly jobName: string,
    private readonly jobArn: string,
    private readonly log: Logger,
  ) {}

  /** One value of a metric read off the job's output line `line`. */
  add(metricName: string, value: number, line: string, at = Date.now()): void {
    if (!Number.isFinite(value)) return;
    const round = /^\[(\d+)\]/.exec(line)?.[1];
    const nth = this.#seen.get(metricName) ?? 0;
    this.#seen.set(metricName, nth + 1);
    const agg = aggregateOf(value);
    const cw = (Name: string, Value: string): PointInput => ({
      series: { namespace: TRAINING_JOBS_NAMESPACE, metricName, dimensions: [{ Name, Value }] },
      timestamp: at,
      unit: 'None',
      resolution: 60,
      agg,
    });
    this.#buffer.push(cw('TrainingJobName', this.jobName), cw('Host', `${this.jobName}/algo-1`), {
      series: runSeries(this.jobArn, metricName),
      timestamp: at,
      unit: 'None',
      resolution: 1,
      step: round === undefined ? nth : Number(round),
      agg,
    });
    this.#timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Writes what is buffered; a failed write is logged, never failing the job. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const points = this.#buffer;
    this.#buffer = [];
    if (points.length > 0) {
      this.#writing = this.#writing.then(() =>
        this.metrics
          .write(this.p, points)
          .catch((err) => this.log.warn({ err, job: this.jobName }, 'training metrics could not be stored')),
      );
    }
    return this.#writing;
  }

  close(): Promise<void> {
    return this.flush();
  }
}
