// Runs an ONNX model with onnxruntime-node inside a worker thread (see codec.ts for the formats).
// https://onnxruntime.ai/docs/get-started/with-javascript/node.html

import { join } from 'node:path';
import type { InvocationRequest, InvocationResult } from '../../engine.js';
import { ContainerFailure } from '../../failure.js';
import type { ThreadLoadArgs, ThreadModel } from '../../threads/protocol.js';
import { decodeOnnxRequest, encodeOnnxResponse, type TensorSpec } from './codec.js';

export interface OnnxOptions {
  /** The .onnx file, relative to the model directory. */
  readonly file: string;
  /** Which output to answer with (default: the first). */
  readonly output?: string;
}

type Ort = typeof import('onnxruntime-node');

export async function load(args: ThreadLoadArgs): Promise<ThreadModel> {
  const o = args.options as OnnxOptions;
  const mod = (await import('onnxruntime-node')) as Ort & { default?: Ort };
  const ort = mod.default ?? mod;
  // One thread per session: a serverless worker is one request at a time, and several workers
  // (and endpoints) share the machine's cores.
  const session = await ort.InferenceSession.create(join(args.modelDir, ...o.file.split('/')), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  const inputs: TensorSpec[] = session.inputMetadata.map((m) => ({
    name: m.name,
    type: m.isTensor ? m.type : 'non-tensor',
    shape: m.isTensor ? m.shape : [],
  }));
  const output = o.output ?? session.outputNames[0];
  if (!output || !session.outputNames.includes(output)) {
    throw new Error(
      `the model has no output named ${JSON.stringify(output)} (outputs: ${session.outputNames.join(', ')})`,
    );
  }
  return {
    async invoke(req: InvocationRequest): Promise<InvocationResult> {
      const decoded = decodeOnnxRequest(req.body, req.contentType, inputs);
      const feeds: Record<string, InstanceType<Ort['Tensor']>> = {};
      for (const [name, t] of Object.entries(decoded)) {
        feeds[name] = new ort.Tensor(t.type as 'float32', t.data as Float32Array, t.dims);
      }
      let results: Awaited<ReturnType<typeof session.run>>;
      try {
        results = await session.run(feeds, [output]);
      } catch (e) {
        throw new ContainerFailure('response', 400, `The model could not run on this input: ${(e as Error).message}`);
      }
      const r = results[output]!;
      const enc = encodeOnnxResponse({ data: r.data as ArrayLike<number>, dims: r.dims }, req.accept);
      return { body: Buffer.from(enc.body), contentType: enc.contentType };
    },
    async close(): Promise<void> {
      await session.release();
    },
  };
}
