// A thread-runtime model that misbehaves on request, for the pool tests (crash, hang, memory
// overrun, slow answers). Deployed through the `misbehavingProvider` (image `*/slipway-misbehaving:*`),
// which tests pass as an extra runtime; never part of a production engine.

import type { InvocationRequest, InvocationResult } from '../engine.js';
import type { RuntimeProvider } from '../runtime.js';
import { ContainerFailure } from '../failure.js';
import type { ThreadLoadArgs, ThreadModel } from '../threads/protocol.js';
import { threadRuntime } from '../runtimes/thread-runtime.js';

export async function load(args: ThreadLoadArgs): Promise<ThreadModel> {
  const tag = (args.options as { tag?: string } | undefined)?.tag ?? 'v1';
  if (args.environment.FAIL_LOAD) throw new Error('this model refuses to load');
  const held: unknown[] = [];
  return {
    async invoke(req: InvocationRequest): Promise<InvocationResult> {
      const body = Buffer.from(req.body).toString('utf8');
      if (body === 'crash') {
        setImmediate(() => {
          throw new Error('the model crashed on purpose');
        });
        return new Promise(() => {});
      }
      if (body === 'hang') for (;;) {}
      if (body === 'oom') {
        for (;;) held.push(new Array(1 << 20).fill(held.length)); // 8 MB a step: the heap fills fast
      }
      if (body.startsWith('sleep:')) await new Promise((r) => setTimeout(r, Number(body.slice(6))));
      if (body.startsWith('fail:')) throw new ContainerFailure('response', Number(body.slice(5)), 'failure requested');
      return { body: Buffer.from(`${tag}:${body}`), contentType: 'text/plain' };
    },
  };
}

export const misbehavingProvider: RuntimeProvider = {
  name: 'misbehaving (tests)',
  select(ctx) {
    const m = /\/slipway-misbehaving:(.+)$/.exec(ctx.container.image);
    if (!m) return undefined;
    return threadRuntime({
      kind: 'misbehaving',
      resolvedImage: ctx.container.image,
      module: new URL('./misbehaving-model.js', import.meta.url),
      args: {
        modelDir: ctx.artifact.dir,
        files: ctx.artifact.files,
        image: ctx.container.image,
        environment: ctx.container.environment,
        options: { tag: m[1] },
      },
      threads: ctx.threads,
      memoryMB: ctx.memoryMB,
      startupTimeoutMs: ctx.startupTimeoutMs,
    });
  },
};
