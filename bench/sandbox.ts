// Issue 28 figures: what the sandbox costs and what it holds under a flood.
//   1. sandbox start → the script's first line: the new sandbox (no network; outbound through
//      pasta) against the bwrap invocation jobs used before it (the host read-only, shared
//      network) and a plain process, interleaved rounds;
//   2. a custom-image endpoint's warm InvokeEndpoint p50/p99 at a fixed rate: the model server
//      sandboxed (pasta publishes its port) against the same server unsandboxed
//      (SLIPWAY_SANDBOX=none), two servers side by side, measured in turn, twice;
//   3. a processing job printing 1 GB: the server's RSS before, at most during, after; the WAL
//      while the job runs and how long after its end it is back to ≤ 64 MB.
// Run as root (the sandbox's uids), after `npm run build`:
//   node dist/bench/sandbox.js [--rounds 40] [--seconds 10] [--rate 200] [--gigabytes 1] [--only start,invoke,flood]
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { jobLimits } from '../src/sandbox/limits.js';
import { Sandbox } from '../src/sandbox/sandbox.js';
import { load, median, percentile, rssMB, sagemaker, sleep, slipway } from './support.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '40' },
    seconds: { type: 'string', default: '10' },
    rate: { type: 'string', default: '200' },
    gigabytes: { type: 'string', default: '1' },
    only: { type: 'string' },
  },
});
const wanted = (part: string) => values.only === undefined || values.only.split(',').includes(part);
const report = (s: string) => console.log(s);
const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-sandbox-'));
// The containers files and scripts live where the sandboxes' uids may enter (not in the 0700 temp dir).
const shared = join(dir, 'shared');
mkdirSync(shared, { mode: 0o755 });
chmodSync(dir, 0o711);

/** Spawns `file args` and resolves with the ms until its first line of output (and its exit). */
function firstLine(file: string, args: string[], env: NodeJS.ProcessEnv = { PATH: '/usr/bin:/bin' }): Promise<number> {
  const t0 = performance.now();
  const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  return new Promise((ok, fail) => {
    let at: number | undefined;
    createInterface({ input: child.stdout! }).once('line', () => {
      at = performance.now() - t0;
    });
    child.once('error', fail);
    child.once('close', () => (at === undefined ? fail(new Error(`${file}: no output`)) : ok(at)));
  });
}

/** The bwrap invocation jobs ran under before the sandbox (src/sandbox at 5dda894). */
function previousBwrap(ml: string): string[] {
  return [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/opt',
    '--bind',
    ml,
    '/opt/ml',
    '--unshare-pid',
    '--unshare-ipc',
    '--die-with-parent',
    '--new-session',
    '--chdir',
    '/tmp',
  ];
}

async function startLatency(): Promise<void> {
  const dataDir = join(dir, 'start');
  const sandbox = await Sandbox.open({ dataDir, required: true });
  const limits = jobLimits('ml.m5.xlarge', 1, sandbox.host);
  const rounds = Number(values.rounds);
  const runs: Record<string, number[]> = { plain: [], before: [], none: [], outbound: [] };
  const script = ['sh', '-c', 'echo first'];
  for (let i = 0; i < rounds; i++) {
    const ml = join(dataDir, 'jobs', `j${i}`);
    mkdirSync(ml, { recursive: true });
    runs.plain!.push(await firstLine('/bin/sh', ['-c', 'echo first']));
    runs.before!.push(await firstLine('bwrap', [...previousBwrap(ml), '--', ...script]));
    for (const network of ['none', 'outbound'] as const) {
      const t0 = performance.now();
      let at: number | undefined;
      await sandbox.runJob(
        { argv: script, mlRoot: ml, env: () => ({}), network, limits },
        {
          onLine: () => {
            at ??= performance.now() - t0;
          },
        },
      );
      runs[network]!.push(at!);
    }
  }
  const line = (name: string, xs: number[]) =>
    `${name}: median ${median(xs).toFixed(1)} ms, p90 ${percentile(xs, 90).toFixed(1)} ms`;
  report(`1. sandbox start → the script's first line (sh -c 'echo first', ${rounds} interleaved rounds):`);
  report(`   ${line('plain process', runs.plain!)}`);
  report(`   ${line('bwrap as jobs ran before (host read-only, shared network)', runs.before!)}`);
  report(
    `   ${line('sandbox, network none', runs.none!)}  (+${(median(runs.none!) - median(runs.before!)).toFixed(1)} ms)`,
  );
  report(
    `   ${line('sandbox, outbound through pasta', runs.outbound!)}  (+${(median(runs.outbound!) - median(runs.before!)).toFixed(1)} ms)`,
  );
}

async function endpoint(port: number): Promise<void> {
  await sagemaker(port, 'CreateModel', {
    ModelName: 'echo',
    ExecutionRoleArn: 'arn:aws:iam::000000000000:role/bench',
    PrimaryContainer: { Image: '000000000000.dkr.ecr.us-east-1.amazonaws.com/bench-echo:1' },
  });
  await sagemaker(port, 'CreateEndpointConfig', {
    EndpointConfigName: 'echo',
    ProductionVariants: [
      {
        VariantName: 'AllTraffic',
        ModelName: 'echo',
        ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: 4, ProvisionedConcurrency: 4 },
      },
    ],
  });
  await sagemaker(port, 'CreateEndpoint', { EndpointName: 'echo', EndpointConfigName: 'echo' });
  for (;;) {
    const d = await sagemaker(port, 'DescribeEndpoint', { EndpointName: 'echo' });
    if (d.EndpointStatus === 'InService') return;
    if (d.EndpointStatus === 'Failed') throw new Error(String(d.FailureReason));
    await sleep(50);
  }
}

async function warmInvoke(): Promise<void> {
  const containers = join(shared, 'containers.json');
  writeFileSync(
    containers,
    JSON.stringify({
      images: { '*/bench-echo:*': { command: ['node', resolve('test/fixtures/containers/echo-server.mjs')] } },
    }),
  );
  const args = ['--log-level', 'warn', '--containers-file', containers];
  const before = await spawnWith({ SLIPWAY_SANDBOX: 'none' }, join(dir, 'unsandboxed'), args);
  const after = await spawnWith({}, join(dir, 'sandboxed'), args);
  try {
    await endpoint(before.port);
    await endpoint(after.port);
    const req = { headers: { 'content-type': 'text/csv' }, body: () => '1,2,3' };
    const opts = { seconds: Number(values.seconds), connections: 4, rate: Number(values.rate) };
    const url = (p: number) => `http://127.0.0.1:${p}/endpoints/echo/invocations`;
    for (const p of [before.port, after.port]) await load(url(p), req, { ...opts, seconds: 2 });
    report(`2. custom-image endpoint, warm InvokeEndpoint at ${opts.rate} req/s, 4 connections, 4 warm servers:`);
    for (let round = 1; round <= 2; round++) {
      for (const [name, p] of [
        ['unsandboxed (before)', before.port],
        ['sandboxed (pasta publishes the port)', after.port],
      ] as const) {
        const r = await load(url(p), req, opts);
        report(`   round ${round}, ${name}: p50 ${r.p50} ms, p99 ${r.p99} ms (${r.total} requests, errors ${r.bad})`);
      }
    }
  } finally {
    await before.stop();
    await after.stop();
  }
}

function spawnWith(env: Record<string, string>, dataDir: string, extra: string[]) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return slipway(dataDir, extra);
  } finally {
    for (const k of Object.keys(env)) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
}

async function flood(): Promise<void> {
  const gb = Number(values.gigabytes);
  const containers = join(shared, 'flood-containers.json');
  const script = join(shared, 'flood.py');
  writeFileSync(
    script,
    `import os, sys\nline = "y" * 99 + "\\n"\nblock = line * 10000\nfor _ in range(int(os.environ["BLOCKS"])):\n    sys.stdout.write(block)\nsys.stdout.flush()\n`,
  );
  // 10,000 lines of 100 bytes a block, 1,024 blocks a GB (≈ 1.02 GB per "gigabyte").
  writeFileSync(
    containers,
    JSON.stringify({ images: { '*/bench-flood:*': { command: ['/usr/bin/python3', script] } } }),
  );
  const dataDir = join(dir, 'flood');
  const s = await slipway(dataDir, ['--log-level', 'warn', '--containers-file', containers]);
  const wal = join(dataDir, 'slipway.db-wal');
  const walMB = () => (existsSync(wal) ? statSync(wal).size / 2 ** 20 : 0);
  const job = async (name: string, blocks: number) => {
    await sagemaker(s.port, 'CreateProcessingJob', {
      ProcessingJobName: name,
      RoleArn: 'arn:aws:iam::000000000000:role/bench',
      AppSpecification: { ImageUri: '000000000000.dkr.ecr.us-east-1.amazonaws.com/bench-flood:1' },
      ProcessingResources: { ClusterConfig: { InstanceCount: 1, InstanceType: 'ml.m5.xlarge', VolumeSizeInGB: 1 } },
      Environment: { BLOCKS: String(blocks) },
    });
  };
  const done = async (name: string) => {
    for (;;) {
      const d = await sagemaker(s.port, 'DescribeProcessingJob', { ProcessingJobName: name });
      if (d.ProcessingJobStatus !== 'InProgress') return d;
      await sleep(200);
    }
  };
  try {
    await sleep(2000);
    const cold = rssMB(s.child.pid!);
    // A first small job (1 MB of output) readies what any first job does (threads, the sandbox's
    // helpers, SQLite's checkpoint thread); the flood is measured from there.
    await job('warm-up', 1);
    await done('warm-up');
    await sleep(2000);
    const rss0 = rssMB(s.child.pid!);
    await job('flood', Math.round(gb * 1024));
    const t0 = performance.now();
    let rssMax = rss0;
    let walMax = 0;
    let status = '';
    for (;;) {
      rssMax = Math.max(rssMax, rssMB(s.child.pid!));
      walMax = Math.max(walMax, walMB());
      status = String(
        (await sagemaker(s.port, 'DescribeProcessingJob', { ProcessingJobName: 'flood' })).ProcessingJobStatus,
      );
      if (status !== 'InProgress') break;
      await sleep(200);
    }
    const ran = (performance.now() - t0) / 1000;
    const ended = performance.now();
    let walBack: number | undefined;
    while (performance.now() - ended < 30_000) {
      if (walMB() <= 64) {
        walBack = (performance.now() - ended) / 1000;
        break;
      }
      await sleep(100);
    }
    await sleep(Math.max(0, 3000 - (performance.now() - ended)));
    const rss1 = rssMB(s.child.pid!);
    report(`3. a processing job printing ${gb} GB (${status} in ${ran.toFixed(1)} s; the log keeps 32 MiB):`);
    report(
      `   server RSS: ${cold} MB at start, ${rss0} MB after a first 1 MB job; then at most ${rssMax} MB during (+${rssMax - rss0}), ${rss1} MB after (+${rss1 - rss0})`,
    );
    report(
      `   WAL: at most ${walMax.toFixed(1)} MB while it ran; ≤ 64 MB ${walBack === undefined ? 'NOT within 30 s' : `${walBack.toFixed(1)} s after the job ended`} (now ${walMB().toFixed(1)} MB); database ${(statSync(join(dataDir, 'slipway.db')).size / 2 ** 20).toFixed(1)} MB`,
    );
  } finally {
    await s.stop();
  }
}

try {
  if (wanted('start')) await startLatency();
  if (wanted('invoke')) await warmInvoke();
  if (wanted('flood')) await flood();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
