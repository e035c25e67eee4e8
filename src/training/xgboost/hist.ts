// tree_method=hist and approx: xgboost 1.7's QuantileHistMaker / GlobalApproxUpdater
// (src/tree/updater_quantile_hist.cc, updater_approx.cc, hist/evaluate_splits.h, driver.h): a
// quantized matrix, double-precision gradient histograms with the sibling-subtraction trick, both
// scan directions per feature, depthwise or lossguide expansion. The main thread drives the
// expansion; histograms, split search and partitioning are tasks its team runs (./hist-tasks.ts),
// one task per step of a level whatever the number of nodes in it.

import type { HistMatrix } from './hist-data.js';
import { BUILD_BLOCK, binSums, D, HEAD, LEVEL_JOB, levelHeader, partitionMid, RESULT } from './hist-tasks.js';
import type { Team } from './hist-team.js';
import type { ColumnSampler } from './sampler.js';
import { calcGain, calcWeight, RT_EPS, SplitEntry, type SplitParams } from './split.js';
import { RegTree } from './tree.js';

const f = Math.fround;

/** the most nodes one depthwise step expands (xgboost's driver batches up to 256) */
const MAX_BATCH = 256;

export interface HistOptions {
  p: SplitParams;
  maxDepth: number;
  maxLeaves: number;
  lossguide: boolean;
  /** approx sums the root from the gradients, hist from the first feature's bins when dense */
  rootFromGradients: boolean;
}

/** What the trees of one training share: histogram slots and the regions tasks report into. */
export class HistScratch {
  private readonly free: number[] = [];
  readonly results: number;
  readonly counts: number;
  readonly scanOut: number;
  /** the partial histograms of a level's large builds (hist-tasks.ts BUILD_BLOCK) */
  readonly partials: number;

  constructor(
    private readonly team: Team,
    private readonly histBytes: number,
    numRows: number,
  ) {
    this.results = team.alloc(2 * MAX_BATCH * team.size * RESULT * 8);
    this.counts = team.alloc(MAX_BATCH * team.size * 4);
    this.scanOut = team.alloc(team.size * 64);
    // a level's builds share the rows: their blocks beyond the first number at most numRows / BUILD_BLOCK
    this.partials = team.alloc(Math.floor(numRows / BUILD_BLOCK) * histBytes);
  }

  slot(): number {
    return this.free.pop() ?? this.team.alloc(this.histBytes);
  }

  release(slot: number): void {
    this.free.push(slot);
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

// The loops of a tree's bookkeeping, as small functions of typed arrays (optimized once, early,
// instead of running unoptimized inside the grower's large async body).

/** the sum of a[g], a[g + k], a[g + 2k], ... (n of them) */
function sumFloats(a: Float32Array, n: number, k: number, g: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i * k + g];
  return s;
}

/** One output group's gradient pairs: grad[r × groups + group], arrays in the team's arena. */
export interface GroupGradients {
  grad: Float32Array;
  hess: Float32Array;
  groups: number;
  group: number;
}

/**
 * Grows one tree on the team's matrix m from one group's gradient pairs (sampled rows already
 * zeroed). Returns the tree and its leaves as (begin, end, value) over the final partition of the
 * rows, for the prediction cache (RowState.addLeaves, which also puts the rows back in order).
 */
export async function growHist(
  team: Team,
  m: HistMatrix,
  scratch: HistScratch,
  gp: GroupGradients,
  o: HistOptions,
  sampler: ColumnSampler,
): Promise<{ tree: RegTree; leaves: number[] }> {
  const { p } = o;
  const n = m.numRows;
  const nc = m.numCols;
  const cuts = m.cuts;
  const T = team.size;
  const tree = new RegTree(nc);
  const desc = new Float64Array(team.buffer(), m.desc, D.SIZE);
  desc[D.grad] = gp.grad.byteOffset + gp.group * 4;
  desc[D.hess] = gp.hess.byteOffset + gp.group * 4;
  desc[D.stride] = gp.groups * 4;
  const nodes: Node[] = [{ g: 0, h: 0, rootGain: 0, begin: 0, end: n }];
  /** the histogram slot of each node still to be evaluated or split, by node id */
  const hists: number[] = [];

  /**
   * One step, one task: partition the rows of `expand`'s nodes, run `builds`, then evaluate
   * `entries` (their feature sets drawn in order). A build: [slot, partition index or -1, side,
   * begin, end, parent slot or -1, its first entry, its number of entries]; every entry belongs to
   * one build.
   */
  const step = async (expand: Entry[], builds: number[][], entries: Entry[], root: boolean) => {
    const sets = entries.map((e) => sampler.featureSet(e.depth));
    const all = sets.length > 0 && sets[0].length === nc && sets.every((s) => s === sets[0]);
    let size =
      HEAD + expand.length * LEVEL_JOB.partition + builds.length * LEVEL_JOB.build + entries.length * LEVEL_JOB.scan;
    if (!all) for (const s of sets) size += s.length;
    const P = team.task(size);
    const jobs = { partitions: expand.length, builds: builds.length, scans: entries.length };
    let at = levelHeader(P, m.desc, jobs, scratch, m.histBytes, root);
    for (const c of expand) {
      const node = nodes[c.nid];
      P[at++] = node.begin;
      P[at++] = node.end;
      P[at++] = c.split.feature;
      P[at++] = c.split.bin;
      P[at++] = c.split.defaultLeft ? 1 : 0;
    }
    for (const b of builds) for (const v of b) P[at++] = v;
    let fsAt = at + entries.length * LEVEL_JOB.scan;
    for (let j = 0; j < entries.length; j++) {
      const e = entries[j];
      const node = nodes[e.nid];
      P[at++] = hists[e.nid];
      P[at++] = node.g;
      P[at++] = node.h;
      P[at++] = node.rootGain;
      if (all) {
        P[at++] = -1;
        P[at++] = 0;
      } else {
        P[at++] = fsAt;
        P[at++] = sets[j].length;
        for (const fid of sets[j]) P[fsAt++] = fid;
      }
    }
    await team.run();
    // the children's rows
    const counts = new Int32Array(team.buffer(), scratch.counts, Math.max(expand.length, 1) * T);
    for (let j = 0; j < expand.length; j++) {
      const c = expand[j];
      const node = nodes[c.nid];
      const mid = partitionMid(counts, j, T, node.begin);
      nodes[tree.left[c.nid]].begin = node.begin;
      nodes[tree.left[c.nid]].end = mid;
      nodes[tree.right[c.nid]].begin = mid;
      nodes[tree.right[c.nid]].end = node.end;
    }
  };

  /** the entries' best splits from the threads' results (each the best of its features) */
  const combine = (entries: Entry[]) => {
    const R = new Float64Array(team.buffer(), scratch.results, entries.length * T * RESULT);
    for (let j = 0; j < entries.length; j++) {
      const e = entries[j];
      const node = nodes[e.nid];
      for (let t = 0; t < T; t++) {
        const r = (j * T + t) * RESULT;
        const loss = R[r];
        if (Number.isNaN(loss)) continue;
        const fid = R[r + 1];
        const bin = R[r + 2];
        const sg = R[r + 4];
        const sh = R[r + 5];
        const b0 = cuts.ptr[fid];
        if (R[r + 3] === 0) {
          e.split.update(loss, fid, cuts.values[bin], false, sg, sh, node.g - sg, node.h - sh, bin - b0);
        } else {
          const pt = bin === b0 ? cuts.minValues[fid] : cuts.values[bin - 1];
          e.split.update(loss, fid, pt, true, node.g - sg, node.h - sh, sg, sh, bin - b0 - 1);
        }
      }
    }
  };

  // InitRoot: hist sums the root from its first feature's bins when dense (the task does, once
  // they are built), approx from the gradients
  const rootFromBins = m.dense && !o.rootFromGradients;
  if (!rootFromBins) {
    nodes[0].g = sumFloats(gp.grad, n, gp.groups, gp.group);
    nodes[0].h = sumFloats(gp.hess, n, gp.groups, gp.group);
    nodes[0].rootGain = calcGain(p, nodes[0].g, nodes[0].h);
  }
  hists[0] = scratch.slot();
  const rootEntry: Entry = { nid: 0, depth: 0, split: new SplitEntry() };
  await step([], [[hists[0], -1, 0, 0, n, -1, 0, 1]], [rootEntry], rootFromBins);
  if (rootFromBins) {
    const [g, h] = binSums(new Float64Array(team.buffer(), hists[0], m.histBytes / 8), cuts.ptr[0], cuts.ptr[1]);
    nodes[0].g = g;
    nodes[0].h = h;
    nodes[0].rootGain = calcGain(p, g, h);
  }
  const rg = nodes[0].g;
  const rh = nodes[0].h;
  const w0 = calcWeight(p, rg, rh);
  tree.sumHess[0] = f(rh);
  tree.baseWeight[0] = w0;
  tree.setLeaf(0, f(p.eta * w0));
  combine([rootEntry]);

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
    const lvl = queue[0].depth;
    const out: Entry[] = [];
    while (queue.length > 0 && queue[0].depth === lvl && out.length < MAX_BATCH) {
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

  push(rootEntry);
  let expand = pop();
  while (expand.length > 0) {
    const builds: number[][] = [];
    const next: Entry[] = [];
    const depth = expand[0].depth + 1;
    for (let j = 0; j < expand.length; j++) {
      const c = expand[j];
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
      const l = tree.left[c.nid];
      const r = tree.right[c.nid];
      nodes[l] = { g: s.lg, h: s.lh, rootGain: calcGain(p, s.lg, s.lh), begin: 0, end: 0 };
      nodes[r] = { g: s.rg, h: s.rh, rootGain: calcGain(p, s.rg, s.rh), begin: 0, end: 0 };
      if (!childValid(c)) continue;
      // the smaller child is built; its sibling is the parent's histogram minus it, in the parent's slot
      const fewerRight = s.rh < s.lh;
      const slot = scratch.slot();
      // the build completes both children's histograms: it scans them (entries next.length, +1)
      builds.push([slot, j, fewerRight ? 1 : 0, 0, 0, hists[c.nid], next.length, 2]);
      hists[fewerRight ? r : l] = slot;
      hists[fewerRight ? l : r] = hists[c.nid];
      hists[c.nid] = -1;
      next.push({ nid: l, depth, split: new SplitEntry() }, { nid: r, depth, split: new SplitEntry() });
    }
    await step(expand, builds, next, false);
    combine(next);
    for (const e of next) push(e);
    expand = pop();
  }

  for (const h of hists) if (h !== undefined && h >= 0) scratch.release(h);
  const leaves: number[] = [];
  for (let nid = 0; nid < tree.numNodes; nid++) {
    if (tree.isLeaf(nid) && nodes[nid] !== undefined) leaves.push(nodes[nid].begin, nodes[nid].end, tree.cond[nid]);
  }
  return { tree, leaves };
}
