// The AWS API port: picks the protocol of each request and hands it over.
//   X-Amz-Target                    → AWS JSON 1.1 (SageMaker control plane; Logs_20140328.* → CloudWatch Logs;
//                                     GraniteServiceVersion20100801.* → CloudWatch, JSON 1.0)
//   smithy-protocol: rpc-v2-cbor    → RPC v2 CBOR (CloudWatch as current SDKs send it)
//   SigV4 scope `sts` / `monitoring` → AWS query (STS; CloudWatch for older SDKs and the CLI)
//   PUT /BatchPutMetrics, POST /BatchGetMetrics → REST-JSON (SageMaker Metrics)
//   (src/http/service-route.ts decides these from what the request declares)
//   POST /endpoints/{name}/...      → REST-JSON (SageMaker Runtime)
//   GET /_slipway/health            → readiness
//   GET /console/...                → the web console's static files (unsigned requests only)
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { type AwsJsonProtocol, awsJsonError } from '../protocol/aws-json/aws-json.js';
import type { AwsQueryProtocol } from '../protocol/aws-query/aws-query.js';
import { RequestEntityTooLarge, SerializationException, UnknownOperationException } from '../protocol/common-errors.js';
import type { RpcV2CborProtocol } from '../protocol/rpc-v2-cbor/rpc-v2-cbor.js';
import { escapeXml } from '../protocol/rest-xml/xml.js';
import type { RequestContext } from '../protocol/context.js';
import { type RestJsonProtocol, restJsonError } from '../protocol/rest-json/rest-json.js';
import { ServiceError } from '../protocol/service-error.js';
import type { WireRequest, WireResponse } from '../protocol/wire.js';
import type { Authorizer } from '../auth/authorizer.js';
import { jsonAuthError, s3AuthError } from '../auth/errors.js';
import { type AuthService, gateFor, SERVICES, type ServiceName } from '../auth/services.js';
import { type ConsoleAssets, isConsolePath } from './console-assets.js';
import { queryServiceOfForm, type ServiceRoute, serviceRoute } from './service-route.js';
import { credentialScope } from './sigv4-scope.js';
import { writeResponse, readBody, BodyTooLargeError } from './io.js';
import { TurnStage } from './turn-stage.js';

/** A protocol that reads and writes the socket itself (S3 streams bodies of any size). */
export interface RawProtocolHandler {
  handle(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void>;
}

/** A protocol of a modelled service: it answers requests and writes any error its own way. */
export interface ServiceProtocol {
  handle(req: WireRequest, ctx: RequestContext): Promise<WireResponse>;
  error(err: unknown, ctx: RequestContext): WireResponse;
}

/** CloudWatch's three wire forms, one set of handlers behind them. */
export interface CloudWatchProtocols {
  readonly query: AwsQueryProtocol;
  readonly json: AwsJsonProtocol;
  readonly cbor: RpcV2CborProtocol;
}

const gunzipAsync = promisify(gunzip);

/**
 * The answer to a request signed for a service this server does not serve (the SageMaker SDK asks
 * IAM for a role's path, for instance): an error in the form the request's body suggests, which
 * every client reports as a service error it can handle.
 */
function unserved(service: string, req: IncomingMessage, ctx: RequestContext): WireResponse {
  const message = `This server does not serve the ${service} API; it serves sagemaker, sagemaker-runtime, s3, logs, monitoring (CloudWatch), sagemaker-metrics and sts.`;
  const type = String(req.headers['content-type'] ?? '');
  if (type.includes('json') || type.includes('cbor')) return awsJsonError(new UnknownOperationException(message), ctx);
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse><Error><Type>Sender</Type><Code>InvalidAction</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${ctx.requestId}</RequestId></ErrorResponse>`;
  return { status: 400, headers: { 'content-type': 'text/xml' }, body: xml };
}

export interface AwsApiOptions {
  readonly accountId: string;
  readonly defaultRegion: string;
  readonly log: Logger;
  readonly sagemaker: AwsJsonProtocol;
  /** The CloudWatch Logs API (job logs), for X-Amz-Target `Logs_20140328.*`. */
  readonly logs?: AwsJsonProtocol;
  /** AWS STS (query protocol, SigV4 service `sts`). */
  readonly sts?: AwsQueryProtocol;
  /** CloudWatch metrics (SigV4 service `monitoring`). */
  readonly cloudwatch?: CloudWatchProtocols;
  /** SageMaker Metrics (BatchPutMetrics, BatchGetMetrics). */
  readonly sagemakerMetrics?: RestJsonProtocol;
  readonly runtime: RestJsonProtocol;
  /**
   * The embedded S3 API, when on. It gets requests signed for service `s3`, and every request
   * that no other protocol claims (unsigned curl, virtual-hosted bucket names).
   */
  readonly s3?: RawProtocolHandler;
  /** Largest request body read into memory for JSON APIs. */
  readonly maxJsonBody?: number;
  /** Largest InvokeEndpoint payload (SageMaker's real-time limit, 6 MiB). */
  readonly maxInvokeBody?: number;
  /** Extra facts for /_slipway/health. */
  readonly health: () => Record<string, unknown>;
  /** Prometheus text for GET /metrics. */
  readonly metrics?: () => string | Buffer | Promise<string | Buffer>;
  /** SigV4 and IAM policies; absent (or anonymous) accepts every request. */
  readonly authorizer?: Authorizer;
  /** The web console's files, served at /console/. */
  readonly console?: ConsoleAssets;
  /** Told about every answered request (metrics, traces). */
  readonly observe?: (r: AnsweredRequest) => void;
}

/** A request once answered: which service and operation, how it ended, how long it took. */
export interface AnsweredRequest {
  /** The AWS SDK's service name: SageMaker, SageMakerRuntime, S3, CloudWatchLogs, or Slipway (health, metrics, console). */
  readonly service: string;
  readonly operation: string;
  readonly status: number;
  /** The error code answered, if any. */
  readonly error: string | undefined;
  readonly seconds: number;
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  /** Epoch ms of arrival. */
  readonly arrivedAt: number;
  readonly headers: IncomingMessage['headers'];
}

const MiB = 1024 * 1024;

/** What the authentication stage needs of a JSON or Runtime request whose body has been read. */
interface JsonAuthentication {
  readonly req: IncomingMessage;
  readonly body: Buffer;
  readonly ctx: RequestContext;
  readonly service: ServiceName;
}

/** The service a request was for, as metrics and logs name it. */
const SERVICE_NAMES: Readonly<Record<string, string>> = {
  sagemaker: 'SageMaker',
  logs: 'CloudWatchLogs',
  cloudwatch: 'CloudWatch',
  sts: 'STS',
  'sagemaker-metrics': 'SageMakerMetrics',
};

export class AwsApi {
  private draining = false;
  /**
   * JSON and Runtime requests are authenticated together, once per event-loop turn, with or
   * without a credentials file (see TurnStage): the handlers then follow one another.
   */
  private readonly authentication = new TurnStage((a: JsonAuthentication) =>
    this.authenticateJson(a.req, a.body, a.ctx, a.service),
  );

  constructor(private readonly opts: AwsApiOptions) {}

  /** Once set, health answers 503 so load balancers stop sending traffic. */
  startDraining(): void {
    this.draining = true;
  }

  /** Node request listener. */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    void this.serve(req, res);
  };

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const requestId = randomUUID();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    const authz = this.opts.authorizer?.enabled ? this.opts.authorizer : undefined;
    const scope = authz?.headerScope(req.headers) ?? credentialScope(req.headers, query);
    const ctx: RequestContext = {
      requestId,
      accountId: this.opts.accountId,
      region: scope?.region ?? this.opts.defaultRegion,
      accessKeyId: scope?.accessKeyId,
      log: this.opts.log,
      receivedAt: Date.now(),
      // Present from the start so that authentication's `{ ...ctx, gate }` only overrides them.
      // Objects a spread makes with an added property reach V8's old generation (Node 20): with
      // credentials on, it grew by ~160 bytes a request until a full collection, and every
      // scavenge took longer.
      gate: undefined,
      chunkSignatures: undefined,
      rejected: undefined,
      record: { operation: undefined, errorCode: undefined },
    };
    let op = '-';
    let service = 'Unknown';
    let response: WireResponse;
    try {
      // Temporary credentials are looked up once per key, before the synchronous checks.
      if (authz && scope && authz.needsSession(scope.accessKeyId)) await authz.loadSession(scope.accessKeyId);
      const target = req.headers['x-amz-target'];
      const s3 = this.opts.s3;
      if (s3 && scope?.service === 's3') {
        await this.serveRaw(s3, 'S3', req, res, this.authenticateS3(req, ctx), started, path);
        return;
      }
      // DEVIATION(aws): an unsigned path-style request for a bucket named `console` gets the web
      // console instead; the SDKs always sign, so they still reach such a bucket.
      if (this.opts.console && !scope && typeof target !== 'string' && isConsolePath(path)) {
        if (this.draining) res.setHeader('connection', 'close');
        this.opts.console.handle(req, res, path);
        req.resume();
        this.answered(req, ctx, 'Slipway', 'GetConsoleAsset', res.statusCode, undefined, started, path, false);
        return;
      }
      // Any X-Amz-Target is an AWS JSON request (S3 never sends one): an unknown service prefix is
      // answered as an unknown operation, not handed to S3. So is every other route a request
      // declares (service-route.ts).
      const route = serviceRoute({
        method: req.method ?? 'GET',
        path,
        query,
        headers: req.headers,
        signedFor: scope?.service,
      });
      if (route) {
        op =
          typeof target === 'string'
            ? target.slice(target.indexOf('.') + 1)
            : route.protocol === 'cbor' || route.protocol === 'rest-json'
              ? path.slice(path.lastIndexOf('/') + 1)
              : `${'service' in route ? route.service : 'query'} ${route.protocol}`;
        service = 'service' in route ? (SERVICE_NAMES[route.service] ?? route.service) : 'Query';
        response = await this.serveService(route, req, path, query, ctx);
      } else if (path === '/_slipway/health' && (req.method === 'GET' || req.method === 'HEAD')) {
        op = 'health';
        service = 'Slipway';
        response = this.health();
      } else if (path === '/metrics' && req.method === 'GET' && this.opts.metrics && (!scope || authz)) {
        op = 'GetMetrics';
        service = 'Slipway';
        // With a credentials file, metrics are an API like any other: signed, and allowed by policy.
        const authed = this.authenticateJson(req, Buffer.alloc(0), ctx, 'sagemaker');
        authed.gate?.action('slipway:GetMetrics', ['*']);
        response = authed.rejected
          ? awsJsonError(authed.rejected, ctx)
          : {
              status: 200,
              headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' },
              body: await this.opts.metrics(),
            };
      } else {
        const head: WireRequest = this.wire(req, path, query, Buffer.alloc(0));
        const matched = this.opts.runtime.match(head);
        if (matched) {
          op = matched.route.op.name;
          service = 'SageMakerRuntime';
          let body: Buffer | undefined;
          try {
            body = await readBody(req, this.opts.maxInvokeBody ?? 6 * MiB);
          } catch (err) {
            if (!(err instanceof BodyTooLargeError)) throw err;
          }
          const authed = body ? await this.authentication.next({ req, body, ctx, service: 'sagemaker-runtime' }) : ctx;
          response = authed.rejected
            ? restJsonError(authed.rejected, ctx)
            : body
              ? await this.opts.runtime.handle({ ...head, body }, authed, matched)
              : // What SageMaker Runtime answers for a payload over its limit.
                restJsonError(new ServiceError('ValidationError', `Request ${requestId} has oversize body.`, 400), ctx);
        } else if (s3) {
          await this.serveRaw(s3, 'S3', req, res, this.authenticateS3(req, ctx), started, path);
          return;
        } else {
          await readBody(req, this.opts.maxJsonBody ?? 16 * MiB).catch(() => undefined);
          throw new UnknownOperationException(`No operation matches ${req.method} ${path}.`);
        }
      }
    } catch (err) {
      if (err instanceof BodyTooLargeError) {
        response = awsJsonError(new RequestEntityTooLarge(`Request body is larger than ${err.limit} bytes.`), ctx);
        response.headers['connection'] = 'close';
      } else response = awsJsonError(err, ctx);
    }
    response.headers['x-amzn-requestid'] = requestId;
    // While draining, each answered request closes its connection so shutdown need not wait
    // for clients' keep-alive sockets to time out.
    if (this.draining) response.headers['connection'] = 'close';
    writeResponse(res, response, req.method === 'HEAD');
    const error = response.status >= 400 ? (response.headers['x-amzn-errortype'] as string | undefined) : undefined;
    this.answered(req, ctx, service, op, response.status, error, started, path, op !== 'health' && op !== 'GetMetrics');
  }

  /**
   * The request's log line, metrics and trace. Client errors are logged at info with their code (no
   * stack: the caller sent something wrong, the server is fine); server faults at error with the
   * request id (the fault's own stack was logged where it happened).
   */
  private answered(
    req: IncomingMessage,
    ctx: RequestContext,
    service: string,
    operation: string,
    status: number,
    error: string | undefined,
    started: number,
    path: string,
    log: boolean,
  ): void {
    const seconds = (performance.now() - started) / 1000;
    const logger = this.opts.log;
    if (log && (status >= 500 ? logger.isLevelEnabled('error') : logger.isLevelEnabled('info'))) {
      const fields = {
        requestId: ctx.requestId,
        service,
        op: operation,
        status,
        ms: Math.round(seconds * 100_000) / 100,
        ...(error ? { error } : {}),
      };
      if (status >= 500) logger.error(fields, 'request failed');
      else logger.info(fields, 'request');
    }
    this.opts.observe?.({
      service,
      operation,
      status,
      error,
      seconds,
      requestId: ctx.requestId,
      method: req.method ?? 'GET',
      path,
      arrivedAt: ctx.receivedAt,
      headers: req.headers,
    });
  }

  private async serveRaw(
    handler: RawProtocolHandler,
    protocol: string,
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
    started: number,
    path: string,
  ): Promise<void> {
    try {
      await handler.handle(req, res, ctx);
    } catch (err) {
      // The handler owns its error format; this only guards against a bug leaving the socket open.
      this.opts.log.error({ err, requestId: ctx.requestId }, 'unhandled error');
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('InternalError');
      } else res.destroy();
    }
    const record = ctx.record;
    this.answered(
      req,
      ctx,
      protocol,
      record?.operation ?? 'Unknown',
      res.statusCode,
      record?.errorCode,
      started,
      path,
      true,
    );
  }

  /** Serves a request of a modelled service whose body is read whole (JSON, CBOR, query, SageMaker Metrics). */
  private async serveService(
    route: ServiceRoute,
    req: IncomingMessage,
    path: string,
    query: URLSearchParams,
    ctx: RequestContext,
  ): Promise<WireResponse> {
    let r = route;
    let body: Buffer | undefined;
    if (r.protocol === 'unserved') {
      await readBody(req, this.opts.maxJsonBody ?? 16 * MiB).catch(() => undefined);
      return unserved(r.service, req, ctx);
    }
    if (r.protocol === 'query-form') {
      body = await readBody(req, this.opts.maxJsonBody ?? 16 * MiB);
      const service = queryServiceOfForm(body);
      if (!service) {
        const sts = this.opts.sts;
        return sts
          ? sts.error(new ServiceError('MissingAction', 'Missing Action', 400), ctx)
          : awsJsonError(new UnknownOperationException(), ctx);
      }
      r = { protocol: 'query', service };
    }
    const cloudwatch = this.opts.cloudwatch;
    let protocol: ServiceProtocol;
    let auth: ServiceName;
    switch (r.service) {
      case 'sagemaker':
        [protocol, auth] = [this.opts.sagemaker, 'sagemaker'];
        break;
      case 'logs':
        [protocol, auth] = this.opts.logs ? [this.opts.logs, 'logs'] : [this.opts.sagemaker, 'sagemaker'];
        break;
      case 'sts':
        if (!this.opts.sts) throw new UnknownOperationException(`No operation matches ${req.method} ${path}.`);
        [protocol, auth] = [this.opts.sts, 'sts'];
        break;
      case 'cloudwatch':
        if (!cloudwatch) return this.opts.sagemaker.error(new UnknownOperationException(), ctx);
        protocol = r.protocol === 'json' ? cloudwatch.json : r.protocol === 'cbor' ? cloudwatch.cbor : cloudwatch.query;
        auth = 'cloudwatch';
        break;
      case 'sagemaker-metrics': {
        const metrics = this.opts.sagemakerMetrics;
        if (!metrics) throw new UnknownOperationException(`No operation matches ${req.method} ${path}.`);
        protocol = { handle: (w, c) => metrics.handle(w, c), error: restJsonError };
        auth = 'sagemaker-metrics';
        break;
      }
    }
    if (body === undefined) {
      // CloudWatch takes at most 1 MB a request (PutMetricData), as AWS does; too large a body is
      // answered in the request's own protocol.
      const limit = r.service === 'cloudwatch' ? MiB : (this.opts.maxJsonBody ?? 16 * MiB);
      try {
        body = await readBody(req, limit);
      } catch (err) {
        if (!(err instanceof BodyTooLargeError) || r.service === 'sagemaker' || r.service === 'logs') throw err;
        const e = protocol.error(new RequestEntityTooLarge(`Request body is larger than ${err.limit} bytes.`), ctx);
        e.headers.connection = 'close';
        return e;
      }
    }
    const authed = await this.authentication.next({ req, body, ctx, service: auth });
    if (authed.rejected) return protocol.error(authed.rejected, ctx);
    // The signature covers the body as sent; a compressed one (PutMetricData) is read after it.
    const encoding = req.headers['content-encoding'];
    if (typeof encoding === 'string' && encoding.toLowerCase().includes('gzip')) {
      try {
        body = await gunzipAsync(body, { maxOutputLength: 16 * MiB });
      } catch (err) {
        const e =
          (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
            ? new RequestEntityTooLarge('The decompressed request body is larger than 16 MiB.')
            : new SerializationException('The request body is not valid gzip.');
        return protocol.error(e, authed);
      }
    }
    return protocol.handle(this.wire(req, path, query, body), authed);
  }

  /**
   * Verifies a JSON request's signature over its body; the context it returns carries the
   * caller's gate, or the error to answer with. Anonymous servers pass every request through.
   */
  private authenticateJson(
    req: IncomingMessage,
    body: Buffer,
    ctx: RequestContext,
    service: ServiceName,
  ): RequestContext {
    const authz = this.opts.authorizer;
    if (!authz?.enabled) return ctx;
    const r = authz.authenticate({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers }, { body });
    if ('reason' in r) return { ...ctx, rejected: ((SERVICES[service] as AuthService).authError ?? jsonAuthError)(r) };
    return { ...ctx, gate: gateFor(service, authz, r, ctx, req.socket) };
  }

  /** S3 is verified from its headers alone: the body streams, checked against the signed hash as it goes. */
  private authenticateS3(req: IncomingMessage, ctx: RequestContext): RequestContext {
    const authz = this.opts.authorizer;
    if (!authz?.enabled) return ctx;
    const r = authz.authenticate(
      { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers },
      { s3: true },
    );
    if ('reason' in r) return { ...ctx, rejected: s3AuthError(r) };
    const streaming = r.version === 4 && r.payloadHash.startsWith('STREAMING-AWS4-HMAC-SHA256-PAYLOAD');
    return {
      ...ctx,
      gate: gateFor('s3', authz, r, ctx, req.socket),
      chunkSignatures: streaming ? authz.chunkVerifier(r) : undefined,
    };
  }

  private wire(req: IncomingMessage, path: string, query: URLSearchParams, body: Buffer): WireRequest {
    return { method: req.method ?? 'GET', path, query, headers: req.headers, body };
  }

  private health(): WireResponse {
    const status = this.draining ? 503 : 200;
    return {
      status,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: this.draining ? 'draining' : 'ok', ...this.opts.health() }),
    };
  }
}
