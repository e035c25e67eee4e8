// Worker thread of the histogram pool (./hist-pool.ts): builds the bins of its share of the features
// for each requested row range, writing straight into the shared output histograms.

import { parentPort } from 'node:worker_threads';
import { buildHist, type RowBins } from './hist-matrix.js';

interface Shared {
  bins: RowBins;
  offsets: Int32Array | undefined;
  missing: number;
  dense: boolean;
  numCols: number;
  grad: Float32Array;
  hess: Float32Array;
  rowIdx: Int32Array;
}

let s: Shared | undefined;

export type ToHistWorker =
  | {
      t: 'data';
      bins: SharedArrayBuffer;
      bytes: 1 | 2 | 4;
      offsets: Int32Array | undefined;
      missing: number;
      dense: boolean;
      numCols: number;
    }
  | { t: 'grad'; grad: SharedArrayBuffer; hess: SharedArrayBuffer; rowIdx: SharedArrayBuffer }
  | {
      t: 'build';
      id: number;
      c0: number;
      c1: number;
      gradOnly: boolean;
      jobs: { begin: number; end: number; out: SharedArrayBuffer }[];
    };

parentPort?.on('message', (m: ToHistWorker) => {
  if (m.t === 'data') {
    const bins =
      m.bytes === 1 ? new Uint8Array(m.bins) : m.bytes === 2 ? new Uint16Array(m.bins) : new Uint32Array(m.bins);
    s = { ...(s as Shared), bins, offsets: m.offsets, missing: m.missing, dense: m.dense, numCols: m.numCols };
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
  const { bins, offsets, missing, dense, numCols, grad, hess, rowIdx } = s as Shared;
  for (const job of m.jobs) {
    const out = new Float64Array(job.out);
    buildHist(
      bins,
      offsets,
      missing,
      dense,
      numCols,
      m.c0,
      m.c1,
      rowIdx,
      job.begin,
      job.end,
      grad,
      hess,
      out,
      m.gradOnly,
    );
  }
  parentPort?.postMessage(m.id);
});
