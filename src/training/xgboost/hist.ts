// tree_method=hist and approx: xgboost 1.7's QuantileHistMaker / GlobalApproxUpdater
// (src/tree/updater_quantile_hist.cc, updater_approx.cc, hist/evaluate_splits.h, driver.h): a
// quantized matrix, double-precision gradient histograms with the sibling-subtraction trick, both
// scan directions per feature, depthwise or lossguide expansion.

import type { ColumnSampler } from './sampler.js';
import { type BinMatrix, buildHist, partitionRows } from './hist-matrix.js';
import { calcGain, calcSplitGain, calcWeight, RT_EPS, SplitEntry, type SplitParams } from './split.js';
import { RegTree } from './tree.js';

const f = Math.fround;

export { type BinMatrix, quantize } from './hist-matrix.js';

/** Builds histograms of row ranges; replaceable by a pool of worker threads. */
export interface HistBuilder {
  /**
   * For each job: sum grad/hess of rows rowIdx[begin..end) into a fresh histogram. With `hessHist`
   * (one job), the histogram starts as a copy of it and only the gradients are added.
   */
  build(jobs: { begin: number; end: number }[], hessHist?: Float64Array): Promise<Float64Array[]>;
  /** hands back a histogram no longer needed, for reuse (a tree needs a few dozen at most) */
  release(hist: Float64Array): void;
}

/** Single-threaded histogram building over shared arrays. */
export function localHistBuilder(
  m: BinMatrix,
  rowIdx: () => Int32Array,
  grad: () => Float32Array,
  hess: () => Float32Array,
): HistBuilder {
  const total = m.cuts.ptr[m.numCols];
  const free: Float64Array[] = [];
  return {
    async build(jobs, hessHist) {
      return jobs.map((j) => {
        const hist = free.pop() ?? new Float64Array(total * 2);
        if (hessHist) hist.set(hessHist);
        else hist.fill(0);
        const rows = rowIdx();
        const gradOnly = hessHist !== undefined;
        buildHist(
          m.bins,
          m.offsets,
          m.missing,
          m.dense,
          m.numCols,
          0,
          m.numCols,
          rows,
          j.begin,
          j.end,
          grad(),
          hess(),
          hist,
          gradOnly,
        );
        return hist;
      });
    },
    release(hist) {
      if (hist.length === total * 2) free.push(hist);
    },
  };
}

interface Entry {
  nid: number;
  depth: number;
  split: SplitEntry;
}

interface Node {
  g: number;
  h: number;
  rootGain: number;
  begin: number;
  end: number;
}

export interface HistOptions {
  p: SplitParams;
  maxDepth: number;
  maxLeaves: number;
  lossguide: boolean;
  /** approx sums the root from the gradients, hist from the first feature's bins when dense */
  rootFromGradients: boolean;
  /** kept across the trees of one training: see RootCache */
  cache: RootCache;
}

/**
 * What one tree leaves the next: the partition scratch, and the root's hessian sums with the
 * hessians they came from. While the hessians stay the same (a constant-hessian objective without
 * subsampling, same matrix) the root's hessian half is the same sequence of additions, so only the
 * gradients are summed again.
 */
export class RootCache {
  m: BinMatrix | undefined;
  hess: Float32Array | undefined;
  hessHist: Float64Array | undefined;
  tmp = new Int32Array(0);

  /** the cached hessian sums, when they are this matrix's and these hessians' */
  lookup(m: BinMatrix, hess: Float32Array): Float64Array | undefined {
    const h = this.hess;
    if (this.m !== m || h === undefined || !sameFloats(h, hess)) return undefined;
    return this.hessHist;
  }

  store(m: BinMatrix, hess: Float32Array, rootHist: Float64Array): void {
    this.m = m;
    if (this.hess?.length !== hess.length) this.hess = new Float32Array(hess.length);
    this.hess.set(hess);
    if (this.hessHist?.length !== rootHist.length) this.hessHist = new Float64Array(rootHist.length);
    keepHessians(this.hessHist, rootHist);
  }
}

// The loops of a tree's bookkeeping, as small functions of typed arrays (optimized once, early,
// instead of running unoptimized inside the grower's large async body).

function identity(a: Int32Array, n: number): void {
  for (let i = 0; i < n; i++) a[i] = i;
}

function sameFloats(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function keepHessians(dst: Float64Array, hist: Float64Array): void {
  for (let k = 0; k < dst.length; k += 2) {
    dst[k] = 0;
    dst[k + 1] = hist[k + 1];
  }
}

/** the sums of a histogram's bins [b0, b1): [grad, hess] */
function sumPairs(hist: Float64Array, b0: number, b1: number): [number, number] {
  let g = 0;
  let h = 0;
  for (let b = b0; b < b1; b++) {
    g += hist[2 * b];
    h += hist[2 * b + 1];
  }
  return [g, h];
}

function sumFloats(a: Float32Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i];
  return s;
}

/** scan's results: the best loss, then the scan's final grad and hess sums */
const scanBest = new Float64Array(3);

/**
 * One direction of a feature's split enumeration over bins from..to (exclusive, step ±1): the bins
 * summed so far go to the left (forward) or right (backward) child. Returns the bin of the first
 * best gain above `floor` (or -1), the gain in scanBest[0]. A bin that adds nothing leaves the sums,
 * so the gain, as they were: it cannot beat its predecessor, and is skipped.
 */
function scan(
  hist: Float64Array,
  from: number,
  to: number,
  step: number,
  ng: number,
  nh: number,
  rootGain: number,
  floor: number,
  p: SplitParams,
  plain: boolean,
): number {
  const mcw = p.minChildWeight;
  const lambda = p.lambda;
  let bestLoss = floor;
  let at = -1;
  let sg = 0;
  let sh = 0;
  for (let i = from; i !== to; i += step) {
    const dg = hist[2 * i];
    const dh = hist[2 * i + 1];
    if (dg === 0 && dh === 0 && i !== from) continue;
    sg += dg;
    sh += dh;
    const os = nh - sh;
    if (sh >= mcw && os >= mcw) {
      const og = ng - sg;
      // the scanned side is the left child forward, the right child backward
      const gl = step > 0 ? sg : og;
      const hl = step > 0 ? sh : os;
      const gr = step > 0 ? og : sg;
      const hr = step > 0 ? os : sh;
      let gain: number;
      if (plain) {
        // calcSplitGain without alpha and max_delta_step, operation by operation
        const tl = gl > 0 || gl < 0 ? gl : 0;
        const tr = gr > 0 || gr < 0 ? gr : 0;
        const a = hl <= 0 ? 0 : f(f(tl * tl) / f(hl + lambda));
        const b = hr <= 0 ? 0 : f(f(tr * tr) / f(hr + lambda));
        gain = f(a + b);
      } else gain = calcSplitGain(p, gl, hl, gr, hr);
      const loss = f(gain - rootGain);
      if (loss > bestLoss && loss !== Number.POSITIVE_INFINITY) {
        bestLoss = loss;
        at = i;
      }
    }
  }
  scanBest[0] = bestLoss;
  scanBest[1] = sg;
  scanBest[2] = sh;
  return at;
}

/** parent -= child: the sibling's histogram in the parent's buffer */
function subtract(parent: Float64Array, child: Float64Array): void {
  for (let k = 0; k < parent.length; k++) parent[k] -= child[k];
}

/**
 * Grows one tree. grad/hess are contiguous per row (sampled rows already zeroed); rowIdx is a
 * scratch array of numRows entries the partitions live in. Returns the tree and, per row, the
 * leaf value to add to the prediction (UpdatePredictionCache).
 */
export async function growHist(
  m: BinMatrix,
  grad: Float32Array,
  hess: Float32Array,
  rowIdx: Int32Array,
  builder: HistBuilder,
  o: HistOptions,
  sampler: ColumnSampler,
): Promise<{ tree: RegTree; addLeaves: (margins: Float32Array, stride: number, offset: number) => void }> {
  const { p } = o;
  const n = m.numRows;
  const nc = m.numCols;
  const cuts = m.cuts;
  const tree = new RegTree(nc);
  identity(rowIdx, n);
  const nodes: Node[] = [{ g: 0, h: 0, rootGain: 0, begin: 0, end: n }];
  /** the histogram of each node still to be evaluated or split, by node id */
  const hists: (Float64Array | undefined)[] = [];

  // InitRoot
  const cached = o.cache.lookup(m, hess);
  const [rootHist] = await builder.build([{ begin: 0, end: n }], cached);
  if (cached === undefined) o.cache.store(m, hess, rootHist);
  hists[0] = rootHist;
  const [rg, rh] =
    m.dense && !o.rootFromGradients
      ? sumPairs(rootHist, cuts.ptr[0], cuts.ptr[1])
      : [sumFloats(grad, n), sumFloats(hess, n)];
  nodes[0].g = rg;
  nodes[0].h = rh;
  nodes[0].rootGain = calcGain(p, rg, rh);
  const w0 = calcWeight(p, rg, rh);
  tree.sumHess[0] = f(rh);
  tree.baseWeight[0] = w0;
  tree.setLeaf(0, f(p.eta * w0));

  const evaluate = (entries: Entry[]) => {
    for (const e of entries) {
      const feats = sampler.featureSet(e.depth);
      const hist = hists[e.nid] as Float64Array;
      const node = nodes[e.nid];
      for (const fid of feats) enumerateFeature(hist, fid, node, e.split);
    }
  };

  // without alpha and max_delta_step the gain of a split is two rounded quotients (split.ts)
  const plainGain = p.alpha === 0 && p.maxDeltaStep === 0;

  // the best split of one feature: scans forward (missing right), then backward (missing left);
  // within a feature a candidate replaces the best only with a larger finite gain (NeedReplace)
  const enumerateFeature = (hist: Float64Array, fid: number, node: Node, best: SplitEntry) => {
    const b0 = cuts.ptr[fid];
    const b1 = cuts.ptr[fid + 1];
    const ng = node.g;
    const nh = node.h;
    let at = scan(hist, b0, b1, 1, ng, nh, node.rootGain, 0, p, plainGain);
    let bestLoss = scanBest[0];
    let back = false;
    // SplitContainsMissingValues: the backward scan only when some rows miss this feature
    if (scanBest[1] !== ng || scanBest[2] !== nh) {
      const b = scan(hist, b1 - 1, b0 - 1, -1, ng, nh, node.rootGain, bestLoss, p, plainGain);
      if (b >= 0) {
        at = b;
        bestLoss = scanBest[0];
        back = true;
      }
    }
    if (at < 0) return;
    // the winner's sums, summed again in the scan's order
    let sg = 0;
    let sh = 0;
    if (!back) {
      for (let i = b0; i <= at; i++) {
        sg += hist[2 * i];
        sh += hist[2 * i + 1];
      }
      best.update(bestLoss, fid, cuts.values[at], false, sg, sh, ng - sg, nh - sh, at - b0);
    } else {
      for (let i = b1 - 1; i >= at; i--) {
        sg += hist[2 * i];
        sh += hist[2 * i + 1];
      }
      const pt = at === b0 ? cuts.minValues[fid] : cuts.values[at - 1];
      best.update(bestLoss, fid, pt, true, ng - sg, nh - sh, sg, sh, at - b0 - 1);
    }
  };

  const rootEntry: Entry = { nid: 0, depth: 0, split: new SplitEntry() };
  evaluate([rootEntry]);

  // Driver
  const queue: Entry[] = [];
  let numLeaves = 1;
  const push = (e: Entry) => {
    if (e.split.lossChg > RT_EPS) queue.push(e);
  };
  const isValid = (e: Entry) => {
    const s = e.split;
    if (s.lossChg <= RT_EPS) return false;
    if (s.lh === 0 || s.rh === 0) return false;
    if (s.lossChg < p.gamma) return false;
    if (o.maxDepth > 0 && e.depth === o.maxDepth) return false;
    if (o.maxLeaves > 0 && numLeaves === o.maxLeaves) return false;
    return true;
  };
  const pop = (): Entry[] => {
    if (queue.length === 0) return [];
    if (o.lossguide) {
      let bi = 0;
      for (let i = 1; i < queue.length; i++) {
        const a = queue[i];
        const b = queue[bi];
        if (a.split.lossChg > b.split.lossChg || (a.split.lossChg === b.split.lossChg && a.nid < b.nid)) bi = i;
      }
      const e = queue.splice(bi, 1)[0];
      if (isValid(e)) {
        numLeaves++;
        return [e];
      }
      return [];
    }
    queue.sort((a, b) => a.nid - b.nid);
    const level = queue[0].depth;
    const out: Entry[] = [];
    while (queue.length > 0 && queue[0].depth === level && out.length < 256) {
      const e = queue.shift() as Entry;
      if (isValid(e)) {
        numLeaves++;
        out.push(e);
      }
    }
    return out;
  };
  const childValid = (e: Entry) => {
    if (o.maxDepth > 0 && e.depth + 1 >= o.maxDepth) return false;
    if (o.maxLeaves > 0 && numLeaves >= o.maxLeaves) return false;
    return true;
  };

  if (o.cache.tmp.length < n) o.cache.tmp = new Int32Array(n);
  const tmp = o.cache.tmp;
  const partition = (nid: number, s: SplitEntry, left: number, right: number) => {
    const node = nodes[nid];
    const mid = partitionRows(m, rowIdx, tmp, node.begin, node.end, s.feature, s.bin, s.defaultLeft);
    nodes[left] = { g: s.lg, h: s.lh, rootGain: calcGain(p, s.lg, s.lh), begin: node.begin, end: mid };
    nodes[right] = { g: s.rg, h: s.rh, rootGain: calcGain(p, s.rg, s.rh), begin: mid, end: node.end };
  };

  push(rootEntry);
  let expand = pop();
  while (expand.length > 0) {
    const valid: Entry[] = [];
    for (const c of expand) {
      const s = c.split;
      const pg = s.lg + s.rg;
      const ph = s.lh + s.rh;
      const lw = calcWeight(p, s.lg, s.lh);
      const rw = calcWeight(p, s.rg, s.rh);
      tree.expand(
        c.nid,
        s.feature,
        s.value,
        s.defaultLeft,
        calcWeight(p, pg, ph),
        f(lw * p.eta),
        f(rw * p.eta),
        s.lossChg,
        ph,
        s.lh,
        s.rh,
      );
      if (childValid(c)) valid.push(c);
    }
    for (const c of expand) partition(c.nid, c.split, tree.left[c.nid], tree.right[c.nid]);
    const next: Entry[] = [];
    if (valid.length > 0) {
      const jobs: { begin: number; end: number }[] = [];
      const plan: { build: number; sub: number; parent: number }[] = [];
      for (const c of valid) {
        const l = tree.left[c.nid];
        const r = tree.right[c.nid];
        const fewerRight = c.split.rh < c.split.lh;
        const build = fewerRight ? r : l;
        const sub = fewerRight ? l : r;
        plan.push({ build, sub, parent: c.nid });
        jobs.push({ begin: nodes[build].begin, end: nodes[build].end });
      }
      const built = await builder.build(jobs);
      for (let i = 0; i < plan.length; i++) {
        const { build, sub, parent } = plan[i];
        const ph = hists[parent] as Float64Array;
        const bh = built[i];
        // the sibling's histogram is the parent's minus the built one, in the parent's buffer
        subtract(ph, bh);
        hists[parent] = undefined;
        hists[build] = bh;
        hists[sub] = ph;
      }
      const depth = expand[0].depth + 1;
      for (const c of valid) {
        next.push({ nid: tree.left[c.nid], depth, split: new SplitEntry() });
        next.push({ nid: tree.right[c.nid], depth, split: new SplitEntry() });
      }
      evaluate(next);
    }
    for (const e of next) push(e);
    expand = pop();
  }

  for (const h of hists) if (h !== undefined) builder.release(h);
  return {
    tree,
    // UpdatePredictionCache: each leaf's rows get its value, from the final partition
    addLeaves(margins, stride, offset) {
      for (let nid = 0; nid < tree.numNodes; nid++) {
        if (!tree.isLeaf(nid)) continue;
        const node = nodes[nid];
        const v = tree.cond[nid];
        for (let i = node.begin; i < node.end; i++) margins[rowIdx[i] * stride + offset] += v;
      }
    },
  };
}
