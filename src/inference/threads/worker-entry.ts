// A generic worker thread: loads one runtime module and one model at a time, answers invocations
// one by one, and can unload to be reused for another model (see thread-pool.ts).

import { parentPort } from 'node:worker_threads';
import { ContainerFailure } from '../failure.js';
import type { FromWorker, ThreadModel, ThreadRuntimeModule, ToWorker } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('worker-entry must run in a worker thread');

let model: ThreadModel | undefined;

function send(m: FromWorker): void {
  if (m.t === 'ok' && m.result) {
    const body = m.result.body;
    // Hand the result bytes over without a copy when they own their buffer.
    const own =
      body.byteOffset === 0 &&
      body.byteLength === body.buffer.byteLength &&
      !(body.buffer instanceof SharedArrayBuffer);
    port!.postMessage(m, own ? [body.buffer as ArrayBuffer] : []);
  } else port!.postMessage(m);
}

function fail(id: number, e: unknown): void {
  if (e instanceof ContainerFailure || (e instanceof Error && e.name === 'ContainerFailure')) {
    const f = e as ContainerFailure;
    send({ t: 'fail', id, status: f.status, message: f.message, response: f.kind === 'response' });
  } else {
    send({ t: 'fail', id, status: 500, message: e instanceof Error ? e.message : String(e), response: false });
  }
}

port.on('message', async (m: ToWorker) => {
  try {
    switch (m.t) {
      case 'load': {
        const mod = (await import(m.module)) as ThreadRuntimeModule;
        model = await mod.load(m.args);
        send({ t: 'ok', id: m.id });
        break;
      }
      case 'invoke': {
        if (!model) throw new Error('no model is loaded');
        send({ t: 'ok', id: m.id, result: await model.invoke(m.req) });
        break;
      }
      case 'unload': {
        const old = model;
        model = undefined;
        await old?.close?.();
        send({ t: 'ok', id: m.id });
        break;
      }
    }
  } catch (e) {
    fail(m.id, e);
  }
});

send({ t: 'ready' });
