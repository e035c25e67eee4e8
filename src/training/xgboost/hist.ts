// tree_method=hist and approx: xgboost 1.7's QuantileHistMaker / GlobalApproxUpdater
// (src/tree/updater_quantile_hist.cc, updater_approx.cc, hist/evaluate_splits.h, driver.h): a
// quantized matrix, double-precision gradient histograms with the sibling-subtraction trick, both
// scan directions per feature, depthwise or lossguide expansion.

import type { ColumnSampler } from './sampler.js';
import type { Cuts } from './cuts.js';
import { calcGain, calcSplitGain, calcWeight, RT_EPS, SplitEntry, type SplitParams } from './split.js';
import { RegTree } from './tree.js';

const f = Math.fround;

/** The quantized training matrix (GHistIndexMatrix): a global bin index per cell, `missing` if absent. */
export interface BinMatrix {
  numRows: number;
  numCols: number;
  /** Uint16 when every bin index and the marker fit, else Uint32 */
  bins: Uint16Array | Uint32Array;
  missing: number;
  cuts: Cuts;
  /** no missing value at all (DMatrix::IsDense) */
  dense: boolean;
}

/** Bin storage for a matrix with these cuts; `shared` puts it in a SharedArrayBuffer for worker threads. */
export function allocBins(cells: number, totalBins: number, shared: boolean): Uint16Array | Uint32Array {
  const wide = totalBins >= 0xffff;
  const bytes = cells * (wide ? 4 : 2);
  const buf = shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
  return wide ? new Uint32Array(buf) : new Uint16Array(buf);
}

export function quantize(
  data: Float32Array,
  numRows: number,
  numCols: number,
  cuts: Cuts,
  bins?: Uint16Array | Uint32Array,
  shared = false,
): BinMatrix {
  const total = cuts.ptr[numCols];
  let out = bins;
  if (out === undefined || total >= 0xffff !== out instanceof Uint32Array)
    out = allocBins(numRows * numCols, total, shared);
  const missing = out instanceof Uint32Array ? 0xffffffff : 0xffff;
  let dense = true;
  const ptr = cuts.ptr;
  const cv = cuts.values;
  for (let r = 0; r < numRows; r++) {
    const base = r * numCols;
    for (let c = 0; c < numCols; c++) {
      const v = data[base + c];
      if (Number.isNaN(v)) {
        out[base + c] = missing;
        dense = false;
        continue;
      }
      // HistogramCuts::SearchBin: the first cut above v, the last bin for values beyond it
      let lo = ptr[c];
      let hi = ptr[c + 1];
      const last = hi - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (cv[mid] <= v) lo = mid + 1;
        else hi = mid;
      }
      out[base + c] = lo > last ? last : lo;
    }
  }
  return { numRows, numCols, bins: out, missing, cuts, dense };
}

/** Builds histograms of row ranges; replaceable by a pool of worker threads. */
export interface HistBuilder {
  /** for each job: sum grad/hess of rows rowIdx[begin..end) into a fresh histogram */
  build(jobs: { begin: number; end: number }[]): Promise<Float64Array[]>;
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
    async build(jobs) {
      return jobs.map((j) => {
        const hist = free.pop()?.fill(0) ?? new Float64Array(total * 2);
        buildHist(m.bins, m.missing, m.numCols, 0, m.numCols, rowIdx(), j.begin, j.end, grad(), hess(), hist);
        return hist;
      });
    },
    release(hist) {
      if (hist.length === total * 2) free.push(hist);
    },
  };
}

/**
 * Adds rows rowIdx[begin..end) of features [c0, c1) into hist. Two rows go through together, feature
 * by feature: a bin still receives its rows in row order (xgboost's order, so the same sums) while
 * the two rows' loads overlap.
 */
export function buildHist(
  bins: Uint16Array | Uint32Array,
  missing: number,
  numCols: number,
  c0: number,
  c1: number,
  rowIdx: Int32Array,
  begin: number,
  end: number,
  grad: Float32Array,
  hess: Float32Array,
  hist: Float64Array,
): void {
  let i = begin;
  for (; i + 1 < end; i += 2) {
    const r1 = rowIdx[i];
    const r2 = rowIdx[i + 1];
    const g1 = grad[r1];
    const h1 = hess[r1];
    const g2 = grad[r2];
    const h2 = hess[r2];
    const j1 = r1 * numCols;
    const j2 = r2 * numCols;
    for (let c = c0; c < c1; c++) {
      const b1 = bins[j1 + c];
      if (b1 !== missing) {
        const k = b1 << 1;
        hist[k] += g1;
        hist[k + 1] += h1;
      }
      const b2 = bins[j2 + c];
      if (b2 !== missing) {
        const k = b2 << 1;
        hist[k] += g2;
        hist[k + 1] += h2;
      }
    }
  }
  if (i < end) {
    const r = rowIdx[i];
    const g = grad[r];
    const h = hess[r];
    const base = r * numCols;
    for (let c = c0; c < c1; c++) {
      const b = bins[base + c];
      if (b !== missing) {
        const k = b << 1;
        hist[k] += g;
        hist[k + 1] += h;
      }
    }
  }
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
): Promise<{ tree: RegTree; leafOfRow: (fn: (row: number, value: number) => void) => void }> {
  const { p } = o;
  const n = m.numRows;
  const nc = m.numCols;
  const cuts = m.cuts;
  const tree = new RegTree(nc);
  for (let i = 0; i < n; i++) rowIdx[i] = i;
  const nodes: Node[] = [{ g: 0, h: 0, rootGain: 0, begin: 0, end: n }];
  const hists = new Map<number, Float64Array>();

  // InitRoot
  const [rootHist] = await builder.build([{ begin: 0, end: n }]);
  hists.set(0, rootHist);
  let rg = 0;
  let rh = 0;
  if (m.dense && !o.rootFromGradients) {
    for (let b = cuts.ptr[0]; b < cuts.ptr[1]; b++) {
      rg += rootHist[2 * b];
      rh += rootHist[2 * b + 1];
    }
  } else {
    for (let r = 0; r < n; r++) {
      rg += grad[r];
      rh += hess[r];
    }
  }
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
      const hist = hists.get(e.nid) as Float64Array;
      const node = nodes[e.nid];
      for (const fid of feats) enumerateFeature(hist, fid, node, e.split);
    }
  };

  const enumerateFeature = (hist: Float64Array, fid: number, node: Node, best: SplitEntry) => {
    const b0 = cuts.ptr[fid];
    const b1 = cuts.ptr[fid + 1];
    const mcw = p.minChildWeight;
    const local = new SplitEntry();
    let lg = 0;
    let lh = 0;
    for (let i = b0; i < b1; i++) {
      lg += hist[2 * i];
      lh += hist[2 * i + 1];
      const rgs = node.g - lg;
      const rhs = node.h - lh;
      if (lh >= mcw && rhs >= mcw) {
        const loss = f(calcSplitGain(p, lg, lh, rgs, rhs) - node.rootGain);
        local.update(loss, fid, cuts.values[i], false, lg, lh, rgs, rhs, i - b0);
      }
    }
    // SplitContainsMissingValues: the backward scan only when some rows miss this feature
    if (lg !== node.g || lh !== node.h) {
      let sg = 0;
      let sh = 0;
      for (let i = b1 - 1; i >= b0; i--) {
        sg += hist[2 * i];
        sh += hist[2 * i + 1];
        const lgs = node.g - sg;
        const lhs = node.h - sh;
        if (sh >= mcw && lhs >= mcw) {
          const loss = f(calcSplitGain(p, lgs, lhs, sg, sh) - node.rootGain);
          const pt = i === b0 ? cuts.minValues[fid] : cuts.values[i - 1];
          local.update(loss, fid, pt, true, lgs, lhs, sg, sh, i - b0 - 1);
        }
      }
    }
    best.updateFrom(local);
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

  const tmp = new Int32Array(n);
  const partition = (nid: number, s: SplitEntry, left: number, right: number) => {
    const node = nodes[nid];
    const fid = s.feature;
    const bin = s.bin + cuts.ptr[fid];
    const missing = m.missing;
    let nl = 0;
    let nr = 0;
    for (let i = node.begin; i < node.end; i++) {
      const r = rowIdx[i];
      const b = m.bins[r * nc + fid];
      const goLeft = b === missing ? s.defaultLeft : b <= bin;
      if (goLeft) rowIdx[node.begin + nl++] = r;
      else tmp[nr++] = r;
    }
    rowIdx.set(tmp.subarray(0, nr), node.begin + nl);
    nodes[left] = { g: s.lg, h: s.lh, rootGain: calcGain(p, s.lg, s.lh), begin: node.begin, end: node.begin + nl };
    nodes[right] = { g: s.rg, h: s.rh, rootGain: calcGain(p, s.rg, s.rh), begin: node.begin + nl, end: node.end };
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
        const ph = hists.get(parent) as Float64Array;
        const bh = built[i];
        // the sibling's histogram is the parent's minus the built one, in the parent's buffer
        for (let k = 0; k < ph.length; k++) ph[k] -= bh[k];
        hists.delete(parent);
        hists.set(build, bh);
        hists.set(sub, ph);
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

  for (const h of hists.values()) builder.release(h);
  return {
    tree,
    leafOfRow(fn) {
      for (let nid = 0; nid < tree.numNodes; nid++) {
        if (!tree.isLeaf(nid)) continue;
        const node = nodes[nid];
        const v = tree.cond[nid];
        for (let i = node.begin; i < node.end; i++) fn(rowIdx[i], v);
      }
    },
  };
}
