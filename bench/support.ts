// Shared by the HTTP benchmarks: run Slipway (or a bare node:http baseline) as a child process,
// load it with autocannon, read its RSS, call its API.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

export interface Proc {
  readonly child: ChildProcess;
  readonly port: number;
  stop(): Promise<void>;
}

export async function spawnAndWait(args: string[], portOf: (line: string) => number | undefined): Promise<Proc> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    lines.on('line', (l) => {
      const p = portOf(l);
      if (p) resolve(p);
    });
    child.once('exit', (c) => reject(new Error(`exited ${c}`)));
  });
  return {
    child,
    port,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Slipway as `npm start` runs it, on free ports, in `dataDir`. BENCH_NODE_ARGS adds Node flags
 * (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the server under a bench's load).
 */
export function slipway(dataDir: string, extra: string[] = []): Promise<Proc> {
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return spawnAndWait(
    [...nodeArgs, 'bin/slipway.js', 'serve', '--port', '0', '--graph-port', '0', '--data-dir', dataDir, ...extra],
    (l) => {
      try {
        const r = JSON.parse(l);
        return r.msg === 'listening' ? r.port : undefined;
      } catch {
        return undefined;
      }
    },
  );
}

/** A bare node:http server answering `body` to every request: the ceiling any framework is measured against. */
export function bareServer(body: string, contentType: string): Promise<Proc> {
  const script = `
const http = require('node:http');
const body = ${JSON.stringify(body)};
const s = http.createServer((req, res) => { req.resume(); req.on('end', () => {
  res.writeHead(200, { 'content-type': ${JSON.stringify(contentType)}, 'content-length': Buffer.byteLength(body) }); res.end(body); }); });
s.listen(0, '127.0.0.1', () => console.log('port=' + s.address().port));
process.on('SIGTERM', () => process.exit(0));`;
  return spawnAndWait(['-e', script], (l) => (l.startsWith('port=') ? Number(l.slice(5)) : undefined));
}

export function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(m![1]) / 1024);
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  bad: number;
}

export async function load(
  url: string,
  request: {
    method?: 'POST' | 'GET';
    headers?: Record<string, string>;
    /**
     * Headers of requests sent in turn, each connection cycling through them: autocannon builds
     * each one's bytes once, so a pool costs the client no more per request than one request.
     */
    pool?: readonly Record<string, string>[];
    body?: () => string;
  },
  opts: { seconds: number; connections: number; rate?: number },
): Promise<LoadResult> {
  const r = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    overallRate: opts.rate,
    requests: request.pool
      ? request.pool.map((headers) => ({ method: request.method ?? 'POST', headers, body: request.body?.() }))
      : [
          {
            method: request.method ?? 'POST',
            headers: request.headers,
            setupRequest: (req) => (request.body ? { ...req, body: request.body() } : req),
          },
        ],
  });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    bad: r.non2xx + r.errors + r.timeouts,
  };
}

/** Calls an operation of an AWS JSON 1.1 service (`target`: `SageMaker.CreateModel`, `Logs_20140328.GetLogEvents`). */
export async function awsJson(port: number, target: string, input: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: { 'x-amz-target': target, 'content-type': 'application/x-amz-json-1.1' },
    body: JSON.stringify(input),
  });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${target}: ${r.status} ${text}`);
  return JSON.parse(text);
}

/** Calls a SageMaker operation over AWS JSON 1.1 and returns the parsed answer. */
export function sagemaker(port: number, op: string, input: unknown): Promise<Record<string, unknown>> {
  return awsJson(port, `SageMaker.${op}`, input);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** The median: the middle value, the mean of the middle two of an even count. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export const SAGEMAKER_HEADERS = (op: string) => ({
  'content-type': 'application/x-amz-json-1.1',
  'x-amz-target': `SageMaker.${op}`,
  authorization:
    'AWS4-HMAC-SHA256 Credential=AKIDBENCH/20260101/us-east-1/sagemaker/aws4_request, SignedHeaders=host, Signature=0',
});

/** CPU time (user + system, every thread) a process has used, in ms: 100 Hz ticks from /proc/<pid>/stat. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** A process's children, whichever of its threads started them; none once it has exited. */
function childrenOf(pid: number): number[] {
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((t) => {
    try {
      return readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

/** A process's descendants (children, theirs, ...), e.g. the sandboxed model workers under Slipway. */
export function descendants(pid: number): number[] {
  return childrenOf(pid).flatMap((k) => [k, ...descendants(k)]);
}

/** cpuMs of several processes, summed; one that has exited counts 0. */
export function cpuMsOf(pids: readonly number[]): number {
  return pids.reduce((a, p) => {
    try {
      return a + cpuMs(p);
    } catch {
      return a;
    }
  }, 0);
}

/** cpuMs of a process's children (gunicorn's workers), summed. */
export function childrenCpuMs(pid: number): number {
  return cpuMsOf(childrenOf(pid));
}

/**
 * Waits until a process (its threads and descendants) has used under `idleMs` of CPU over a
 * `windowMs` window, at most `timeoutMs`: a server that has finished starting (Slipway readies a
 * trainer thread in the background after its start). Returns how long it waited.
 */
export async function settled(pid: number, o = { idleMs: 25, windowMs: 500, timeoutMs: 60_000 }): Promise<number> {
  const t0 = Date.now();
  const used = () => cpuMsOf([pid, ...descendants(pid)]);
  for (;;) {
    const before = used();
    await new Promise((r) => setTimeout(r, o.windowMs));
    if (used() - before < o.idleMs || Date.now() - t0 > o.timeoutMs) return Date.now() - t0;
  }
}
