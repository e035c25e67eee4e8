// A regression tree as xgboost 1.7's RegTree holds it while it grows (include/xgboost/tree_model.h):
// node arrays in allocation order, per-node statistics, deletion by the pruner, and the JSON form
// RegTree::SaveModel writes.

const f = Math.fround;
const DELETED = 0x7fffffff; // kDeletedNodeMarker & ((1 << 31) - 1), as SplitIndex() reports it

export class RegTree {
  numNodes = 1;
  left: number[] = [-1];
  right: number[] = [-1];
  parent: number[] = [-1];
  isLeftChild: boolean[] = [false];
  feature: number[] = [0];
  deleted: boolean[] = [false];
  /** split threshold for a split node, leaf value for a leaf (float) */
  cond: number[] = [0];
  defaultLeft: boolean[] = [false];
  lossChg: number[] = [0];
  sumHess: number[] = [0];
  baseWeight: number[] = [0];
  numDeleted = 0;

  constructor(readonly numFeature: number) {}

  isLeaf(nid: number): boolean {
    return this.left[nid] === -1;
  }

  depth(nid: number): number {
    let d = 0;
    while (this.parent[nid] !== -1) {
      nid = this.parent[nid];
      d++;
    }
    return d;
  }

  setLeaf(nid: number, value: number, rightChild = -1): void {
    this.cond[nid] = f(value);
    this.left[nid] = -1;
    this.right[nid] = rightChild;
  }

  private alloc(): number {
    const n = this.numNodes++;
    this.left.push(-1);
    this.right.push(-1);
    this.parent.push(-1);
    this.isLeftChild.push(false);
    this.feature.push(0);
    this.deleted.push(false);
    this.cond.push(0);
    this.defaultLeft.push(false);
    this.lossChg.push(0);
    this.sumHess.push(0);
    this.baseWeight.push(0);
    return n;
  }

  /** RegTree::ExpandNode; `leafRight` 0 marks fresh children the way the exact updater does. */
  expand(
    nid: number,
    feature: number,
    value: number,
    defaultLeft: boolean,
    baseWeight: number,
    leftLeaf: number,
    rightLeaf: number,
    lossChg: number,
    sumHess: number,
    leftHess: number,
    rightHess: number,
    leafRight = -1,
  ): void {
    const l = this.alloc();
    const r = this.alloc();
    this.left[nid] = l;
    this.right[nid] = r;
    this.parent[l] = nid;
    this.isLeftChild[l] = true;
    this.parent[r] = nid;
    this.feature[nid] = feature;
    this.cond[nid] = f(value);
    this.defaultLeft[nid] = defaultLeft;
    this.setLeaf(l, leftLeaf, leafRight);
    this.setLeaf(r, rightLeaf, leafRight);
    this.lossChg[nid] = f(lossChg);
    this.sumHess[nid] = f(sumHess);
    this.baseWeight[nid] = f(baseWeight);
    this.lossChg[l] = 0;
    this.sumHess[l] = f(leftHess);
    this.baseWeight[l] = f(leftLeaf);
    this.lossChg[r] = 0;
    this.sumHess[r] = f(rightHess);
    this.baseWeight[r] = f(rightLeaf);
  }

  private deleteNode(nid: number): void {
    const p = this.parent[nid];
    if (this.left[p] === nid) this.left[p] = -1;
    else this.right[p] = -1;
    this.deleted[nid] = true;
    this.numDeleted++;
  }

  /** RegTree::ChangeToLeaf: both children must be leaves. */
  changeToLeaf(nid: number, value: number): void {
    const l = this.left[nid];
    const r = this.right[nid];
    this.deleteNode(l);
    this.deleteNode(r);
    this.setLeaf(nid, value);
  }

  /** The leaf a row falls into (float32 row values, NaN = missing). */
  leafOf(row: Float32Array, base: number): number {
    let nid = 0;
    while (this.left[nid] !== -1) {
      const v = row[base + this.feature[nid]];
      if (Number.isNaN(v)) nid = this.defaultLeft[nid] ? this.left[nid] : this.right[nid];
      else nid = v < this.cond[nid] ? this.left[nid] : this.right[nid];
    }
    return nid;
  }

  /** RegTree::SaveModel's JSON object. */
  toJson(id: number): Record<string, unknown> {
    const n = this.numNodes;
    return {
      base_weights: this.baseWeight.slice(0, n),
      categories: [],
      categories_nodes: [],
      categories_segments: [],
      categories_sizes: [],
      default_left: this.defaultLeft.map((d, i) => (d || this.deleted[i] ? 1 : 0)),
      id,
      left_children: this.left.slice(0, n),
      loss_changes: this.lossChg.slice(0, n),
      parents: this.parent.map((p) => (p === -1 ? 2147483647 : p)),
      right_children: this.right.slice(0, n),
      split_conditions: this.cond.slice(0, n),
      split_indices: this.feature.map((x, i) => (this.deleted[i] ? DELETED : x)),
      split_type: new Array<number>(n).fill(0),
      sum_hessian: this.sumHess.slice(0, n),
      tree_param: {
        num_deleted: String(this.numDeleted),
        num_feature: String(this.numFeature),
        num_nodes: String(n),
        size_leaf_vector: '0',
      },
    };
  }
}
