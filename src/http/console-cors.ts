// CORS on the graph port for the web console, which is served from the AWS port (another origin)
// and calls Gremlin over HTTP. Only the console's own origin is allowed: same host name as the
// request was sent to, the AWS port. https://fetch.spec.whatwg.org/#http-cors-protocol
import type { IncomingMessage, ServerResponse } from 'node:http';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

// What a SigV4-signing browser client sends (aws4fetch), besides Content-Type.
const ALLOWED_HEADERS = 'authorization, content-type, x-amz-date, x-amz-content-sha256, x-amz-security-token';

/** Whether `origin` is the console's: http(s)://<the host this request was sent to>:<console port>. */
export function isConsoleOrigin(origin: string, hostHeader: string | undefined, consolePort: number): boolean {
  let o: URL;
  let h: URL;
  try {
    o = new URL(origin);
    h = new URL(`http://${hostHeader ?? ''}`);
  } catch {
    return false;
  }
  const port = o.port === '' ? (o.protocol === 'https:' ? 443 : 80) : Number(o.port);
  return (o.protocol === 'http:' || o.protocol === 'https:') && o.hostname === h.hostname && port === consolePort;
}

/** Wraps the graph port's listener: answers preflights and marks responses readable by the console. */
export function withConsoleCors(listener: Listener, consolePort: () => number): Listener {
  return (req, res) => {
    const origin = req.headers.origin;
    if (typeof origin !== 'string' || !isConsoleOrigin(origin, req.headers.host, consolePort())) {
      listener(req, res);
      return;
    }
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'origin');
    res.setHeader('access-control-expose-headers', 'x-amzn-requestid');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.writeHead(204, {
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': '600',
        'content-length': '0',
      });
      res.end();
      req.resume();
      return;
    }
    listener(req, res);
  };
}
