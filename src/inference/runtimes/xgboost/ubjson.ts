// A bounded UBJSON reader for the subset xgboost writes (and a little more): objects whose keys are
// length-prefixed strings, arrays (plain, counted with `#`, or typed with `$type#count`), strings,
// integers of every width, float32/float64, booleans and null. Numbers are big-endian.
//
// Every declared length is checked against the bytes that remain before anything is allocated, so a
// 10 GB declared array in a 100-byte file is an error, not an allocation. Nesting depth is capped.

import { fail } from './errors.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | TypedNumbers | JsonObject;
export type TypedNumbers = Float32Array | Float64Array | Int8Array | Uint8Array | Int16Array | Int32Array;
export interface JsonObject {
  [key: string]: JsonValue;
}

const MAX_DEPTH = 128;
const utf8 = new TextDecoder('utf-8');

export function parseUBJSON(bytes: Uint8Array): JsonValue {
  const r = new UBJReader(bytes);
  const v = r.value(0);
  return v;
}

class UBJReader {
  private pos = 0;
  private readonly view: DataView;
  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  private need(n: number, what: string): void {
    if (!(n >= 0) || this.pos + n > this.buf.length) {
      fail(
        `UBJSON: truncated or corrupt ${what} at byte ${this.pos} (needs ${n} bytes, ${this.buf.length - this.pos} left)`,
      );
    }
  }

  private byte(what: string): number {
    this.need(1, what);
    return this.buf[this.pos++];
  }

  private peek(): number {
    if (this.pos >= this.buf.length) fail(`UBJSON: unexpected end of data at byte ${this.pos}`);
    return this.buf[this.pos];
  }

  private intOfType(marker: number, what: string): number {
    const v = this.view;
    let x: number;
    switch (marker) {
      case 0x69: // i int8
        this.need(1, what);
        x = v.getInt8(this.pos);
        this.pos += 1;
        return x;
      case 0x55: // U uint8
        this.need(1, what);
        x = v.getUint8(this.pos);
        this.pos += 1;
        return x;
      case 0x49: // I int16
        this.need(2, what);
        x = v.getInt16(this.pos, false);
        this.pos += 2;
        return x;
      case 0x6c: // l int32
        this.need(4, what);
        x = v.getInt32(this.pos, false);
        this.pos += 4;
        return x;
      case 0x4c: {
        // L int64
        this.need(8, what);
        const big = v.getBigInt64(this.pos, false);
        this.pos += 8;
        if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < BigInt(Number.MIN_SAFE_INTEGER)) {
          fail(`UBJSON: ${what} ${big} is out of range`);
        }
        return Number(big);
      }
      default:
        return fail(`UBJSON: expected an integer type for ${what}, found ${describe(marker)} at byte ${this.pos - 1}`);
    }
  }

  private length(what: string): number {
    const n = this.intOfType(this.byte(what), what);
    if (n < 0) fail(`UBJSON: negative ${what} ${n}`);
    return n;
  }

  private str(what: string): string {
    const n = this.length(`${what} length`);
    this.need(n, what);
    const s = utf8.decode(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }

  value(depth: number): JsonValue {
    const m = this.byte('value marker');
    return this.valueOf(m, depth);
  }

  private valueOf(m: number, depth: number): JsonValue {
    const v = this.view;
    switch (m) {
      case 0x7b: // {
        return this.object(depth + 1);
      case 0x5b: // [
        return this.array(depth + 1);
      case 0x5a: // Z
        return null;
      case 0x54: // T
        return true;
      case 0x46: // F
        return false;
      case 0x64: {
        // d float32
        this.need(4, 'float32');
        const x = v.getFloat32(this.pos, false);
        this.pos += 4;
        return x;
      }
      case 0x44: {
        // D float64
        this.need(8, 'float64');
        const x = v.getFloat64(this.pos, false);
        this.pos += 8;
        return x;
      }
      case 0x53: // S
        return this.str('string');
      case 0x43: // C char
        return String.fromCharCode(this.byte('char'));
      case 0x69:
      case 0x55:
      case 0x49:
      case 0x6c:
      case 0x4c:
        return this.intOfType(m, 'integer');
      case 0x4e: // N no-op: only valid inside containers; treat as null here
        return null;
      case 0x48: // H high precision number (a numeric string)
        return Number(this.str('high-precision number'));
      default:
        return fail(`UBJSON: unknown value marker ${describe(m)} at byte ${this.pos - 1}`);
    }
  }

  private object(depth: number): JsonObject {
    if (depth > MAX_DEPTH) fail('UBJSON: nesting too deep');
    const out: JsonObject = Object.create(null);
    let type = -1;
    let count = -1;
    if (this.peek() === 0x24) {
      this.pos++;
      type = this.byte('object type');
      if (this.byte('object count marker') !== 0x23) fail('UBJSON: typed object without a count');
      count = this.length('object count');
    } else if (this.peek() === 0x23) {
      this.pos++;
      count = this.length('object count');
    }
    if (count >= 0) {
      // each entry needs at least a key length byte (and a value byte unless typed)
      if (count > this.buf.length - this.pos)
        fail(`UBJSON: object declares ${count} entries, more than the data can hold`);
      for (let i = 0; i < count; i++) {
        const k = this.str('key');
        out[k] = type >= 0 ? this.valueOf(type, depth) : this.value(depth);
      }
      return out;
    }
    for (;;) {
      const c = this.peek();
      if (c === 0x7d) {
        this.pos++;
        return out;
      }
      if (c === 0x4e) {
        this.pos++;
        continue;
      }
      const k = this.str('key');
      out[k] = this.value(depth);
    }
  }

  private array(depth: number): JsonValue[] | TypedNumbers {
    if (depth > MAX_DEPTH) fail('UBJSON: nesting too deep');
    if (this.peek() === 0x24) {
      this.pos++;
      const type = this.byte('array type');
      if (this.byte('array count marker') !== 0x23) fail('UBJSON: typed array without a count');
      const n = this.length('array count');
      return this.typed(type, n, depth);
    }
    if (this.peek() === 0x23) {
      this.pos++;
      const n = this.length('array count');
      if (n > this.buf.length - this.pos) fail(`UBJSON: array declares ${n} elements, more than the data can hold`);
      const out: JsonValue[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = this.value(depth);
      return out;
    }
    const out: JsonValue[] = [];
    for (;;) {
      const c = this.peek();
      if (c === 0x5d) {
        this.pos++;
        return out;
      }
      if (c === 0x4e) {
        this.pos++;
        continue;
      }
      out.push(this.value(depth));
    }
  }

  private typed(type: number, n: number, depth: number): JsonValue[] | TypedNumbers {
    const size = TYPED_SIZES[type];
    if (size === undefined) {
      // typed container of non-numeric values: each still needs at least zero bytes (T/F/Z) so cap count
      if (type === 0x54 || type === 0x46 || type === 0x5a) {
        // no payload bytes per element: cap by the input size so memory stays proportional to it
        if (n > this.buf.length) fail(`UBJSON: array of ${n} constants is too large`);
        return new Array(n).fill(type === 0x5a ? null : type === 0x54);
      }
      if (type === 0x53 || type === 0x5b || type === 0x7b) {
        if (n > this.buf.length - this.pos) fail(`UBJSON: array declares ${n} elements, more than the data can hold`);
        const out: JsonValue[] = new Array(n);
        for (let i = 0; i < n; i++) out[i] = this.valueOf(type, depth);
        return out;
      }
      return fail(`UBJSON: unsupported typed array element ${describe(type)}`);
    }
    this.need(n * size, `typed array of ${n} elements`);
    const v = this.view;
    let p = this.pos;
    let out: TypedNumbers;
    switch (type) {
      case 0x64: {
        const a = new Float32Array(n);
        for (let i = 0; i < n; i++, p += 4) a[i] = v.getFloat32(p, false);
        out = a;
        break;
      }
      case 0x44: {
        const a = new Float64Array(n);
        for (let i = 0; i < n; i++, p += 8) a[i] = v.getFloat64(p, false);
        out = a;
        break;
      }
      case 0x55:
        out = this.buf.slice(p, p + n);
        break;
      case 0x69: {
        const a = new Int8Array(n);
        for (let i = 0; i < n; i++, p += 1) a[i] = v.getInt8(p);
        out = a;
        break;
      }
      case 0x49: {
        const a = new Int16Array(n);
        for (let i = 0; i < n; i++, p += 2) a[i] = v.getInt16(p, false);
        out = a;
        break;
      }
      case 0x6c: {
        const a = new Int32Array(n);
        for (let i = 0; i < n; i++, p += 4) a[i] = v.getInt32(p, false);
        out = a;
        break;
      }
      default: {
        // 0x4c int64: keep as float64 numbers (exact below 2^53, which covers every index xgboost writes)
        const a = new Float64Array(n);
        for (let i = 0; i < n; i++, p += 8) a[i] = Number(v.getBigInt64(p, false));
        out = a;
        break;
      }
    }
    this.pos += n * size;
    return out;
  }
}

const TYPED_SIZES: Record<number, number> = {
  100: 4, // d
  68: 8, // D
  85: 1, // U
  105: 1, // i
  73: 2, // I
  108: 4, // l
  76: 8, // L
};

function describe(m: number): string {
  return m >= 0x20 && m < 0x7f ? `'${String.fromCharCode(m)}'` : `0x${m.toString(16).padStart(2, '0')}`;
}
