// Framework model serving (issue 30): warm InvokeEndpoint of a scikit-learn model served by the
// user's inference.py (model_fn; the toolkit's default CSV chain), p50/p99 at 200 req/s and the
// most requests per second at concurrency N, side by side with SageMaker's scikit-learn serving
// stack modelled in ../shared/peers/sk_container.py (gunicorn -w 2 + Flask + the handler chain) on
// the same model.joblib. (A framework training job's CreateTrainingJob → the script's first line:
// bench/script-mode-start.ts.) Where wrk is installed, the flat-out loops are also driven by it (a
// load generator in C: the node client costs as much CPU as the stacks it measures), and two of
// Slipway's endpoints are loaded at once. The 200 req/s loop also runs against a bare node:http
// server: the machine's own floor for that loop.
// Usage: npm run build && node dist/bench/frameworks.js [--seconds 10] [--connections 8] [--worker-poll-us 300]
//        [--invoke-poll-us 0]
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { freePort } from '../src/inference/runtimes/container/http-container.js';
import { Agent, request } from 'node:http';
import { bareServer, cpuMs, cpuMsOf, descendants, percentile, sagemaker, settled, sleep, slipway } from './support.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '8' },
    rate: { type: 'string', default: '200' },
    // Passed to the server: its framework workers busy-poll for their next request (default off).
    'worker-poll-us': { type: 'string', default: '0' },
    // Passed to the server: how long its loop polls for a worker's answer (its default when absent).
    'invoke-poll-us': { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const N = Number(values.connections);
const RATE = Number(values.rate);
const PYTHON = process.env.SLIPWAY_PYTHON ?? '/usr/bin/python3';
const IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-scikit-learn:1.2-1-cpu-py3';
const ROLE = 'arn:aws:iam::000000000000:role/bench';
const la = () => loadavg()[0]!.toFixed(2);

// Our own HTTP client rather than autocannon: gunicorn's sync workers close every connection
// (Connection: close), which autocannon counts as errors and stalls on; node's agent reconnects.
interface Result {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  bad: number;
}
const BODY = Buffer.from(ROW_TEXT());
function ROW_TEXT(): string {
  return '1.5,-0.25';
}
function post(agent: Agent, url: URL): Promise<number> {
  return new Promise((done) => {
    const r = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'text/csv', accept: 'text/csv', 'content-length': BODY.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
        res.on('error', () => done(0));
      },
    );
    r.on('error', () => done(0));
    r.end(BODY);
  });
}
function summary(lat: number[], bad: number, ms: number): Result {
  return {
    rps: Math.round((lat.length * 1000) / ms),
    p50: Number(percentile(lat, 50).toFixed(2)),
    p99: Number(percentile(lat, 99).toFixed(2)),
    total: lat.length,
    bad,
  };
}
/** `conns` loops, each sending its next request when the last is answered. */
async function closedLoop(url: string, conns: number, seconds: number): Promise<Result> {
  const u = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: conns });
  const lat: number[] = [];
  let bad = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: conns }, async () => {
      while (performance.now() < end) {
        const s = performance.now();
        const status = await post(agent, u);
        lat.push(performance.now() - s);
        if (status !== 200) bad++;
      }
    }),
  );
  agent.destroy();
  return summary(lat, bad, performance.now() - t0);
}
/**
 * Open loop: a request every 1/rate s whatever the answers; latency from its scheduled time. The
 * first half second runs the same schedule uncounted, so that the loop's own connections are open
 * and its path warm when counting starts (a cold client's first requests pile up and, past
 * MaxConcurrency, are throttled: the client's start, not the stack's).
 */
async function openLoop(url: string, rate: number, seconds: number): Promise<Result> {
  const u = new URL(url);
  const agent = new Agent({ keepAlive: true });
  const lat: number[] = [];
  let bad = 0;
  const warm = Math.round(rate / 2);
  const n = Math.round(rate * seconds);
  const t0 = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < warm + n; i++) {
    const at = t0 + (i * 1000) / rate;
    const wait = at - performance.now();
    if (wait > 1) await sleep(wait);
    const counted = i >= warm;
    pending.push(
      post(agent, u).then((status) => {
        if (!counted) return;
        lat.push(performance.now() - at);
        if (status !== 200) bad++;
      }),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  return summary(lat, bad, seconds * 1000);
}

function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (e) {
    // wrk --version prints its version and exits 1; only a missing binary is ENOENT.
    return (e as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  return true;
}
const wrkArgs = (script: string, url: string, conns: number, seconds: number) => [
  '-t1',
  `-c${conns}`,
  `-d${seconds}s`,
  '-s',
  script,
  '--latency',
  url,
];
/** wrk's closed loops (one thread, `conns` connections; it reconnects when the peer closes). */
function wrk(script: string, url: string, conns: number, seconds: number): Result {
  return wrkResult(execFileSync('wrk', wrkArgs(script, url, conns, seconds), { encoding: 'utf8' }));
}
/** The same, in the background (several at once). */
const execFileAsync = promisify(execFile);
async function wrkAsync(script: string, url: string, conns: number, seconds: number): Promise<Result> {
  const { stdout } = await execFileAsync('wrk', wrkArgs(script, url, conns, seconds), { encoding: 'utf8' });
  return wrkResult(stdout);
}
function wrkResult(out: string): Result {
  const ms = (re: RegExp) => {
    const m = re.exec(out);
    if (!m) return Number.NaN;
    const v = Number.parseFloat(m[1]!);
    return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
  };
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)),
    p50: Number(ms(/ 50%\s+([\d.]+)(us|ms|s)/).toFixed(2)),
    p99: Number(ms(/ 99%\s+([\d.]+)(us|ms|s)/).toFixed(2)),
    total,
    bad: non2xx + (errors ? errors.slice(1).reduce((a, b) => a + Number(b), 0) : 0),
  };
}

const peers = [process.env.PEERS_DIR, '../shared/peers', '../../shared/peers']
  .filter((p): p is string => !!p)
  .map((p) => resolve(p))
  .find((p) => existsSync(join(p, 'sk_container.py')));
if (!peers) throw new Error('../shared/peers/sk_container.py not found (set PEERS_DIR)');

const work = mkdtempSync(join(tmpdir(), 'slipway-bench-fw-'));
const modelDir = join(work, 'model');
mkdirSync(join(modelDir, 'code'), { recursive: true });
execFileSync(PYTHON, ['scripts/fixtures/framework-models.py', 'sklearn', modelDir]);
writeFileSync(
  join(modelDir, 'code', 'inference.py'),
  'import os\nimport joblib\n\n\ndef model_fn(model_dir):\n    return joblib.load(os.path.join(model_dir, "model.joblib"))\n',
);
execFileSync('tar', ['czf', join(work, 'model.tar.gz'), '-C', modelDir, '.']);

const dataDir = join(work, 'data');
const server = await slipway(dataDir, [
  '--log-level',
  'warn',
  '--worker-poll-us',
  values['worker-poll-us'],
  ...(values['invoke-poll-us'] === undefined ? [] : ['--invoke-poll-us', values['invoke-poll-us']]),
]);
const base = `http://127.0.0.1:${server.port}`;
let peer: ChildProcess | undefined;
try {
  await fetch(`${base}/bench-fw`, { method: 'PUT' });
  const put = await fetch(`${base}/bench-fw/sk/model.tar.gz`, {
    method: 'PUT',
    body: readFileSync(join(work, 'model.tar.gz')),
  });
  if (put.status !== 200) throw new Error(`upload: ${put.status}`);
  await sagemaker(server.port, 'CreateModel', {
    ModelName: 'sk',
    ExecutionRoleArn: ROLE,
    PrimaryContainer: {
      Image: IMAGE,
      ModelDataUrl: 's3://bench-fw/sk/model.tar.gz',
      Environment: { SAGEMAKER_PROGRAM: 'inference.py', SAGEMAKER_SUBMIT_DIRECTORY: '/opt/ml/model/code' },
    },
  });
  const endpoint = async (name: string, max: number) => {
    await sagemaker(server.port, 'CreateEndpointConfig', {
      EndpointConfigName: name,
      ProductionVariants: [
        { VariantName: 'AllTraffic', ModelName: 'sk', ServerlessConfig: { MemorySizeInMB: 2048, MaxConcurrency: max } },
      ],
    });
    const t0 = performance.now();
    await sagemaker(server.port, 'CreateEndpoint', { EndpointName: name, EndpointConfigName: name });
    for (;;) {
      const d = await sagemaker(server.port, 'DescribeEndpoint', { EndpointName: name });
      if (d.EndpointStatus === 'InService') break;
      if (d.EndpointStatus === 'Failed') throw new Error(String(d.FailureReason));
      await sleep(5);
    }
    return performance.now() - t0;
  };
  const created = await endpoint('sk-2', 2);
  console.log(`CreateEndpoint → InService (scikit-learn, model_fn loaded once to check it): ${created.toFixed(0)} ms`);
  // --connections 2: the 2-connection endpoint is the only one (its loops are the N ones too).
  const more = N !== 2;
  if (more) await endpoint(`sk-${N}`, N);

  const port = await freePort();
  peer = spawn('gunicorn', ['-w', '2', '-b', `127.0.0.1:${port}`, '--chdir', peers, 'sk_container:app'], {
    env: { ...process.env, MODEL_DIR: modelDir },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  for (let i = 0; ; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 300) throw new Error('gunicorn did not answer /ping');
    await sleep(50);
  }

  const sw = (name: string) => `${base}/endpoints/${name}/invocations`;
  const gu = `http://127.0.0.1:${port}/invocations`;
  const line = (label: string, r: Result) =>
    `${label}: ${r.rps} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms (${r.total} requests, errors ${r.bad})`;

  // Warm both (a cold start each, then the imports' first calls).
  await closedLoop(sw('sk-2'), 2, 2);
  if (more) await closedLoop(sw(`sk-${N}`), N, 2);
  await closedLoop(gu, 2, 2);

  // Measured on a server that has finished starting: it readies a trainer thread in the
  // background for its first seconds, which would share the cores with the loops below.
  const waited = await settled(server.child.pid!);
  console.log(
    `load ${la()} (the server settled ${waited} ms after the warm-up); one CSV row "${ROW_TEXT()}", Accept text/csv; ${SECONDS} s each`,
  );
  const p1 = await openLoop(sw('sk-2'), RATE, SECONDS);
  const p2 = await openLoop(gu, RATE, SECONDS);
  console.log(line(`at ${RATE} req/s  Slipway (MaxConcurrency 2)`, p1));
  console.log(line(`at ${RATE} req/s  gunicorn -w 2 + Flask peer`, p2));
  // The machine's own floor for the same loop: a bare node:http server answering the same bytes
  // (no model, no worker, no framework). On a VM whose idle vCPUs are slow to wake, this alone
  // can take milliseconds at p99, and neither stack can be faster than it.
  const bare = await bareServer('5.749999999999998\n', 'text/csv');
  try {
    await closedLoop(`http://127.0.0.1:${bare.port}/invocations`, 2, 1);
    const p0 = await openLoop(`http://127.0.0.1:${bare.port}/invocations`, RATE, SECONDS);
    console.log(line(`at ${RATE} req/s  bare node:http server (the machine's floor)`, p0));
  } finally {
    await bare.stop();
  }
  if (more) {
    const p3 = await openLoop(sw(`sk-${N}`), RATE, SECONDS);
    console.log(line(`at ${RATE} req/s  Slipway (MaxConcurrency ${N})`, p3));
  }
  // CPU a request of each process over the flat-out loops (100 Hz ticks from /proc): what the
  // throughput ratio is made of on the machine at hand (the two stacks share its cores).
  const client = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const serverPid = server.child.pid!;
  const slipwayCpu = () => ({
    server: cpuMs(serverPid),
    workers: cpuMsOf(descendants(serverPid)),
    client: client(),
  });
  const peerPids = [peer.pid!, ...descendants(peer.pid!)];
  const peerCpu = () => ({ gunicorn: cpuMsOf(peerPids), client: client() });
  const c0 = slipwayCpu();
  const t1 = await closedLoop(sw('sk-2'), 2, SECONDS);
  const c1 = slipwayCpu();
  const g0 = peerCpu();
  const t2 = await closedLoop(gu, 2, SECONDS);
  const g1 = peerCpu();
  console.log(line('max, 2 connections  Slipway (MaxConcurrency 2)', t1));
  console.log(line('max, 2 connections  gunicorn -w 2 + Flask peer', t2));
  console.log(`throughput ratio Slipway / peer at concurrency 2: ${(t1.rps / t2.rps).toFixed(2)}`);
  const us = (ms: number, n: number) => Math.round((ms * 1000) / n);
  const ours = {
    server: us(c1.server - c0.server, t1.total),
    workers: us(c1.workers - c0.workers, t1.total),
    client: us(c1.client - c0.client, t1.total),
  };
  const theirs = { gunicorn: us(g1.gunicorn - g0.gunicorn, t2.total), client: us(g1.client - g0.client, t2.total) };
  const sumOurs = ours.server + ours.workers + ours.client;
  const sumTheirs = theirs.gunicorn + theirs.client;
  console.log(
    `CPU a request at 2 connections: Slipway's server ${ours.server} µs + model workers ${ours.workers} µs + ` +
      `the client ${ours.client} µs = ${sumOurs} µs; gunicorn ${theirs.gunicorn} µs + the client ${theirs.client} µs ` +
      `= ${sumTheirs} µs (ratio ${(sumTheirs / sumOurs).toFixed(2)})`,
  );
  if (more) {
    const t3 = await closedLoop(sw(`sk-${N}`), N, SECONDS);
    const t4 = await closedLoop(gu, N, SECONDS);
    console.log(line(`max, ${N} connections  Slipway (MaxConcurrency ${N})`, t3));
    console.log(line(`max, ${N} connections  gunicorn -w 2 + Flask peer`, t4));
    console.log(`throughput ratio at concurrency ${N}: ${(t3.rps / t4.rps).toFixed(2)}; load ${la()}`);
  }
  // The same flat-out loops driven by wrk, a load generator in C, where it is installed: the node
  // client above costs 110-330 µs a request on these 2 vCPUs, as much as the stacks it measures,
  // and more for the peer (a new connection a request), so it shares the cores unevenly.
  if (hasWrk()) {
    const script = join(work, 'post.lua');
    writeFileSync(
      script,
      `wrk.method = "POST"\nwrk.body = "${ROW_TEXT()}"\nwrk.headers["Content-Type"] = "text/csv"\nwrk.headers["Accept"] = "text/csv"\n`,
    );
    const slipwayPids = () => [serverPid, ...descendants(serverPid)];
    for (const conns of more ? [2, N] : [2]) {
      const s0 = cpuMsOf(slipwayPids());
      const s = wrk(script, sw(`sk-${conns}`), conns, SECONDS);
      const s1 = cpuMsOf(slipwayPids());
      const g0 = cpuMsOf(peerPids);
      const g = wrk(script, gu, conns, SECONDS);
      const g1 = cpuMsOf(peerPids);
      const ourUs = us(s1 - s0, s.total);
      const theirUs = us(g1 - g0, g.total);
      console.log(
        line(`wrk, ${conns} connections  Slipway (MaxConcurrency ${conns})`, s) + `, ${ourUs} µs of CPU a request`,
      );
      console.log(
        line(`wrk, ${conns} connections  gunicorn -w 2 + Flask peer`, g) + `, ${theirUs} µs of CPU a request`,
      );
      console.log(
        `throughput ratio with wrk at concurrency ${conns}: ${(s.rps / g.rps).toFixed(2)} (CPU a request, the stacks alone: ${(theirUs / ourUs).toFixed(2)})`,
      );
    }
    if (more) {
      // Two endpoints loaded at once share the cores: their busy workers count against the same
      // CPUs (src/inference/core-budget.ts), not two workers each.
      const [a, b] = await Promise.all([
        wrkAsync(script, sw('sk-2'), 2, SECONDS),
        wrkAsync(script, sw(`sk-${N}`), 2, SECONDS),
      ]);
      console.log(
        `wrk, two endpoints at once (2 connections each)  Slipway: ${a.rps} + ${b.rps} = ${a.rps + b.rps} req/s, ` +
          `p99 ${a.p99} / ${b.p99} ms, errors ${a.bad + b.bad}`,
      );
    }
  } else console.log('(wrk is not installed: apt-get install wrk adds the same loops driven by a load generator in C)');
} finally {
  peer?.kill('SIGTERM');
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
