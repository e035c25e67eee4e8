// Typed access to xgboost 1.7's JSON model document (`Booster.save_model("m.json")`), the trainer's
// output, for the writers that turn it into the files SageMaker XGBoost containers write.
// Layout: learner.{learner_model_param, objective, attributes, gradient_booster.model.{trees, tree_info}}.

import type { XGBoostJsonModel } from '../types.js';
import { ModelWriteError } from './errors.js';

type Obj = Record<string, unknown>;

export interface DocTree {
  numNodes: number;
  /** nodes the pruner deleted (kept in the arrays, unreachable, split index 0x7fffffff) */
  numDeleted: number;
  numFeature: number;
  left: ArrayLike<number>;
  right: ArrayLike<number>;
  parents: ArrayLike<number>;
  splitIndices: ArrayLike<number>;
  splitConditions: ArrayLike<number>;
  defaultLeft: ArrayLike<number>;
  baseWeights: ArrayLike<number>;
  lossChanges: ArrayLike<number>;
  sumHessian: ArrayLike<number>;
}

export interface DocModel {
  version: [number, number, number];
  baseScore: number;
  numFeature: number;
  numClass: number;
  numTarget: number;
  boostFromAverage: number;
  objectiveName: string;
  /** the objective's configuration object, as the document holds it */
  objective: Obj;
  /** learner attributes (best_iteration, best_score, ...), string values */
  attributes: Record<string, string>;
  numParallelTree: number;
  trees: DocTree[];
  treeInfo: number[];
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function obj(o: Obj, key: string, where: string): Obj {
  const v = o[key];
  if (!isObj(v)) throw new ModelWriteError(`model document: ${where}.${key} is missing or not an object`);
  return v;
}

/** xgboost writes scalars as strings ("5E-1", "3"); numbers are accepted too. */
function num(o: Obj, key: string, where: string, dflt?: number): number {
  const v = o[key];
  if (v === undefined && dflt !== undefined) return dflt;
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN;
  if (Number.isNaN(n)) throw new ModelWriteError(`model document: ${where}.${key} is missing or not a number`);
  return n;
}

function int(o: Obj, key: string, where: string, dflt?: number): number {
  const n = num(o, key, where, dflt);
  if (!Number.isInteger(n)) throw new ModelWriteError(`model document: ${where}.${key} is not an integer`);
  return n;
}

function arr(o: Obj, key: string, where: string, length: number): ArrayLike<number> {
  const v = o[key];
  const ok = Array.isArray(v) || ArrayBuffer.isView(v);
  if (!ok) throw new ModelWriteError(`model document: ${where}.${key} is missing or not an array`);
  const a = v as ArrayLike<unknown>;
  if (a.length !== length) {
    throw new ModelWriteError(`model document: ${where}.${key} has ${a.length} entries, num_nodes is ${length}`);
  }
  for (let i = 0; i < a.length; i++) {
    if (typeof a[i] !== 'number') throw new ModelWriteError(`model document: ${where}.${key}[${i}] is not a number`);
  }
  return a as ArrayLike<number>;
}

/** Read and check the parts of the document the writers need. Throws ModelWriteError. */
export function readDoc(doc: XGBoostJsonModel): DocModel {
  if (!isObj(doc) || !isObj(doc.learner)) throw new ModelWriteError('model document: no learner object');
  const version = doc.version;
  if (!Array.isArray(version) || version.length !== 3 || !version.every((x) => Number.isInteger(x))) {
    throw new ModelWriteError('model document: version must be [major, minor, patch]');
  }
  const learner = doc.learner;
  const lmp = obj(learner, 'learner_model_param', 'learner');
  const objective = obj(learner, 'objective', 'learner');
  const objectiveName = objective.name;
  if (typeof objectiveName !== 'string' || objectiveName === '') {
    throw new ModelWriteError('model document: learner.objective.name is missing');
  }
  const attributes: Record<string, string> = {};
  if (isObj(learner.attributes)) {
    for (const [k, v] of Object.entries(learner.attributes)) if (typeof v === 'string') attributes[k] = v;
  }
  const gb = obj(learner, 'gradient_booster', 'learner');
  if (gb.name !== 'gbtree') {
    throw new ModelWriteError(
      `model document: booster '${String(gb.name)}' is not supported (the trainer writes gbtree)`,
    );
  }
  const model = obj(gb, 'model', 'gradient_booster');
  const gmp = obj(model, 'gbtree_model_param', 'model');
  const numTrees = int(gmp, 'num_trees', 'gbtree_model_param');
  if (int(gmp, 'size_leaf_vector', 'gbtree_model_param', 0) !== 0) {
    throw new ModelWriteError('model document: vector leaves are not supported');
  }
  const treesRaw = model.trees;
  if (!Array.isArray(treesRaw) || treesRaw.length !== numTrees) {
    throw new ModelWriteError(`model document: trees must be an array of num_trees (${numTrees}) trees`);
  }
  const infoRaw = model.tree_info;
  if (!Array.isArray(infoRaw) || infoRaw.length !== numTrees || !infoRaw.every((x) => Number.isInteger(x))) {
    throw new ModelWriteError('model document: tree_info must hold one integer per tree');
  }
  const trees = treesRaw.map((t, i) => readTree(t, i));
  return {
    version: version as [number, number, number],
    baseScore: num(lmp, 'base_score', 'learner_model_param'),
    numFeature: int(lmp, 'num_feature', 'learner_model_param'),
    numClass: int(lmp, 'num_class', 'learner_model_param', 0),
    numTarget: int(lmp, 'num_target', 'learner_model_param', 1),
    boostFromAverage: int(lmp, 'boost_from_average', 'learner_model_param', 1),
    objectiveName,
    objective,
    attributes,
    numParallelTree: int(gmp, 'num_parallel_tree', 'gbtree_model_param', 1),
    trees,
    treeInfo: infoRaw as number[],
  };
}

function readTree(t: unknown, i: number): DocTree {
  const where = `trees[${i}]`;
  if (!isObj(t)) throw new ModelWriteError(`model document: ${where} is not an object`);
  const tp = obj(t, 'tree_param', where);
  const n = int(tp, 'num_nodes', `${where}.tree_param`);
  if (n < 1) throw new ModelWriteError(`model document: ${where} has ${n} nodes`);
  const numDeleted = int(tp, 'num_deleted', `${where}.tree_param`, 0);
  if (numDeleted < 0 || numDeleted >= n)
    throw new ModelWriteError(`model document: ${where} has ${numDeleted} deleted nodes`);
  const splitType = t.split_type;
  if (Array.isArray(splitType) && splitType.some((x) => x !== 0)) {
    throw new ModelWriteError(`model document: ${where} has categorical splits, which the binary format cannot hold`);
  }
  return {
    numNodes: n,
    numDeleted,
    numFeature: int(tp, 'num_feature', `${where}.tree_param`),
    left: arr(t, 'left_children', where, n),
    right: arr(t, 'right_children', where, n),
    parents: arr(t, 'parents', where, n),
    splitIndices: arr(t, 'split_indices', where, n),
    splitConditions: arr(t, 'split_conditions', where, n),
    defaultLeft: arr(t, 'default_left', where, n),
    baseWeights: arr(t, 'base_weights', where, n),
    lossChanges: arr(t, 'loss_changes', where, n),
    sumHessian: arr(t, 'sum_hessian', where, n),
  };
}

/**
 * xgboost's Json::Dump of an object: compact, keys in byte order (its Object is a std::map).
 * Used for the objective configuration the binary format stores as an attribute.
 */
export function dumpSorted(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(dumpSorted).join(',')}]`;
  if (isObj(v)) {
    const keys = Object.keys(v).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${dumpSorted(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}
