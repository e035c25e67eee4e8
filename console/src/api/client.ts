// The console's only way to reach Slipway: the public APIs a client uses (SageMaker JSON 1.1,
// Runtime, CloudWatch Logs, Prometheus /metrics, Gremlin on the graph port), every request through
// send(), which signs it with SigV4 (aws4fetch) using the credentials the user entered.
import { AwsClient } from 'aws4fetch';
import { ANONYMOUS, type Credentials, loadCredentials } from './credentials';

export interface RuntimeConfig {
  readonly graphPort: number;
  readonly region: string;
  readonly accountId: string;
  readonly version: string;
  /** 'sigv4': the server has a credentials file, so the console needs its user's keys. */
  readonly authentication?: 'none' | 'sigv4';
}

/** An API error in words: the service's code and message, or what went wrong on the way. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
  override toString(): string {
    return `${this.code}: ${this.message}`;
  }
}

let config: RuntimeConfig | undefined;

/** The server's facts (region, graph port); fetched once at start-up. */
export async function loadConfig(): Promise<RuntimeConfig> {
  if (config) return config;
  const res = await fetch(new URL('config.json', consoleBase()));
  if (!res.ok) throw new ApiError('ConfigUnavailable', `GET config.json answered ${res.status}`, res.status);
  config = (await res.json()) as RuntimeConfig;
  return config;
}

export function runtimeConfig(): RuntimeConfig {
  if (!config) throw new Error('loadConfig() first');
  return config;
}

/** Absolute URL of the console's root (…/console/). */
export function consoleBase(): string {
  return new URL('/console/', location.href).href;
}

const API_ORIGIN = () => location.origin;
export const graphOrigin = () => `${location.protocol}//${location.hostname}:${runtimeConfig().graphPort}`;

interface SendOptions {
  /** SigV4 service name: `sagemaker` (control plane and Runtime), `s3`, `neptune-db`; none = unsigned. */
  readonly service?: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Uint8Array;
  readonly signal?: AbortSignal;
  /** Sign with these instead of the saved ones (checking keys before they are kept). */
  readonly credentials?: Credentials;
}

const signers = new Map<string, AwsClient>();

/** WebCrypto, which signing needs, exists only in secure contexts (https, http://localhost). */
export const canSign = (): boolean => globalThis.crypto?.subtle !== undefined;

function signer(service: string, given?: Credentials): AwsClient {
  const creds = given ?? loadCredentials() ?? ANONYMOUS;
  const key = `${creds.accessKeyId}|${creds.sessionToken ?? ''}|${service}`;
  let s = signers.get(key);
  if (!s) {
    s = new AwsClient({ ...creds, service, region: runtimeConfig().region, retries: 0 });
    signers.set(key, s);
  }
  return s;
}

/**
 * Every request goes through here. Signing needs WebCrypto, which browsers give only to secure
 * contexts (https, or http on localhost/127.0.0.1); elsewhere the request goes unsigned.
 */
export async function send(url: string, o: SendOptions = {}): Promise<Response> {
  const init: RequestInit = {
    method: o.method ?? 'GET',
    headers: o.headers,
    body: o.body as BodyInit | undefined,
    signal: o.signal,
  };
  // Signed from the URL and init, not from a Request: aws4fetch would read a Request's body back
  // through a stream, an extra round trip through the browser for every call.
  const request = o.service && canSign() ? await signer(o.service, o.credentials).sign(url, init) : new Request(url, init);
  try {
    return await fetch(request);
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError('NetworkError', `Could not reach ${new URL(url).host}: ${(err as Error).message}`, 0);
  }
}

/** Forgets cached signers after the credentials change. */
export function credentialsChanged(): void {
  signers.clear();
}

/** One AWS JSON operation on the API port: `target` is the X-Amz-Target, `service` the signing name. */
async function jsonCall<T>(service: string, target: string, input: object, signal?: AbortSignal, version = '1.1'): Promise<T> {
  const res = await send(`${API_ORIGIN()}/`, {
    service,
    method: 'POST',
    headers: { 'content-type': `application/x-amz-json-${version}`, 'x-amz-target': target },
    body: JSON.stringify(input),
    signal,
  });
  const text = await res.text();
  if (!res.ok) throw jsonError(res, text);
  return (text ? JSON.parse(text) : {}) as T;
}

/** One SageMaker control-plane operation (AWS JSON 1.1). */
export function sagemaker<T = Record<string, unknown>>(
  op: string,
  input: object = {},
  signal?: AbortSignal,
): Promise<T> {
  return jsonCall<T>('sagemaker', `SageMaker.${op}`, input, signal);
}

/** One CloudWatch Logs operation (`Logs_20140328.*`, signed for `logs`): how job logs are read. */
export function cloudWatchLogs<T = Record<string, unknown>>(
  op: string,
  input: object = {},
  signal?: AbortSignal,
): Promise<T> {
  return jsonCall<T>('logs', `Logs_20140328.${op}`, input, signal);
}

/** One CloudWatch operation (JSON 1.0, `GraniteServiceVersion20100801.*`, signed for `monitoring`): stored metric history. */
export function cloudWatch<T = Record<string, unknown>>(op: string, input: object = {}, signal?: AbortSignal): Promise<T> {
  return jsonCall<T>('monitoring', `GraniteServiceVersion20100801.${op}`, input, signal, '1.0');
}

/** SageMaker Metrics' BatchGetMetrics (REST-JSON, signed for `sagemaker`): a job's or run's values by step. */
export async function batchGetMetrics<T = Record<string, unknown>>(queries: readonly object[], signal?: AbortSignal): Promise<T> {
  const res = await send(`${API_ORIGIN()}/BatchGetMetrics`, {
    service: 'sagemaker',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ MetricQueries: queries }),
    signal,
  });
  const text = await res.text();
  if (!res.ok) throw jsonError(res, text);
  return JSON.parse(text) as T;
}

function jsonError(res: Response, text: string): ApiError {
  let code = res.headers.get('x-amzn-errortype')?.split(':')[0] ?? `HTTP ${res.status}`;
  let message = text || res.statusText;
  try {
    const body = JSON.parse(text) as { __type?: string; message?: string; Message?: string };
    if (body.__type) code = body.__type.slice(body.__type.lastIndexOf('#') + 1);
    message = body.message ?? body.Message ?? message;
  } catch {
    // not JSON: keep the text
  }
  return new ApiError(code, message, res.status);
}

export interface Invocation {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly ms: number;
}

/** InvokeEndpoint (SageMaker Runtime). */
export async function invokeEndpoint(
  name: string,
  contentType: string,
  body: string,
  accept?: string,
): Promise<Invocation> {
  const started = performance.now();
  const headers: Record<string, string> = { 'content-type': contentType };
  if (accept) headers.accept = accept;
  const res = await send(`${API_ORIGIN()}/endpoints/${encodeURIComponent(name)}/invocations`, {
    service: 'sagemaker',
    method: 'POST',
    headers,
    body,
  });
  const text = await res.text();
  if (!res.ok) throw jsonError(res, text);
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    body: text,
    ms: performance.now() - started,
  };
}

/** One Gremlin query over HTTP on the graph port (Neptune's POST /gremlin); GraphSON v3 results. */
export async function gremlin(query: string, signal?: AbortSignal): Promise<unknown[]> {
  const res = await send(`${graphOrigin()}/gremlin`, {
    service: 'neptune-db',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ gremlin: query }),
    signal,
  });
  const text = await res.text();
  let body: { result?: { data?: { '@value'?: unknown[] } }; code?: string; detailedMessage?: string };
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(`HTTP ${res.status}`, text, res.status);
  }
  if (!res.ok) throw new ApiError(body.code ?? `HTTP ${res.status}`, body.detailedMessage ?? text, res.status);
  return body.result?.data?.['@value'] ?? [];
}

/**
 * A download link for an s3:// URI on this server (path-style), presigned for an hour with the
 * user's credentials, as `aws s3 presign` makes.
 */
export async function presignedGet(uri: string): Promise<string | undefined> {
  const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!m) return undefined;
  const url = `${API_ORIGIN()}/${m[1]}/${m[2]!.split('/').map(encodeURIComponent).join('/')}?X-Amz-Expires=3600`;
  if (!canSign()) return undefined;
  const signed = await signer('s3').sign(url, { method: 'GET', aws: { signQuery: true } });
  return signed.url;
}

/** Who a set of credentials signs as. */
export interface Identity {
  readonly arn?: string;
  readonly account?: string;
  readonly userId?: string;
  readonly accessKeyId: string;
}

/** Error codes meaning the server does not accept the keys themselves (not a missing permission). */
const REFUSED_KEYS = new Set([
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidAccessKeyId',
]);

/** Whether an error says the credentials themselves were refused (sign in again). */
export const refusedCredentials = (err: unknown): boolean => err instanceof ApiError && REFUSED_KEYS.has(err.code);

/**
 * Checks credentials with a signed call before they are kept: STS GetCallerIdentity (which every
 * principal may call, as on AWS) gives the principal's ARN. Throws an ApiError whose code says why
 * the server refused them.
 */
export async function callerIdentity(credentials: Credentials): Promise<Identity> {
  const res = await send(`${API_ORIGIN()}/`, {
    service: 'sts',
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body: 'Action=GetCallerIdentity&Version=2011-06-15',
    credentials,
  });
  const text = await res.text();
  const doc = new DOMParser().parseFromString(text, 'application/xml');
  const pick = (tag: string) => doc.getElementsByTagName(tag)[0]?.textContent ?? undefined;
  if (res.ok && pick('Arn')) {
    return { arn: pick('Arn'), account: pick('Account'), userId: pick('UserId'), accessKeyId: credentials.accessKeyId };
  }
  const code = pick('Code') ?? res.headers.get('x-amzn-errortype')?.split(':')[0] ?? `HTTP ${res.status}`;
  throw new ApiError(code, pick('Message') ?? (text || res.statusText), res.status);
}
