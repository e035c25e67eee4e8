// The values behind a statistic, kept so percentiles can be computed for any period later: sorted
// (value, count) pairs, exact while there are few distinct values, then folded into logarithmic
// buckets 2 % wide (DDSketch's layout: a bucket's representative is within 1 % of every value in
// it), so a percentile read from a folded distribution is within 1 % of the true one. Folding is
// idempotent (a representative falls in its own bucket), so distributions merge in any order.
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_concepts.html#Percentiles
// https://arxiv.org/abs/1908.10693 (DDSketch)

/** Distinct values a stored distribution keeps exactly; beyond this it is folded into buckets. */
export const MAX_EXACT_VALUES = 256;
/** Distinct values a distribution merged for one answer keeps exactly (it is not stored). */
export const MAX_EXACT_QUERY_VALUES = 8192;
const ALPHA = 0.01;
export const GAMMA = (1 + ALPHA) / (1 - ALPHA);
export const LOG_GAMMA = Math.log(GAMMA);

/** The representative value of logarithmic bucket `i` (values in (γ^(i-1), γ^i]). */
export const bucketRepresentative = (i: number): number => (2 * GAMMA ** i) / (GAMMA + 1);

/** Sorted by value, counts positive. */
export interface Distribution {
  readonly values: Float64Array;
  readonly counts: Float64Array;
}

export const EMPTY: Distribution = { values: new Float64Array(0), counts: new Float64Array(0) };

/** One value seen `count` times. */
export function single(value: number, count = 1): Distribution {
  return { values: Float64Array.of(value), counts: Float64Array.of(count) };
}

/** Values with their counts (PutMetricData's Values and Counts; Counts default to 1 each). */
export function fromValues(values: readonly number[], counts?: readonly number[]): Distribution {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < values.length; i++) {
    const c = counts ? counts[i]! : 1;
    if (c > 0) pairs.push([values[i]!, c]);
  }
  pairs.sort((a, b) => a[0] - b[0]);
  return coalesce(pairs);
}

function coalesce(sorted: Array<[number, number]>, maxExact = MAX_EXACT_VALUES): Distribution {
  const v: number[] = [];
  const c: number[] = [];
  for (const [value, count] of sorted) {
    if (v.length > 0 && v[v.length - 1] === value) c[c.length - 1]! += count;
    else {
      v.push(value);
      c.push(count);
    }
  }
  const d = { values: Float64Array.from(v), counts: Float64Array.from(c) };
  return d.values.length > maxExact ? fold(d) : d;
}

/** The representative of the bucket holding `v` (0 and tiny magnitudes stay as they are). */
function bucketValue(v: number): number {
  const a = Math.abs(v);
  if (a < 1e-300 || !Number.isFinite(a)) return v;
  const rep = bucketRepresentative(Math.ceil(Math.log(a) / LOG_GAMMA));
  return v < 0 ? -rep : rep;
}

/** Folds a distribution into logarithmic buckets (a no-op on one already folded). */
export function fold(d: Distribution): Distribution {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < d.values.length; i++) pairs.push([bucketValue(d.values[i]!), d.counts[i]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  const v: number[] = [];
  const c: number[] = [];
  for (const [value, count] of pairs) {
    if (v.length > 0 && v[v.length - 1] === value) c[c.length - 1]! += count;
    else {
      v.push(value);
      c.push(count);
    }
  }
  return { values: Float64Array.from(v), counts: Float64Array.from(c) };
}

/** Two sorted distributions merged in one pass, equal values' counts added. */
function mergeTwo(a: Distribution, b: Distribution): Distribution {
  const values = new Float64Array(a.values.length + b.values.length);
  const counts = new Float64Array(values.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.values.length || j < b.values.length) {
    let v: number;
    let c: number;
    if (j >= b.values.length || (i < a.values.length && a.values[i]! <= b.values[j]!)) {
      v = a.values[i]!;
      c = a.counts[i++]!;
    } else {
      v = b.values[j]!;
      c = b.counts[j++]!;
    }
    if (n > 0 && values[n - 1] === v) counts[n - 1]! += c;
    else {
      values[n] = v;
      counts[n++] = c;
    }
  }
  return { values: values.subarray(0, n), counts: counts.subarray(0, n) };
}

/** Merges distributions (pairwise, like merge sort's merges), folding the result past `maxExact` distinct values. */
export function merge(parts: readonly Distribution[], maxExact = MAX_EXACT_VALUES): Distribution {
  let level = parts.filter((p) => p.values.length > 0);
  if (level.length === 0) return EMPTY;
  while (level.length > 1) {
    const next: Distribution[] = [];
    for (let k = 0; k < level.length; k += 2)
      next.push(k + 1 < level.length ? mergeTwo(level[k]!, level[k + 1]!) : level[k]!);
    level = next;
  }
  const d = level[0]!;
  return d.values.length > maxExact ? fold(d) : d;
}

export function totalCount(d: Distribution): number {
  let n = 0;
  for (let i = 0; i < d.counts.length; i++) n += d.counts[i]!;
  return n;
}

/**
 * The pNN of a distribution: the smallest value at or below which at least NN % of the samples
 * lie (nearest rank); p0 is the minimum and p100 the maximum.
 */
export function percentile(d: Distribution, p: number): number | undefined {
  const n = totalCount(d);
  if (n <= 0) return undefined;
  if (p <= 0) return d.values[0];
  const rank = Math.max(1, Math.ceil((p / 100) * n - 1e-9));
  let seen = 0;
  for (let i = 0; i < d.values.length; i++) {
    seen += d.counts[i]!;
    if (seen >= rank) return d.values[i];
  }
  return d.values[d.values.length - 1];
}

/** Bytes for storage: value, count pairs as little-endian doubles. */
export function encode(d: Distribution): Uint8Array {
  const out = new Float64Array(d.values.length * 2);
  for (let i = 0; i < d.values.length; i++) {
    out[2 * i] = d.values[i]!;
    out[2 * i + 1] = d.counts[i]!;
  }
  return Buffer.from(out.buffer);
}

export function decode(bytes: Uint8Array): Distribution {
  const n = Math.floor(bytes.byteLength / 16);
  // Copied (a Buffer's slice() is a view): a database driver's buffer need not be 8-byte aligned.
  const f = new Float64Array(new Uint8Array(bytes.subarray(0, n * 16)).buffer);
  const values = new Float64Array(n);
  const counts = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    values[i] = f[2 * i]!;
    counts[i] = f[2 * i + 1]!;
  }
  return { values, counts };
}
