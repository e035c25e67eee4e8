// The in-memory XGBoost model: every tree flattened into typed arrays at load time so that
// prediction is a tight loop over numbers. Trees are renumbered breadth-first so that the right
// child of a split is always `left + 1`; the walk then needs one comparison per level.
//
// Arithmetic follows xgboost's CPU predictor: the margin starts at the (float32) base margin and
// each tree's leaf is added in tree order with float32 rounding; dart multiplies each leaf by its
// tree weight first; gblinear adds bias, then weight × value for every present feature.

import { blockHasMissing, denseBlock, type FlatTrees, missingBlock } from './tree-blocks.js';
import { fail } from './errors.js';
import { applyTransform, type ObjectiveInfo, objectiveInfo, transformScalar } from './objectives.js';

/** One tree as read from a model file, before flattening. Node 0 is the root. */
export interface TreeSpec {
  numNodes: number;
  left: ArrayLike<number>;
  right: ArrayLike<number>;
  splitIndex: ArrayLike<number>;
  /** split threshold for internal nodes, leaf value for leaves */
  splitCond: ArrayLike<number>;
  defaultLeft: ArrayLike<number | boolean>;
  /** node id → categories that go right (categorical splits only) */
  categories?: Map<number, ArrayLike<number>>;
}

/** A model as read from any format: what `buildModel` validates and flattens. */
export interface ModelSpec {
  format: string;
  booster: 'gbtree' | 'dart' | 'gblinear';
  objective: string;
  /** base_score as stored by xgboost ≥ 1.0 (output space) */
  baseScore: number;
  /** legacy binary written by xgboost < 1.0 stored base_score already transformed to margin */
  baseScoreIsPre1Margin?: boolean;
  numFeatures: number;
  numClass: number;
  trees?: TreeSpec[];
  treeInfo?: ArrayLike<number>;
  weightDrop?: ArrayLike<number>;
  linearWeights?: ArrayLike<number>;
  attributes: Record<string, string>;
  version?: readonly number[];
  featureNames?: string[];
  bestNTreeLimit?: number;
}

export interface PredictOptions {
  /** Return raw margins (before the objective's transform), one per output group. */
  outputMargin?: boolean;
  /**
   * Use only the first `ntreeLimit` boosting rounds' trees (xgboost's `ntree_limit`, counted per
   * output group as `best_ntree_limit` is). 0 or undefined = all trees.
   */
  ntreeLimit?: number;
}

export interface ModelInfo {
  format: string;
  booster: 'gbtree' | 'dart' | 'gblinear';
  objective: string;
  numFeatures: number;
  numClass: number;
  numTrees: number;
  numNodes: number;
  baseMargin: number;
  version: readonly number[] | undefined;
  attributes: Readonly<Record<string, string>>;
  bestNTreeLimit: number | undefined;
  featureNames: readonly string[] | undefined;
}

const MAX_CATEGORY = 16777216 - 1; // xgboost's OutOfRangeCat(): larger values go left
const ROW_BLOCK = 64;
const MAX_CATEGORY_WORDS = 1 << 22; // 16 MiB of category bitsets in total
const f32 = Math.fround;

export class XGBoostModel {
  /** number of input columns a row must have */
  readonly numFeatures: number;
  /** num_class as stored (0 for non multi-class models) */
  readonly numClass: number;
  /** objective name, e.g. "binary:logistic" */
  readonly objective: string;
  readonly booster: 'gbtree' | 'dart' | 'gblinear';
  /** margin values per row (num_class for multi-class, else 1) */
  readonly numGroups: number;
  /** the format the model was read from: json, ubjson, binary, or pickle(...) */
  readonly format: string;
  /** `best_ntree_limit` recorded by early stopping (pickle state or model attribute), if any */
  readonly bestNTreeLimit: number | undefined;
  readonly attributes: Readonly<Record<string, string>>;
  readonly version: readonly number[] | undefined;
  readonly featureNames: readonly string[] | undefined;
  /** base_score converted to margin space, float32 */
  readonly baseMargin: number;

  private readonly obj: ObjectiveInfo;
  // Flattened trees: 4 × 32-bit words per node in one buffer (16 bytes, 4 nodes per cache line):
  //   [feature, left child offset (right = left + 4), missing-value child offset, threshold as float32].
  // Offsets are word offsets (node index × 4). A leaf loops onto itself (feature 0, left = self - 4,
  // missing = self, threshold NaN so that `v < threshold` is false), which lets every walk run a
  // fixed number of steps — the tree's depth — with no data-dependent loop exit.
  private readonly nodes: Int32Array;
  private readonly nodeValue: Float32Array; // float32 view of the same buffer
  private readonly leafValue: Float32Array; // per node index
  private readonly depth: Int32Array; // per tree
  private readonly catOf: Int32Array | null; // per node index: index into catStart/catLen, or -1
  private readonly catStart: Int32Array;
  private readonly catLen: Int32Array;
  private readonly catBits: Uint32Array;
  private readonly roots: Int32Array; // word offset of each tree's root
  private readonly groupOf: Int32Array;
  private readonly weights: Float32Array | null; // dart tree weights
  private readonly linear: Float32Array | null; // gblinear weights, (numFeatures + 1) × groups
  private readonly scratch: Float32Array;

  constructor(spec: ModelSpec) {
    if (!Number.isInteger(spec.numFeatures) || spec.numFeatures < 0 || spec.numFeatures > 1 << 26) {
      fail(`invalid num_feature ${spec.numFeatures}`);
    }
    if (!Number.isInteger(spec.numClass) || spec.numClass < 0 || spec.numClass > 1 << 16) {
      fail(`invalid num_class ${spec.numClass}`);
    }
    this.obj = objectiveInfo(spec.objective);
    this.numFeatures = spec.numFeatures;
    this.numClass = spec.numClass;
    this.objective = this.obj.name;
    this.booster = spec.booster;
    this.format = spec.format;
    this.attributes = Object.freeze({ ...spec.attributes });
    this.version = spec.version ? Object.freeze([...spec.version]) : undefined;
    this.featureNames = spec.featureNames ? Object.freeze([...spec.featureNames]) : undefined;
    this.numGroups = spec.numClass > 0 ? spec.numClass : 1;
    if ((this.obj.transform === 'softmax' || this.obj.transform === 'softprob') && spec.numClass < 1) {
      fail(`objective ${spec.objective} needs num_class ≥ 1, model has ${spec.numClass}`);
    }

    let base = f32(spec.baseScore);
    if (Number.isNaN(base)) fail('base_score is not a number');
    if (spec.baseScoreIsPre1Margin && !spec.objective.startsWith('multi:')) {
      base = transformScalar(this.obj.transform, base);
    }
    this.baseMargin = f32(this.obj.probToMargin(base));

    let limit = spec.bestNTreeLimit;
    if (limit === undefined && spec.attributes.best_ntree_limit !== undefined) {
      const n = Number(spec.attributes.best_ntree_limit);
      if (Number.isInteger(n) && n > 0) limit = n;
    }
    this.bestNTreeLimit = limit;

    this.scratch = new Float32Array(this.numGroups);

    if (spec.booster === 'gblinear') {
      const w = spec.linearWeights;
      if (!w) fail('gblinear model has no weights');
      const expect = (spec.numFeatures + 1) * this.numGroups;
      if (w.length !== expect) {
        fail(`gblinear weights: expected (num_feature + 1) × groups = ${expect} values, found ${w.length}`);
      }
      this.linear = Float32Array.from(w);
      this.nodes = new Int32Array(0);
      this.nodeValue = new Float32Array(0);
      this.leafValue = new Float32Array(0);
      this.depth = new Int32Array(0);
      this.catOf = null;
      this.catStart = new Int32Array(0);
      this.catLen = new Int32Array(0);
      this.catBits = new Uint32Array(0);
      this.roots = new Int32Array(0);
      this.groupOf = new Int32Array(0);
      this.weights = null;
      return;
    }
    this.linear = null;

    const trees = spec.trees ?? [];
    const nTrees = trees.length;
    const info = spec.treeInfo;
    if (!info || info.length < nTrees) fail(`tree_info has ${info?.length ?? 0} entries for ${nTrees} trees`);
    let total = 0;
    for (const t of trees) {
      if (!Number.isInteger(t.numNodes) || t.numNodes < 1) fail(`tree has invalid num_nodes ${t.numNodes}`);
      total += t.numNodes;
    }
    if (total > 1 << 27) fail(`model has too many nodes (${total})`);
    const nodes = new Int32Array(total * 4);
    const nodeValue = new Float32Array(nodes.buffer);
    const leafValue = new Float32Array(total);
    const depth = new Int32Array(nTrees);
    const roots = new Int32Array(nTrees);
    const groupOf = new Int32Array(nTrees);
    const catStart: number[] = [];
    const catLen: number[] = [];
    const bits: number[] = [];
    let catOf: Int32Array | null = null;
    let next = 0;
    for (let t = 0; t < nTrees; t++) {
      const g = info[t];
      if (!Number.isInteger(g) || g < 0 || g >= this.numGroups) {
        fail(`tree ${t} belongs to output group ${g}, model has ${this.numGroups}`);
      }
      groupOf[t] = g;
      roots[t] = next * 4;
      const tree = trees[t];
      if (tree.categories && tree.categories.size > 0 && !catOf) {
        catOf = new Int32Array(total).fill(-1);
      }
      const start = next;
      next = flattenTree(tree, t, next, this.numFeatures, nodes, nodeValue, leafValue, catOf, catStart, catLen, bits);
      depth[t] = treeDepth(nodes, start, next);
    }
    this.leafValue = next === total ? leafValue : leafValue.slice(0, next);
    this.depth = depth;
    // unreachable (deleted) nodes are dropped; keep the buffer tight
    this.nodes = next === total ? nodes : nodes.slice(0, next * 4);
    this.nodeValue = new Float32Array(this.nodes.buffer, this.nodes.byteOffset, this.nodes.length);
    this.catOf = catOf ? (next === total ? catOf : catOf.slice(0, next)) : null;
    this.catStart = Int32Array.from(catStart);
    this.catLen = Int32Array.from(catLen);
    this.catBits = Uint32Array.from(bits);
    this.roots = roots;
    this.groupOf = groupOf;

    if (spec.booster === 'dart') {
      const w = spec.weightDrop;
      if (!w || w.length < nTrees) fail(`dart model has ${w?.length ?? 0} tree weights for ${nTrees} trees`);
      this.weights = new Float32Array(nTrees);
      for (let i = 0; i < nTrees; i++) this.weights[i] = w[i];
    } else {
      this.weights = null;
    }
  }

  /** Number of trees (0 for gblinear). */
  get numTrees(): number {
    return this.roots.length;
  }

  /** Values per row that `predict` returns for the given options. */
  outputsPerRow(options?: PredictOptions): number {
    if (options?.outputMargin) return this.numGroups;
    if (this.obj.transform === 'softmax') return 1;
    return this.numGroups;
  }

  info(): ModelInfo {
    return {
      format: this.format,
      booster: this.booster,
      objective: this.objective,
      numFeatures: this.numFeatures,
      numClass: this.numClass,
      numTrees: this.numTrees,
      numNodes: this.nodes.length / 4,
      baseMargin: this.baseMargin,
      version: this.version,
      attributes: this.attributes,
      bestNTreeLimit: this.bestNTreeLimit,
      featureNames: this.featureNames,
    };
  }

  /**
   * Predict `nRows` rows laid out row-major in `rows` (numFeatures values per row, NaN = missing).
   * Returns `nRows × outputsPerRow(options)` float32 values.
   */
  predict(rows: Float32Array, nRows: number, options?: PredictOptions): Float32Array {
    const nf = this.numFeatures;
    if (!Number.isInteger(nRows) || nRows < 0) throw new RangeError(`invalid row count ${nRows}`);
    if (rows.length < nRows * nf) {
      throw new RangeError(`expected ${nRows} rows × ${nf} features = ${nRows * nf} values, got ${rows.length}`);
    }
    const groups = this.numGroups;
    const margins = new Float32Array(nRows * groups);
    if (this.linear) {
      this.linearMargins(rows, nRows, margins);
    } else {
      const nTrees = this.treeCount(options?.ntreeLimit);
      if (groups === 1 && !this.catOf && !this.weights) {
        this.marginsBlocked(rows, nRows, nTrees, margins);
      } else {
        for (let r = 0; r < nRows; r++) this.marginsGeneral(rows, r * nf, nTrees, margins, r * groups);
      }
    }
    if (options?.outputMargin) return margins;
    return applyTransform(this.obj.transform, margins, nRows, groups);
  }

  /**
   * Predict one row without allocating (for single-output models: everything but multi:softprob and
   * margins of multi-class models). `row` must hold numFeatures values from `offset`.
   */
  predictOne(row: Float32Array, offset = 0, options?: PredictOptions): number {
    if (row.length < offset + this.numFeatures) {
      throw new RangeError(`row has ${row.length - offset} values, model needs ${this.numFeatures}`);
    }
    const groups = this.numGroups;
    const s = this.scratch;
    if (this.linear) {
      this.linearRow(row, offset, s, 0);
    } else {
      const nTrees = this.treeCount(options?.ntreeLimit);
      if (groups === 1 && !this.catOf && !this.weights) {
        s[0] = this.marginSimpleRow(row, offset, nTrees);
      } else {
        this.marginsGeneral(row, offset, nTrees, s, 0);
      }
    }
    if (groups !== 1 && (options?.outputMargin || this.obj.transform !== 'softmax')) {
      throw new RangeError('predictOne returns a single value; use predict() for multi-output predictions');
    }
    if (options?.outputMargin) return s[0];
    switch (this.obj.transform) {
      case 'softmax': {
        let best = 0;
        for (let k = 1; k < groups; k++) if (s[k] > s[best]) best = k;
        return best;
      }
      case 'identity':
        return s[0];
      default:
        return applyTransform(this.obj.transform, s, 1, 1)[0];
    }
  }

  private treeCount(ntreeLimit: number | undefined): number {
    const all = this.roots.length;
    if (!ntreeLimit || ntreeLimit <= 0) return all;
    const n = Math.floor(ntreeLimit) * this.numGroups;
    return Math.min(n, all);
  }

  /**
   * Single-output numeric trees, the common case. Rows go in blocks of 64 and, for each tree,
   * through the block 8 rows at a time: the 8 walks are independent, run a fixed number of steps
   * (no unpredictable loop exits) and take the branch without a jump, so the CPU overlaps them.
   * Each row still adds its leaves in tree order, so the float32 sums are exactly xgboost's.
   */
  private marginsBlocked(rows: Float32Array, nRows: number, nTrees: number, out: Float32Array): void {
    const nf = this.numFeatures;
    const flat: FlatTrees = {
      nodes: this.nodes,
      val: this.nodeValue,
      leaf: this.leafValue,
      roots: this.roots,
      depth: this.depth,
    };
    for (let r0 = 0; r0 < nRows; r0 += ROW_BLOCK) {
      const r1 = Math.min(r0 + ROW_BLOCK, nRows);
      for (let r = r0; r < r1; r++) out[r] = this.baseMargin;
      if (blockHasMissing(rows, r0, r1, nf)) missingBlock(flat, rows, r0, r1, nf, nTrees, out);
      else denseBlock(flat, rows, r0, r1, nf, nTrees, out);
    }
  }

  private marginSimpleRow(rows: Float32Array, off: number, nTrees: number): number {
    const nodes = this.nodes;
    const val = this.nodeValue;
    const leaf = this.leafValue;
    const roots = this.roots;
    const depth = this.depth;
    let acc = this.baseMargin;
    for (let t = 0; t < nTrees; t++) {
      let n = roots[t];
      for (let k = depth[t]; k > 0; k--) {
        const v = rows[off + nodes[n]];
        // biome-ignore lint/suspicious/noSelfCompare: NaN test in the hot loop
        n = v !== v ? nodes[n + 2] : nodes[n + 1] + 4 - (+(v < val[n + 3]) << 2);
      }
      acc = Math.fround(acc + leaf[n >> 2]);
    }
    return acc;
  }

  /** Any tree model: multi-class groups, categorical splits, dart weights. */
  private marginsGeneral(rows: Float32Array, off: number, nTrees: number, out: Float32Array, o: number): void {
    const nodes = this.nodes;
    const val = this.nodeValue;
    const roots = this.roots;
    const catOf = this.catOf;
    const weights = this.weights;
    const groupOf = this.groupOf;
    const groups = this.numGroups;
    for (let g = 0; g < groups; g++) out[o + g] = this.baseMargin;
    const leafValue = this.leafValue;
    const depth = this.depth;
    for (let t = 0; t < nTrees; t++) {
      let n = roots[t];
      for (let k = depth[t]; k > 0; k--) {
        const v = rows[off + nodes[n]];
        if (Number.isNaN(v)) {
          n = nodes[n + 2];
        } else {
          const c = catOf === null ? -1 : catOf[n >> 2];
          if (c < 0) n = v < val[n + 3] ? nodes[n + 1] : nodes[n + 1] + 4;
          else n = this.categoryGoesRight(c, v) ? nodes[n + 1] + 4 : nodes[n + 1];
        }
      }
      const leaf = weights === null ? leafValue[n >> 2] : Math.fround(leafValue[n >> 2] * weights[t]);
      out[o + groupOf[t]] += leaf; // Float32Array store rounds to float32
    }
  }

  private categoryGoesRight(c: number, v: number): boolean {
    // common::Decision: invalid or unseen categories go left; categories in the set go right.
    if (v < 0 || v >= MAX_CATEGORY) return false;
    const cat = Math.trunc(v);
    const word = cat >>> 5;
    if (word >= this.catLen[c]) return false;
    return ((this.catBits[this.catStart[c] + word] >>> (cat & 31)) & 1) === 1;
  }

  private linearMargins(rows: Float32Array, nRows: number, out: Float32Array): void {
    const nf = this.numFeatures;
    const groups = this.numGroups;
    for (let r = 0; r < nRows; r++) this.linearRow(rows, r * nf, out, r * groups);
  }

  private linearRow(rows: Float32Array, off: number, out: Float32Array, o: number): void {
    const w = this.linear!;
    const nf = this.numFeatures;
    const groups = this.numGroups;
    const biasAt = nf * groups;
    for (let g = 0; g < groups; g++) {
      let psum = f32(w[biasAt + g] + this.baseMargin);
      for (let j = 0; j < nf; j++) {
        const v = rows[off + j];
        if (!Number.isNaN(v)) psum = f32(psum + f32(v * w[j * groups + g]));
      }
      out[o + g] = psum;
    }
  }
}

function flattenTree(
  tree: TreeSpec,
  t: number,
  base: number,
  numFeatures: number,
  nodes: Int32Array,
  nodeValue: Float32Array,
  leafValue: Float32Array,
  catOf: Int32Array | null,
  catStart: number[],
  catLen: number[],
  bits: number[],
): number {
  const nn = tree.numNodes;
  for (const [name, arr] of [
    ['left_children', tree.left],
    ['right_children', tree.right],
    ['split_indices', tree.splitIndex],
    ['split_conditions', tree.splitCond],
    ['default_left', tree.defaultLeft],
  ] as const) {
    if (arr.length < nn) fail(`tree ${t}: ${name} has ${arr.length} entries for ${nn} nodes`);
  }
  // Breadth-first renumbering: old node id → new local id. Each node may be reached once only,
  // which rejects loops and shared children; ids are range-checked before use.
  const newId = new Int32Array(nn).fill(-1);
  const order = new Int32Array(nn);
  newId[0] = 0;
  order[0] = 0;
  let count = 1;
  for (let q = 0; q < count; q++) {
    const old = order[q];
    const l = tree.left[old];
    const idx = base + q;
    const at = idx * 4;
    if (l === -1) {
      // a leaf loops onto itself: see the field comment in XGBoostModel
      nodes[at] = 0;
      nodes[at + 1] = at - 4;
      nodes[at + 2] = at;
      nodeValue[at + 3] = Number.NaN;
      leafValue[idx] = tree.splitCond[old];
      continue;
    }
    const r = tree.right[old];
    if (!Number.isInteger(l) || l < 0 || l >= nn) fail(`tree ${t}: node ${old} has left child ${l} outside the tree`);
    if (!Number.isInteger(r) || r < 0 || r >= nn) fail(`tree ${t}: node ${old} has right child ${r} outside the tree`);
    if (l === r || newId[l] !== -1 || newId[r] !== -1 || l === 0 || r === 0) {
      fail(`tree ${t}: node ${old} links to a node already in the tree (loop or shared child)`);
    }
    const fi = tree.splitIndex[old];
    if (!Number.isInteger(fi) || fi < 0 || fi >= numFeatures) {
      fail(`tree ${t}: node ${old} splits on feature ${fi}, model has ${numFeatures} features`);
    }
    newId[l] = count;
    newId[r] = count + 1;
    order[count] = l;
    order[count + 1] = r;
    nodes[at] = fi;
    nodes[at + 1] = (base + count) * 4;
    const dl = tree.defaultLeft[old];
    nodes[at + 2] = (dl === true || dl === 1 ? base + count : base + count + 1) * 4;
    nodeValue[at + 3] = tree.splitCond[old];
    const cats = tree.categories?.get(old);
    if (cats !== undefined && catOf) {
      catOf[idx] = catStart.length;
      let maxCat = -1;
      for (let i = 0; i < cats.length; i++) {
        const c = cats[i];
        if (!Number.isInteger(c) || c < 0 || c >= MAX_CATEGORY)
          fail(`tree ${t}: node ${old} has invalid category ${c}`);
        if (c > maxCat) maxCat = c;
      }
      if (maxCat < 0) fail(`tree ${t}: categorical node ${old} has no categories`);
      const words = (maxCat >>> 5) + 1;
      const start = bits.length;
      if (start + words > MAX_CATEGORY_WORDS) fail(`tree ${t}: categorical splits need too much memory`);
      for (let i = 0; i < words; i++) bits.push(0);
      for (let i = 0; i < cats.length; i++) {
        const c = cats[i];
        bits[start + (c >>> 5)] = (bits[start + (c >>> 5)] | (1 << (c & 31))) >>> 0;
      }
      catStart.push(start);
      catLen.push(words);
    }
    count += 2;
  }
  return base + count;
}

/** Longest root-to-leaf path of a flattened tree (nodes [start, end) in breadth-first order). */
function treeDepth(nodes: Int32Array, start: number, end: number): number {
  // breadth-first order: children come after parents, so one forward pass suffices
  const d = new Int32Array(end - start);
  let max = 0;
  for (let i = start; i < end; i++) {
    const at = i * 4;
    const l = nodes[at + 1];
    if (l === at - 4) continue; // leaf
    const li = (l >> 2) - start;
    const di = d[i - start] + 1;
    d[li] = di;
    d[li + 1] = di;
    if (di > max) max = di;
  }
  return max;
}
