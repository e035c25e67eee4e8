// Writes xgboost's legacy binary model format from a JSON model document: what xgboost 1.7's
// `Booster.save_model("xgboost-model")` writes for a name without a .json/.ubj extension
// (learner.cc LearnerIO::SaveModel, gbtree_model.cc, tree_model.cc). Little-endian C structs:
//
//   "binf" LearnerModelParamLegacy (136) str objective, str "gbtree", GBTreeModelParam (160),
//   per tree: TreeParam (148), nodes (20 each: parent, cleft, cright, sindex, leaf value|split
//   condition), RTreeNodeStat (16 each: loss_chg, sum_hess, base_weight, leaf_child_cnt),
//   int32 tree_info[num_trees], vector<pair<str,str>> attributes (std::map order) including
//   "objective" → the objective's JSON configuration.
//
// Strings and vectors are a uint64 count then the elements. The bytes equal what xgboost 1.7
// writes after loading the same JSON document (checked against committed fixtures).

import type { XGBoostJsonModel } from '../types.js';
import { ModelWriteError } from './errors.js';
import { type DocModel, type DocTree, dumpSorted, readDoc } from './json-doc.js';

const LEARNER_PARAM_SIZE = 136;
const GBTREE_PARAM_SIZE = 160;
const TREE_PARAM_SIZE = 148;
const NODE_SIZE = 20;
const STAT_SIZE = 16;
const utf8 = new TextEncoder();

class Out {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  pos = 0;
  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }
  i32(v: number): void {
    this.view.setInt32(this.pos, v, true);
    this.pos += 4;
  }
  u32(v: number): void {
    this.view.setUint32(this.pos, v >>> 0, true);
    this.pos += 4;
  }
  f32(v: number): void {
    this.view.setFloat32(this.pos, v, true);
    this.pos += 4;
  }
  u64(v: number): void {
    this.view.setBigUint64(this.pos, BigInt(v), true);
    this.pos += 8;
  }
  raw(b: Uint8Array): void {
    this.bytes.set(b, this.pos);
    this.pos += b.length;
  }
  str(b: Uint8Array): void {
    this.u64(b.length);
    this.raw(b);
  }
  skip(n: number): void {
    this.pos += n; // the buffer starts zeroed: reserved fields
  }
}

/** The attributes the binary format stores: the learner's, plus "objective" (std::map order). */
function binaryAttributes(m: DocModel): [Uint8Array, Uint8Array][] {
  const attrs = new Map<string, string>(Object.entries(m.attributes));
  // map::insert keeps an existing key: a learner attribute named "objective" would win.
  if (!attrs.has('objective')) attrs.set('objective', dumpSorted(m.objective));
  const pairs = [...attrs].map(([k, v]) => [utf8.encode(k), utf8.encode(v)] as [Uint8Array, Uint8Array]);
  pairs.sort((a, b) => compareBytes(a[0], b[0]));
  return pairs;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** The legacy binary model, "binf"-prefixed, as xgboost 1.7 writes it. */
export function writeBinaryModel(doc: XGBoostJsonModel): Uint8Array {
  return binaryFromDoc(readDoc(doc), true);
}

/** @param prefix write the "binf" marker (save_model does; the 1.0–1.4 pickle payload does not need it) */
export function binaryFromDoc(m: DocModel, prefix: boolean): Uint8Array {
  if (m.numTarget > 1) throw new ModelWriteError('multi-target models cannot be written in the binary format');
  const objective = utf8.encode(m.objectiveName);
  const booster = utf8.encode('gbtree');
  const attrs = binaryAttributes(m);
  let size = (prefix ? 4 : 0) + LEARNER_PARAM_SIZE + 8 + objective.length + 8 + booster.length + GBTREE_PARAM_SIZE;
  for (const t of m.trees) size += TREE_PARAM_SIZE + t.numNodes * (NODE_SIZE + STAT_SIZE);
  size += 4 * m.trees.length + 8;
  for (const [k, v] of attrs) size += 16 + k.length + v.length;

  const o = new Out(size);
  if (prefix) o.raw(utf8.encode('binf'));
  // LearnerModelParamLegacy
  const lmpStart = o.pos;
  o.f32(m.baseScore);
  o.u32(m.numFeature);
  o.i32(m.numClass);
  o.i32(1); // contain_extra_attrs: SaveModel always sets it
  o.i32(0); // contain_eval_metrics: metrics are training configuration, not in the JSON model
  o.u32(m.version[0]);
  o.u32(m.version[1]);
  o.u32(m.numTarget);
  o.i32(m.boostFromAverage);
  o.pos = lmpStart + LEARNER_PARAM_SIZE;
  o.str(objective);
  o.str(booster);
  // GBTreeModelParam: num_trees, num_parallel_tree, deprecated fields, size_leaf_vector, reserved
  const gbStart = o.pos;
  o.i32(m.trees.length);
  o.i32(m.numParallelTree);
  o.pos = gbStart + GBTREE_PARAM_SIZE;
  for (let i = 0; i < m.trees.length; i++) writeTree(o, m.trees[i], i);
  for (const info of m.treeInfo) o.i32(info);
  o.u64(attrs.length);
  for (const [k, v] of attrs) {
    o.str(k);
    o.str(v);
  }
  if (o.pos !== size) throw new ModelWriteError(`binary writer: wrote ${o.pos} bytes, expected ${size}`);
  return o.bytes;
}

/** The split index xgboost's JSON shows for a deleted node (kDeletedNodeMarker without the default-left bit). */
const DELETED_INDEX = 0x7fffffff;

function writeTree(o: Out, t: DocTree, index: number): void {
  const n = t.numNodes;
  const start = o.pos;
  o.i32(1); // deprecated_num_roots
  o.i32(n);
  o.i32(t.numDeleted);
  o.i32(0); // deprecated_max_depth
  o.i32(t.numFeature);
  o.i32(0); // size_leaf_vector
  o.pos = start + TREE_PARAM_SIZE;
  for (let i = 0; i < n; i++) {
    const l = t.left[i];
    const r = t.right[i];
    if (l !== -1 && (l <= i || l >= n || r <= i || r >= n)) {
      throw new ModelWriteError(`model document: trees[${index}] node ${i} has children ${l}, ${r} outside the tree`);
    }
    // Node::parent_ carries "I am the left child" in its top bit; the root's parent is -1. A node
    // the pruner deleted is no longer its parent's child and carries no bit (checked against xgboost 1.7.4).
    const deleted = t.splitIndices[i] === DELETED_INDEX && l === -1;
    let parent = -1;
    if (i !== 0) {
      const p = t.parents[i];
      if (!(p >= 0 && p < n)) throw new ModelWriteError(`model document: trees[${index}] node ${i} has parent ${p}`);
      parent = t.left[p] === i && !deleted ? (p | 0x80000000) >>> 0 : p;
    }
    o.u32(parent);
    o.i32(l);
    o.i32(r);
    const feature = t.splitIndices[i];
    if (!(feature >= 0 && feature < 0x80000000)) {
      throw new ModelWriteError(`model document: trees[${index}] node ${i} has split index ${feature}`);
    }
    // MarkDelete sets the whole split word to all ones (kDeletedNodeMarker).
    o.u32(deleted ? 0xffffffff : t.defaultLeft[i] ? (feature | 0x80000000) >>> 0 : feature);
    o.f32(t.splitConditions[i]);
  }
  for (let i = 0; i < n; i++) {
    o.f32(t.lossChanges[i]);
    o.f32(t.sumHessian[i]);
    o.f32(t.baseWeights[i]);
    o.i32(0); // leaf_child_cnt: pruner bookkeeping, not kept by the JSON model (xgboost writes 0 too)
  }
}
