// Worker threads for histogram building (tree_method hist/approx). Each thread (the main thread
// included: nthread - 1 workers) takes a fixed share of the features and sums every row of a node for
// them, in row order, into shared memory: a bin's sum is the same sequence of double additions
// whatever the thread count, so the trees do not depend on nthread.
// https://nodejs.org/docs/latest-v20.x/api/worker_threads.html

import { Worker } from 'node:worker_threads';
import { allocBins, type BinMatrix, buildHist, type RowBins } from './hist-matrix.js';
import type { HistBuilder } from './hist.js';
import type { ToHistWorker } from './hist-worker.js';

const ENTRY = new URL('./hist-worker.js', import.meta.url);

export class HistPool {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, () => void>();
  private nextId = 1;
  private matrix: BinMatrix | undefined;
  private bins: RowBins | undefined;
  readonly rowIdx: Int32Array;
  private readonly grad: Float32Array;
  private readonly hess: Float32Array;

  constructor(
    readonly threads: number,
    numRows: number,
  ) {
    this.rowIdx = new Int32Array(new SharedArrayBuffer(numRows * 4));
    this.grad = new Float32Array(new SharedArrayBuffer(numRows * 4));
    this.hess = new Float32Array(new SharedArrayBuffer(numRows * 4));
    for (let i = 1; i < threads; i++) {
      const w = new Worker(ENTRY);
      w.on('message', (id: number) => {
        const done = this.waiting.get(id);
        this.waiting.delete(id);
        done?.();
      });
      w.on('error', (err) => {
        for (const done of this.waiting.values()) done();
        this.waiting.clear();
        this.failure = err;
      });
      const msg: ToHistWorker = {
        t: 'grad',
        grad: this.grad.buffer as SharedArrayBuffer,
        hess: this.hess.buffer as SharedArrayBuffer,
        rowIdx: this.rowIdx.buffer as SharedArrayBuffer,
      };
      w.postMessage(msg);
      this.workers.push(w);
    }
  }

  private failure: Error | undefined;
  /** histogram buffers handed back by the grower, reused instead of leaving them to the GC */
  private readonly free: SharedArrayBuffer[] = [];

  /** Copies this tree's gradients where the threads read them. */
  setGradients(grad: Float32Array, hess: Float32Array): void {
    if (grad !== this.grad) this.grad.set(grad);
    if (hess !== this.hess) this.hess.set(hess);
  }

  builder(m: BinMatrix): HistBuilder {
    let bins = m.bins;
    if (this.matrix !== m) {
      this.matrix = m;
      if (!(bins.buffer instanceof SharedArrayBuffer)) {
        const copy = allocBins(bins.length, bins.BYTES_PER_ELEMENT as 1 | 2 | 4, true);
        copy.set(bins);
        bins = copy;
      }
      this.bins = bins;
      for (const w of this.workers) {
        const msg: ToHistWorker = {
          t: 'data',
          bins: bins.buffer as SharedArrayBuffer,
          bytes: bins.BYTES_PER_ELEMENT as 1 | 2 | 4,
          offsets: m.offsets,
          missing: m.missing,
          dense: m.dense,
          numCols: m.numCols,
        };
        w.postMessage(msg);
      }
    }
    bins = this.bins as RowBins;
    const total = m.cuts.ptr[m.numCols];
    const nc = m.numCols;
    const parts = Math.min(this.threads, nc);
    return {
      build: async (jobs, hessHist) => {
        const outs = jobs.map(() => {
          const buf = this.free.pop() ?? new SharedArrayBuffer(total * 16);
          if (hessHist) new Float64Array(buf).set(hessHist);
          else new Float64Array(buf).fill(0);
          return buf;
        });
        const gradOnly = hessHist !== undefined;
        const tasks: Promise<void>[] = [];
        const hists = outs.map((b) => new Float64Array(b));
        for (let i = 1; i < parts; i++) {
          const c0 = Math.floor((i * nc) / parts);
          const c1 = Math.floor(((i + 1) * nc) / parts);
          const id = this.nextId++;
          tasks.push(new Promise<void>((res) => this.waiting.set(id, res)));
          const msg: ToHistWorker = {
            t: 'build',
            id,
            c0,
            c1,
            gradOnly,
            jobs: jobs.map((j, k) => ({ ...j, out: outs[k] })),
          };
          this.workers[i - 1].postMessage(msg);
        }
        // the main thread's share: the first features
        const c1 = Math.floor(nc / parts);
        for (let k = 0; k < jobs.length; k++) {
          const { begin, end } = jobs[k];
          buildHist(
            bins,
            m.offsets,
            m.missing,
            m.dense,
            nc,
            0,
            c1,
            this.rowIdx,
            begin,
            end,
            this.grad,
            this.hess,
            hists[k],
            gradOnly,
          );
        }
        await Promise.all(tasks);
        if (this.failure) throw this.failure;
        return hists;
      },
      release: (h) => {
        if (h.buffer instanceof SharedArrayBuffer && h.byteLength === total * 16) this.free.push(h.buffer);
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
