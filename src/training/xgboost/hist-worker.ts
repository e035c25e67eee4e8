// Worker thread of the histogram pool (./hist-pool.ts): builds the bins of its share of the features
// for each requested row range, writing straight into the shared output histograms.

import { parentPort } from 'node:worker_threads';
import { MISSING_BIN } from './hist.js';

interface Shared {
  bins: Uint16Array;
  numCols: number;
  off: Int32Array;
  grad: Float32Array;
  hess: Float32Array;
  rowIdx: Int32Array;
}

let s: Shared | undefined;

export type ToHistWorker =
  | { t: 'data'; bins: SharedArrayBuffer; numCols: number; off: Int32Array }
  | { t: 'grad'; grad: SharedArrayBuffer; hess: SharedArrayBuffer; rowIdx: SharedArrayBuffer }
  | { t: 'build'; id: number; c0: number; c1: number; jobs: { begin: number; end: number; out: SharedArrayBuffer }[] };

parentPort?.on('message', (m: ToHistWorker) => {
  if (m.t === 'data') {
    s = { ...(s as Shared), bins: new Uint16Array(m.bins), numCols: m.numCols, off: m.off };
    return;
  }
  if (m.t === 'grad') {
    s = {
      ...(s as Shared),
      grad: new Float32Array(m.grad),
      hess: new Float32Array(m.hess),
      rowIdx: new Int32Array(m.rowIdx),
    };
    return;
  }
  const { bins, numCols, off, grad, hess, rowIdx } = s as Shared;
  const { c0, c1 } = m;
  for (const job of m.jobs) {
    const hist = new Float64Array(job.out);
    for (let i = job.begin; i < job.end; i++) {
      const r = rowIdx[i];
      const g = grad[r];
      const h = hess[r];
      const base = r * numCols;
      for (let c = c0; c < c1; c++) {
        const b = bins[base + c];
        if (b !== MISSING_BIN) {
          const k = (off[c] + b) << 1;
          hist[k] += g;
          hist[k + 1] += h;
        }
      }
    }
  }
  parentPort?.postMessage(m.id);
});
