// Neptune IAM authentication on the graph port: SigV4 with service `neptune-db` on every HTTP route
// and on the WebSocket upgrade of /gremlin; each route's action (and each Gremlin query's read,
// write or delete) authorized by the caller's policy. Refusals: 403 AccessDeniedException.
// https://docs.aws.amazon.com/neptune/latest/userguide/iam-auth-connecting.html
// https://docs.aws.amazon.com/neptune/latest/userguide/iam-dp-actions.html
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { BodyTooLargeError, readBody, setBodyRead } from '../http/io.js';
import { credentialScope } from '../http/sigv4-scope.js';
import type { Principal } from './credentials.js';
import { gremlinActions, neptuneResource, neptuneRouteAction } from './actions/neptune.js';
import type { Authorizer } from './authorizer.js';
import { neptuneAuthError } from './errors.js';

const BODY_LIMIT = 1024 * 1024;

/** Any of these lets a principal open the Gremlin WebSocket. */
const CONNECT_ACTIONS = [
  'neptune-db:connect',
  'neptune-db:ReadDataViaQuery',
  'neptune-db:WriteDataViaQuery',
  'neptune-db:DeleteDataViaQuery',
];

type Listener = (req: IncomingMessage, res: ServerResponse) => void;
type Upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export interface NeptuneGate {
  readonly listener: (inner: Listener) => Listener;
  readonly upgrade: (inner: Upgrade) => Upgrade;
  /** The per-query check of Gremlin requests (HTTP and WebSocket) by what the query does. */
  readonly queryAccess: (req: IncomingMessage, effects: { write: boolean; drop: boolean }) => void;
}

export function neptuneGate(authz: Authorizer, accountId: string, defaultRegion: string): NeptuneGate {
  /** Callers of requests (and WebSocket upgrades) that passed authentication. */
  const callers = new WeakMap<IncomingMessage, { principal: Principal; region: string }>();

  const deny = (res: ServerResponse, requestId: string, f: Parameters<typeof neptuneAuthError>[0]) => {
    const e = neptuneAuthError(f);
    const text = JSON.stringify({ code: e.code, requestId, detailedMessage: e.message, message: e.message });
    res.writeHead(e.httpStatus, {
      'content-type': 'application/json;charset=UTF-8',
      'content-length': Buffer.byteLength(text),
      'x-amzn-requestid': requestId,
    });
    res.end(text);
  };

  const check = (principal: Principal, region: string, action: string) => {
    const d = authz.authorize(principal, action, [neptuneResource({ accountId, region })], {
      facts: () => ({ region, now: new Date() }),
    });
    return d;
  };

  const listener =
    (inner: Listener): Listener =>
    (req, res) => {
      const requestId = randomUUID();
      void (async () => {
        // The signature covers the body: read it here, hand it to the route through readBody().
        let body: Buffer = Buffer.alloc(0);
        if (req.method === 'POST' || req.method === 'PUT' || req.method === 'DELETE') {
          try {
            body = await readBody(req, BODY_LIMIT);
          } catch (err) {
            if (!(err instanceof BodyTooLargeError)) throw err;
            deny(res, requestId, { reason: 'denied', message: `Request body over ${err.limit} bytes` });
            return;
          }
          setBodyRead(req, body);
        }
        await loadSessionOf(req);
        const r = authz.authenticate(
          { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers },
          { body },
        );
        if ('reason' in r) {
          deny(res, requestId, r);
          return;
        }
        const region = r.parts?.credential.region || defaultRegion;
        const url = new URL(req.url ?? '/', 'http://graph');
        const path = url.pathname.replace(/\/+$/, '') || '/';
        // Gremlin queries are authorized one by one once parsed (queryAccess); other routes here.
        if (path !== '/gremlin') {
          const action = neptuneRouteAction(req.method ?? 'GET', path, url.searchParams);
          const d = action ? check(r.principal, region, action) : undefined;
          if (d) {
            deny(res, requestId, { reason: 'denied', message: d.message });
            return;
          }
        }
        callers.set(req, { principal: r.principal, region });
        inner(req, res);
      })().catch(() => {
        if (!res.headersSent) deny(res, requestId, { reason: 'missing' });
        else res.destroy();
      });
    };

  /** The access key a request is signed with (temporary ones are looked up before the synchronous check). */
  const keyOf = (req: IncomingMessage) => {
    const q = (req.url ?? '').indexOf('?');
    return credentialScope(req.headers, new URLSearchParams(q < 0 ? '' : (req.url ?? '').slice(q + 1)))?.accessKeyId;
  };
  const loadSessionOf = async (req: IncomingMessage) => {
    const key = keyOf(req);
    if (key && authz.needsSession(key)) await authz.loadSession(key);
  };

  const authenticatedUpgrade = (inner: Upgrade, req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const r = authz.authenticate({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers }, {});
    if ('reason' in r) {
      const e = neptuneAuthError(r);
      const text = JSON.stringify({
        code: e.code,
        requestId: randomUUID(),
        detailedMessage: e.message,
        message: e.message,
      });
      socket.end(
        `HTTP/1.1 403 Forbidden\r\ncontent-type: application/json;charset=UTF-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
      );
      return;
    }
    const region = r.parts?.credential.region || defaultRegion;
    // Neptune authorizes the connection itself: `neptune-db:connect` (the action of its first IAM
    // model, still what a WebSocket connection asks for), or any of the query actions a policy of
    // the fine-grained model grants; each query is then authorized by what it does (queryAccess).
    const refusals = CONNECT_ACTIONS.map((action) => check(r.principal, region, action));
    if (refusals.every((d) => d !== undefined)) {
      const e = neptuneAuthError({ reason: 'denied', message: refusals[0]!.message });
      const text = JSON.stringify({
        code: e.code,
        requestId: randomUUID(),
        detailedMessage: e.message,
        message: e.message,
      });
      socket.end(
        `HTTP/1.1 403 Forbidden\r\ncontent-type: application/json;charset=UTF-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
      );
      return;
    }
    callers.set(req, { principal: r.principal, region });
    inner(req, socket, head);
  };

  const upgrade =
    (inner: Upgrade): Upgrade =>
    (req, socket, head) => {
      const key = keyOf(req);
      if (key && authz.needsSession(key)) {
        authz.loadSession(key).then(
          () => authenticatedUpgrade(inner, req, socket, head),
          () => socket.destroy(),
        );
      } else authenticatedUpgrade(inner, req, socket, head);
    };

  const queryAccess = (req: IncomingMessage, effects: { write: boolean; drop: boolean }) => {
    const caller = callers.get(req);
    // Every request reaching a query passed the listener or the upgrade; anything else is refused.
    if (!caller) throw neptuneAuthError({ reason: 'missing' });
    for (const action of gremlinActions(effects)) {
      const d = check(caller.principal, caller.region, action);
      if (d) throw neptuneAuthError({ reason: 'denied', message: d.message });
    }
  };

  return { listener, upgrade, queryAccess };
}
