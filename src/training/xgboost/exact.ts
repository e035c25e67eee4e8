// tree_method=exact: xgboost 1.7's ColMaker (src/tree/updater_colmaker.cc) followed by the pruner
// (src/tree/updater_prune.cc), level by level over value-sorted columns, learning the default
// direction of missing values by scanning each column both ways.

import type { ColumnSampler } from './sampler.js';
import type { SortedColumns } from './exact-columns.js';
import { RegTree } from './tree.js';
import { calcGain, calcSplitGain, calcWeight, RT_EPS, type SplitParams } from './split.js';

const f = Math.fround;

/** the relative slack of the gain bound in ExactGrower.scanRun, well above float's rounding (~6e-8 a step) */
const BOUND_EPS = 1e-6;

/**
 * The exact updater's state for one training, reused by every tree it grows. ColMaker scans each
 * sorted column once per level for all of the level's nodes, finding each row's node through the
 * position array; here each column is kept partitioned by node instead (a stable partition, so each
 * node's entries stay in value order, ties by row), so a node's scan is one contiguous run with its
 * running sums in locals. The sums, candidates and their order are ColMaker's.
 */
export class ExactGrower {
  /** node of each row; ~nid for a row left out of the sums (sampled out, negative hessian, finished leaf) */
  readonly pos: Int32Array;
  private readonly nc: number;
  /** the sorted columns of the active rows, each column's entries grouped by node of the current level */
  private readonly wRow: Int32Array;
  private readonly wVal: Float32Array;
  private readonly tRow: Int32Array;
  private readonly tVal: Float32Array;
  private cap = 0;
  /**
   * Per node of the current level × column: the node's run within the column (index: the node's
   * place in the level's queue * numCols + column); next* for the level being made.
   */
  private runStart = new Int32Array(0);
  private runEnd = new Int32Array(0);
  private nextStart = new Int32Array(0);
  private nextEnd = new Int32Array(0);
  // snode_: sums in double, weight and root gain as float
  private sg = new Float64Array(0);
  private sh = new Float64Array(0);
  private weight = new Float32Array(0);
  private rootGain = new Float32Array(0);
  /** ThreadEntry.last_fvalue, kept from column to column as xgboost keeps it */
  private tlast = new Float32Array(0);
  // ThreadEntry.best: gain, feature, threshold, default left, left and right sums
  private bLoss = new Float32Array(0);
  private bFeat = new Int32Array(0);
  private bValue = new Float32Array(0);
  private bLeft = new Uint8Array(0);
  private bStats = new Float64Array(0);
  private queue = new Int32Array(0);
  private next = new Int32Array(0);
  /** columns that need the forward scan too (missing values and more than one distinct value) */
  private readonly forward: Uint8Array;
  /** scanRun's results, read by scan */
  private readonly scanOut = new Float64Array(7);

  constructor(
    private readonly cols: SortedColumns,
    /** the training matrix, row-major float32, NaN for missing */
    private readonly data: Float32Array,
    private readonly p: SplitParams,
    private readonly maxDepth: number,
  ) {
    const nc = cols.numCols;
    this.nc = nc;
    this.pos = new Int32Array(cols.numRows);
    this.forward = new Uint8Array(nc);
    let longest = 0;
    for (let c = 0; c < nc; c++) {
      const s = cols.ptr[c];
      const e = cols.ptr[c + 1];
      longest = Math.max(longest, e - s);
      const indicator = e > s && cols.values[s] === cols.values[e - 1];
      // ColMakerTrainParam: forward search only for columns with missing values (default_direction=learn)
      this.forward[c] = cols.density[c] < 1 && !indicator ? 1 : 0;
    }
    this.wRow = new Int32Array(cols.rows.length);
    this.wVal = new Float32Array(cols.values.length);
    this.tRow = new Int32Array(longest);
    this.tVal = new Float32Array(longest);
    this.reserve(Math.min(2 ** Math.min(maxDepth + 1, 8), 2 * cols.numRows + 1));
    this.reserveRuns(1);
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

  /** Room for the runs of a level of `width` nodes (the current level's runs are kept). */
  private reserveRuns(width: number): void {
    const need = width * this.nc;
    if (need <= this.nextStart.length) return;
    const size = Math.max(need, 2 * this.nextStart.length);
    const keep = (a: Int32Array) => {
      const b = new Int32Array(size);
      b.set(a);
      return b;
    };
    this.runStart = keep(this.runStart);
    this.runEnd = keep(this.runEnd);
    this.nextStart = new Int32Array(size);
    this.nextEnd = new Int32Array(size);
  }

  /** InitNewNode for one node from its sums. */
  private setNode(nid: number, g: number, h: number): void {
    this.sg[nid] = g;
    this.sh[nid] = h;
    this.weight[nid] = calcWeight(this.p, g, h);
    this.rootGain[nid] = calcGain(this.p, g, h);
    this.bLoss[nid] = 0;
    this.tlast[nid] = 0;
  }

  /**
   * Grows one tree. `active[r]` 0 leaves row r out (subsampling); rows with a negative hessian are
   * left out as xgboost does. Afterwards `pos` holds each row's node, for addLeafValues.
   */
  grow(grad: Float32Array, hess: Float32Array, active: Uint8Array | undefined, sampler: ColumnSampler): RegTree {
    const p = this.p;
    const tree = new RegTree(this.nc);
    this.initRoot(grad, hess, active);
    let q = this.queue;
    let qn = 1;
    q[0] = 0;
    for (let depth = 0; depth < this.maxDepth; depth++) {
      // FindSplit: every node of the level, each sampled column
      const feats = sampler.featureSet(depth);
      for (let j = 0; j < feats.length; j++) {
        const fid = feats[j];
        for (let i = 0; i < qn; i++) {
          if (this.forward[fid] === 1) this.scan(q[i], i, fid, grad, hess, false);
          this.scan(q[i], i, fid, grad, hess, true);
        }
      }
      for (let i = 0; i < qn; i++) this.apply(tree, q[i]);
      this.reserve(tree.numNodes);
      this.reserveRuns(tree.numNodes - q[qn - 1] - 1);
      this.reposition(tree, grad, hess);
      const nq = this.next;
      let nn = 0;
      const { left, right } = tree;
      for (let i = 0; i < qn; i++) {
        const nid = q[i];
        if (left[nid] === -1) continue;
        const l = left[nid];
        const r = right[nid];
        this.setNode(l, this.sg[l], this.sh[l]);
        this.setNode(r, this.sg[r], this.sh[r]);
        nq[nn++] = l;
        nq[nn++] = r;
        if (depth + 1 < this.maxDepth) this.partition(i, nn - 2, l, r);
      }
      this.next = q;
      this.queue = nq;
      const { runStart, runEnd } = this;
      this.runStart = this.nextStart;
      this.runEnd = this.nextEnd;
      this.nextStart = runStart;
      this.nextEnd = runEnd;
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

  /** The root's rows, sums and column runs: the sorted columns without the rows left out. */
  private initRoot(grad: Float32Array, hess: Float32Array, active: Uint8Array | undefined): void {
    const { pos, cols, wRow, wVal, runStart, runEnd } = this;
    const n = cols.numRows;
    let g0 = 0;
    let h0 = 0;
    let all = true;
    for (let r = 0; r < n; r++) {
      const h = hess[r];
      if (h < 0 || (active !== undefined && active[r] === 0)) {
        pos[r] = ~0;
        all = false;
      } else {
        pos[r] = 0;
        g0 += grad[r];
        h0 += h;
      }
    }
    this.setNode(0, g0, h0);
    const { rows, values, ptr } = cols;
    if (all) {
      wRow.set(rows);
      wVal.set(values);
    }
    for (let c = 0; c < this.nc; c++) {
      const s = ptr[c];
      let w = s;
      if (all) w = ptr[c + 1];
      else {
        for (let i = s; i < ptr[c + 1]; i++) {
          const row = rows[i];
          if (pos[row] === 0) {
            wRow[w] = row;
            wVal[w++] = values[i];
          }
        }
      }
      runStart[c] = s;
      runEnd[c] = w;
    }
  }

  /** The node's split from the scan (its fresh SplitEntry takes the scan's best when that gains). */
  private apply(tree: RegTree, nid: number): void {
    const p = this.p;
    const loss = this.bLoss[nid];
    if (loss > RT_EPS) {
      const s = 4 * nid;
      const st = this.bStats;
      tree.expand(
        nid,
        this.bFeat[nid],
        this.bValue[nid],
        this.bLeft[nid] === 1,
        this.weight[nid],
        f(calcWeight(p, st[s], st[s + 1]) * p.eta),
        f(calcWeight(p, st[s + 2], st[s + 3]) * p.eta),
        loss,
        this.sh[nid],
        st[s + 1],
        st[s + 3],
        0,
      );
    } else {
      tree.setLeaf(nid, f(this.weight[nid] * p.eta));
    }
  }

  /** ResetPosition, and the new nodes' sums in the same pass (in row order, as InitNewNode sums). */
  private reposition(tree: RegTree, grad: Float32Array, hess: Float32Array): void {
    const { pos, data, sg, sh, nc } = this;
    const { left, right, feature, cond, defaultLeft } = tree;
    // the children just made: leaves whose right child is the "fresh" marker 0
    for (let nid = tree.numNodes - 1; nid >= 0 && left[nid] === -1 && right[nid] === 0; nid--) {
      sg[nid] = 0;
      sh[nid] = 0;
    }
    for (let r = 0; r < pos.length; r++) {
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
        sh[child] += hess[r];
      } else pos[r] = ~child;
    }
  }

  /**
   * Splits the runs of the node at place qi of the level in every column into its children's runs
   * (places k and k + 1 of the next level), keeping the value order.
   */
  private partition(qi: number, k: number, l: number, r: number): void {
    if (r !== l + 1) throw new Error('exact: children are expected to be allocated side by side');
    const { pos, wRow, wVal, tRow, tVal, runStart, runEnd, nextStart, nextEnd, nc } = this;
    for (let c = 0; c < nc; c++) {
      const s = runStart[qi * nc + c];
      const e = runEnd[qi * nc + c];
      let w = s;
      let t = 0;
      // every row of the run is in l or in r = l + 1 now: written to both sides, kept on one (no
      // branch on a coin flip)
      for (let i = s; i < e; i++) {
        const row = wRow[i];
        const v = wVal[i];
        const right = pos[row] - l;
        wRow[w] = row;
        wVal[w] = v;
        tRow[t] = row;
        tVal[t] = v;
        w += 1 - right;
        t += right;
      }
      nextStart[k * nc + c] = s;
      nextEnd[k * nc + c] = w;
      nextStart[(k + 1) * nc + c] = w;
      nextEnd[(k + 1) * nc + c] = w + t;
      if (t > 0) {
        wRow.set(tRow.subarray(0, t), w);
        wVal.set(tVal.subarray(0, t), w);
      }
    }
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

  /**
   * ColMaker::EnumerateSplit for one node over its run of one column, one direction. The loop is
   * scanRun; the split beyond the last value and the record of the best are here, in a function
   * with no loop: their branches are taken first long after scanRun is optimized (on-stack), and a
   * deopt in a function with a loop can leave V8 running it from its OSR code forever after — the
   * notebook's job trained at about half speed when that happened.
   */
  private scan(nid: number, qi: number, fid: number, grad: Float32Array, hess: Float32Array, backward: boolean): void {
    const o = this.scanOut;
    const run = qi * this.nc + fid;
    let found = this.scanRun(nid, grad, hess, backward, this.runStart[run], this.runEnd[run]);
    const p = this.p;
    const mcw = p.minChildWeight;
    const G = this.sg[nid];
    const H = this.sh[nid];
    const root = this.rootGain[nid];
    const eg = o[0];
    const eh = o[1];
    const last = o[2];
    let best = o[3];
    let value = o[4];
    let fg = o[5];
    let fh = o[6];
    // the split beyond the last value: every present value on the scanned side
    const cg = G - eg;
    const ch = H - eh;
    if (eh >= mcw && ch >= mcw) {
      const loss = f(calcSplitGain(p, eg, eh, cg, ch) - root);
      if (loss > best && loss !== Number.POSITIVE_INFINITY) {
        best = loss;
        found = true;
        const gap = f(Math.abs(last) + RT_EPS);
        value = backward ? f(last - gap) : f(last + gap);
        fg = eg;
        fh = eh;
      }
    }
    if (!found) return;
    this.bLoss[nid] = best;
    this.bFeat[nid] = fid;
    this.bValue[nid] = value;
    this.bLeft[nid] = backward ? 1 : 0;
    const k = 4 * nid;
    const st = this.bStats;
    // forward: the scanned side is the left child; backward: the right, missing values go left
    st[k] = backward ? G - fg : fg;
    st[k + 1] = backward ? H - fh : fh;
    st[k + 2] = backward ? fg : G - fg;
    st[k + 3] = backward ? fh : H - fh;
  }

  /**
   * The scan's loop over the run [s, e): the best candidate's loss, threshold and scanned-side sums
   * and the scan's final sums go to scanOut (eg, eh, last, best, value, fg, fh); true when a
   * candidate beat the node's best.
   */
  private scanRun(
    nid: number,
    grad: Float32Array,
    hess: Float32Array,
    backward: boolean,
    s: number,
    e: number,
  ): boolean {
    const p = this.p;
    const wRow = this.wRow;
    const wVal = this.wVal;
    const mcw = p.minChildWeight;
    const plain = p.maxDeltaStep === 0;
    const alpha = p.alpha;
    const lambda = p.lambda;
    const G = this.sg[nid];
    const H = this.sh[nid];
    const root = this.rootGain[nid];
    let best = this.bLoss[nid];
    // see the bound below: only without max_delta_step, where the gain is g²/(h+λ) per side
    const bound = plain && alpha >= 0;
    let bar = best + root - BOUND_EPS * (Math.abs(best) + Math.abs(root));
    let found = false;
    let value = 0;
    // the scanned side's sums at the best candidate
    let fg = 0;
    let fh = 0;
    let eg = 0;
    let eh = 0;
    let last = this.tlast[nid];
    const step = backward ? -1 : 1;
    const end = backward ? s - 1 : e;
    for (let i = backward ? e - 1 : s; i !== end; i += step) {
      const fv = wVal[i];
      const row = wRow[i];
      // ThreadEntry: a first hit (no hessian yet) only starts the sums
      if (eh !== 0 && eh >= mcw && fv !== last) {
        const cg = G - eg;
        const ch = H - eh;
        // A candidate's gain is computed only when a bound in double says it might beat the best:
        // gain ≤ D = eg²/(eh+λ) + cg²/(ch+λ) (ThresholdL1 only shrinks |g|), the float roundings
        // add at most ~4·2⁻²⁴ relative, so D·(1+2e-6) < best + root - 1e-6·(|best|+|root|)
        // means the float loss cannot exceed best. D is compared cross-multiplied (no division).
        const P = eh + lambda;
        const Q = ch + lambda;
        if (
          ch >= mcw &&
          !(bound && P > 0 && Q > 0 && (eg * eg * Q + cg * cg * P) * (1 + 2 * BOUND_EPS) < bar * P * Q)
        ) {
          let gain: number;
          if (plain && alpha === 0) {
            // ThresholdL1(g, 0)² is g²
            const a = eh <= 0 ? 0 : f(f(eg * eg) / f(P));
            const b = ch <= 0 ? 0 : f(f(cg * cg) / f(Q));
            gain = f(a + b);
          } else if (plain) {
            // calcSplitGain without max_delta_step, written out (the gain is symmetric in its sides)
            const ta = eg > alpha ? eg - alpha : eg < -alpha ? eg + alpha : 0;
            const tb = cg > alpha ? cg - alpha : cg < -alpha ? cg + alpha : 0;
            const a = eh <= 0 ? 0 : f(f(ta * ta) / f(P));
            const b = ch <= 0 ? 0 : f(f(tb * tb) / f(Q));
            gain = f(a + b);
          } else gain = calcSplitGain(p, eg, eh, cg, ch);
          const loss = f(gain - root);
          // features are scanned in ascending order, so NeedReplace is "finite and larger"
          if (loss > best && loss !== Number.POSITIVE_INFINITY) {
            best = loss;
            bar = best + root - BOUND_EPS * (Math.abs(best) + Math.abs(root));
            found = true;
            value = f(f(fv + last) * 0.5);
            if (value === fv) value = last;
            fg = eg;
            fh = eh;
          }
        }
      }
      eg += grad[row];
      eh += hess[row];
      last = fv;
    }
    this.tlast[nid] = last;
    const o = this.scanOut;
    o[0] = eg;
    o[1] = eh;
    o[2] = last;
    o[3] = best;
    o[4] = value;
    o[5] = fg;
    o[6] = fh;
    return found;
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
