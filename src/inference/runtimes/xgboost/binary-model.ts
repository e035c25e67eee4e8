// Reads xgboost's legacy binary model format (little-endian C structs), written by save_model()
// without a .json/.ubj extension in xgboost < 2.0 and used inside the 1.0 - 1.2 pickle
// serialisation ("CONFIG-offset:"). Layout (learner.cc, gbtree_model.cc, tree_model.cc):
//
//   ["binf"] LearnerModelParamLegacy (136 bytes) string objective, string booster,
//   gbtree/dart: GBTreeModelParam (160) then per tree TreeParam (148), nodes (20 each),
//                stats (16 each); tree_info int32[num_trees]; dart: vector<float> weight_drop
//   gblinear:    DeprecatedGBLinearModelParam (136) then vector<float> weights
//   [vector<pair<string,string>> attributes when contain_extra_attrs]
//
// Strings and vectors are a uint64 count followed by the elements. Every count is checked
// against the bytes left before anything is allocated.

import { fail } from './errors.js';
import type { ModelSpec, TreeSpec } from './model.js';

const LEARNER_PARAM_SIZE = 136;
const GBTREE_PARAM_SIZE = 160;
const TREE_PARAM_SIZE = 148;
const NODE_SIZE = 20;
const STAT_SIZE = 16;
const GBLINEAR_PARAM_SIZE = 136;

class Reader {
  pos = 0;
  private readonly view: DataView;
  constructor(readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  get left(): number {
    return this.buf.length - this.pos;
  }
  need(n: number, what: string): void {
    if (n > this.left) fail(`binary model: truncated while reading ${what} (needs ${n} bytes, ${this.left} left)`);
  }
  i32(at: number): number {
    return this.view.getInt32(at, true);
  }
  u32(at: number): number {
    return this.view.getUint32(at, true);
  }
  f32(at: number): number {
    return this.view.getFloat32(at, true);
  }
  u64(what: string): number {
    this.need(8, what);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    if (v > BigInt(this.left)) fail(`binary model: ${what} declares ${v}, more than the ${this.left} bytes left`);
    return Number(v);
  }
  str(what: string): string {
    const n = this.u64(`${what} length`);
    const s = new TextDecoder().decode(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }
  floats(what: string): Float32Array {
    const n = this.u64(`${what} count`);
    this.need(n * 4, what);
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = this.f32(this.pos + i * 4);
    this.pos += n * 4;
    return out;
  }
}

export function specFromBinary(bytes: Uint8Array, format = 'binary'): ModelSpec {
  const r = new Reader(bytes);
  if (bytes.length >= 4 && bytes[0] === 0x62 && bytes[1] === 0x69 && bytes[2] === 0x6e && bytes[3] === 0x66) r.pos = 4; // "binf"
  if (bytes.length >= 4 && bytes[0] === 0x62 && bytes[1] === 0x73 && bytes[2] === 0x36 && bytes[3] === 0x34) {
    fail('base64 ("bs64") xgboost models are not supported');
  }
  r.need(LEARNER_PARAM_SIZE, 'learner parameters');
  const p = r.pos;
  const baseScore = r.f32(p);
  const numFeature = r.u32(p + 4);
  const numClass = r.i32(p + 8);
  const containExtraAttrs = r.i32(p + 12);
  const majorVersion = r.u32(p + 20);
  const minorVersion = r.u32(p + 24);
  const numTarget = r.u32(p + 28);
  r.pos += LEARNER_PARAM_SIZE;
  if (numTarget > 1) fail(`multi-target models (num_target=${numTarget}) are not supported`);
  if (numFeature > 1 << 26) fail(`binary model: absurd num_feature ${numFeature}`);
  if (numClass < 0 || numClass > 1 << 16) fail(`binary model: absurd num_class ${numClass}`);
  const objective = r.str('objective name');
  const booster = r.str('booster name');
  if (!/^[a-z:_]{1,64}$/.test(objective)) fail('binary model: objective name is not valid (not an xgboost model?)');

  const spec: ModelSpec = {
    format,
    booster: 'gbtree',
    objective,
    baseScore,
    baseScoreIsPre1Margin: majorVersion < 1,
    numFeatures: numFeature,
    numClass,
    attributes: {},
    version: majorVersion > 0 ? [majorVersion, minorVersion] : undefined,
  };
  if (booster === 'gbtree' || booster === 'dart') {
    spec.booster = booster;
    r.need(GBTREE_PARAM_SIZE, 'gbtree parameters');
    const numTrees = r.i32(r.pos);
    const sizeLeafVector = r.i32(r.pos + 28);
    r.pos += GBTREE_PARAM_SIZE;
    if (numTrees < 0) fail(`binary model: negative num_trees ${numTrees}`);
    if (numTrees * (TREE_PARAM_SIZE + NODE_SIZE + STAT_SIZE + 4) > r.left) {
      fail(`binary model: num_trees ${numTrees} does not fit in the ${r.left} bytes left`);
    }
    if (sizeLeafVector !== 0) fail('binary model: vector leaves (size_leaf_vector) are not supported');
    const trees: TreeSpec[] = new Array(numTrees);
    for (let t = 0; t < numTrees; t++) trees[t] = readTree(r, t);
    const info = new Int32Array(numTrees);
    if (numTrees > 0) {
      r.need(4 * numTrees, 'tree_info');
      for (let i = 0; i < numTrees; i++) info[i] = r.i32(r.pos + 4 * i);
      r.pos += 4 * numTrees;
    }
    spec.trees = trees;
    spec.treeInfo = info;
    if (booster === 'dart' && numTrees > 0) spec.weightDrop = r.floats('dart weight_drop');
  } else if (booster === 'gblinear') {
    spec.booster = 'gblinear';
    r.need(GBLINEAR_PARAM_SIZE, 'gblinear parameters');
    r.pos += GBLINEAR_PARAM_SIZE;
    spec.linearWeights = r.floats('gblinear weights');
  } else {
    fail(`binary model: unsupported booster '${booster.slice(0, 32)}'`);
  }
  if (containExtraAttrs !== 0 && r.left > 0) {
    const n = r.u64('attribute count');
    for (let i = 0; i < n; i++) {
      const k = r.str('attribute name');
      const v = r.str('attribute value');
      spec.attributes[k] = v;
    }
  }
  return spec;
}

function readTree(r: Reader, t: number): TreeSpec {
  r.need(TREE_PARAM_SIZE, `tree ${t} parameters`);
  const numNodes = r.i32(r.pos + 4);
  const sizeLeafVector = r.i32(r.pos + 20);
  r.pos += TREE_PARAM_SIZE;
  if (numNodes < 1) fail(`binary model: tree ${t} has num_nodes ${numNodes}`);
  if (sizeLeafVector !== 0) fail(`binary model: tree ${t} has vector leaves, not supported`);
  r.need(numNodes * (NODE_SIZE + STAT_SIZE), `tree ${t} nodes (${numNodes} declared)`);
  const left = new Int32Array(numNodes);
  const right = new Int32Array(numNodes);
  const splitIndex = new Int32Array(numNodes);
  const defaultLeft = new Uint8Array(numNodes);
  const splitCond = new Float32Array(numNodes);
  let at = r.pos;
  for (let i = 0; i < numNodes; i++, at += NODE_SIZE) {
    left[i] = r.i32(at + 4);
    right[i] = r.i32(at + 8);
    const sindex = r.u32(at + 12);
    splitIndex[i] = sindex & 0x7fffffff;
    defaultLeft[i] = sindex >>> 31;
    splitCond[i] = r.f32(at + 16);
  }
  r.pos += numNodes * (NODE_SIZE + STAT_SIZE); // node statistics are not needed to predict
  return { numNodes, left, right, splitIndex, splitCond, defaultLeft };
}
