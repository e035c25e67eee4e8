// `--load`: starts a bulk load on a Neptune-compatible endpoint (Slipway's graph port or Amazon
// Neptune), polls GET /loader/{id} until it ends, and returns the final status and first errors.
// https://docs.aws.amazon.com/neptune/latest/userguide/load-api-reference-load.html
import { type Credentials, signRequest } from './sigv4.js';

export interface LoadOutcome {
  readonly loadId: string;
  readonly status: string;
  readonly overallStatus: Record<string, unknown>;
  readonly errorLogs: readonly Record<string, unknown>[];
}

export interface LoadOptions {
  readonly endpoint: string;
  readonly source: string;
  readonly format: 'csv' | 'opencypher';
  readonly region: string;
  readonly iamRoleArn?: string;
  /** Signs requests for `neptune-db` when set (IAM-authenticated Neptune). */
  readonly credentials?: Credentials;
  readonly pollMs?: number;
  readonly onStatus?: (status: string, overall: Record<string, unknown>) => void;
}

const FINISHED = (s: string) => !['LOAD_NOT_STARTED', 'LOAD_IN_QUEUE', 'LOAD_IN_PROGRESS'].includes(s);

async function call(o: LoadOptions, method: string, path: string, body?: unknown): Promise<Record<string, any>> {
  const url = new URL(path, o.endpoint.endsWith('/') ? o.endpoint : `${o.endpoint}/`);
  const text = body === undefined ? '' : JSON.stringify(body);
  let headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  if (o.credentials) {
    headers = {
      ...headers,
      ...signRequest({
        method,
        url,
        headers,
        body: text,
        region: o.region,
        service: 'neptune-db',
        credentials: o.credentials,
      }),
    };
  }
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : text });
  const json = (await res.json().catch(() => ({}))) as Record<string, any>;
  if (!res.ok) {
    throw new Error(
      `${method} ${url.pathname}: HTTP ${res.status} ${json.code ?? ''}: ${json.detailedMessage ?? json.message ?? ''}`.trim(),
    );
  }
  return json;
}

export async function loadIntoNeptune(o: LoadOptions): Promise<LoadOutcome> {
  const started = await call(o, 'POST', 'loader', {
    source: o.source,
    format: o.format,
    iamRoleArn: o.iamRoleArn ?? '',
    region: o.region,
    mode: 'AUTO',
    failOnError: 'TRUE',
    parallelism: 'HIGH',
    updateSingleCardinalityProperties: 'TRUE',
    queueRequest: 'TRUE',
  });
  const loadId = started.payload?.loadId as string;
  for (;;) {
    const s = await call(o, 'GET', `loader/${encodeURIComponent(loadId)}?details=true&errors=true&errorsPerPage=10`);
    const overall = (s.payload?.overallStatus ?? {}) as Record<string, unknown>;
    const status = String(overall.status);
    o.onStatus?.(status, overall);
    if (FINISHED(status)) {
      return { loadId, status, overallStatus: overall, errorLogs: s.payload?.errors?.errorLogs ?? [] };
    }
    await new Promise((r) => setTimeout(r, o.pollMs ?? 1000));
  }
}
