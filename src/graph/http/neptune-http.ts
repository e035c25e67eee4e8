// Neptune's HTTP wire format on the graph port: JSON or form bodies, "TRUE"/"FALSE" strings as
// well as JSON booleans, answers as `{"status": "200 OK", "payload": ...}` and errors as
// `{"code", "requestId", "detailedMessage"}` with Neptune's HTTP statuses (and `message`, see below).
// https://docs.aws.amazon.com/neptune/latest/userguide/load-api-reference.html
// https://docs.aws.amazon.com/neptune/latest/apiref/CommonErrors.html (codes: the neptunedata model)
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import {
  BadRequestException,
  InternalFailureException,
  InvalidParameterException,
  MethodNotAllowedException,
  MissingParameterException,
  UnsupportedOperationException,
} from '../../generated/neptunedata/errors.js';
import type { NeptuneDataHandlers } from '../../generated/neptunedata/handlers.js';
import { model } from '../../generated/neptunedata/model.js';
import type {
  Action,
  Format,
  Mode,
  Parallelism,
  S3BucketRegion,
  StartLoaderJobInput,
} from '../../generated/neptunedata/shapes.js';
import { BodyTooLargeError, readBody } from '../../http/io.js';
import { ServiceError } from '../../protocol/service-error.js';
import { credentialScope } from '../../http/sigv4-scope.js';

const BODY_LIMIT = 1024 * 1024;

type Params = Record<string, unknown>;

/** Body parameters: JSON object, or form fields (`curl -d 'action=...'`). */
function parseBody(req: IncomingMessage, body: Buffer): Params {
  const text = body.toString('utf8').trim();
  if (text === '') return {};
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (type.includes('json') || text.startsWith('{')) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      throw new BadRequestException('Failed to parse the request body as JSON');
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v))
      throw new BadRequestException('The request body must be a JSON object');
    return v as Params;
  }
  const out: Params = {};
  for (const [k, v] of new URLSearchParams(text)) {
    // Repeated form fields (dependencies=a&dependencies=b) become a list.
    if (k in out) out[k] = ([] as unknown[]).concat(out[k], v);
    else out[k] = v;
  }
  return out;
}

const enumOf = (shape: keyof typeof model.shapes): readonly string[] =>
  (model.shapes[shape] as { enum?: readonly string[] }).enum ?? [];

function str(p: Params, name: string): string | undefined {
  const v = p[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new InvalidParameterException(`Parameter '${name}' must be a string`);
  return v;
}

function required(p: Params, name: string): string {
  const v = str(p, name);
  if (v === undefined || v === '') throw new MissingParameterException(`Missing required parameter '${name}'`);
  return v;
}

function oneOf<T extends string>(
  p: Params,
  name: string,
  shape: keyof typeof model.shapes,
  caseInsensitive: boolean,
): T | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  const allowed = enumOf(shape);
  const hit = allowed.find((a) => (caseInsensitive ? a.toLowerCase() === v.toLowerCase() : a === v));
  if (!hit)
    throw new InvalidParameterException(
      `Invalid value '${v}' for parameter '${name}'. Allowed values: ${allowed.join(', ')}`,
    );
  return hit as T;
}

/** JSON booleans from the SDK, "TRUE"/"FALSE" (any case) from curl and form bodies. */
function bool(v: unknown, name: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    if (/^true$/i.test(v)) return true;
    if (/^false$/i.test(v)) return false;
  }
  throw new InvalidParameterException(
    `Invalid value '${String(v)}' for parameter '${name}'. Allowed values: TRUE, FALSE`,
  );
}

function positiveInt(v: string | null, name: string, shape: keyof typeof model.shapes): number | undefined {
  if (v === null) return undefined;
  const meta = model.shapes[shape] as { min?: number; max?: number };
  const n = Number(v);
  if (!/^\d+$/.test(v) || (meta.min !== undefined && n < meta.min) || (meta.max !== undefined && n > meta.max)) {
    const range = meta.max !== undefined ? `${meta.min} through ${meta.max}` : `positive integers`;
    throw new InvalidParameterException(`Invalid value '${v}' for parameter '${name}'. Allowed values: ${range}`);
  }
  return n;
}

/** POST /loader parameters → the model's StartLoaderJobInput. */
export function decodeStartLoaderJob(p: Params, defaultRegion: string): StartLoaderJobInput {
  const source = required(p, 'source');
  const format = oneOf<Format>(p, 'format', 'Format', true);
  if (!format) throw new MissingParameterException("Missing required parameter 'format'");
  const deps = p.dependencies;
  let dependencies: string[] | undefined;
  if (deps !== undefined && deps !== null) {
    const list = typeof deps === 'string' ? (deps.trim().startsWith('[') ? JSON.parse(deps) : [deps]) : deps;
    if (!Array.isArray(list) || !list.every((d) => typeof d === 'string')) {
      throw new InvalidParameterException("Parameter 'dependencies' must be a list of load ids");
    }
    if (list.length > 1) throw new InvalidParameterException("Parameter 'dependencies' can hold at most one load id");
    dependencies = list;
  }
  let parserConfiguration: Record<string, string> | undefined;
  const pc = typeof p.parserConfiguration === 'string' ? JSON.parse(p.parserConfiguration) : p.parserConfiguration;
  if (pc !== undefined && pc !== null) {
    if (typeof pc !== 'object' || Array.isArray(pc))
      throw new InvalidParameterException("Parameter 'parserConfiguration' must be an object");
    parserConfiguration = Object.fromEntries(Object.entries(pc).map(([k, v]) => [k, String(v)]));
  }
  return {
    source,
    format,
    // DEVIATION(neptune): region and iamRoleArn are required by Neptune; Slipway reads the source
    // through its own BlobStore and needs neither, so a bare `{"source","format"}` loads too,
    // unless a credentials file is in force: then iamRoleArn must name a role allowed to read it.
    s3BucketRegion: oneOf<S3BucketRegion>(p, 'region', 'S3BucketRegion', false) ?? (defaultRegion as S3BucketRegion),
    iamRoleArn: str(p, 'iamRoleArn') ?? '',
    mode: oneOf<Mode>(p, 'mode', 'Mode', true),
    failOnError: bool(p.failOnError, 'failOnError'),
    parallelism: oneOf<Parallelism>(p, 'parallelism', 'Parallelism', true),
    parserConfiguration,
    updateSingleCardinalityProperties: bool(p.updateSingleCardinalityProperties, 'updateSingleCardinalityProperties'),
    queueRequest: bool(p.queueRequest, 'queueRequest'),
    dependencies,
    userProvidedEdgeIds: bool(p.userProvidedEdgeIds, 'userProvidedEdgeIds'),
    edgeOnlyLoad: bool(p.edgeOnlyLoad, 'edgeOnlyLoad'),
  };
}

export interface NeptuneHttpOptions {
  readonly handlers: NeptuneDataHandlers;
  readonly log: Logger;
  readonly accountId: string;
  readonly defaultRegion: string;
}

type Route = { status: number; body: unknown };

/** The request listener of the graph port. */
export function neptuneListener(o: NeptuneHttpOptions) {
  const { handlers, log } = o;
  const route = async (req: IncomingMessage, requestId: string): Promise<Route> => {
    const url = new URL(req.url ?? '/', 'http://graph');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    const q = url.searchParams;
    const ctx = {
      requestId,
      accountId: o.accountId,
      region: credentialScope(req.headers, url.searchParams)?.region ?? o.defaultRegion,
      log: log.child({ requestId }),
      receivedAt: Date.now(),
    };
    let body: Params = {};
    if (method === 'POST' || method === 'PUT') body = parseBody(req, await readBody(req, BODY_LIMIT));
    else req.resume();
    const ok = (x: unknown): Route => ({ status: 200, body: x });

    if (path === '/status') {
      if (method !== 'GET' && method !== 'POST')
        throw new MethodNotAllowedException(`Method ${method} is not allowed on /status`);
      return ok(await handlers.getEngineStatus({}, ctx));
    }
    if (path === '/system') {
      if (method !== 'POST') throw new MethodNotAllowedException(`Method ${method} is not allowed on /system`);
      const raw = str(body, 'action');
      if (raw === undefined || raw === '')
        throw new MissingParameterException("Missing system command parameter 'action'");
      const action = enumOf('Action').find((a) => a === raw) as Action | undefined;
      if (!action)
        throw new InvalidParameterException(`System command parameter 'action' : '${raw}' is not a valid action`);
      const out = await handlers.executeFastReset({ action, token: str(body, 'token') }, ctx);
      return ok(out.payload ? { status: out.status, payload: out.payload } : { status: out.status });
    }
    const loader = /^\/loader(?:\/([^/]+))?$/.exec(path);
    if (loader) {
      const loadId = loader[1] ? decodeURIComponent(loader[1]) : (q.get('loadId') ?? undefined);
      if (method === 'POST' && !loader[1]) {
        return ok(await handlers.startLoaderJob(decodeStartLoaderJob(body, ctx.region), ctx));
      }
      if (method === 'GET' && loadId) {
        return ok(
          await handlers.getLoaderJobStatus(
            {
              loadId,
              details: bool(q.get('details') ?? undefined, 'details'),
              errors: bool(q.get('errors') ?? undefined, 'errors'),
              page: positiveInt(q.get('page'), 'page', 'PositiveInteger'),
              errorsPerPage: positiveInt(q.get('errorsPerPage'), 'errorsPerPage', 'PositiveInteger'),
            },
            ctx,
          ),
        );
      }
      if (method === 'GET') {
        return ok(
          await handlers.listLoaderJobs(
            {
              limit: positiveInt(q.get('limit'), 'limit', 'ListLoaderJobsInputLimitInteger'),
              includeQueuedLoads: bool(q.get('includeQueuedLoads') ?? undefined, 'includeQueuedLoads'),
            },
            ctx,
          ),
        );
      }
      if (method === 'DELETE') {
        if (!loadId) throw new MissingParameterException("Missing required parameter 'loadId'");
        return ok(await handlers.cancelLoaderJob({ loadId }, ctx));
      }
      throw new MethodNotAllowedException(`Method ${method} is not allowed on ${path}`);
    }
    // Neptune's answer for a query language or feature it does not offer ("<operation>
    // operation/feature unsupported", 400 UnsupportedOperationException: the openCypher exceptions
    // table of the Neptune User Guide). /status advertises only Gremlin, so clients can tell first.
    const language = /^\/(opencypher|sparql)(?:\/|$)/i.exec(path)?.[1]?.toLowerCase();
    if (language) {
      const name = language === 'sparql' ? 'SPARQL' : 'openCypher';
      throw new UnsupportedOperationException(
        `${name} operation/feature unsupported: this graph store answers Gremlin queries (POST /gremlin, GET /gremlin?gremlin=..., ws://<host>:<port>/gremlin)`,
      );
    }
    throw new UnsupportedOperationException(`Slipway's graph API does not serve ${method} ${path}`);
  };

  return (req: IncomingMessage, res: ServerResponse): void => {
    const requestId = randomUUID();
    route(req, requestId)
      .catch((err: unknown): Route => {
        let e: ServiceError;
        if (err instanceof ServiceError) e = err;
        else if (err instanceof BodyTooLargeError) e = new BadRequestException(`Request body over ${err.limit} bytes`);
        else if (err instanceof SyntaxError) e = new BadRequestException(`Malformed request parameter: ${err.message}`);
        else {
          log.error({ err, requestId }, 'graph API: internal error');
          e = new InternalFailureException('An internal error occurred. Check the server log for this request id.');
        }
        // DEVIATION(neptune): `message` repeats detailedMessage on every error of the graph port, so
        // that an SDK error (the JS SDK reads `message`) carries the sentence, not "UnknownError".
        return {
          status: e.httpStatus,
          body: { code: e.code, requestId, detailedMessage: e.message, message: e.message },
        };
      })
      .then(({ status, body }) => {
        const text = JSON.stringify(body);
        res.writeHead(status, {
          'content-type': 'application/json;charset=UTF-8',
          'content-length': Buffer.byteLength(text),
          'x-amzn-requestid': requestId,
        });
        res.end(text);
      })
      .catch((err) => log.error({ err, requestId }, 'graph API: could not write the response'));
  };
}
