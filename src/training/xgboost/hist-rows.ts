// The per-row state of a hist/approx training in its team's arena (./hist-team.ts): margins,
// labels, weights and gradient pairs, so the objective's gradients and the prediction cache's
// update (each leaf's value added to its rows) run on every thread, by row chunks. Each row is
// computed by exactly the code the main thread would run on it, so chunks change nothing.

import { D, HEAD, rowChunk, Task, type TeamThread } from './hist-tasks.js';
import type { Team } from './hist-team.js';

/** Task.Gradients: the objective's gradient pairs of this thread's rows. */
export function gradientsTask(th: TeamThread, buf: ArrayBufferLike, P: Float64Array, d: Float64Array): void {
  const n = d[D.numRows];
  const k = P[7];
  const [r0, r1] = rowChunk(0, n, th.index, th.size);
  const obj = th.objective();
  const margins = new Float32Array(buf, P[2] + r0 * k * 4, (r1 - r0) * k);
  const labels = new Float32Array(buf, P[3] + r0 * 4, r1 - r0);
  const weights = P[4] < 0 ? undefined : new Float32Array(buf, P[4] + r0 * 4, r1 - r0);
  const grad = new Float32Array(buf, P[5] + r0 * k * 4, (r1 - r0) * k);
  const hess = new Float32Array(buf, P[6] + r0 * k * 4, (r1 - r0) * k);
  obj.gradients(margins, labels, weights, grad, hess);
}

/**
 * Task.Leaves: for this thread's positions of the final partition, each leaf's value added to its
 * rows' margins (UpdatePredictionCache); then the positions back to the rows in order, for the
 * next tree's root.
 */
export function leavesTask(th: TeamThread, buf: ArrayBufferLike, P: Float64Array, d: Float64Array): void {
  const n = d[D.numRows];
  const k = P[3];
  const g = P[4];
  const leaves = P[5];
  const rows = new Int32Array(buf, d[D.rows], n);
  const margins = new Float32Array(buf, P[2], n * k);
  const [p0, p1] = rowChunk(0, n, th.index, th.size);
  for (let j = 0, at = HEAD; j < leaves; j++, at += 3) {
    const begin = Math.max(P[at], p0);
    const end = Math.min(P[at + 1], p1);
    addLeaf(margins, rows, begin, end, k, g, P[at + 2]);
  }
  for (let i = p0; i < p1; i++) rows[i] = i;
}

function addLeaf(
  margins: Float32Array,
  rows: Int32Array,
  begin: number,
  end: number,
  k: number,
  g: number,
  v: number,
): void {
  // One output group (all but multi:*): the row is the index, no multiply and add of doubles per row.
  if (k === 1) for (let i = begin; i < end; i++) margins[rows[i]] += v;
  else for (let i = begin; i < end; i++) margins[rows[i] * k + g] += v;
}

/** The main thread's handle: views of the arrays in the arena, and the tasks over them. */
export class RowState {
  /** numRows × groups, row-major */
  readonly margins: Float32Array;
  readonly grad: Float32Array;
  readonly hess: Float32Array;
  private readonly labels: number;
  private readonly weights: number;

  constructor(
    private readonly team: Team,
    readonly numRows: number,
    readonly groups: number,
    labels: Float32Array,
    weights: Float32Array | undefined,
    baseMargin: number,
  ) {
    const n = numRows;
    const cells = n * groups;
    const m = team.alloc(cells * 4);
    const g = team.alloc(cells * 4);
    const h = team.alloc(cells * 4);
    this.labels = team.alloc(n * 4);
    this.weights = weights ? team.alloc(n * 4) : -1;
    const buf = team.buffer();
    this.margins = new Float32Array(buf, m, cells).fill(baseMargin);
    this.grad = new Float32Array(buf, g, cells);
    this.hess = new Float32Array(buf, h, cells);
    new Float32Array(buf, this.labels, n).set(labels);
    if (weights) new Float32Array(buf, this.weights, n).set(weights);
  }

  /** Every row's gradient pairs from the margins (the team's objective). */
  async gradients(): Promise<void> {
    const P = this.team.task(HEAD);
    P[0] = Task.Gradients;
    P[1] = this.team.desc;
    P[2] = this.margins.byteOffset;
    P[3] = this.labels;
    P[4] = this.weights;
    P[5] = this.grad.byteOffset;
    P[6] = this.hess.byteOffset;
    P[7] = this.groups;
    await this.team.run();
  }

  /** Adds output group g's leaves (begin, end, value: positions of the final partition) to the margins. */
  async addLeaves(leaves: number[], g: number): Promise<void> {
    const P = this.team.task(HEAD + leaves.length);
    P[0] = Task.Leaves;
    P[1] = this.team.desc;
    P[2] = this.margins.byteOffset;
    P[3] = this.groups;
    P[4] = g;
    P[5] = leaves.length / 3;
    P.set(leaves, HEAD);
    await this.team.run();
  }
}
