// tree_method=exact: xgboost 1.7's ColMaker (src/tree/updater_colmaker.cc) followed by the pruner
// (src/tree/updater_prune.cc), level by level over value-sorted columns, learning the default
// direction of missing values by scanning each column both ways.

import type { ColumnSampler } from './sampler.js';
import { sortedOrder } from './sketch.js';
import { RegTree } from './tree.js';
import { calcGain, calcSplitGain, calcWeight, RT_EPS, SplitEntry, type SplitParams } from './split.js';

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

interface NodeStat {
  g: number;
  h: number;
  rootGain: number;
  weight: number;
  best: SplitEntry;
}

/**
 * Grows one tree. `active[r]` false leaves row r out (subsampling); rows with a negative hessian are
 * left out as xgboost does.
 */
export function growExact(
  cols: SortedColumns,
  grad: Float32Array,
  hess: Float32Array,
  gOff: number,
  gStride: number,
  active: Uint8Array | undefined,
  p: SplitParams,
  maxDepth: number,
  sampler: ColumnSampler,
): RegTree {
  const n = cols.numRows;
  const tree = new RegTree(cols.numCols);
  const pos = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    const h = hess[gOff + r * gStride];
    if (h < 0 || (active !== undefined && !active[r])) pos[r] = ~0;
  }
  const snode: NodeStat[] = [];
  // per-node scan state (one thread's ThreadEntry)
  let tg = new Float64Array(0);
  let th = new Float64Array(0);
  let tlast = new Float32Array(0);
  let tbest: SplitEntry[] = [];
  let qexpand = [0];

  const initNewNodes = (nodes: number[]) => {
    const sg = new Float64Array(tree.numNodes);
    const sh = new Float64Array(tree.numNodes);
    for (let r = 0; r < n; r++) {
      const nid = pos[r];
      if (nid < 0) continue;
      sg[nid] += grad[gOff + r * gStride];
      sh[nid] += hess[gOff + r * gStride];
    }
    for (const nid of nodes) {
      snode[nid] = {
        g: sg[nid],
        h: sh[nid],
        weight: calcWeight(p, sg[nid], sh[nid]),
        rootGain: calcGain(p, sg[nid], sh[nid]),
        best: new SplitEntry(),
      };
    }
  };

  const scan: Scan = {
    tg,
    th,
    tlast,
    tbest,
    ng: new Float64Array(0),
    nh: new Float64Array(0),
    rootGain: new Float32Array(0),
  };
  const enumerate = (fid: number, forward: boolean) => {
    enumerateColumn(cols, fid, forward, pos, grad, hess, gOff, gStride, qexpand, scan, p);
  };

  initNewNodes(qexpand);
  for (let depth = 0; depth < maxDepth; depth++) {
    // FindSplit
    const size = tree.numNodes;
    tg = new Float64Array(size);
    th = new Float64Array(size);
    tlast = new Float32Array(size);
    tbest = [];
    for (let i = 0; i < size; i++) tbest.push(new SplitEntry());
    scan.tg = tg;
    scan.th = th;
    scan.tlast = tlast;
    scan.tbest = tbest;
    scan.ng = new Float64Array(size);
    scan.nh = new Float64Array(size);
    scan.rootGain = new Float32Array(size);
    for (const nid of qexpand) {
      scan.ng[nid] = snode[nid].g;
      scan.nh[nid] = snode[nid].h;
      scan.rootGain[nid] = snode[nid].rootGain;
    }
    const feats = sampler.featureSet(depth);
    for (const fid of feats) {
      const s = cols.ptr[fid];
      const e = cols.ptr[fid + 1];
      const indicator = e > s && cols.values[s] === cols.values[e - 1];
      // ColMakerTrainParam: forward search only for columns with missing values (default_direction=learn)
      if (cols.density[fid] < 1 && !indicator) enumerate(fid, true);
      enumerate(fid, false);
    }
    for (const nid of qexpand) {
      const sn = snode[nid];
      sn.best.updateFrom(tbest[nid]);
      const b = sn.best;
      if (b.lossChg > RT_EPS) {
        tree.expand(
          nid,
          b.feature,
          b.value,
          b.defaultLeft,
          sn.weight,
          f(calcWeight(p, b.lg, b.lh) * p.eta),
          f(calcWeight(p, b.rg, b.rh) * p.eta),
          b.lossChg,
          sn.h,
          b.lh,
          b.rh,
          0,
        );
      } else {
        tree.setLeaf(nid, f(sn.weight * p.eta));
      }
    }
    // ResetPosition: present values by the threshold, missing values by the default direction
    for (let r = 0; r < n; r++) {
      const enc = pos[r];
      const nid = enc < 0 ? ~enc : enc;
      if (tree.isLeaf(nid)) {
        if (tree.right[nid] === -1) pos[r] = ~nid;
      }
    }
    const splitFeatures = new Set<number>();
    for (const nid of qexpand) if (!tree.isLeaf(nid)) splitFeatures.add(tree.feature[nid]);
    const moved = new Uint8Array(n);
    for (const fid of splitFeatures) {
      for (let i = cols.ptr[fid]; i < cols.ptr[fid + 1]; i++) {
        const r = cols.rows[i];
        const enc = pos[r];
        const nid = enc < 0 ? ~enc : enc;
        if (!tree.isLeaf(nid) && tree.feature[nid] === fid) {
          const child = cols.values[i] < tree.cond[nid] ? tree.left[nid] : tree.right[nid];
          pos[r] = enc < 0 ? ~child : child;
          moved[r] = 1;
        }
      }
    }
    for (let r = 0; r < n; r++) {
      if (moved[r]) continue;
      const enc = pos[r];
      const nid = enc < 0 ? ~enc : enc;
      if (!tree.isLeaf(nid)) {
        const child = tree.defaultLeft[nid] ? tree.left[nid] : tree.right[nid];
        pos[r] = enc < 0 ? ~child : child;
      }
    }
    const newnodes: number[] = [];
    for (const nid of qexpand) {
      if (!tree.isLeaf(nid)) newnodes.push(tree.left[nid], tree.right[nid]);
    }
    initNewNodes(newnodes);
    qexpand = newnodes;
    if (qexpand.length === 0) break;
  }
  for (const nid of qexpand) tree.setLeaf(nid, f(snode[nid].weight * p.eta));
  for (let nid = 0; nid < tree.numNodes; nid++) {
    const sn = snode[nid];
    tree.lossChg[nid] = sn.best.lossChg;
    tree.baseWeight[nid] = sn.weight;
    tree.sumHess[nid] = f(sn.h);
  }
  prune(tree, p);
  return tree;
}

/** Per-depth scan state: one ThreadEntry per node, and the nodes' sums and gains. */
interface Scan {
  tg: Float64Array;
  th: Float64Array;
  tlast: Float32Array;
  tbest: SplitEntry[];
  ng: Float64Array;
  nh: Float64Array;
  rootGain: Float32Array;
}

/** ColMaker::EnumerateSplit over one column, one direction, for every node being expanded. */
function enumerateColumn(
  cols: SortedColumns,
  fid: number,
  forward: boolean,
  pos: Int32Array,
  grad: Float32Array,
  hess: Float32Array,
  gOff: number,
  gStride: number,
  qexpand: number[],
  sc: Scan,
  p: SplitParams,
): void {
  const { tg, th, tlast, tbest, ng, nh, rootGain } = sc;
  const rows = cols.rows;
  const values = cols.values;
  const s = cols.ptr[fid];
  const e = cols.ptr[fid + 1];
  for (const nid of qexpand) {
    tg[nid] = 0;
    th[nid] = 0;
  }
  const step = forward ? 1 : -1;
  const begin = forward ? s : e - 1;
  const end = forward ? e : s - 1;
  const mcw = p.minChildWeight;
  for (let i = begin; i !== end; i += step) {
    const row = rows[i];
    const nid = pos[row];
    if (nid < 0) continue;
    const fv = values[i];
    const gg = grad[gOff + row * gStride];
    const hh = hess[gOff + row * gStride];
    const eh = th[nid];
    if (eh === 0) {
      tg[nid] += gg;
      th[nid] += hh;
      tlast[nid] = fv;
      continue;
    }
    const last = tlast[nid];
    if (fv !== last && eh >= mcw) {
      const eg = tg[nid];
      const cg = ng[nid] - eg;
      const ch = nh[nid] - eh;
      if (ch >= mcw) {
        let proposed = f(f(fv + last) * 0.5);
        if (proposed === fv) proposed = last;
        // features are scanned in ascending order, so NeedReplace reduces to "gain is larger"
        const best = tbest[nid];
        if (forward) {
          const loss = f(calcSplitGain(p, eg, eh, cg, ch) - rootGain[nid]);
          if (loss > best.lossChg) best.update(loss, fid, proposed, false, eg, eh, cg, ch);
        } else {
          const loss = f(calcSplitGain(p, cg, ch, eg, eh) - rootGain[nid]);
          if (loss > best.lossChg) best.update(loss, fid, proposed, true, cg, ch, eg, eh);
        }
      }
    }
    tg[nid] += gg;
    th[nid] += hh;
    tlast[nid] = fv;
  }
  for (const nid of qexpand) {
    const eg = tg[nid];
    const eh = th[nid];
    const cg = ng[nid] - eg;
    const ch = nh[nid] - eh;
    if (eh >= mcw && ch >= mcw) {
      const gap = f(Math.abs(tlast[nid]) + RT_EPS);
      if (forward) {
        const loss = f(calcSplitGain(p, eg, eh, cg, ch) - rootGain[nid]);
        tbest[nid].update(loss, fid, f(tlast[nid] + gap), false, eg, eh, cg, ch);
      } else {
        const loss = f(calcSplitGain(p, cg, ch, eg, eh) - rootGain[nid]);
        tbest[nid].update(loss, fid, f(tlast[nid] - gap), true, cg, ch, eg, eh);
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
