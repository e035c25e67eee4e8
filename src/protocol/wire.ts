// The protocol layer's view of HTTP: a fully read request and a response to write. Keeping
// protocols off the socket lets them be tested without one (as Hono's app.request() does).
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

export interface WireRequest {
  readonly method: string;
  /** Path without the query string, still percent-encoded. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string | Readable | null;
}

/**
 * Serialises a value to JSON, writing Date as epoch seconds (AWS JSON protocols' timestamp format)
 * and bytes as base64. The value is first copied with those converted, then stringified without
 * a replacer: a replacer is a call per key, four times the cost on a large answer (1,440
 * datapoints of GetMetricStatistics).
 */
export function toAwsJson(value: unknown): string {
  return JSON.stringify(awsJsonValue(value));
}

function awsJsonValue(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Date) return v.getTime() / 1000;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  if (Array.isArray(v)) {
    const a = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) a[i] = awsJsonValue(v[i]);
    return a;
  }
  // Anything else with its own JSON form keeps it, as JSON.stringify would have written it.
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return v;
  const o: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined) o[k] = awsJsonValue(x);
  }
  return o;
}

export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}
