// tree_method=exact: xgboost 1.7's ColMaker (src/tree/updater_colmaker.cc) followed by the pruner
// (src/tree/updater_prune.cc), level by level over value-sorted columns, learning the default
// direction of missing values by scanning each column both ways.

import type { ColumnSampler } from './sampler.js';
import { sortedOrder } from './sketch.js';
import { RegTree } from './tree.js';
import { calcGain, calcSplitGain, calcWeight, RT_EPS, type SplitParams } from './split.js';

const f = Math.fround;

/** The training matrix by column, present values only, each column sorted by value (SortedCSCPage). */
export interface SortedColumns {
  numRows: number;
  numCols: number;
  /** numCols + 1 offsets into rows/values */
  ptr: Int32Array;
  rows: Int32Array;
  values: Float32Array;
  /** 1 - missing/numRows per column, as float (LazyGetColumnDensity) */
  density: Float32Array;
}

export function sortColumns(data: Float32Array, numRows: number, numCols: number): SortedColumns {
  const counts = new Int32Array(numCols);
  for (let r = 0; r < numRows; r++) {
    const b = r * numCols;
    for (let c = 0; c < numCols; c++) if (!Number.isNaN(data[b + c])) counts[c]++;
  }
  const ptr = new Int32Array(numCols + 1);
  for (let c = 0; c < numCols; c++) ptr[c + 1] = ptr[c] + counts[c];
  const rows = new Int32Array(ptr[numCols]);
  const values = new Float32Array(ptr[numCols]);
  const fill = ptr.slice(0, numCols);
  for (let r = 0; r < numRows; r++) {
    const b = r * numCols;
    for (let c = 0; c < numCols; c++) {
      const v = data[b + c];
      if (!Number.isNaN(v)) {
        rows[fill[c]] = r;
        values[fill[c]++] = v;
      }
    }
  }
  const density = new Float32Array(numCols);
  for (let c = 0; c < numCols; c++) {
    const st = ptr[c];
    const en = ptr[c + 1];
    const order = sortedOrder(values.subarray(st, en), en - st);
    const r2 = new Int32Array(en - st);
    const v2 = new Float32Array(en - st);
    for (let i = 0; i < order.length; i++) {
      r2[i] = rows[st + order[i]];
      v2[i] = values[st + order[i]];
    }
    rows.set(r2, st);
    values.set(v2, st);
    density[c] = f(1 - f(numRows - counts[c]) / numRows);
  }
  return { numRows, numCols, ptr, rows, values, density };
}

/**
 * The exact updater's state for one training, reused by every tree it grows: the row → node
 * positions (ColMaker's position_), the nodes' sums, weights and gains (snode_), and one thread's
 * ThreadEntry per node (running sums, last value, best split so far), all typed arrays indexed by
 * node id and grown when a tree needs more nodes.
 */
export class ExactGrower {
  /** node of each row; ~nid for a row left out of the sums (sampled out, negative hessian, finished leaf) */
  readonly pos: Int32Array;
  private cap = 0;
  // snode_: sums in double, weight and root gain as float
  private sg = new Float64Array(0);
  private sh = new Float64Array(0);
  private weight = new Float32Array(0);
  private rootGain = new Float32Array(0);
  // ThreadEntry: running sums and last value of the column being scanned, best split so far
  private tg = new Float64Array(0);
  private th = new Float64Array(0);
  private tlast = new Float32Array(0);
  private bLoss = new Float32Array(0);
  private bFeat = new Int32Array(0);
  private bValue = new Float32Array(0);
  private bLeft = new Uint8Array(0);
  private bStats = new Float64Array(0);
  private queue = new Int32Array(0);
  private next = new Int32Array(0);
  /** columns that need the forward scan too (missing values and more than one distinct value) */
  private readonly forward: Uint8Array;

  constructor(
    private readonly cols: SortedColumns,
    /** the training matrix, row-major float32, NaN for missing */
    private readonly data: Float32Array,
    private readonly p: SplitParams,
    private readonly maxDepth: number,
  ) {
    this.pos = new Int32Array(cols.numRows);
    this.forward = new Uint8Array(cols.numCols);
    for (let c = 0; c < cols.numCols; c++) {
      const s = cols.ptr[c];
      const e = cols.ptr[c + 1];
      const indicator = e > s && cols.values[s] === cols.values[e - 1];
      // ColMakerTrainParam: forward search only for columns with missing values (default_direction=learn)
      this.forward[c] = cols.density[c] < 1 && !indicator ? 1 : 0;
    }
    this.reserve(Math.min(2 ** Math.min(maxDepth + 1, 20), 2 * cols.numRows + 1));
  }

  private reserve(nodes: number): void {
    if (nodes <= this.cap) return;
    const cap = Math.max(nodes, this.cap * 2);
    const grow = <T extends Float64Array | Float32Array | Int32Array | Uint8Array>(a: T, n: number): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a);
      return b;
    };
    this.sg = grow(this.sg, cap);
    this.sh = grow(this.sh, cap);
    this.weight = grow(this.weight, cap);
    this.rootGain = grow(this.rootGain, cap);
    this.tg = grow(this.tg, cap);
    this.th = grow(this.th, cap);
    this.tlast = grow(this.tlast, cap);
    this.bLoss = grow(this.bLoss, cap);
    this.bFeat = grow(this.bFeat, cap);
    this.bValue = grow(this.bValue, cap);
    this.bLeft = grow(this.bLeft, cap);
    this.bStats = grow(this.bStats, 4 * cap);
    this.queue = grow(this.queue, cap);
    this.next = grow(this.next, cap);
    this.cap = cap;
  }

  /** InitNewNode for one node from its sums. */
  private setNode(nid: number, g: number, h: number): void {
    this.sg[nid] = g;
    this.sh[nid] = h;
    this.weight[nid] = calcWeight(this.p, g, h);
    this.rootGain[nid] = calcGain(this.p, g, h);
    this.bLoss[nid] = 0;
  }

  /**
   * Grows one tree. `active[r]` 0 leaves row r out (subsampling); rows with a negative hessian are
   * left out as xgboost does. Afterwards `pos` holds each row's node, for addLeafValues.
   */
  grow(grad: Float32Array, hess: Float32Array, active: Uint8Array | undefined, sampler: ColumnSampler): RegTree {
    const { cols, pos, p, data } = this;
    const n = cols.numRows;
    const nc = cols.numCols;
    const tree = new RegTree(nc);
    let g0 = 0;
    let h0 = 0;
    for (let r = 0; r < n; r++) {
      const h = hess[r];
      if (h < 0 || (active !== undefined && active[r] === 0)) pos[r] = ~0;
      else {
        pos[r] = 0;
        g0 += grad[r];
        h0 += h;
      }
    }
    this.setNode(0, g0, h0);
    let q = this.queue;
    let qn = 1;
    q[0] = 0;
    for (let depth = 0; depth < this.maxDepth; depth++) {
      // FindSplit: every node of the level in one pass over each sampled column
      for (let i = 0; i < qn; i++) this.bLoss[q[i]] = 0;
      const feats = sampler.featureSet(depth);
      for (let j = 0; j < feats.length; j++) {
        const fid = feats[j];
        if (this.forward[fid] === 1) this.scan(fid, false, grad, hess, q, qn);
        this.scan(fid, true, grad, hess, q, qn);
      }
      const { bLoss, bStats, weight, sh } = this;
      for (let i = 0; i < qn; i++) {
        const nid = q[i];
        // bLoss is 0 or a finite gain above 0: what the node's fresh SplitEntry takes from the scan
        const loss = bLoss[nid];
        if (loss > RT_EPS) {
          const s = 4 * nid;
          tree.expand(
            nid,
            this.bFeat[nid],
            this.bValue[nid],
            this.bLeft[nid] === 1,
            weight[nid],
            f(calcWeight(p, bStats[s], bStats[s + 1]) * p.eta),
            f(calcWeight(p, bStats[s + 2], bStats[s + 3]) * p.eta),
            loss,
            sh[nid],
            bStats[s + 1],
            bStats[s + 3],
            0,
          );
        } else {
          tree.setLeaf(nid, f(weight[nid] * p.eta));
        }
      }
      this.reserve(tree.numNodes);
      // ResetPosition and the new nodes' sums in one pass over the rows (row order, as InitNewNode sums)
      const { sg } = this;
      const nsh = this.sh;
      const left = tree.left;
      const right = tree.right;
      const feature = tree.feature;
      const cond = tree.cond;
      const defaultLeft = tree.defaultLeft;
      for (let nid = tree.numNodes - 1; nid >= 0 && left[nid] === -1 && right[nid] === 0; nid--) {
        sg[nid] = 0;
        nsh[nid] = 0;
      }
      for (let r = 0; r < n; r++) {
        const enc = pos[r];
        const nid = enc < 0 ? ~enc : enc;
        const l = left[nid];
        if (l === -1) {
          pos[r] = ~nid;
          continue;
        }
        const v = data[r * nc + feature[nid]];
        const c = cond[nid];
        // present values by the threshold, missing values by the default direction
        const child = v < c ? l : v >= c ? right[nid] : defaultLeft[nid] ? l : right[nid];
        if (enc >= 0) {
          pos[r] = child;
          sg[child] += grad[r];
          nsh[child] += hess[r];
        } else pos[r] = ~child;
      }
      const nq = this.next;
      let nn = 0;
      for (let i = 0; i < qn; i++) {
        const nid = q[i];
        if (left[nid] === -1) continue;
        const l = left[nid];
        const rc = right[nid];
        this.setNode(l, sg[l], nsh[l]);
        this.setNode(rc, sg[rc], nsh[rc]);
        nq[nn++] = l;
        nq[nn++] = rc;
      }
      this.next = q;
      this.queue = nq;
      q = nq;
      qn = nn;
      if (qn === 0) break;
    }
    for (let i = 0; i < qn; i++) tree.setLeaf(q[i], f(this.weight[q[i]] * p.eta));
    for (let nid = 0; nid < tree.numNodes; nid++) {
      tree.lossChg[nid] = this.bLoss[nid];
      tree.baseWeight[nid] = this.weight[nid];
      tree.sumHess[nid] = f(this.sh[nid]);
    }
    prune(tree, p);
    return tree;
  }

  /**
   * The prediction cache update from the rows' positions (what xgboost's leaf-position update does):
   * each row's leaf value added to out[r * stride + off]; a row whose node the pruner removed takes
   * the value of the nearest remaining ancestor, the leaf the pruned tree routes it to.
   */
  addLeafValues(tree: RegTree, out: Float32Array, stride: number, off: number): void {
    const { pos } = this;
    const deleted = tree.deleted;
    const parent = tree.parent;
    const cond = tree.cond;
    for (let r = 0; r < pos.length; r++) {
      const enc = pos[r];
      let nid = enc < 0 ? ~enc : enc;
      while (deleted[nid]) nid = parent[nid];
      out[r * stride + off] += cond[nid];
    }
  }

  /** ColMaker::EnumerateSplit over one column, one direction, for every node of the level. */
  private scan(fid: number, backward: boolean, grad: Float32Array, hess: Float32Array, q: Int32Array, qn: number) {
    const { cols, pos, p, tg, th, tlast, sg, sh, rootGain, bLoss, bFeat, bValue, bLeft, bStats } = this;
    const rows = cols.rows;
    const values = cols.values;
    const s = cols.ptr[fid];
    const e = cols.ptr[fid + 1];
    for (let i = 0; i < qn; i++) {
      tg[q[i]] = 0;
      th[q[i]] = 0;
    }
    const step = backward ? -1 : 1;
    const begin = backward ? e - 1 : s;
    const end = backward ? s - 1 : e;
    const mcw = p.minChildWeight;
    const plain = p.maxDeltaStep === 0;
    const alpha = p.alpha;
    const lambda = p.lambda;
    for (let i = begin; i !== end; i += step) {
      const row = rows[i];
      const nid = pos[row];
      if (nid < 0) continue;
      const fv = values[i];
      const eh = th[nid];
      // ThreadEntry: a first hit (no hessian yet) only starts the sums
      if (eh !== 0 && eh >= mcw && fv !== tlast[nid]) {
        const eg = tg[nid];
        const cg = sg[nid] - eg;
        const ch = sh[nid] - eh;
        if (ch >= mcw) {
          const last = tlast[nid];
          let proposed = f(f(fv + last) * 0.5);
          if (proposed === fv) proposed = last;
          let gain: number;
          if (plain) {
            // calcSplitGain without max_delta_step, written out: the gain is symmetric in its sides
            const tl = eg > alpha ? eg - alpha : eg < -alpha ? eg + alpha : 0;
            const tr = cg > alpha ? cg - alpha : cg < -alpha ? cg + alpha : 0;
            const a = eh <= 0 ? 0 : f(f(tl * tl) / f(eh + lambda));
            const b = ch <= 0 ? 0 : f(f(tr * tr) / f(ch + lambda));
            gain = backward ? f(b + a) : f(a + b);
          } else gain = backward ? calcSplitGain(p, cg, ch, eg, eh) : calcSplitGain(p, eg, eh, cg, ch);
          const loss = f(gain - rootGain[nid]);
          // features are scanned in ascending order, so NeedReplace is "finite and larger"
          if (loss > bLoss[nid] && loss !== Number.POSITIVE_INFINITY) {
            bLoss[nid] = loss;
            bFeat[nid] = fid;
            bValue[nid] = proposed;
            bLeft[nid] = backward ? 1 : 0;
            const o = 4 * nid;
            bStats[o] = backward ? cg : eg;
            bStats[o + 1] = backward ? ch : eh;
            bStats[o + 2] = backward ? eg : cg;
            bStats[o + 3] = backward ? eh : ch;
          }
        }
      }
      tg[nid] += grad[row];
      th[nid] = eh + hess[row];
      tlast[nid] = fv;
    }
    // the split beyond the last value: every present value on one side
    for (let i = 0; i < qn; i++) {
      const nid = q[i];
      const eg = tg[nid];
      const eh = th[nid];
      const cg = sg[nid] - eg;
      const ch = sh[nid] - eh;
      if (eh >= mcw && ch >= mcw) {
        const gap = f(Math.abs(tlast[nid]) + RT_EPS);
        const loss = backward
          ? f(calcSplitGain(p, cg, ch, eg, eh) - rootGain[nid])
          : f(calcSplitGain(p, eg, eh, cg, ch) - rootGain[nid]);
        if (loss > bLoss[nid] && loss !== Number.POSITIVE_INFINITY) {
          bLoss[nid] = loss;
          bFeat[nid] = fid;
          bValue[nid] = backward ? f(tlast[nid] - gap) : f(tlast[nid] + gap);
          bLeft[nid] = backward ? 1 : 0;
          const o = 4 * nid;
          bStats[o] = backward ? cg : eg;
          bStats[o + 1] = backward ? ch : eh;
          bStats[o + 2] = backward ? eg : cg;
          bStats[o + 3] = backward ? eh : ch;
        }
      }
    }
  }
}

/** TreePruner::DoPrune: collapse splits whose gain is below gamma, bottom-up. */
export function prune(tree: RegTree, p: SplitParams): void {
  const tryPrune = (nid: number) => {
    while (tree.parent[nid] !== -1) {
      const pid = tree.parent[nid];
      const l = tree.left[pid];
      const r = tree.right[pid];
      const balanced = tree.isLeaf(l) && r !== -1 && tree.isLeaf(r);
      if (!(balanced && tree.lossChg[pid] < p.gamma)) return;
      tree.changeToLeaf(pid, f(p.eta * tree.baseWeight[pid]));
      nid = pid;
    }
  };
  for (let nid = 0; nid < tree.numNodes; nid++) {
    if (tree.isLeaf(nid) && !tree.deleted[nid]) tryPrune(nid);
  }
}
