// What the server tells about itself: the metrics registry behind GET /metrics (process, HTTP,
// database, jobs, logs, storage, concurrency; endpoint series come from the inference engine),
// the logger that counts its lines, and, when asked for, OpenTelemetry traces.
import type { Logger } from 'pino';
import type { AnsweredRequest } from '../http/aws-api.js';
import type { JobObserver } from '../jobs/types.js';
import type { Database } from '../storage/db/types.js';
import { instrumentDatabase } from './db-metrics.js';
import { httpMetrics } from './http-metrics.js';
import { jobMetrics } from './job-metrics.js';
import { createLogger, type LogFormat } from './logger.js';
import { registerProcessMetrics } from './process-metrics.js';
import { MetricsRegistry } from './registry.js';
import { startTracing, type Tracing } from './tracing.js';

export class Telemetry {
  readonly registry = new MetricsRegistry();
  readonly log: Logger;
  #tracing: Tracing | undefined;
  readonly #process = registerProcessMetrics(this.registry);
  readonly #http = httpMetrics(this.registry);

  /** `log`: a logger of the caller's (tests); otherwise one that counts its lines here. */
  constructor(o: { log?: Logger; level: string; format: LogFormat }) {
    this.log =
      o.log ??
      createLogger({
        level: o.level,
        format: o.format,
        counters: {
          lines: this.registry.counter('slipway_log_lines_total', 'Log lines written, by level.', ['level']),
          bytes: this.registry.counter('slipway_log_bytes_total', 'Bytes of log lines written (as JSON), by level.', [
            'level',
          ]),
        },
      });
  }

  /** Starts trace export when OTEL_EXPORTER_OTLP_ENDPOINT asks for it (loading the SDK only then). */
  async startTracing(version: string): Promise<void> {
    this.#tracing = await startTracing({ log: this.log, version });
  }

  get tracing(): boolean {
    return this.#tracing !== undefined;
  }

  database(db: Database): Database {
    return instrumentDatabase(db, this.registry);
  }

  jobs(db: Database): JobObserver {
    const metrics = jobMetrics(this.registry, db);
    return {
      started: (kind, id, attempt, lag) => {
        const endMetrics = metrics.started(kind, id, attempt, lag);
        const endSpan = this.#tracing?.job(kind, id, attempt);
        return (status) => {
          endMetrics(status);
          endSpan?.(status);
        };
      },
    };
  }

  readonly request = (r: AnsweredRequest): void => {
    this.#http.request(r.service, r.operation, r.status, r.seconds);
    this.#tracing?.request(r.headers, r.method, r.path, r.arrivedAt, r);
  };

  async close(): Promise<void> {
    this.#process.stop();
    await this.#tracing?.shutdown();
  }
}
