// The dense linear algebra a Gaussian process needs, on row-major Float64Arrays: Cholesky
// factorisation with jitter, triangular solves, and the inverse from the factor.

/** Lower-triangular L with L·Lᵀ = A (n×n, row-major), or undefined if A is not positive definite. */
export function cholesky(a: Float64Array, n: number): Float64Array | undefined {
  const l = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    let d = a[j * n + j]!;
    const lj = j * n;
    for (let k = 0; k < j; k++) d -= l[lj + k]! * l[lj + k]!;
    if (!(d > 0)) return undefined;
    const ljj = Math.sqrt(d);
    l[lj + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      const li = i * n;
      let s = a[li + j]!;
      for (let k = 0; k < j; k++) s -= l[li + k]! * l[lj + k]!;
      l[li + j] = s / ljj;
    }
  }
  return l;
}

/**
 * Cholesky of A + jitter·I, raising the jitter tenfold (from 1e-10 of the mean diagonal) until it
 * factors: kernels of nearly repeated points are singular in floating point.
 */
export function choleskyJittered(a: Float64Array, n: number): Float64Array {
  const first = cholesky(a, n);
  if (first) return first;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += a[i * n + i]!;
  mean = mean / n || 1;
  for (let jitter = mean * 1e-10; jitter < mean; jitter *= 10) {
    const b = new Float64Array(a);
    for (let i = 0; i < n; i++) b[i * n + i]! += jitter;
    const l = cholesky(b, n);
    if (l) return l;
  }
  throw new Error('covariance matrix is not positive definite');
}

/** Solves L·x = b (L lower-triangular). */
export function solveLower(l: Float64Array, n: number, b: ArrayLike<number>): Float64Array {
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    const li = i * n;
    for (let k = 0; k < i; k++) s -= l[li + k]! * x[k]!;
    x[i] = s / l[li + i]!;
  }
  return x;
}

/** Solves Lᵀ·x = b (L lower-triangular). */
export function solveUpper(l: Float64Array, n: number, b: ArrayLike<number>): Float64Array {
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k * n + i]! * x[k]!;
    x[i] = s / l[i * n + i]!;
  }
  return x;
}

/** A⁻¹ from A's Cholesky factor: L⁻¹ by forward substitution, then A⁻¹ = L⁻ᵀ·L⁻¹ (symmetric). */
export function inverseFromCholesky(l: Float64Array, n: number): Float64Array {
  const li = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    li[i * n + i] = 1 / l[i * n + i]!;
    for (let j = 0; j < i; j++) {
      let s = 0;
      for (let k = j; k < i; k++) s -= l[i * n + k]! * li[k * n + j]!;
      li[i * n + j] = s / l[i * n + i]!;
    }
  }
  const inv = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = i; k < n; k++) s += li[k * n + i]! * li[k * n + j]!;
      inv[i * n + j] = s;
      inv[j * n + i] = s;
    }
  }
  return inv;
}
