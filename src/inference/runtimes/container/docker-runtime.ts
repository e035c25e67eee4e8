// The Docker runtime: any other image runs as a container when a Docker engine answers
// `docker info`, following SageMaker's contract (`docker run IMAGE serve`, port 8080, the model
// read-only under /opt/ml/model, memory bounded by MemorySizeInMB).
// https://docs.aws.amazon.com/sagemaker/latest/dg/your-algorithms-inference-code.html
// Best effort: the machine Slipway is developed on has no Docker engine, so this path is untested.

import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import type { Instance, Runtime, RuntimeContext, RuntimeProvider } from '../../runtime.js';
import { ContainerFailure } from '../../failure.js';
import { HttpContainer } from './http-container.js';

const run = promisify(execFile);
const CHECK_TTL_MS = 30_000;

let checked: { at: number; ok: Promise<boolean> } | undefined;

/** Whether a Docker engine answers (cached for 30 s). */
export function dockerAvailable(): Promise<boolean> {
  const now = Date.now();
  if (!checked || now - checked.at > CHECK_TTL_MS) {
    checked = {
      at: now,
      ok: run('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 5000 }).then(
        (r) => r.stdout.trim() !== '',
        () => false,
      ),
    };
  }
  return checked.ok;
}

export function dockerProvider(enabled: boolean): RuntimeProvider {
  return {
    name: 'docker',
    async select(ctx: RuntimeContext): Promise<Runtime | undefined> {
      if (!enabled || !(await dockerAvailable())) return undefined;
      return {
        kind: 'docker',
        resolvedImage: ctx.container.image,
        start: () => startContainer(ctx),
      };
    },
  };
}

async function startContainer(ctx: RuntimeContext): Promise<Instance> {
  const args = ['run', '-d', '--rm', '-p', '127.0.0.1::8080', `--memory=${ctx.memoryMB}m`];
  if (ctx.hasModelData) args.push('-v', `${ctx.artifact.dir}:/opt/ml/model:ro`);
  for (const [k, v] of Object.entries(ctx.container.environment)) args.push('-e', `${k}=${v}`);
  args.push(ctx.container.image, 'serve');
  let id: string;
  let port: number;
  try {
    id = (await run('docker', args, { timeout: ctx.startupTimeoutMs })).stdout.trim();
    const mapped = (await run('docker', ['port', id, '8080/tcp'], { timeout: 10_000 })).stdout.trim();
    port = Number(/:(\d+)\s*$/m.exec(mapped)?.[1]);
    if (!port) throw new Error(`unexpected port mapping ${JSON.stringify(mapped)}`);
  } catch (e) {
    const err = e as Error & { stderr?: string };
    throw new ContainerFailure(
      'startup',
      500,
      `docker run failed: ${(err.stderr || err.message).trim().slice(0, 500)}`,
    );
  }
  const container = new HttpContainer('127.0.0.1', port, {
    stop(graceful) {
      void run('docker', graceful ? ['stop', '-t', '2', id] : ['rm', '-f', id]).catch(() => {});
    },
  });
  // `docker wait` prints the exit code when the container stops, whatever stopped it.
  const waiter = spawn('docker', ['wait', id], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  waiter.stdout.setEncoding('utf8');
  waiter.stdout.on('data', (s: string) => {
    out += s;
  });
  waiter.on('exit', async () => {
    const code = out.trim();
    const oom = await run('docker', ['inspect', '-f', '{{.State.OOMKilled}}', id]).then(
      (r) => r.stdout.trim() === 'true',
      () => code === '137',
    );
    if (oom) container.dying('memory');
    container.exited(
      oom
        ? `The container exceeded its memory limit (MemorySizeInMB=${ctx.memoryMB}) and was restarted.`
        : `The container exited with code ${code || 'unknown'}.`,
    );
  });
  waiter.unref();
  await container.waitReady(ctx.startupTimeoutMs);
  return container;
}
