// The Gremlin Server WebSocket protocol on ws://host:8182/gremlin, as Neptune serves drivers:
// binary frames `<mime length><mime type><request JSON>`, ops "bytecode" (traversal processor)
// and "eval", answers in GraphSON v3 batched as 206 Partial Content then 200 (204 when empty).
// https://tinkerpop.apache.org/docs/3.7.2/dev/provider/#_graph_driver_provider_requirements
// https://docs.aws.amazon.com/neptune/latest/userguide/access-graph-gremlin-node-js.html
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { type WebSocket, WebSocketServer } from 'ws';
import { MalformedQueryException } from '../../generated/neptunedata/errors.js';
import { ServiceError } from '../../protocol/service-error.js';
import { readArg } from './bytecode.js';
import { EMPTY_MAP, type GraphSON, list, toGraphSON, traverserGraphSON } from './graphson.js';
import type { GremlinService } from './service.js';
import { Num } from './values.js';

const GRAPHSON3 = /^application\/(vnd\.gremlin-v3\.0\+json|json)(;.*)?$/;
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

export function gremlinWebSocket(service: GremlinService, log: Logger): GremlinWebSocket {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE });

  const handle = async (ws: WebSocket, data: Buffer, isBinary: boolean) => {
    const { mime, json } = decodeFrame(data, isBinary);
    if (!GRAPHSON3.test(mime)) {
      // DEVIATION(neptune): only GraphSON v3 is spoken; an answer in another format could not be
      // read by the client, so the connection is closed with the reason.
      ws.close(
        1003,
        `Slipway speaks GraphSON v3 only: connect with mimeType 'application/vnd.gremlin-v3.0+json' (got '${mime}')`.slice(
          0,
          120,
        ),
      );
      return;
    }
    let msg: RequestMessage;
    try {
      msg = JSON.parse(json);
    } catch {
      ws.send(response(null, MALFORMED_REQUEST, 'The request is not valid JSON', null));
      return;
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
      return;
    }
    const args = msg.args ?? {};
    const num = (v: unknown): number | undefined => {
      if (v === undefined || v === null) return undefined;
      const a = readArg(v as Parameters<typeof readArg>[0]);
      return a instanceof Num ? a.v : undefined;
    };
    try {
      const timeoutMs = num(args.evaluationTimeout) ?? num(args.scriptEvaluationTimeout);
      const batchSize = Math.max(1, num(args.batchSize) ?? DEFAULT_BATCH);
      let bytecode = false;
      let stream: AsyncGenerator<import('./values.js').Value[]>;
      if (msg.op === 'bytecode') {
        bytecode = true;
        stream = service.stream({ kind: 'bytecode', bytecode: args.gremlin, timeoutMs });
      } else if (msg.op === 'eval') {
        if (typeof args.gremlin !== 'string') throw new MalformedQueryException("eval needs a 'gremlin' string");
        stream = service.stream({ kind: 'groovy', text: args.gremlin, timeoutMs });
      } else if (msg.op === 'close' || msg.op === 'authentication') {
        ws.send(response(requestId, NO_CONTENT, '', null));
        return;
      } else {
        ws.send(response(requestId, MALFORMED_REQUEST, `Unsupported op: ${String(msg.op)}`, null));
        return;
      }
      // Results go out in batches as they stream: every full batch as 206 once the next result
      // shows there is more, the last one as 200.
      const write = bytecode ? traverserGraphSON : toGraphSON;
      let pending: GraphSON[] = [];
      let sent = 0;
      for await (const batch of stream) {
        for (const v of batch) {
          if (pending.length === batchSize) {
            ws.send(response(requestId, PARTIAL_CONTENT, '', list(pending)));
            pending = [];
          }
          pending.push(write(v));
          sent++;
        }
      }
      if (sent === 0) ws.send(response(requestId, NO_CONTENT, '', null));
      else ws.send(response(requestId, SUCCESS, '', list(pending)));
    } catch (err) {
      if (!(err instanceof ServiceError)) log.error({ err, requestId }, 'gremlin websocket: internal error');
      const s = errorStatus(err, requestId);
      ws.send(response(requestId, s.code, s.message, null));
    }
  };

  wss.on('connection', (ws) => {
    ws.on('message', (data, isBinary) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      void handle(ws, buf, isBinary).catch((err) => log.error({ err }, 'gremlin websocket: could not answer'));
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
