// Reads the JSON document xgboost writes with save_model(*.json / *.ubj) (≥ 1.0) into a ModelSpec.
// The same reader serves JSON (parsed with JSON.parse) and UBJSON (parsed by ./ubjson.ts, whose
// typed arrays arrive as typed arrays).

import { fail } from './errors.js';
import type { ModelSpec, TreeSpec } from './model.js';
import type { JsonObject, JsonValue } from './ubjson.js';

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

function field(o: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function obj(o: JsonObject, key: string, where: string): JsonObject {
  const v = field(o, key);
  if (!isObject(v)) fail(`${where}: '${key}' is missing or not an object`);
  return v;
}

function str(o: JsonObject, key: string, where: string): string {
  const v = field(o, key);
  if (typeof v !== 'string') fail(`${where}: '${key}' is missing or not a string`);
  return v;
}

/** xgboost stores most scalars as strings ("5E-1", "15"); accept numbers too. */
function num(o: JsonObject, key: string, where: string, dflt?: number): number {
  const v = field(o, key);
  if (v === undefined && dflt !== undefined) return dflt;
  const n = typeof v === 'string' ? Number(v.trim()) : typeof v === 'number' ? v : Number.NaN;
  if (Number.isNaN(n) && !(typeof v === 'string' && /^\s*nan\s*$/i.test(v))) {
    fail(`${where}: '${key}' is missing or not a number`);
  }
  return n;
}

function int(o: JsonObject, key: string, where: string, dflt?: number): number {
  const n = num(o, key, where, dflt);
  if (!Number.isSafeInteger(n)) fail(`${where}: '${key}' is not an integer`);
  return n;
}

/** A numeric array: typed arrays are used as they are, plain arrays are checked and copied. */
function numbers(o: JsonObject, key: string, where: string, minLength: number): ArrayLike<number> {
  const v = field(o, key);
  if (ArrayBuffer.isView(v)) {
    if (v.length < minLength) fail(`${where}: '${key}' has ${v.length} entries, expected ${minLength}`);
    return v;
  }
  if (!Array.isArray(v)) fail(`${where}: '${key}' is missing or not an array`);
  if (v.length < minLength) fail(`${where}: '${key}' has ${v.length} entries, expected ${minLength}`);
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const e = v[i];
    if (typeof e === 'number') out[i] = e;
    else if (typeof e === 'boolean') out[i] = e ? 1 : 0;
    else if (e === null) out[i] = Number.NaN;
    else fail(`${where}: '${key}'[${i}] is not a number`);
  }
  return out;
}

export function specFromJson(root: JsonValue, format: string): ModelSpec {
  if (!isObject(root)) fail(`${format} model: top level is not an object`);
  // A memory snapshot (pickle/serialisation) wraps the model as {"Model": ..., "Config": ...}.
  const inner = field(root, 'Model');
  const doc = isObject(inner) ? inner : root;
  const learner = obj(doc, 'learner', `${format} model`);
  const version = field(doc, 'version');
  const ver: number[] | undefined =
    Array.isArray(version) || ArrayBuffer.isView(version)
      ? Array.from(version as ArrayLike<unknown>, (x) => (typeof x === 'number' ? x : Number.NaN))
      : undefined;

  const lmp = obj(learner, 'learner_model_param', 'learner');
  const numFeatures = int(lmp, 'num_feature', 'learner_model_param');
  const numClass = int(lmp, 'num_class', 'learner_model_param', 0);
  const numTarget = int(lmp, 'num_target', 'learner_model_param', 1);
  if (numTarget > 1) fail(`multi-target models (num_target=${numTarget}) are not supported`);
  const baseScore = num(lmp, 'base_score', 'learner_model_param');
  const objective = str(obj(learner, 'objective', 'learner'), 'name', 'objective');

  const attributes: Record<string, string> = {};
  const attrs = field(learner, 'attributes');
  if (isObject(attrs)) {
    for (const k of Object.keys(attrs)) {
      const v = attrs[k];
      if (typeof v === 'string') attributes[k] = v;
    }
  }
  let featureNames: string[] | undefined;
  const fn = field(learner, 'feature_names');
  if (Array.isArray(fn) && fn.length > 0 && fn.every((x) => typeof x === 'string')) featureNames = fn as string[];

  const gb = obj(learner, 'gradient_booster', 'learner');
  const name = str(gb, 'name', 'gradient_booster');
  const spec: ModelSpec = {
    format,
    booster: 'gbtree',
    objective,
    baseScore,
    numFeatures,
    numClass,
    attributes,
    version: ver,
    featureNames,
  };
  if (name === 'gblinear') {
    const model = obj(gb, 'model', 'gblinear');
    spec.booster = 'gblinear';
    spec.linearWeights = numbers(model, 'weights', 'gblinear model', 0);
    return spec;
  }
  let treesDoc: JsonObject;
  if (name === 'dart') {
    spec.booster = 'dart';
    const inner = obj(gb, 'gbtree', 'dart');
    treesDoc = obj(inner, 'model', 'dart.gbtree');
  } else if (name === 'gbtree') {
    treesDoc = obj(gb, 'model', 'gbtree');
  } else {
    return fail(`unsupported booster '${name}'`);
  }
  const param = obj(treesDoc, 'gbtree_model_param', 'gbtree model');
  const numTrees = int(param, 'num_trees', 'gbtree_model_param');
  const treesV = field(treesDoc, 'trees');
  if (!Array.isArray(treesV)) fail("gbtree model: 'trees' is missing or not an array");
  if (numTrees < 0 || numTrees > treesV.length) {
    fail(`gbtree model: num_trees is ${numTrees} but ${treesV.length} trees are stored`);
  }
  const trees: TreeSpec[] = new Array(numTrees);
  for (let i = 0; i < numTrees; i++) {
    const tv = treesV[i];
    if (!isObject(tv)) fail(`tree ${i} is not an object`);
    let id = i;
    const idv = field(tv, 'id');
    if (typeof idv === 'number') id = idv;
    if (!Number.isInteger(id) || id < 0 || id >= numTrees || trees[id] !== undefined) {
      fail(`tree ${i} has an invalid or duplicate id ${String(idv)}`);
    }
    trees[id] = treeFromJson(tv, id);
  }
  spec.trees = trees;
  spec.treeInfo = numbers(treesDoc, 'tree_info', 'gbtree model', numTrees);
  if (name === 'dart') spec.weightDrop = numbers(gb, 'weight_drop', 'dart', numTrees);
  return spec;
}

function treeFromJson(t: JsonObject, id: number): TreeSpec {
  const where = `tree ${id}`;
  const tp = obj(t, 'tree_param', where);
  const n = int(tp, 'num_nodes', `${where} tree_param`);
  if (n < 1) fail(`${where}: num_nodes is ${n}`);
  const sizeLeafVector = int(tp, 'size_leaf_vector', `${where} tree_param`, 0);
  if (sizeLeafVector > 1) fail(`${where}: vector leaves (size_leaf_vector=${sizeLeafVector}) are not supported`);
  const tree: TreeSpec = {
    numNodes: n,
    left: numbers(t, 'left_children', where, n),
    right: numbers(t, 'right_children', where, n),
    splitIndex: numbers(t, 'split_indices', where, n),
    splitCond: numbers(t, 'split_conditions', where, n),
    defaultLeft: numbers(t, 'default_left', where, n),
  };
  const splitType = field(t, 'split_type');
  if (splitType !== undefined) {
    const types = numbers(t, 'split_type', where, n);
    let anyCat = false;
    for (let i = 0; i < n; i++) if (types[i] === 1) anyCat = true;
    if (anyCat) {
      const nodes = numbers(t, 'categories_nodes', where, 0);
      const segs = numbers(t, 'categories_segments', where, nodes.length);
      const sizes = numbers(t, 'categories_sizes', where, nodes.length);
      const cats = numbers(t, 'categories', where, 0);
      const map = new Map<number, ArrayLike<number>>();
      for (let k = 0; k < nodes.length; k++) {
        const node = nodes[k];
        const beg = segs[k];
        const size = sizes[k];
        if (!Number.isInteger(node) || node < 0 || node >= n || types[node] !== 1) {
          fail(`${where}: categories_nodes[${k}] = ${node} is not a categorical node`);
        }
        if (!Number.isInteger(beg) || !Number.isInteger(size) || beg < 0 || size < 1 || beg + size > cats.length) {
          fail(`${where}: categories segment ${k} (${beg}, ${size}) is outside the categories array`);
        }
        map.set(node, sliceOf(cats, beg, beg + size));
      }
      for (let i = 0; i < n; i++) {
        if (types[i] === 1 && tree.left[i] !== -1 && !map.has(i))
          fail(`${where}: categorical node ${i} has no categories`);
      }
      tree.categories = map;
    }
  }
  return tree;
}

function sliceOf(a: ArrayLike<number>, beg: number, end: number): ArrayLike<number> {
  if (ArrayBuffer.isView(a)) return (a as unknown as Float64Array).subarray(beg, end);
  return Array.prototype.slice.call(a, beg, end) as number[];
}
