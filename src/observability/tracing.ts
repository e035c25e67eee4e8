// OpenTelemetry traces of requests and background jobs, exported over OTLP/HTTP when the standard
// OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. The SDK is loaded
// only then, so a server without it starts as fast as before. A request carrying a W3C
// `traceparent` header continues the caller's trace.
// https://opentelemetry.io/docs/specs/otel/protocol/exporter/
// https://opentelemetry.io/docs/specs/semconv/rpc/rpc-spans/
import type { Logger } from 'pino';

export interface RequestSpanEnd {
  readonly service: string;
  readonly operation: string;
  readonly status: number;
  readonly requestId: string;
}

export interface Tracing {
  /** A server span from the request's arrival (`startMs`, epoch ms) to now. */
  request(
    headers: Readonly<Record<string, string | string[] | undefined>>,
    method: string,
    path: string,
    startMs: number,
    end: RequestSpanEnd,
  ): void;
  /** A span for one run of a job; the returned function ends it with the item's final status. */
  job(kind: string, id: string, attempt: number): (status: string) => void;
  /** Exports what is left and stops. */
  shutdown(): Promise<void>;
}

/** Whether the environment asks for trace export (OpenTelemetry's variables). */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (/^true$/i.test(env.OTEL_SDK_DISABLED ?? '')) return false;
  if ((env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').every((e) => e.trim() === 'none')) return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** Starts the SDK when the environment asks for it; undefined otherwise. */
export async function startTracing(o: {
  log: Logger;
  version: string;
  env?: NodeJS.ProcessEnv;
}): Promise<Tracing | undefined> {
  const env = o.env ?? process.env;
  if (!tracingWanted(env)) return undefined;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol && protocol !== 'http/json' && protocol !== 'http/protobuf') {
    o.log.warn({ protocol }, 'OTLP protocol not supported; traces are sent as OTLP/HTTP JSON');
  }
  const [api, core, sdk, exporter, resources] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME || 'slipway',
      'service.version': o.version,
    }),
    // The exporter reads the endpoint, headers and timeout from the OTEL_EXPORTER_OTLP_* variables.
    spanProcessors: [new sdk.BatchSpanProcessor(new exporter.OTLPTraceExporter())],
  });
  const tracer = provider.getTracer('slipway', o.version);
  const propagator = new core.W3CTraceContextPropagator();
  const getter = {
    keys: (h: Record<string, unknown>) => Object.keys(h),
    get: (h: Record<string, unknown>, k: string) => h[k] as string | string[] | undefined,
  };
  o.log.info(
    { endpoint: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT },
    'exporting traces (OpenTelemetry)',
  );
  return {
    request(headers, method, path, startMs, end) {
      const parent = propagator.extract(api.ROOT_CONTEXT, headers as Record<string, unknown>, getter);
      const span = tracer.startSpan(
        `${end.service}/${end.operation}`,
        {
          kind: api.SpanKind.SERVER,
          startTime: startMs,
          attributes: {
            'rpc.system': 'aws-api',
            'rpc.service': end.service,
            'rpc.method': end.operation,
            'http.request.method': method,
            'url.path': path,
            'http.response.status_code': end.status,
            'aws.request_id': end.requestId,
          },
        },
        parent,
      );
      if (end.status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end();
    },
    job(kind, id, attempt) {
      const span = tracer.startSpan(`job ${kind}`, {
        kind: api.SpanKind.INTERNAL,
        attributes: { 'job.kind': kind, 'job.id': id, 'job.attempt': attempt },
      });
      return (status) => {
        span.setAttribute('job.status', status);
        if (/^(Failed|MaxRuntimeExceeded|lost)$/.test(status)) span.setStatus({ code: api.SpanStatusCode.ERROR });
        span.end();
      };
    },
    async shutdown() {
      await provider.shutdown().catch((err: unknown) => o.log.warn({ err }, 'trace export did not finish'));
    },
  };
}
