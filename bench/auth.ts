// Issue 17 figures: the cost of SigV4 verification and policy evaluation on the hot path, and
// the server under a stream of forged signatures.
//   - signed DescribeEndpoint and warm InvokeEndpoint throughput with verification on (a
//     credentials file) against the same with it off (anonymous server): both servers loaded by
//     autocannon at the same time, so that other load on the machine weighs on both alike; then
//     each alone and saturated, in turn (the ratio where the server, not autocannon, is the limit);
//   - 10,000 requests with random bad signatures: all refused, no crash, RSS along the way.
// Both servers get the same signed bytes, which the anonymous server accepts unchecked and the
// other verifies in full (canonical request, SHA-256 of body and canonical request, HMAC with the
// cached signing key, policy decision). By default autocannon replays one request signed by the
// SDK's signer (valid for the 15-minute skew window); the server then finds its canonical header
// lines unchanged and reuses them. With --fresh each request carries headers of its own, as a live
// SDK client signs them (a new amz-sdk-invocation-id each time), so every line is written anew:
// the figure for real traffic. Nothing in the server remembers a signature or a verdict.
// Run: npm run build && node dist/bench/auth.js [--seconds 10] [--bad 10000] [--rounds 8] [--pin] [--fresh]
//        [--pairs N] [--control]
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { Authorizer } from '../src/auth/authorizer.js';
import { parseCredentials } from '../src/auth/credentials.js';
import { gateFor } from '../src/auth/services.js';
import { type LoadResult, load, median, type Proc, rssMB, sleep, slipway } from './support.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    bad: { type: 'string', default: '10000' },
    rate: { type: 'string', default: '2000' },
    // Rounds of the alone measures: the host's noise moves single rounds by ±20 %, so the
    // figures are medians over many short, interleaved rounds.
    rounds: { type: 'string', default: '8' },
    // Both servers on CPU 0, this process (autocannon) on CPU 1: the server alone is what limits
    // a saturated round, and the scheduler does not move either around (Linux, taskset).
    pin: { type: 'boolean', default: false },
    // Each request signed afresh as a live SDK client signs it (its own amz-sdk-invocation-id,
    // amz-sdk-request and user agent, all signed): from a pool of 1,000 signed by the SDK's signer
    // before the load, which each connection sends in turn (autocannon builds their bytes once).
    fresh: { type: 'boolean', default: false },
    // Only the fixed-rate rounds (quick, and what a server profile should see).
    'rate-only': { type: 'boolean', default: false },
    // A second anonymous server ("off2") in the alone rounds: two servers that do the same work
    // read apart by what the processes themselves do (heap layout, JIT, where the kernel puts
    // them), and that A/A ratio is the noise floor of the on/off one, printed beside it.
    control: { type: 'boolean', default: false },
    // Fresh sets of server processes for the alone rounds (see there).
    pairs: { type: 'string', default: '1' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const pairs = Number(values.pairs);
const ROW = '.345,0.224414,.131102,0.042329,.279923,-0.110329,-0.099358,0.0';
const IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3';
const KEY = { accessKeyId: 'AKIABENCH00000000001', secretAccessKey: 'bench-secret-access-key' };
const report = (s: string) => console.log(s);

const signer = (service: string) =>
  new SignatureV4({
    credentials: KEY,
    region: 'us-east-1',
    service,
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: service !== 's3',
    applyChecksum: service === 's3',
  });

/** Signed headers for one request (host included), as the SDK would send them. */
async function signed(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer,
  service = 'sagemaker',
) {
  const req = new HttpRequest({
    method,
    hostname: '127.0.0.1',
    port,
    path,
    headers: { ...headers, host: `127.0.0.1:${port}` },
    body,
  });
  const out = (await signer(service).sign(req)).headers;
  const { host: _host, ...rest } = out;
  return rest;
}

async function call(port: number, op: string, input: unknown): Promise<Record<string, unknown>> {
  const body = JSON.stringify(input);
  const headers = await signed(
    port,
    'POST',
    '/',
    { 'x-amz-target': `SageMaker.${op}`, 'content-type': 'application/x-amz-json-1.1' },
    body,
  );
  const r = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${op}: ${r.status} ${text}`);
  return JSON.parse(text);
}

/** Uploads the abalone model, deploys `hot` and waits for InService. */
async function deploy(port: number): Promise<void> {
  const model = readFileSync('test/fixtures/xgboost/models/abalone.pkl3-cfgoffset.tar.gz');
  for (const [path, body] of [
    ['/bench-models', Buffer.alloc(0)],
    ['/bench-models/abalone/model.tar.gz', model],
  ] as const) {
    const headers = await signed(port, 'PUT', path, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }, body, 's3');
    const r = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'PUT', headers, body });
    if (r.status !== 200) throw new Error(`PUT ${path}: ${r.status} ${await r.text()}`);
  }
  await call(port, 'CreateModel', {
    ModelName: 'abalone',
    ExecutionRoleArn: 'arn:aws:iam::000000000000:role/bench',
    PrimaryContainer: { Image: IMAGE, ModelDataUrl: 's3://bench-models/abalone/model.tar.gz' },
  });
  await call(port, 'CreateEndpointConfig', {
    EndpointConfigName: 'abalone-200',
    ProductionVariants: [
      {
        VariantName: 'AllTraffic',
        ModelName: 'abalone',
        ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: 200 },
      },
    ],
  });
  await call(port, 'CreateEndpoint', { EndpointName: 'hot', EndpointConfigName: 'abalone-200' });
  while ((await call(port, 'DescribeEndpoint', { EndpointName: 'hot' })).EndpointStatus !== 'InService') await sleep(5);
}

/** CPU time (user + system) the process has used, in ms: 100 Hz ticks from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * Server CPU per request over a load: unlike requests/s, it hardly moves when other processes
 * share the machine, so it is the steadier measure of what verification costs.
 */
async function cpuPerRequest(pid: number, run: () => Promise<LoadResult>): Promise<LoadResult & { cpuUs: number }> {
  const before = cpuMs(pid);
  const r = await run();
  return { ...r, cpuUs: Math.round(((cpuMs(pid) - before) * 1000) / r.total) };
}

/**
 * The signed DescribeEndpoint and InvokeEndpoint requests autocannon sends to one server: one
 * request replayed, or with --fresh a pool of requests each signed with headers of its own.
 */
async function requestsFor(s: Proc) {
  const describeBody = '{"EndpointName":"hot"}';
  const target = { 'x-amz-target': 'SageMaker.DescribeEndpoint', 'content-type': 'application/x-amz-json-1.1' };
  const one = async (path: string, headers: Record<string, string>, body: string) => {
    if (!values.fresh) return { headers: await signed(s.port, 'POST', path, headers, body), body: () => body };
    const pool: Record<string, string>[] = [];
    for (let i = 0; i < 1000; i++) {
      const sdk = {
        'amz-sdk-invocation-id': randomUUID(),
        'amz-sdk-request': 'attempt=1; max=3',
        'x-amz-user-agent': 'aws-sdk-js/3.700.0 ua/2.1 os/linux lang/js md/nodejs#20.20.2',
      };
      pool.push(await signed(s.port, 'POST', path, { ...headers, ...sdk }, body));
    }
    return { pool, body: () => body };
  };
  return {
    describe: { path: '/', request: await one('/', target, describeBody) },
    invoke: {
      path: '/endpoints/hot/invocations',
      request: await one('/endpoints/hot/invocations', { 'content-type': 'text/csv' }, ROW),
    },
  };
}

type Requests = Awaited<ReturnType<typeof requestsFor>>;

/**
 * Loads both servers at the same time, each with half the connections: whatever else runs on the
 * machine weighs on both alike, so their ratio is fair even when the absolute figures are not.
 */
async function side(
  off: Proc,
  on: Proc,
  reqs: { off: Requests; on: Requests },
  which: 'describe' | 'invoke',
  secs: number,
) {
  const run = (s: Proc, r: Requests) =>
    cpuPerRequest(s.child.pid!, () =>
      load(`http://127.0.0.1:${s.port}${r[which].path}`, r[which].request, {
        seconds: secs,
        connections: Math.max(1, connections / 2),
      }),
    );
  const [a, b] = await Promise.all([run(off, reqs.off), run(on, reqs.on)]);
  return { off: a, on: b };
}

/** One forged request: a garbled header, a real key with a random signature, unknown keys, bad dates, presigned junk. */
function forged(port: number): { url: string; init: RequestInit } {
  const hex = randomBytes(32).toString('hex');
  const now = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const key = Math.random() < 0.5 ? KEY.accessKeyId : `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
  const scope = `${now.slice(0, 8)}/us-east-1/${Math.random() < 0.5 ? 'sagemaker' : 's3'}/aws4_request`;
  // Printable ASCII: what an HTTP client lets through as a header value.
  const garbage = Array.from(randomBytes(1 + Math.floor(Math.random() * 200)), (b) =>
    String.fromCharCode(32 + (b % 95)),
  ).join('');
  const kinds: Record<string, string>[] = [
    {
      authorization: `AWS4-HMAC-SHA256 Credential=${key}/${scope}, SignedHeaders=host;x-amz-date, Signature=${hex}`,
      'x-amz-date': now,
    },
    { authorization: `AWS4-HMAC-SHA256 ${garbage}` },
    { authorization: garbage },
    {
      authorization: `AWS4-HMAC-SHA256 Credential=${key}/${scope}, SignedHeaders=host, Signature=${hex}`,
      'x-amz-date': '19990101T000000Z',
    },
    {},
  ];
  const headers: Record<string, string> = { ...kinds[Math.floor(Math.random() * kinds.length)]! };
  const r = Math.random();
  if (r < 0.4) {
    headers['x-amz-target'] = 'SageMaker.DescribeEndpoint';
    return { url: `http://127.0.0.1:${port}/`, init: { method: 'POST', headers, body: '{"EndpointName":"hot"}' } };
  }
  if (r < 0.6)
    return {
      url: `http://127.0.0.1:${port}/endpoints/hot/invocations`,
      init: { method: 'POST', headers: { ...headers, 'content-type': 'text/csv' }, body: ROW },
    };
  if (r < 0.8) {
    headers['x-amz-content-sha256'] = Math.random() < 0.5 ? 'UNSIGNED-PAYLOAD' : hex;
    return { url: `http://127.0.0.1:${port}/bench-models/abalone/model.tar.gz`, init: { method: 'GET', headers } };
  }
  const q = `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${encodeURIComponent(`${key}/${scope}`)}&X-Amz-Date=${now}&X-Amz-Expires=${Math.floor(Math.random() * 1e6)}&X-Amz-SignedHeaders=host&X-Amz-Signature=${hex}&%ZZ=${encodeURIComponent(garbage)}`;
  return { url: `http://127.0.0.1:${port}/bench-models/abalone/model.tar.gz?${q}`, init: { method: 'GET' } };
}

/**
 * What verification adds to one request, measured in this process: authenticate (canonical
 * request, SHA-256 of the body and of the canonical request, HMAC) plus the gate's authorization.
 */
async function verificationCost(policy: unknown): Promise<{ describeUs: number; invokeUs: number }> {
  const authz = Authorizer.fromCredentials(
    parseCredentials({ principals: [{ ...KEY, arn: 'arn:aws:iam::000000000000:user/bench', policy }] }),
  );
  const one = async (
    path: string,
    headers: Record<string, string>,
    body: string,
    op: string,
    input: Record<string, unknown>,
  ) => {
    const signedHeaders = await signed(4810, 'POST', path, headers, body);
    const req = { method: 'POST', url: path, headers: { ...signedHeaders, host: '127.0.0.1:4810' } };
    const buf = Buffer.from(body);
    const partition = { accountId: '000000000000', region: 'us-east-1' };
    const n = 50_000;
    let started = 0;
    // The first 10,000 warm the JIT up and are not counted.
    for (let i = -10_000; i < n; i++) {
      if (i === 0) started = performance.now();
      const a = authz.authenticate(req, { body: buf });
      if ('reason' in a) throw new Error(a.reason);
      gateFor('sagemaker', authz, a, partition, { remoteAddress: '127.0.0.1' }).operation(op, input);
    }
    return Math.round(((performance.now() - started) * 1000) / n);
  };
  return {
    describeUs: await one(
      '/',
      { 'x-amz-target': 'SageMaker.DescribeEndpoint', 'content-type': 'application/x-amz-json-1.1' },
      '{"EndpointName":"hot"}',
      'DescribeEndpoint',
      { EndpointName: 'hot' },
    ),
    invokeUs: await one('/endpoints/hot/invocations', { 'content-type': 'text/csv' }, ROW, 'InvokeEndpoint', {
      EndpointName: 'hot',
    }),
  };
}

interface ServerSet {
  readonly off: Proc;
  readonly on: Proc;
  /** --control: a second anonymous server. */
  readonly off2: Proc | undefined;
  readonly reqs: { off: Requests; on: Requests; off2: Requests | undefined };
}

/** Fresh servers, pinned with --pin, the model deployed on each, their requests signed. */
async function serverSet(dir: string, n: number, creds: string): Promise<ServerSet> {
  const off = await slipway(join(dir, `off-${n}`), ['--log-level', 'warn']);
  const on = await slipway(join(dir, `on-${n}`), ['--log-level', 'warn', '--credentials-file', creds]);
  const off2 = values.control ? await slipway(join(dir, `off2-${n}`), ['--log-level', 'warn']) : undefined;
  const all = off2 ? [off, on, off2] : [off, on];
  if (values.pin) {
    for (const s of all) execFileSync('taskset', ['-a', '-cp', '0', String(s.child.pid!)]);
    execFileSync('taskset', ['-a', '-cp', '1', String(process.pid)]);
  }
  for (const s of all) await deploy(s.port);
  return {
    off,
    on,
    off2,
    reqs: { off: await requestsFor(off), on: await requestsFor(on), off2: off2 && (await requestsFor(off2)) },
  };
}

async function stopSet(set: ServerSet): Promise<void> {
  await Promise.all([set.off.stop(), set.on.stop(), set.off2?.stop()]);
}

/**
 * One set's servers alone and saturated, in turn, `rounds` times: on/off (and off2/off) per
 * round. Each server goes first, second (and third) equally often: the one measured right after
 * another's load is not measured alike.
 */
async function aloneRounds(set: ServerSet, which: 'describe' | 'invoke') {
  const rps = { off: [] as number[], on: [] as number[], off2: [] as number[] };
  const cpu = { off: [] as number[], on: [] as number[], off2: [] as number[] };
  const measured: Array<{ label: keyof typeof rps; s: Proc; r: Requests }> = [
    { label: 'off', s: set.off, r: set.reqs.off },
    { label: 'on', s: set.on, r: set.reqs.on },
  ];
  if (set.off2 && set.reqs.off2) measured.push({ label: 'off2', s: set.off2, r: set.reqs.off2 });
  const saturate = (s: Proc, r: Requests, secs: number) =>
    load(`http://127.0.0.1:${s.port}${r[which].path}`, r[which].request, {
      seconds: secs,
      connections: Math.max(1, connections / 2),
    });
  // Warm-up: a fresh process's first seconds are its JIT's.
  for (const { s, r } of measured) await saturate(s, r, 2);
  for (let round = 0; round < rounds; round++) {
    const order = measured.map((_, i) => measured[(i + round) % measured.length]!);
    if (round % 2) order.reverse();
    for (const { label, s, r } of order) {
      const x = await cpuPerRequest(s.child.pid!, () => saturate(s, r, Math.min(seconds, 3)));
      if (x.bad) throw new Error(`${label}: ${x.bad} requests failed`);
      rps[label].push(x.rps);
      cpu[label].push(x.cpuUs);
    }
  }
  const on = rps.on.map((x, i) => x / rps.off[i]!);
  const off2 = rps.off2.map((x, i) => x / rps.off[i]!);
  const name = which === 'describe' ? 'DescribeEndpoint' : 'InvokeEndpoint warm';
  report(
    `${name}, each server alone and saturated, ${rounds} rounds: off ${rps.off.join('/')} req/s, on ${rps.on.join('/')} req/s, ratio per round ${on.map((r) => r.toFixed(2)).join('/')} (median ${median(on).toFixed(2)}); server CPU per request, median: off ${median(cpu.off)} µs, on ${median(cpu.on)} µs${set.off2 ? `, off2 ${median(cpu.off2)} µs` : ''}`,
  );
  if (set.off2)
    report(
      `${name}, control (a second anonymous server), same rounds: off2 ${rps.off2.join('/')} req/s, off2/off per round ${off2.map((r) => r.toFixed(2)).join('/')} (median ${median(off2).toFixed(2)})`,
    );
  return { on, off2 };
}

const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-'));
try {
  // Both servers run side by side and are measured in turn, twice, so that a neighbour's load on
  // the machine falls on both alike. "off": no credentials file, the same signed requests are
  // accepted unchecked; "on": verified and authorized.
  const creds = join(dir, 'credentials.json');
  writeFileSync(
    creds,
    JSON.stringify({
      principals: [
        {
          ...KEY,
          arn: 'arn:aws:iam::000000000000:user/bench',
          policy: {
            Version: '2012-10-17',
            Statement: [
              { Effect: 'Allow', Action: ['sagemaker:*', 's3:*'], Resource: '*' },
              { Effect: 'Deny', Action: 'sagemaker:DeleteEndpoint', Resource: 'arn:aws:sagemaker:*:*:endpoint/prod-*' },
              // CreateModel passes its execution role (iam:PassRole on a role the file holds).
              { Effect: 'Allow', Action: 'iam:PassRole', Resource: 'arn:aws:iam::000000000000:role/bench' },
            ],
          },
        },
      ],
      roles: [{ arn: 'arn:aws:iam::000000000000:role/bench' }],
    }),
  );
  const cost = await verificationCost(JSON.parse(readFileSync(creds, 'utf8')).principals[0].policy);
  report(
    `verification + authorization in process: DescribeEndpoint ${cost.describeUs} µs, InvokeEndpoint ${cost.invokeUs} µs per request`,
  );
  const set = await serverSet(dir, 0, creds);
  const { off, on, reqs } = set;
  const totals = { describe: { off: 0, on: 0 }, invoke: { off: 0, on: 0 } };
  for (const which of values['rate-only'] ? [] : (['describe', 'invoke'] as const)) {
    await side(off, on, reqs, which, 2); // warm-up
    for (let round = 1; round <= 3; round++) {
      const r = await side(off, on, reqs, which, seconds);
      totals[which].off += r.off.rps;
      totals[which].on += r.on.rps;
      const name = which === 'describe' ? 'DescribeEndpoint' : 'InvokeEndpoint warm';
      for (const [label, x] of [
        ['off', r.off],
        ['on ', r.on],
      ] as const) {
        report(
          `round ${round} ${name} ${label}: ${x.rps} req/s (p50 ${x.p50} ms, p99 ${x.p99} ms, errors ${x.bad}), server CPU ${x.cpuUs} µs/request`,
        );
      }
    }
  }
  // Throughput of each server alone, saturated, in turn: loaded at once, the two servers and
  // autocannon share the 2 cores, and when autocannon is what limits both, their ratio tends to 1
  // whatever the servers cost; alone, a server is what limits its own rate. Each further pair
  // (--pairs) is a fresh set of processes: one pair of processes can read ±15 % apart on the same
  // work for the whole of its life (heap and code placement, what the JIT made of its warm-up),
  // so the figure is the median over every round of every pair.
  const alone = { describe: [] as number[], invoke: [] as number[] };
  const control = { describe: [] as number[], invoke: [] as number[] };
  for (let pair = 0; pair < (values['rate-only'] ? 0 : pairs); pair++) {
    const current = pair === 0 ? set : await serverSet(dir, pair, creds);
    for (const which of ['describe', 'invoke'] as const) {
      const r = await aloneRounds(current, which);
      alone[which].push(...r.on);
      control[which].push(...r.off2);
    }
    if (pair > 0) await stopSet(current);
  }
  // Server CPU per request at a fixed rate below saturation, each server alone in turn (off, on,
  // off, on, ...): no contention between the two servers, so this is the verification's own cost.
  const rate = Number(values.rate);
  for (const which of ['describe', 'invoke'] as const) {
    const cpu = { off: [] as number[], on: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      // In turn, the first of each pair alternating: a server measured right after the other
      // one's load was not measured alike.
      for (const [label, s] of round % 2
        ? ([
            ['on', on],
            ['off', off],
          ] as const)
        : ([
            ['off', off],
            ['on', on],
          ] as const)) {
        const r = reqs[label][which];
        const x = await cpuPerRequest(s.child.pid!, () =>
          load(`http://127.0.0.1:${s.port}${r.path}`, r.request, {
            seconds: Math.min(seconds, 3),
            connections: 4,
            rate,
          }),
        );
        cpu[label].push(x.cpuUs);
      }
    }
    report(
      `${which === 'describe' ? 'DescribeEndpoint' : 'InvokeEndpoint warm'} at ${rate} req/s, each server alone, ${rounds} rounds: server CPU off ${cpu.off.join('/')} µs, on ${cpu.on.join('/')} µs per request (median difference ${median(cpu.on) - median(cpu.off)} µs)`,
    );
  }
  await off.stop();
  await set.off2?.stop();
  if (!values['rate-only']) {
    report(
      `throughput ratio on/off, both servers loaded at once, 3 rounds: DescribeEndpoint ${(totals.describe.on / totals.describe.off).toFixed(2)}, InvokeEndpoint ${(totals.invoke.on / totals.invoke.off).toFixed(2)}`,
    );
    report(
      `throughput ratio on/off, each server alone and saturated, median of ${rounds} rounds × ${pairs} pair(s): DescribeEndpoint ${median(alone.describe).toFixed(2)}, InvokeEndpoint ${median(alone.invoke).toFixed(2)}`,
    );
    if (values.control)
      report(
        `control ratio off2/off (two anonymous servers), same rounds, median: DescribeEndpoint ${median(control.describe).toFixed(2)}, InvokeEndpoint ${median(control.invoke).toFixed(2)}`,
      );
  }

  // 3. Forged signatures against the verifying server. RSS is read before and after each fifth:
  // the first steps are the heap growing back to what this load needs (it shrinks while the
  // server idles), a leak would keep climbing after.
  const n = Number(values.bad);
  const rss = [rssMB(on.child.pid!)];
  const statuses = new Map<number, number>();
  let sent = 0;
  let answered = 0;
  const worker = async () => {
    while (sent < n) {
      sent++;
      const { url, init } = forged(on.port);
      const res = await fetch(url, init);
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (++answered % Math.ceil(n / 5) === 0) rss.push(rssMB(on.child.pid!));
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: 32 }, worker));
  const ms = performance.now() - started;
  const accepted = [...statuses].filter(([s]) => s < 400 || s >= 500).reduce((t, [, c]) => t + c, 0);
  const alive =
    on.child.exitCode === null && (await fetch(`http://127.0.0.1:${on.port}/_slipway/health`)).status === 200;
  report(
    `${n} forged requests in ${(ms / 1000).toFixed(1)} s: statuses ${JSON.stringify(Object.fromEntries(statuses))}; accepted or 5xx ${accepted}; server alive ${alive}; RSS before and after each fifth ${rss.join(' → ')} MB`,
  );
  await on.stop();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
