// Neptune's Gremlin HTTP endpoint: POST /gremlin {"gremlin": "..."} and GET /gremlin?gremlin=...,
// answered with the TinkerPop HTTP envelope and GraphSON v3 results; errors in Neptune's shape.
// https://docs.aws.amazon.com/neptune/latest/userguide/access-graph-gremlin-rest.html
// https://tinkerpop.apache.org/docs/3.7.2/reference/#connecting-via-http
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import {
  BadRequestException,
  InternalFailureException,
  MalformedQueryException,
  MemoryLimitExceededException,
  MethodNotAllowedException,
  MissingParameterException,
} from '../../generated/neptunedata/errors.js';
import { BodyTooLargeError, readBody } from '../../http/io.js';
import { ServiceError } from '../../protocol/service-error.js';
import { EMPTY_MAP, toGraphSON } from './graphson.js';
import type { GremlinService, QueryAccess } from './service.js';

const BODY_LIMIT = 1024 * 1024;

export const isGremlinPath = (url: string | undefined): boolean => /^\/gremlin\/?(\?|$)/.test(url ?? '');

async function queryOf(req: IncomingMessage): Promise<{ text: string; timeoutMs?: number }> {
  const url = new URL(req.url ?? '/', 'http://graph');
  if (req.method === 'GET') {
    req.resume();
    const text = url.searchParams.get('gremlin');
    if (text === null) throw new MissingParameterException("Missing required parameter 'gremlin'");
    return { text };
  }
  if (req.method !== 'POST') {
    req.resume();
    throw new MethodNotAllowedException(`Method ${req.method} is not allowed on /gremlin`);
  }
  const body = (await readBody(req, BODY_LIMIT)).toString('utf8');
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  let params: Record<string, unknown>;
  if (type.includes('x-www-form-urlencoded') && !body.trimStart().startsWith('{')) {
    params = Object.fromEntries(new URLSearchParams(body));
  } else {
    try {
      params = JSON.parse(body || '{}');
    } catch {
      throw new BadRequestException('Failed to parse the request body as JSON');
    }
    if (params === null || typeof params !== 'object' || Array.isArray(params))
      throw new BadRequestException('The request body must be a JSON object');
  }
  const text = params.gremlin;
  if (text === undefined || text === null) throw new MissingParameterException("Missing required parameter 'gremlin'");
  if (typeof text !== 'string') throw new MalformedQueryException("Parameter 'gremlin' must be a string");
  const t = Number(params.evaluationTimeout ?? params.scriptEvaluationTimeout);
  return { text, timeoutMs: Number.isFinite(t) && t > 0 ? t : undefined };
}

export function gremlinHttpListener(service: GremlinService, log: Logger, access?: QueryAccess) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const requestId = randomUUID();
    const send = (status: number, text: string) => {
      res.writeHead(status, {
        'content-type': 'application/json;charset=UTF-8',
        'content-length': Buffer.byteLength(text),
        'x-amzn-requestid': requestId,
      });
      res.end(text);
    };
    (async () => {
      const q = await queryOf(req);
      // The data list is written as it streams; the envelope is assembled around it.
      const items: string[] = [];
      let bytes = 0;
      const check = access && ((e: { write: boolean; drop: boolean }) => access(req, e));
      for await (const batch of service.stream({ kind: 'groovy', text: q.text, timeoutMs: q.timeoutMs }, check)) {
        for (const v of batch) {
          const s = JSON.stringify(toGraphSON(v));
          bytes += s.length + 1;
          if (bytes > service.limits.maxResponseBytes)
            throw new MemoryLimitExceededException(
              `The query result is larger than ${service.limits.maxResponseBytes} bytes; add limit() or narrow it, or use the WebSocket endpoint, which streams.`,
            );
          items.push(s);
        }
      }
      const head = JSON.stringify({
        requestId,
        status: { message: '', code: 200, attributes: EMPTY_MAP },
      }).slice(0, -1);
      send(
        200,
        `${head},"result":{"data":{"@type":"g:List","@value":[${items.join(',')}]},"meta":${JSON.stringify(EMPTY_MAP)}}}`,
      );
    })().catch((err: unknown) => {
      let e: ServiceError;
      if (err instanceof ServiceError) e = err;
      else if (err instanceof BodyTooLargeError) e = new BadRequestException(`Request body over ${err.limit} bytes`);
      else {
        log.error({ err, requestId }, 'gremlin: internal error');
        e = new InternalFailureException('An internal error occurred. Check the server log for this request id.');
      }
      if (res.headersSent) {
        res.destroy();
        return;
      }
      send(e.httpStatus, JSON.stringify({ requestId, code: e.code, detailedMessage: e.message, message: e.message }));
    });
  };
}
