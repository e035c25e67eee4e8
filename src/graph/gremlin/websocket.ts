// The Gremlin Server WebSocket protocol on ws://host:8182/gremlin, as Neptune serves drivers:
// binary frames `<mime length><mime type><request>` in GraphBinary 1.0 (the drivers' default) or
// GraphSON v3, ops "bytecode" (traversal processor) and "eval", answers in the request's format
// batched as 206 Partial Content then 200 (204 when empty).
// https://tinkerpop.apache.org/docs/3.7.2/dev/provider/#_graph_driver_provider_requirements
// https://docs.aws.amazon.com/neptune/latest/userguide/access-graph-gremlin-node-js.html
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { type WebSocket, WebSocketServer } from 'ws';
import { MalformedQueryException } from '../../generated/neptunedata/errors.js';
import { ServiceError } from '../../protocol/service-error.js';
import { readArg } from './bytecode.js';
import { readBinaryRequest, writeBinaryResponse } from './graphbinary.js';
import { EMPTY_MAP, type GraphSON, list, toGraphSON, traverserGraphSON } from './graphson.js';
import type { GremlinService, QueryAccess } from './service.js';
import { Num, type Value } from './values.js';

const GRAPHSON3 = /^application\/(vnd\.gremlin-v3\.0\+json|json)(;.*)?$/;
const GRAPHBINARY = /^application\/vnd\.graphbinary-v1\.0(;.*)?$/;
const DEFAULT_BATCH = 64;
const MAX_MESSAGE = 10 * 1024 * 1024;

// TinkerPop ResponseStatusCode values.
const SUCCESS = 200;
const NO_CONTENT = 204;
const PARTIAL_CONTENT = 206;
const MALFORMED_REQUEST = 498;
const INVALID_REQUEST_ARGUMENTS = 499;
const SERVER_ERROR = 500;
const SERVER_ERROR_EVALUATION = 597;
const SERVER_ERROR_TIMEOUT = 598;

interface RequestMessage {
  requestId?: unknown;
  op?: unknown;
  processor?: unknown;
  args?: Record<string, unknown>;
}

function response(requestId: string | null, code: number, message: string, data: GraphSON | null): string {
  return JSON.stringify({
    requestId,
    status: { message, code, attributes: EMPTY_MAP },
    result: { data, meta: EMPTY_MAP },
  });
}

/** Neptune puts its error document, as JSON text, in the status message. */
function errorStatus(err: unknown, requestId: string): { code: number; message: string } {
  if (err instanceof ServiceError) {
    const code =
      err.code === 'TimeLimitExceededException'
        ? SERVER_ERROR_TIMEOUT
        : err.code === 'MalformedQueryException'
          ? SERVER_ERROR_EVALUATION
          : err.httpStatus >= 500
            ? SERVER_ERROR_EVALUATION
            : INVALID_REQUEST_ARGUMENTS;
    return { code, message: JSON.stringify({ detailedMessage: err.message, requestId, code: err.code }) };
  }
  return {
    code: SERVER_ERROR,
    message: JSON.stringify({
      detailedMessage: 'An internal error occurred. Check the server log for this request id.',
      requestId,
      code: 'InternalFailureException',
    }),
  };
}

/** Splits `<n><mime><json>` (binary frames) or takes a text frame as JSON. */
function decodeFrame(data: Buffer, isBinary: boolean): { mime: string; json: string } {
  if (!isBinary) return { mime: 'application/vnd.gremlin-v3.0+json', json: data.toString('utf8') };
  const n = data[0] ?? 0;
  return { mime: data.subarray(1, 1 + n).toString('latin1'), json: data.subarray(1 + n).toString('utf8') };
}

export interface GremlinWebSocket {
  readonly upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** Closes every driver connection (server shutdown). */
  close(): void;
}

export function gremlinWebSocket(service: GremlinService, log: Logger, access?: QueryAccess): GremlinWebSocket {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE });

  /** A request, whatever its serializer, and how to answer it in the same one. */
  interface Decoded {
    readonly requestId: string;
    readonly op: unknown;
    readonly gremlin: unknown;
    readonly timeoutMs?: number;
    readonly batchSize?: number;
    readonly reply: (code: number, message: string, data: Value[] | null, traversers: boolean) => void;
  }

  const decode = (ws: WebSocket, data: Buffer, isBinary: boolean): Decoded | undefined => {
    const { mime, json } = decodeFrame(data, isBinary);
    if (GRAPHBINARY.test(mime)) {
      const body = data.subarray(1 + (data[0] ?? 0));
      let r: ReturnType<typeof readBinaryRequest>;
      try {
        r = readBinaryRequest(body);
      } catch (err) {
        ws.send(
          writeBinaryResponse(null, MALFORMED_REQUEST, err instanceof Error ? err.message : 'bad request', null, false),
        );
        return undefined;
      }
      const n = (k: string) => {
        const v = r.args.get(k);
        return v instanceof Num ? v.v : undefined;
      };
      return {
        requestId: r.requestId,
        op: r.op,
        gremlin: r.args.get('gremlin'),
        timeoutMs: n('evaluationTimeout') ?? n('scriptEvaluationTimeout'),
        batchSize: n('batchSize'),
        reply: (code, message, d, traversers) =>
          ws.send(writeBinaryResponse(r.requestId, code, message, d, traversers)),
      };
    }
    if (!GRAPHSON3.test(mime)) {
      // DEVIATION(neptune): GraphSON v3 and GraphBinary are spoken; an answer in another format
      // could not be read by the client, so the connection is closed with the reason.
      ws.close(1003, `Unsupported mimeType '${mime}': use GraphBinary or GraphSON v3`.slice(0, 120));
      return undefined;
    }
    let msg: RequestMessage;
    try {
      msg = JSON.parse(json);
    } catch {
      ws.send(response(null, MALFORMED_REQUEST, 'The request is not valid JSON', null));
      return undefined;
    }
    const rid = msg.requestId;
    const requestId =
      typeof rid === 'string'
        ? rid
        : rid && typeof rid === 'object' && typeof (rid as { '@value'?: unknown })['@value'] === 'string'
          ? (rid as { '@value': string })['@value']
          : null;
    if (!requestId) {
      ws.send(response(null, MALFORMED_REQUEST, 'The request has no requestId', null));
      return undefined;
    }
    const args = msg.args ?? {};
    const num = (v: unknown): number | undefined => {
      if (v === undefined || v === null) return undefined;
      const a = readArg(v as Parameters<typeof readArg>[0]);
      return a instanceof Num ? a.v : undefined;
    };
    return {
      requestId,
      op: msg.op,
      gremlin: args.gremlin,
      timeoutMs: num(args.evaluationTimeout) ?? num(args.scriptEvaluationTimeout),
      batchSize: num(args.batchSize),
      reply: (code, message, d, traversers) =>
        ws.send(
          response(
            requestId,
            code,
            message,
            d === null ? null : list(d.map(traversers ? traverserGraphSON : toGraphSON)),
          ),
        ),
    };
  };

  const handle = async (ws: WebSocket, data: Buffer, isBinary: boolean, upgrade: IncomingMessage) => {
    let req: Decoded | undefined;
    try {
      req = decode(ws, data, isBinary);
    } catch (err) {
      ws.send(response(null, MALFORMED_REQUEST, err instanceof Error ? err.message : 'bad request', null));
      return;
    }
    if (!req) return;
    const { requestId, reply } = req;
    try {
      const batchSize = Math.max(1, req.batchSize ?? DEFAULT_BATCH);
      let stream: AsyncGenerator<Value[]>;
      const bytecode = req.op === 'bytecode';
      // The connection's caller, authenticated at the upgrade, is asked about each query.
      const check = access && ((e: { write: boolean; drop: boolean }) => access(upgrade, e));
      if (bytecode) {
        stream = service.stream({ kind: 'bytecode', bytecode: req.gremlin, timeoutMs: req.timeoutMs }, check);
      } else if (req.op === 'eval') {
        if (typeof req.gremlin !== 'string') throw new MalformedQueryException("eval needs a 'gremlin' string");
        stream = service.stream({ kind: 'groovy', text: req.gremlin, timeoutMs: req.timeoutMs }, check);
      } else if (req.op === 'close' || req.op === 'authentication') {
        reply(NO_CONTENT, '', null, false);
        return;
      } else {
        reply(MALFORMED_REQUEST, `Unsupported op: ${String(req.op)}`, null, false);
        return;
      }
      // Results go out in batches as they stream: every full batch as 206 once the next result
      // shows there is more, the last one as 200.
      let pending: Value[] = [];
      let sent = 0;
      for await (const batch of stream) {
        for (const v of batch) {
          if (pending.length === batchSize) {
            reply(PARTIAL_CONTENT, '', pending, bytecode);
            pending = [];
          }
          pending.push(v);
          sent++;
        }
      }
      if (sent === 0) reply(NO_CONTENT, '', null, bytecode);
      else reply(SUCCESS, '', pending, bytecode);
    } catch (err) {
      if (!(err instanceof ServiceError)) log.error({ err, requestId }, 'gremlin websocket: internal error');
      const s = errorStatus(err, requestId);
      reply(s.code, s.message, null, false);
    }
  };

  wss.on('connection', (ws: WebSocket, upgrade: IncomingMessage) => {
    ws.on('message', (data, isBinary) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      void handle(ws, buf, isBinary, upgrade).catch((err) => log.error({ err }, 'gremlin websocket: could not answer'));
    });
    ws.on('error', (err) => log.debug({ err }, 'gremlin websocket: connection error'));
  });

  return {
    upgrade(req, socket, head) {
      const path = new URL(req.url ?? '/', 'http://graph').pathname.replace(/\/+$/, '');
      if (path !== '/gremlin') {
        socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
    },
  };
}
