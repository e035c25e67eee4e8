// The tree walks of model.ts's marginsBlocked over a block of rows, eight rows abreast: one for rows
// that may hold missing values (NaN takes the node's default child), and one for a block with none,
// the same trees, steps and float32 sums without the NaN test (and its default-child load) at every
// step — about a tenth faster on abalone. The two are kept apart on purpose: one kernel with the
// test behind a flag would pay for the flag at every step.

/** The flattened trees (see the field comments of XGBoostModel). */
export interface FlatTrees {
  readonly nodes: Int32Array;
  readonly val: Float32Array;
  readonly leaf: Float32Array;
  readonly roots: Int32Array;
  readonly depth: Int32Array;
}

/** Whether rows [r0, r1) hold a NaN. */
export function blockHasMissing(rows: Float32Array, r0: number, r1: number, nf: number): boolean {
  for (let i = r0 * nf, end = r1 * nf; i < end; i++) {
    const v = rows[i]!;
    // biome-ignore lint/suspicious/noSelfCompare: NaN test in the hot loop
    if (v !== v) return true;
  }
  return false;
}

/** Adds the leaves of trees [0, nTrees) to out[r0..r1), rows without NaN; out starts at the base margin. */
export function denseBlock(
  f: FlatTrees,
  rows: Float32Array,
  r0: number,
  r1: number,
  nf: number,
  nTrees: number,
  out: Float32Array,
): void {
  const { nodes, val, leaf, roots, depth } = f;
  for (let t = 0; t < nTrees; t++) {
    const root = roots[t]!;
    const d = depth[t]!;
    let r = r0;
    for (; r + 8 <= r1; r += 8) {
      const o0 = r * nf;
      const o1 = o0 + nf;
      const o2 = o1 + nf;
      const o3 = o2 + nf;
      const o4 = o3 + nf;
      const o5 = o4 + nf;
      const o6 = o5 + nf;
      const o7 = o6 + nf;
      let n0 = root;
      let n1 = root;
      let n2 = root;
      let n3 = root;
      let n4 = root;
      let n5 = root;
      let n6 = root;
      let n7 = root;
      for (let k = 0; k < d; k++) {
        // right = left + 4 unless v < threshold (a leaf loops onto itself: threshold NaN)
        n0 = nodes[n0 + 1]! + 4 - (+(rows[o0 + nodes[n0]!]! < val[n0 + 3]!) << 2);
        n1 = nodes[n1 + 1]! + 4 - (+(rows[o1 + nodes[n1]!]! < val[n1 + 3]!) << 2);
        n2 = nodes[n2 + 1]! + 4 - (+(rows[o2 + nodes[n2]!]! < val[n2 + 3]!) << 2);
        n3 = nodes[n3 + 1]! + 4 - (+(rows[o3 + nodes[n3]!]! < val[n3 + 3]!) << 2);
        n4 = nodes[n4 + 1]! + 4 - (+(rows[o4 + nodes[n4]!]! < val[n4 + 3]!) << 2);
        n5 = nodes[n5 + 1]! + 4 - (+(rows[o5 + nodes[n5]!]! < val[n5 + 3]!) << 2);
        n6 = nodes[n6 + 1]! + 4 - (+(rows[o6 + nodes[n6]!]! < val[n6 + 3]!) << 2);
        n7 = nodes[n7 + 1]! + 4 - (+(rows[o7 + nodes[n7]!]! < val[n7 + 3]!) << 2);
      }
      // Float32Array stores round: float32 additions in tree order, as xgboost
      out[r] += leaf[n0 >> 2]!;
      out[r + 1] += leaf[n1 >> 2]!;
      out[r + 2] += leaf[n2 >> 2]!;
      out[r + 3] += leaf[n3 >> 2]!;
      out[r + 4] += leaf[n4 >> 2]!;
      out[r + 5] += leaf[n5 >> 2]!;
      out[r + 6] += leaf[n6 >> 2]!;
      out[r + 7] += leaf[n7 >> 2]!;
    }
    for (; r < r1; r++) {
      const off = r * nf;
      let n = root;
      for (let k = 0; k < d; k++) n = nodes[n + 1]! + 4 - (+(rows[off + nodes[n]!]! < val[n + 3]!) << 2);
      out[r] += leaf[n >> 2]!;
    }
  }
}

/** Adds the leaves of trees [0, nTrees) to out[r0..r1), rows that may hold NaN; out starts at the base margin. */
export function missingBlock(
  f: FlatTrees,
  rows: Float32Array,
  r0: number,
  r1: number,
  nf: number,
  nTrees: number,
  out: Float32Array,
): void {
  const { nodes, val, leaf, roots, depth } = f;
  for (let t = 0; t < nTrees; t++) {
    const root = roots[t];
    const d = depth[t];
    let r = r0;
    for (; r + 8 <= r1; r += 8) {
      const o0 = r * nf;
      const o1 = o0 + nf;
      const o2 = o1 + nf;
      const o3 = o2 + nf;
      const o4 = o3 + nf;
      const o5 = o4 + nf;
      const o6 = o5 + nf;
      const o7 = o6 + nf;
      let n0 = root;
      let n1 = root;
      let n2 = root;
      let n3 = root;
      let n4 = root;
      let n5 = root;
      let n6 = root;
      let n7 = root;
      for (let k = 0; k < d; k++) {
        const v0 = rows[o0 + nodes[n0]];
        const v1 = rows[o1 + nodes[n1]];
        const v2 = rows[o2 + nodes[n2]];
        const v3 = rows[o3 + nodes[n3]];
        const v4 = rows[o4 + nodes[n4]];
        const v5 = rows[o5 + nodes[n5]];
        const v6 = rows[o6 + nodes[n6]];
        const v7 = rows[o7 + nodes[n7]];
        // right = left + 4 unless v < threshold; NaN (missing) takes the default child
        // biome-ignore-start lint/suspicious/noSelfCompare: NaN tests in the hot loop
        n0 = v0 !== v0 ? nodes[n0 + 2] : nodes[n0 + 1] + 4 - (+(v0 < val[n0 + 3]) << 2);
        n1 = v1 !== v1 ? nodes[n1 + 2] : nodes[n1 + 1] + 4 - (+(v1 < val[n1 + 3]) << 2);
        n2 = v2 !== v2 ? nodes[n2 + 2] : nodes[n2 + 1] + 4 - (+(v2 < val[n2 + 3]) << 2);
        n3 = v3 !== v3 ? nodes[n3 + 2] : nodes[n3 + 1] + 4 - (+(v3 < val[n3 + 3]) << 2);
        n4 = v4 !== v4 ? nodes[n4 + 2] : nodes[n4 + 1] + 4 - (+(v4 < val[n4 + 3]) << 2);
        n5 = v5 !== v5 ? nodes[n5 + 2] : nodes[n5 + 1] + 4 - (+(v5 < val[n5 + 3]) << 2);
        n6 = v6 !== v6 ? nodes[n6 + 2] : nodes[n6 + 1] + 4 - (+(v6 < val[n6 + 3]) << 2);
        n7 = v7 !== v7 ? nodes[n7 + 2] : nodes[n7 + 1] + 4 - (+(v7 < val[n7 + 3]) << 2);
        // biome-ignore-end lint/suspicious/noSelfCompare: NaN tests in the hot loop
      }
      // Float32Array stores round: float32 additions, as xgboost
      out[r] += leaf[n0 >> 2];
      out[r + 1] += leaf[n1 >> 2];
      out[r + 2] += leaf[n2 >> 2];
      out[r + 3] += leaf[n3 >> 2];
      out[r + 4] += leaf[n4 >> 2];
      out[r + 5] += leaf[n5 >> 2];
      out[r + 6] += leaf[n6 >> 2];
      out[r + 7] += leaf[n7 >> 2];
    }
    for (let off = r * nf; r < r1; r++, off += nf) {
      let n = root;
      for (let k = 0; k < d; k++) {
        const v = rows[off + nodes[n]];
        // biome-ignore lint/suspicious/noSelfCompare: NaN test in the hot loop
        n = v !== v ? nodes[n + 2] : nodes[n + 1] + 4 - (+(v < val[n + 3]) << 2);
      }
      out[r] += leaf[n >> 2];
    }
  }
}
