// Decimal text → float32 exactly as xgboost's text parsers compute it: dmlc-core's strtof
// (include/dmlc/strtonum.h, ParseFloat<float>), which xgboost's CSV and libsvm readers call.
//
// It is NOT a correctly rounded strtof: the integer part goes through uint64 → float, the first 19
// fraction digits through (double)digits / (double)10^n → float, and the exponent multiplies by a
// float32 power of ten built from 1e8 and 10 (exponents clipped at 38). So "1.00000005960464477539
// 062501" reads as 1 (a correctly rounded strtof gives 1.0000001), and "1e-46" reads as
// 1.1754942e-38. Parsing in double and rounding once with Math.fround would differ from xgboost on
// such inputs, so this file reproduces dmlc's arithmetic step by step; each float32 operation is a
// double operation then Math.fround, which is exact for + − × ÷ (53 ≥ 2·24 + 2 bits).
//
// Unlike dmlc, which stops at the first character it cannot use and lets the caller skip the rest,
// the cell must be a number and nothing else (blanks around it allowed); anything else returns
// undefined so the reader can report the line.

const fround = Math.fround;
const MAX_SIGNIFICAND = fround(3.402823466);
const MIN_SIGNIFICAND = fround(1.175494351);
const TWO_64 = 1n << 64n;
const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i); // exact doubles

/** static_cast<float>(uint64_t): round to nearest, ties to even. */
function u64ToFloat(v: bigint): number {
  if (v <= BigInt(Number.MAX_SAFE_INTEGER)) return fround(Number(v));
  const bits = v.toString(2).length;
  const shift = BigInt(bits - 24);
  let mant = v >> shift;
  const rest = v - (mant << shift);
  const half = 1n << (shift - 1n);
  if (rest > half || (rest === half && (mant & 1n) === 1n)) mant += 1n;
  return fround(Number(mant) * 2 ** Number(shift));
}

/** static_cast<double>(uint64_t), correctly rounded (Number(bigint) rounds to nearest, ties even). */
function u64ToDouble(v: bigint): number {
  return Number(v);
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isBlank = (c: number): boolean => c === 0x20 || c === 0x09;

function matchWord(buf: Uint8Array, at: number, end: number, word: string): number {
  let i = 0;
  while (i < word.length && at + i < end && (buf[at + i] | 32) === word.charCodeAt(i)) i++;
  return i;
}

/**
 * Parse buf[start, end) as dmlc::strtof would, requiring the whole range (less surrounding
 * blanks) to be one number. Returns undefined for an empty or malformed cell.
 */
export function parseDmlcFloat(buf: Uint8Array, start: number, end: number): number | undefined {
  let p = start;
  while (p < end && isBlank(buf[p])) p++;
  while (end > p && isBlank(buf[end - 1])) end--;
  if (p >= end) return undefined;
  let positive = true;
  if (buf[p] === 0x2d) {
    positive = false;
    p++;
  } else if (buf[p] === 0x2b) p++;

  if (p < end && ((buf[p] | 32) === 0x69 || (buf[p] | 32) === 0x6e)) {
    // 'i' or 'n': inf, infinity, nan (case-insensitive), nothing else
    const inf = matchWord(buf, p, end, 'infinity');
    if ((inf === 3 || inf === 8) && p + inf === end) return positive ? Infinity : -Infinity;
    if (matchWord(buf, p, end, 'nan') === 3 && p + 3 === end) return Number.NaN;
    return undefined;
  }

  // integer part: uint64 arithmetic, wrapping like C
  const intStart = p;
  while (p < end && isDigit(buf[p])) p++;
  const intDigits = p - intStart;
  let value: number;
  if (intDigits <= 15) {
    let n = 0;
    for (let i = intStart; i < p; i++) n = n * 10 + (buf[i] - 0x30);
    value = fround(n);
  } else {
    let n = 0n;
    for (let i = intStart; i < p; i++) n = (n * 10n + BigInt(buf[i] - 0x30)) % TWO_64;
    value = u64ToFloat(n);
  }
  let fracDigits = 0;
  if (p < end && buf[p] === 0x2e) {
    p++;
    const fracStart = p;
    while (p < end && isDigit(buf[p])) p++;
    fracDigits = p - fracStart;
    const used = Math.min(fracDigits, 19); // dmlc ignores digits after the 19th
    let frac: number;
    if (used <= 15) {
      let n = 0;
      for (let i = fracStart; i < fracStart + used; i++) n = n * 10 + (buf[i] - 0x30);
      frac = n / POW10[used];
    } else {
      let n = 0n;
      for (let i = fracStart; i < fracStart + used; i++) n = n * 10n + BigInt(buf[i] - 0x30);
      frac = u64ToDouble(n) / Number(10n ** BigInt(used));
    }
    value = fround(value + fround(frac));
  }
  if (intDigits === 0 && fracDigits === 0) return undefined; // ".", "+", "e5": not a number
  if (p < end && (buf[p] === 0x65 || buf[p] === 0x45)) {
    p++;
    let negative = false;
    if (p < end && buf[p] === 0x2d) {
      negative = true;
      p++;
    } else if (p < end && buf[p] === 0x2b) p++;
    const expStart = p;
    let expon = 0;
    while (p < end && isDigit(buf[p])) {
      if (expon <= 38) expon = expon * 10 + (buf[p] - 0x30);
      p++;
    }
    if (p === expStart) return undefined; // "1e": no exponent digits
    if (expon > 38) expon = 38; // dmlc clips out-of-range exponents
    if (expon === 38) {
      if (!negative && value > MAX_SIGNIFICAND) value = MAX_SIGNIFICAND;
      else if (negative && value < MIN_SIGNIFICAND) value = MIN_SIGNIFICAND;
    }
    let scale = 1;
    while (expon >= 8) {
      scale = fround(scale * 1e8);
      expon -= 8;
    }
    while (expon > 0) {
      scale = fround(scale * 10);
      expon -= 1;
    }
    value = negative ? fround(value / scale) : fround(value * scale);
  }
  if (p !== end) return undefined;
  return positive ? value : -value;
}
