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

/** Serialises a value to JSON, writing Date as epoch seconds (AWS JSON protocols' timestamp format). */
export function toAwsJson(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, v) {
    const raw = this[key];
    if (raw instanceof Date) return raw.getTime() / 1000;
    if (raw instanceof Uint8Array) return Buffer.from(raw).toString('base64');
    return v;
  });
}

export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}
