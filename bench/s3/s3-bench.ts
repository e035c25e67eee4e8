// Issue 3 figures for the embedded S3 API: PutObject and GetObject throughput of 1 MiB objects over
// 16 keep-alive connections, and the server's RSS growth while lib-storage uploads (then a client
// downloads) a 1 GiB object. The server runs as its own process (bin/slipway.js serve) so its RSS
// is its own. Run: npm run build && node dist/bench/s3/s3-bench.js [--duration 10] [--size-mib 1024]
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    'object-kib': { type: 'string', default: '1024' },
    'size-mib': { type: 'string', default: '1024' },
    'data-dir': { type: 'string' },
    /** Writes a V8 CPU profile of the server into this directory (node --cpu-prof). */
    'server-profile': { type: 'string' },
    /** Comma-separated phases to run: put, get, big (the 1 GiB upload and download). */
    phases: { type: 'string', default: 'put,get,big' },
  },
});
const duration = Number(values.duration) * 1000;
const connections = Number(values.connections);
const objectSize = Number(values['object-kib']) * 1024;
const bigSize = Number(values['size-mib']) * 1024 * 1024;
const MiB = 1024 * 1024;
const phases = new Set(values.phases.split(','));

interface Server {
  child: ChildProcess;
  endpoint: string;
  stop(): Promise<void>;
}

async function startSlipway(dataDir: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    [
      ...(values['server-profile'] ? ['--cpu-prof', '--cpu-prof-dir', values['server-profile']] : []),
      'bin/slipway.js',
      'serve',
      '--port',
      '0',
      '--graph-port',
      '0',
      '--data-dir',
      dataDir,
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (c) => reject(new Error(`slipway exited (${c})`)));
    lines.on('line', (line) => {
      try {
        const rec = JSON.parse(line);
        if (rec.msg === 'listening') resolve(rec.port);
      } catch {
        // not a log line
      }
    });
  });
  return {
    child,
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

const agent = new Agent({ keepAlive: true, maxSockets: connections });

function send(endpoint: URL, method: string, path: string, body?: Buffer): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: endpoint.hostname,
        port: endpoint.port,
        method,
        path,
        agent,
        headers: body ? { 'content-length': String(body.length), 'content-type': 'application/octet-stream' } : {},
      },
      (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
        });
        res.on('end', () => resolve({ status: res.statusCode!, bytes }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** `connections` workers issue requests back to back for `duration`; returns MiB/s of payload. */
/** User+system CPU seconds the process has used (to show where the time goes). */
function cpuOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

let serverPid = 0;

async function run(label: string, op: (worker: number, i: number) => Promise<number>): Promise<void> {
  const latencies: number[] = [];
  const cpu0 = cpuOf(serverPid);
  let bytes = 0;
  const start = performance.now();
  const end = start + duration;
  await Promise.all(
    Array.from({ length: connections }, async (_, w) => {
      for (let i = 0; performance.now() < end; i++) {
        const t = performance.now();
        const n = await op(w, i);
        bytes += n;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const secs = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(28)} ${(bytes / MiB / secs).toFixed(0).padStart(5)} MiB/s  ${(latencies.length / secs).toFixed(0).padStart(5)} req/s  ` +
      `p50 ${percentile(latencies, 50).toFixed(1)} ms  p99 ${percentile(latencies, 99).toFixed(1)} ms  server CPU ${(((cpuOf(serverPid) - cpu0) / secs) * 100).toFixed(0)}%`,
  );
}

/** A stream of `size` bytes that never holds more than one 1 MiB block: the client's memory is not the test. */
function generated(size: number, block: Buffer): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return this.push(null);
      const n = Math.min(block.length, size - sent);
      sent += n;
      this.push(n === block.length ? block : block.subarray(0, n));
    },
  });
}

async function main(): Promise<void> {
  const dataDir = values['data-dir'] ?? mkdtempSync(join(tmpdir(), 'slipway-s3-bench-'));
  const server = await startSlipway(dataDir);
  const endpoint = new URL(server.endpoint);
  const pid = server.child.pid!;
  serverPid = pid;
  try {
    console.log(
      `slipway pid ${pid} at ${endpoint.href}, data dir ${dataDir}; ${connections} connections, ${objectSize / 1024} KiB objects, ${duration / 1000} s per phase`,
    );
    await send(endpoint, 'PUT', '/bench');
    const body = randomBytes(objectSize);
    const keysPerWorker = new Map<number, number>();
    await run(`PutObject ${objectSize / 1024} KiB`, async (w, i) => {
      const r = await send(endpoint, 'PUT', `/bench/w${w}/o${i}`, body);
      if (r.status !== 200) throw new Error(`PUT ${r.status}`);
      keysPerWorker.set(w, i + 1);
      return body.length;
    });
    if (phases.has('get'))
      await run(`GetObject ${objectSize / 1024} KiB`, async (w, i) => {
        const n = keysPerWorker.get(w) ?? 1;
        const r = await send(endpoint, 'GET', `/bench/w${w}/o${i % n}`);
        if (r.status !== 200) throw new Error(`GET ${r.status}`);
        return r.bytes;
      });

    if (!phases.has('big')) return;
    // 1 GiB through lib-storage, sampling the server's RSS every 50 ms.
    const s3 = new S3Client({
      endpoint: endpoint.href,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    });
    await s3.send(new CreateBucketCommand({ Bucket: 'big' })).catch(() => {});
    const sample = async <T>(label: string, fn: () => Promise<T>): Promise<T> => {
      const baseline = rssOf(pid);
      let peak = baseline;
      const timer = setInterval(() => {
        peak = Math.max(peak, rssOf(pid));
      }, 50);
      const t = performance.now();
      try {
        return await fn();
      } finally {
        clearInterval(timer);
        peak = Math.max(peak, rssOf(pid));
        const secs = (performance.now() - t) / 1000;
        console.log(
          `${label.padEnd(28)} ${(bigSize / MiB / secs).toFixed(0).padStart(5)} MiB/s  server RSS ${(baseline / MiB).toFixed(0)} MiB -> peak ${(peak / MiB).toFixed(0)} MiB (growth ${((peak - baseline) / MiB).toFixed(1)} MiB)`,
        );
      }
    };
    const block = randomBytes(MiB);
    const expected = createHash('md5');
    for (let n = 0; n < bigSize; n += MiB) expected.update(n + MiB <= bigSize ? block : block.subarray(0, bigSize - n));
    await sample(`lib-storage Upload ${bigSize / MiB} MiB`, () =>
      new Upload({
        client: s3,
        params: { Bucket: 'big', Key: 'model.tar.gz', Body: generated(bigSize, block) },
        partSize: 8 * MiB,
        queueSize: 4,
      }).done(),
    );
    await sample(`GetObject ${bigSize / MiB} MiB`, async () => {
      const r = await s3.send(new GetObjectCommand({ Bucket: 'big', Key: 'model.tar.gz' }));
      const got = createHash('md5');
      for await (const c of r.Body as Readable) got.update(c as Buffer);
      if (got.digest('hex') !== expected.digest('hex')) throw new Error('downloaded bytes differ');
    });
    s3.destroy();
  } finally {
    agent.destroy();
    await server.stop();
    if (!values['data-dir']) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
