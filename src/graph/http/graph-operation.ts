// The graph port's requests named as the neptunedata API names them (ExecuteGremlinQuery,
// StartLoaderJob, ...), for its log lines, metrics and traces.
// https://docs.aws.amazon.com/neptune/latest/apiref/API_Operations.html
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { AnsweredRequest } from '../../http/aws-api.js';

export function graphOperation(method: string, path: string, query: URLSearchParams): string {
  const p = path.replace(/\/+$/, '') || '/';
  if (p === '/gremlin') return 'ExecuteGremlinQuery';
  if (p === '/status') return 'GetEngineStatus';
  if (p === '/system') return 'ResetDatabase';
  if (p === '/loader' || p.startsWith('/loader/')) {
    if (method === 'POST') return 'StartLoaderJob';
    if (method === 'DELETE') return 'CancelLoaderJob';
    return p !== '/loader' || query.has('loadId') ? 'GetLoaderJobStatus' : 'ListLoaderJobs';
  }
  return 'Unknown';
}

/** Wraps the graph port's listener: one log line, metrics and a trace per answered request. */
export function observedGraphListener(
  inner: (req: IncomingMessage, res: ServerResponse) => void,
  log: Logger,
  observe?: (r: AnsweredRequest) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = performance.now();
    const arrivedAt = Date.now();
    res.once('finish', () => {
      const url = new URL(req.url ?? '/', 'http://graph');
      const operation = graphOperation(req.method ?? 'GET', url.pathname, url.searchParams);
      const status = res.statusCode;
      const seconds = (performance.now() - started) / 1000;
      const requestId = String(res.getHeader('x-amzn-requestid') ?? '');
      const fields = {
        requestId,
        service: 'NeptuneData',
        op: operation,
        status,
        ms: Math.round(seconds * 100_000) / 100,
      };
      if (status >= 500) log.error(fields, 'request failed');
      else if (operation !== 'GetEngineStatus') log.info(fields, 'request');
      observe?.({
        service: 'NeptuneData',
        operation,
        status,
        error: undefined,
        seconds,
        requestId,
        method: req.method ?? 'GET',
        path: url.pathname,
        arrivedAt,
        headers: req.headers,
      });
    });
    inner(req, res);
  };
}
