// xgboost 1.7's weighted quantile sketch (src/common/quantile.h WQSummary, WXQSummary,
// QuantileSketchTemplate), with every rank computed in float as xgboost's <float, float> sketches
// do, so the cut points (./cuts.ts) come out identical.

import { primeAtLoad } from './prime.js';

const f = Math.fround;

export class Summary {
  rmin: Float32Array;
  rmax: Float32Array;
  wmin: Float32Array;
  value: Float32Array;
  size = 0;
  constructor(cap: number) {
    this.rmin = new Float32Array(cap);
    this.rmax = new Float32Array(cap);
    this.wmin = new Float32Array(cap);
    this.value = new Float32Array(cap);
  }
  reserve(cap: number): void {
    if (cap <= this.value.length) return;
    const grow = (a: Float32Array) => {
      const b = new Float32Array(cap);
      b.set(a.subarray(0, this.size));
      return b;
    };
    this.rmin = grow(this.rmin);
    this.rmax = grow(this.rmax);
    this.wmin = grow(this.wmin);
    this.value = grow(this.value);
  }
  set(i: number, rmin: number, rmax: number, wmin: number, value: number): void {
    this.rmin[i] = rmin;
    this.rmax[i] = rmax;
    this.wmin[i] = wmin;
    this.value[i] = value;
  }
  copyEntry(i: number, s: Summary, j: number): void {
    this.set(i, s.rmin[j], s.rmax[j], s.wmin[j], s.value[j]);
  }
  rminNext(i: number): number {
    return f(this.rmin[i] + this.wmin[i]);
  }
  rmaxPrev(i: number): number {
    return f(this.rmax[i] - this.wmin[i]);
  }
  copyFrom(s: Summary): void {
    this.reserve(s.size);
    this.size = s.size;
    this.rmin.set(s.rmin.subarray(0, s.size));
    this.rmax.set(s.rmax.subarray(0, s.size));
    this.wmin.set(s.wmin.subarray(0, s.size));
    this.value.set(s.value.subarray(0, s.size));
  }

  /**
   * The step both prunes share: keep whichever of src's entries i and i + 1 lies nearer the rank
   * dx2 / 2 (unless it was just kept); returns the index last kept.
   */
  private keepNearer(src: Summary, i: number, dx2: number, lastidx: number): number {
    const j = dx2 < f(src.rminNext(i) + src.rmaxPrev(i + 1)) ? i : i + 1;
    if (j !== lastidx) this.copyEntry(this.size++, src, j);
    return j;
  }

  /** WQSummary::SetPrune (the arrays held in locals: this runs for every queue's worth of values) */
  setPrune(src: Summary, maxsize: number): void {
    if (src.size <= maxsize) {
      this.copyFrom(src);
      return;
    }
    this.reserve(maxsize);
    const { rmin, rmax, wmin, value } = this;
    const sRmin = src.rmin;
    const sRmax = src.rmax;
    const sWmin = src.wmin;
    const sValue = src.value;
    const last = src.size - 1;
    const begin = sRmax[0];
    const range = f(sRmin[last] - sRmax[0]);
    const n = maxsize - 1;
    rmin[0] = sRmin[0];
    rmax[0] = sRmax[0];
    wmin[0] = sWmin[0];
    value[0] = sValue[0];
    let size = 1;
    let i = 1;
    let lastidx = 0;
    for (let k = 1; k < n; k++) {
      const dx2 = f(2 * f(f(f(k * range) / n) + begin));
      while (i < last && dx2 >= f(sRmax[i + 1] + sRmin[i + 1])) ++i;
      if (i === last) break;
      // keep whichever of i and i + 1 lies nearer the rank dx2 / 2, unless it was just kept
      const j = dx2 < f(f(sRmin[i] + sWmin[i]) + f(sRmax[i + 1] - sWmin[i + 1])) ? i : i + 1;
      if (j !== lastidx) {
        rmin[size] = sRmin[j];
        rmax[size] = sRmax[j];
        wmin[size] = sWmin[j];
        value[size] = sValue[j];
        size++;
        lastidx = j;
      }
    }
    if (lastidx !== last) {
      rmin[size] = sRmin[last];
      rmax[size] = sRmax[last];
      wmin[size] = sWmin[last];
      value[size] = sValue[last];
      size++;
    }
    this.size = size;
  }

  /** WXQSummary::SetPrune (the sorted sketch's prune, keeping large-weight entries) */
  setPruneX(src: Summary, maxsize: number): void {
    if (src.size <= maxsize) {
      this.copyFrom(src);
      return;
    }
    this.reserve(maxsize);
    let begin = src.rmax[0];
    let n = maxsize - 2;
    let nbig = 0;
    let range = f(src.rmin[src.size - 1] - begin);
    if (range === 0 || maxsize <= 2) {
      this.copyEntry(0, src, 0);
      this.copyEntry(1, src, src.size - 1);
      this.size = 2;
      return;
    }
    range = Math.max(range, f(1e-3));
    const chunk = f(f(2 * range) / n);
    const large = (i: number) => src.rminNext(i) > f(src.rmaxPrev(i) + chunk);
    let mrange = 0;
    {
      let bid = 0;
      for (let i = 1; i < src.size - 1; i++) {
        if (large(i)) {
          if (bid !== i - 1) mrange = f(mrange + f(src.rmaxPrev(i) - src.rminNext(bid)));
          bid = i;
          ++nbig;
        }
      }
      if (bid !== src.size - 2) mrange = f(mrange + f(src.rmaxPrev(src.size - 1) - src.rminNext(bid)));
    }
    if (nbig >= n) throw new Error('quantile: too many large chunk');
    this.copyEntry(0, src, 0);
    this.size = 1;
    n = n - nbig;
    let bid = 0;
    let k = 1;
    let lastidx = 0;
    for (let end = 1; end < src.size; end++) {
      if (end === src.size - 1 || large(end)) {
        if (bid !== end - 1) {
          let i = bid;
          const maxdx2 = f(src.rmaxPrev(end) * 2);
          for (; k < n; ++k) {
            const dx2 = f(2 * f(f(f(k * mrange) / n) + begin));
            if (dx2 >= maxdx2) break;
            while (i < end && dx2 >= f(src.rmax[i + 1] + src.rmin[i + 1])) ++i;
            if (i === end) break;
            lastidx = this.keepNearer(src, i, dx2, lastidx);
          }
        }
        if (lastidx !== end) {
          this.copyEntry(this.size++, src, end);
          lastidx = end;
        }
        bid = end;
        begin = f(begin + f(src.rminNext(bid) - src.rmaxPrev(bid)));
      }
    }
  }

  /** WQSummary::SetCombine (+ FixError), the arrays held in locals */
  setCombine(sa: Summary, sb: Summary): void {
    if (sa.size === 0) {
      this.copyFrom(sb);
      return;
    }
    if (sb.size === 0) {
      this.copyFrom(sa);
      return;
    }
    this.reserve(sa.size + sb.size);
    const { rmin, rmax, wmin, value } = this;
    const aRmin = sa.rmin;
    const aRmax = sa.rmax;
    const aWmin = sa.wmin;
    const aValue = sa.value;
    const bRmin = sb.rmin;
    const bRmax = sb.rmax;
    const bWmin = sb.wmin;
    const bValue = sb.value;
    const na = sa.size;
    const nb = sb.size;
    let a = 0;
    let b = 0;
    let d = 0;
    let aprev = 0;
    let bprev = 0;
    while (a < na && b < nb) {
      const va = aValue[a];
      const vb = bValue[b];
      if (va === vb) {
        rmin[d] = f(aRmin[a] + bRmin[b]);
        rmax[d] = f(aRmax[a] + bRmax[b]);
        wmin[d] = f(aWmin[a] + bWmin[b]);
        value[d] = va;
        aprev = f(aRmin[a] + aWmin[a]);
        bprev = f(bRmin[b] + bWmin[b]);
        d++;
        a++;
        b++;
      } else if (va < vb) {
        rmin[d] = f(aRmin[a] + bprev);
        rmax[d] = f(aRmax[a] + f(bRmax[b] - bWmin[b]));
        wmin[d] = aWmin[a];
        value[d] = va;
        aprev = f(aRmin[a] + aWmin[a]);
        d++;
        a++;
      } else {
        rmin[d] = f(bRmin[b] + aprev);
        rmax[d] = f(bRmax[b] + f(aRmax[a] - aWmin[a]));
        wmin[d] = bWmin[b];
        value[d] = vb;
        bprev = f(bRmin[b] + bWmin[b]);
        d++;
        b++;
      }
    }
    if (a < na) {
      const brmax = bRmax[nb - 1];
      for (; a < na; a++, d++) {
        rmin[d] = f(aRmin[a] + bprev);
        rmax[d] = f(aRmax[a] + brmax);
        wmin[d] = aWmin[a];
        value[d] = aValue[a];
      }
    }
    if (b < nb) {
      const armax = aRmax[na - 1];
      for (; b < nb; b++, d++) {
        rmin[d] = f(bRmin[b] + aprev);
        rmax[d] = f(bRmax[b] + armax);
        wmin[d] = bWmin[b];
        value[d] = bValue[b];
      }
    }
    this.size = d;
    // FixError
    let prevRmin = 0;
    let prevRmax = 0;
    for (let i = 0; i < d; i++) {
      if (rmin[i] < prevRmin) rmin[i] = prevRmin;
      else prevRmin = rmin[i];
      if (rmax[i] < prevRmax) rmax[i] = prevRmax;
      const next = f(rmin[i] + wmin[i]);
      if (rmax[i] < next) rmax[i] = next;
      prevRmax = rmax[i];
    }
  }
}

/**
 * Indices of values[0..n) in ascending value order, ties by index: a stable LSD radix sort on the
 * floats' order-preserving bit patterns (NaN never reaches here).
 */
export function sortedOrder(values: Float32Array, n: number): Int32Array {
  const bits = new Uint32Array(values.buffer, values.byteOffset, n);
  const keys = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const u = bits[i];
    keys[i] = u & 0x80000000 ? ~u >>> 0 : (u | 0x80000000) >>> 0;
  }
  let idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  let tmp = new Int32Array(n);
  const count = new Int32Array(256);
  for (let shift = 0; shift < 32; shift += 8) {
    count.fill(0);
    for (let i = 0; i < n; i++) count[(keys[idx[i]] >>> shift) & 255]++;
    if (count[(keys[0] >>> shift) & 255] === n) continue; // every key shares this byte
    let sum = 0;
    for (let b = 0; b < 256; b++) {
      const c = count[b];
      count[b] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const j = idx[i];
      tmp[count[(keys[j] >>> shift) & 255]++] = j;
    }
    const t = idx;
    idx = tmp;
    tmp = t;
  }
  return idx;
}

let radixA = new Uint32Array(0);
let radixB = new Uint32Array(0);
/** three digits of the 32-bit key: 11, 11 and 10 bits */
const radixCount = new Int32Array(2048 + 2048 + 1024);
const DIGITS = [
  { shift: 0, mask: 2047, at: 0 },
  { shift: 11, mask: 2047, at: 2048 },
  { shift: 22, mask: 1023, at: 4096 },
];

/**
 * values[0..n) sorted ascending into out (-0 before +0; NaN never reaches here): an LSD radix sort
 * of the floats' order-preserving bit patterns themselves, for when the order of equal values does
 * not matter (they are the same bits).
 */
export function sortValues(values: Float32Array, n: number, out: Float32Array): void {
  if (radixA.length < n) {
    radixA = new Uint32Array(n);
    radixB = new Uint32Array(n);
  }
  let a = radixA;
  let b = radixB;
  const bits = new Uint32Array(values.buffer, values.byteOffset, n);
  const count = radixCount;
  count.fill(0);
  for (let i = 0; i < n; i++) {
    const u = bits[i];
    const k = u & 0x80000000 ? ~u >>> 0 : (u | 0x80000000) >>> 0;
    a[i] = k;
    count[k & 2047]++;
    count[2048 + ((k >>> 11) & 2047)]++;
    count[4096 + (k >>> 22)]++;
  }
  for (const { shift, mask, at } of DIGITS) {
    if (n === 0 || count[at + ((a[0] >>> shift) & mask)] === n) continue; // every key shares this digit
    let sum = 0;
    for (let d = at; d <= at + mask; d++) {
      const c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const k = a[i];
      b[count[at + ((k >>> shift) & mask)]++] = k;
    }
    const t = a;
    a = b;
    b = t;
  }
  const ob = new Uint32Array(out.buffer, out.byteOffset, n);
  for (let i = 0; i < n; i++) {
    const k = a[i];
    ob[i] = k & 0x80000000 ? k & 0x7fffffff : ~k >>> 0;
  }
}

/** QuantileSketchTemplate (WQuantileSketch when !sorted, WXQuantileSketch when sorted). */
export class Sketch {
  limitSize = 0;
  qValue = new Float32Array(1);
  qWeight = new Float32Array(1);
  qtail = 0;
  /** the one weight every queued entry has, NaN once they differ (then a keyed sort is needed) */
  private uniform = Number.NaN;
  temp = new Summary(0);
  level: Summary[] = [];
  /** every level summary this sketch has made, for the next feature's levels */
  private readonly levelPool: Summary[] = [];
  private sortScratch = new Float32Array(0);

  constructor(private readonly sorted: boolean) {}

  init(maxn: number, eps: number): void {
    let nlevel = 1;
    let limit: number;
    for (;;) {
      limit = Math.min(maxn, Math.ceil(nlevel / eps) + 1);
      if (2 ** nlevel * limit >= maxn) break;
      ++nlevel;
    }
    this.limitSize = limit;
    // a sketch used again for another feature keeps its buffers (the queue is sized by resizeQueue)
    this.qtail = 0;
    this.level = [];
  }

  private prune(dst: Summary, src: Summary, maxsize: number): void {
    if (this.sorted) dst.setPruneX(src, maxsize);
    else dst.setPrune(src, maxsize);
  }

  resizeQueue(n: number): void {
    if (n === this.qValue.length) return;
    const v = new Float32Array(n);
    const w = new Float32Array(n);
    v.set(this.qValue.subarray(0, Math.min(n, this.qtail)));
    w.set(this.qWeight.subarray(0, Math.min(n, this.qtail)));
    this.qValue = v;
    this.qWeight = w;
  }

  push(x: number, w: number): void {
    if (w === 0) return;
    if (this.qtail === this.qValue.length && this.qValue[this.qtail - 1] !== x) {
      if (this.qValue.length === 1) {
        this.resizeQueue(this.limitSize * 2);
      } else {
        this.temp.reserve(this.limitSize * 2);
        this.makeSummary(this.temp);
        this.qtail = 0;
        this.pushTemp();
      }
    }
    if (this.qtail === 0) this.uniform = w;
    if (this.qtail === 0 || this.qValue[this.qtail - 1] !== x) {
      if (w !== this.uniform) this.uniform = Number.NaN;
      this.qValue[this.qtail] = x;
      this.qWeight[this.qtail++] = w;
    } else {
      this.uniform = Number.NaN;
      this.qWeight[this.qtail - 1] = f(this.qWeight[this.qtail - 1] + w);
    }
  }

  private makeSummary(out: Summary): void {
    const n = this.qtail;
    out.reserve(n);
    out.size = 0;
    let wsum = 0;
    if (!Number.isNaN(this.uniform)) {
      // every entry weighs the same: the sorted values alone give the summary
      if (this.sortScratch.length < n) this.sortScratch = new Float32Array(n);
      const v = this.sortScratch;
      sortValues(this.qValue, n, v);
      const w0 = this.uniform;
      for (let i = 0; i < n; ) {
        let j = i + 1;
        let w = w0;
        while (j < n && v[j] === v[i]) {
          w = f(w + w0);
          ++j;
        }
        out.set(out.size++, wsum, f(wsum + w), w, v[i]);
        wsum = f(wsum + w);
        i = j;
      }
      return;
    }
    const idx = sortedOrder(this.qValue, n);
    const v = this.qValue;
    for (let i = 0; i < n; ) {
      let j = i + 1;
      let w = this.qWeight[idx[i]];
      while (j < n && v[idx[j]] === v[idx[i]]) {
        w = f(w + this.qWeight[idx[j]]);
        ++j;
      }
      out.set(out.size++, wsum, f(wsum + w), w, v[idx[i]]);
      wsum = f(wsum + w);
      i = j;
    }
  }

  private initLevel(n: number): void {
    while (this.level.length < n) {
      const reused = this.levelPool[this.level.length];
      if (reused) reused.size = 0;
      const s = reused ?? new Summary(this.limitSize);
      if (!reused) this.levelPool.push(s);
      this.level.push(s);
    }
  }

  pushTemp(): void {
    this.temp.reserve(this.limitSize * 2);
    for (let l = 1; ; ++l) {
      this.initLevel(l + 1);
      if (this.level[l].size === 0) {
        this.prune(this.level[l], this.temp, this.limitSize);
        break;
      }
      this.prune(this.level[0], this.temp, this.limitSize);
      this.temp.setCombine(this.level[0], this.level[l]);
      if (this.temp.size > this.limitSize) {
        this.level[l].size = 0;
      } else {
        this.level[l].copyFrom(this.temp);
        break;
      }
    }
  }

  getSummary(out: Summary): void {
    this.makeSummary(out);
    if (this.level.length !== 0) {
      const l0 = this.level[0];
      this.prune(l0, out, this.limitSize);
      for (let l = 1; l < this.level.length; l++) {
        if (this.level[l].size === 0) continue;
        if (l0.size === 0) l0.copyFrom(this.level[l]);
        else {
          out.setCombine(l0, this.level[l]);
          this.prune(l0, out, this.limitSize);
        }
      }
      out.copyFrom(l0);
    } else if (out.size > this.limitSize) {
      const t = new Summary(this.limitSize);
      this.prune(t, out, this.limitSize);
      out.copyFrom(t);
    }
  }
}

// The merge's tails and the sort's negative keys, primed (./prime.ts).
{
  const of = (values: number[], rmin: number[], rmax: number[]) => {
    const s = new Summary(values.length);
    for (let k = 0; k < values.length; k++) s.set(k, rmin[k], rmax[k], 1, values[k]);
    s.size = values.length;
    return s;
  };
  const a = of([1, 2, 4, 5], [3, 0, 4, 1], [0, 9, 1, 2]);
  const b = of([2, 3], [1, 2], [8, 0]);
  const out = new Summary(0);
  // both signs, both zeros, and keys that share a digit (its pass is skipped) or do not
  const mixed = Float32Array.from([3.5, -1.25, 0, -0, 1e-30, -7e12, 2, 2, -2, 65504, 0.1, -0.1]);
  const same = new Float32Array(8).fill(1.5);
  const sorted = new Float32Array(mixed.length);
  primeAtLoad(() => {
    out.setCombine(a, b);
    out.setCombine(b, a);
    sortValues(mixed, mixed.length, sorted);
    sortValues(same, same.length, sorted);
  });
}
