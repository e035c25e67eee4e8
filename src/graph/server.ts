// The graph port (Neptune-compatible HTTP API). For now it answers GET /status as Neptune does;
// the loader, reset and query endpoints come with the graph store.
// https://docs.aws.amazon.com/neptune/latest/userguide/access-graph-status.html
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface GraphApiOptions {
  readonly startTime: Date;
  readonly version: string;
}

export function graphListener(opts: GraphApiOptions) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const requestId = randomUUID();
    const path = (req.url ?? '/').split('?')[0];
    req.resume();
    let status = 200;
    let body: unknown;
    if (path === '/status' && (req.method === 'GET' || req.method === 'POST')) {
      body = {
        status: 'healthy',
        startTime: opts.startTime.toUTCString(),
        dbEngineVersion: `slipway-${opts.version}`,
        role: 'writer',
        dfeQueryEngine: 'viaQueryHint',
        gremlin: { version: 'tinkerpop-3.7.2' },
        sparql: { version: 'sparql-1.1' },
        opencypher: { version: 'Neptune-9.0.20190305-1.0' },
        labMode: {},
        features: {},
        settings: {},
      };
    } else {
      status = 400;
      body = {
        code: 'UnsupportedOperationException',
        requestId,
        detailedMessage: `The graph API does not serve ${req.method} ${path} yet.`,
      };
    }
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=UTF-8',
      'content-length': Buffer.byteLength(text),
      'x-amzn-requestid': requestId,
    });
    res.end(text);
  };
}
