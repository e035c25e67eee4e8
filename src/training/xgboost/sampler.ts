// Row and column sampling (xgboost 1.7's common/random.h ColumnSampler and the updaters' Bernoulli
// row sampling), with the same structure: features per tree, then per level, then per node.
// DEVIATION(xgboost): the random stream is our own (a seeded xorshift128+), not std::mt19937 fed
// through libstdc++'s distributions, so sampled runs differ tree by tree from xgboost's while
// sampling the same way; deterministic settings (subsample=1, colsample_*=1) draw nothing.

export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    // splitmix32 to spread the seed over the state
    let x = seed >>> 0;
    const next = () => {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next() | 1;
  }

  /** xoshiro128** step: a uniform 32-bit integer */
  nextU32(): number {
    const r = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return r;
  }

  /** uniform in [0, 1) */
  next(): number {
    return (this.nextU32() * 2 ** 21 + (this.nextU32() >>> 11)) / 2 ** 53;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** ColumnSampler::ColSample: keep max(1, floor(colsample * n)) features, shuffled then sorted. */
function colSample(rng: Rng, features: Int32Array, colsample: number): Int32Array {
  if (colsample === 1) return features;
  const n = Math.max(1, Math.floor(Math.fround(colsample) * features.length));
  const a = Array.from(features);
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  return Int32Array.from(a.slice(0, n).sort((x, y) => x - y));
}

export class ColumnSampler {
  private tree: Int32Array;
  private level = new Map<number, Int32Array>();

  constructor(
    private readonly rng: Rng,
    numCols: number,
    private readonly bynode: number,
    private readonly bylevel: number,
    bytree: number,
  ) {
    const all = new Int32Array(numCols);
    for (let i = 0; i < numCols; i++) all[i] = i;
    this.tree = colSample(rng, all, bytree);
  }

  /** ColumnSampler::GetFeatureSet(depth); with bynode < 1 each call draws a fresh node set. */
  featureSet(depth: number): Int32Array {
    if (this.bylevel === 1 && this.bynode === 1) return this.tree;
    let lv = this.level.get(depth);
    if (lv === undefined) {
      lv = colSample(this.rng, this.tree, this.bylevel);
      this.level.set(depth, lv);
    }
    if (this.bynode === 1) return lv;
    return colSample(this.rng, lv, this.bynode);
  }
}
