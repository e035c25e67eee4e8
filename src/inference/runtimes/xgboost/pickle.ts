// A deliberately tiny pickle reader that recovers the raw model bytes of a pickled
// `xgboost.core.Booster` and nothing else. It never executes anything: it interprets a small set of
// opcodes over plain values, and the only "callables" it knows are a fixed allow-list that it
// evaluates itself (bytearray(...) and _codecs.encode(str, 'latin1'), as Python pickles bytes and
// bytearrays, plus the Booster class, which only ever becomes an inert placeholder). Any other
// global — os.system, builtins.eval, subprocess.Popen, a sklearn wrapper — is refused with an error
// naming it, before anything else happens.
//
// Booster.__getstate__ (xgboost ≥ 1.0) pickles as: NEWOBJ(xgboost.core.Booster) then BUILD with a
// dict whose 'handle' is a bytearray of XGBoosterSerializeToBuffer(), plus python attributes such
// as best_iteration / best_ntree_limit.

import { fail } from './errors.js';

export interface PickledBooster {
  /** raw serialisation of the booster (the `handle` bytearray) */
  raw: Uint8Array;
  /** integer/float/string python attributes of the Booster (e.g. best_ntree_limit) */
  attributes: Record<string, string | number | boolean | null>;
  protocol: number;
}

/** True when the bytes start like a pickle of protocol 2 or later (what Python 3 writes). */
export function looksLikePickle(b: Uint8Array): boolean {
  return b.length >= 2 && b[0] === 0x80 && b[1] >= 2 && b[1] <= 5;
}

class Global {
  constructor(
    readonly module: string,
    readonly name: string,
  ) {}
}
class BoosterObject {
  state: unknown = undefined;
}
class Mark {}
const MARK = new Mark();

type PValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | PValue[]
  | Map<PValue, PValue>
  | Global
  | BoosterObject
  | PTuple;
class PTuple {
  constructor(readonly items: PValue[]) {}
}

const ALLOWED = new Set(['xgboost.core.Booster', 'builtins.bytearray', '__builtin__.bytearray', '_codecs.encode']);
const MAX_MEMO = 1 << 20;

export function unpickleBooster(b: Uint8Array): PickledBooster {
  if (!looksLikePickle(b)) fail('not a pickle of protocol 2 or later');
  const protocol = b[1];
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const latin1 = new TextDecoder('latin1');
  const utf8 = new TextDecoder('utf-8');
  const stack: (PValue | Mark)[] = [];
  const memo = new Map<number, PValue>();
  let pos = 2;

  const need = (n: number, what: string): void => {
    if (n < 0 || pos + n > b.length) fail(`pickle: truncated ${what} at byte ${pos}`);
  };
  const u8 = (): number => {
    need(1, 'argument');
    return b[pos++];
  };
  const u16 = (): number => {
    need(2, 'argument');
    const v = view.getUint16(pos, true);
    pos += 2;
    return v;
  };
  const u32 = (): number => {
    need(4, 'argument');
    const v = view.getUint32(pos, true);
    pos += 4;
    return v;
  };
  const i32 = (): number => {
    need(4, 'argument');
    const v = view.getInt32(pos, true);
    pos += 4;
    return v;
  };
  const u64 = (): number => {
    need(8, 'argument');
    const v = view.getBigUint64(pos, true);
    pos += 8;
    if (v > BigInt(b.length)) fail(`pickle: declared length ${v} exceeds the data`);
    return Number(v);
  };
  const bytesOf = (n: number, what: string): Uint8Array => {
    need(n, what);
    const out = b.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  const line = (what: string): string => {
    const end = b.indexOf(0x0a, pos);
    if (end < 0 || end - pos > 256) fail(`pickle: unterminated ${what}`);
    const s = latin1.decode(b.subarray(pos, end));
    pos = end + 1;
    return s;
  };
  const pop = (): PValue => {
    const v = stack.pop();
    if (v === undefined || v === MARK) fail('pickle: stack underflow');
    return v as PValue;
  };
  const top = (): PValue => {
    const v = stack[stack.length - 1];
    if (v === undefined || v === MARK) fail('pickle: stack underflow');
    return v as PValue;
  };
  const popMark = (): PValue[] => {
    for (let i = stack.length - 1; i >= 0; i--) {
      if (stack[i] === MARK) {
        const items = stack.splice(i) as PValue[];
        items.shift();
        return items;
      }
    }
    return fail('pickle: MARK not found');
  };
  const global = (module: string, name: string): Global => {
    const full = `${module}.${name}`;
    if (!ALLOWED.has(full)) {
      fail(
        `refusing to load pickle: it references '${full}', and only a pickled xgboost.core.Booster ` +
          '(with its bytearray state) can be loaded; no pickle code is ever executed',
      );
    }
    return new Global(module, name);
  };
  const setItems = (d: PValue, items: PValue[]): void => {
    if (!(d instanceof Map)) fail('pickle: SETITEM(S) on a non-dict');
    if (items.length % 2 !== 0) fail('pickle: odd number of dict items');
    for (let i = 0; i < items.length; i += 2) d.set(items[i], items[i + 1]);
  };
  const call = (fn: PValue, args: PValue): PValue => {
    if (!(fn instanceof Global)) fail('pickle: REDUCE on a value that is not a callable global');
    if (!(args instanceof PTuple)) fail('pickle: REDUCE arguments are not a tuple');
    const a = args.items;
    if (fn.name === 'bytearray') {
      if (a.length === 0) return new Uint8Array(0);
      if (a[0] instanceof Uint8Array && a.length === 1) return a[0];
      if (typeof a[0] === 'string' && (a.length === 1 || typeof a[1] === 'string')) return latin1Bytes(a[0]);
      fail('pickle: unexpected arguments to bytearray()');
    }
    if (fn.name === 'encode') {
      const enc = typeof a[1] === 'string' ? a[1].toLowerCase().replace(/[-_]/g, '') : 'utf8';
      if (typeof a[0] === 'string' && (enc === 'latin1' || enc === 'iso88591')) return latin1Bytes(a[0]);
      fail('pickle: unexpected arguments to _codecs.encode()');
    }
    return fail(`pickle: '${fn.module}.${fn.name}' cannot be called`);
  };

  for (let steps = 0; ; steps++) {
    if (steps > 4 * b.length + 16) fail('pickle: too many operations');
    const op = u8();
    switch (op) {
      case 0x80: // PROTO
        u8();
        break;
      case 0x95: // FRAME
        u64();
        break;
      case 0x2e: {
        // STOP
        const result = pop();
        return finish(result, protocol);
      }
      case 0x28: // MARK
        stack.push(MARK);
        break;
      case 0x4e: // NONE
        stack.push(null);
        break;
      case 0x88: // NEWTRUE
        stack.push(true);
        break;
      case 0x89: // NEWFALSE
        stack.push(false);
        break;
      case 0x4a: // BININT
        stack.push(i32());
        break;
      case 0x4b: // BININT1
        stack.push(u8());
        break;
      case 0x4d: // BININT2
        stack.push(u16());
        break;
      case 0x8a: {
        // LONG1
        const n = u8();
        stack.push(littleEndianSigned(bytesOf(n, 'LONG1')));
        break;
      }
      case 0x47: {
        // BINFLOAT (big-endian double)
        need(8, 'BINFLOAT');
        stack.push(view.getFloat64(pos, false));
        pos += 8;
        break;
      }
      case 0x58: // BINUNICODE
        stack.push(utf8.decode(bytesOf(u32(), 'BINUNICODE')));
        break;
      case 0x8c: // SHORT_BINUNICODE
        stack.push(utf8.decode(bytesOf(u8(), 'SHORT_BINUNICODE')));
        break;
      case 0x8d: // BINUNICODE8
        stack.push(utf8.decode(bytesOf(u64(), 'BINUNICODE8')));
        break;
      case 0x42: // BINBYTES
        stack.push(bytesOf(u32(), 'BINBYTES'));
        break;
      case 0x43: // SHORT_BINBYTES
        stack.push(bytesOf(u8(), 'SHORT_BINBYTES'));
        break;
      case 0x8e: // BINBYTES8
        stack.push(bytesOf(u64(), 'BINBYTES8'));
        break;
      case 0x96: // BYTEARRAY8
        stack.push(bytesOf(u64(), 'BYTEARRAY8'));
        break;
      case 0x55: // SHORT_BINSTRING (py2 str)
        stack.push(latin1.decode(bytesOf(u8(), 'SHORT_BINSTRING')));
        break;
      case 0x54: // BINSTRING
        stack.push(latin1.decode(bytesOf(i32(), 'BINSTRING')));
        break;
      case 0x29: // EMPTY_TUPLE
        stack.push(new PTuple([]));
        break;
      case 0x85: // TUPLE1
        stack.push(new PTuple([pop()]));
        break;
      case 0x86: {
        // TUPLE2
        const y = pop();
        const x = pop();
        stack.push(new PTuple([x, y]));
        break;
      }
      case 0x87: {
        // TUPLE3
        const z = pop();
        const y = pop();
        const x = pop();
        stack.push(new PTuple([x, y, z]));
        break;
      }
      case 0x74: // TUPLE
        stack.push(new PTuple(popMark()));
        break;
      case 0x5d: // EMPTY_LIST
        stack.push([]);
        break;
      case 0x6c: // LIST
        stack.push(popMark());
        break;
      case 0x61: {
        // APPEND
        const v = pop();
        const l = top();
        if (!Array.isArray(l)) fail('pickle: APPEND to a non-list');
        l.push(v);
        break;
      }
      case 0x65: {
        // APPENDS
        const items = popMark();
        const l = top();
        if (!Array.isArray(l)) fail('pickle: APPENDS to a non-list');
        for (const it of items) l.push(it);
        break;
      }
      case 0x7d: // EMPTY_DICT
        stack.push(new Map());
        break;
      case 0x64: {
        // DICT
        const m = new Map<PValue, PValue>();
        setItems(m, popMark());
        stack.push(m);
        break;
      }
      case 0x73: {
        // SETITEM
        const v = pop();
        const k = pop();
        setItems(top(), [k, v]);
        break;
      }
      case 0x75: {
        // SETITEMS
        const items = popMark();
        setItems(top(), items);
        break;
      }
      case 0x94: // MEMOIZE
        if (memo.size >= MAX_MEMO) fail('pickle: memo too large');
        memo.set(memo.size, top());
        break;
      case 0x71: // BINPUT
        memo.set(u8(), top());
        break;
      case 0x72: // LONG_BINPUT
        memo.set(u32(), top());
        break;
      case 0x68: // BINGET
      case 0x6a: {
        // LONG_BINGET
        const k = op === 0x68 ? u8() : u32();
        if (!memo.has(k)) fail(`pickle: memo key ${k} is undefined`);
        stack.push(memo.get(k) as PValue);
        break;
      }
      case 0x63: {
        // GLOBAL "module\nname\n"
        const module = line('GLOBAL module');
        const name = line('GLOBAL name');
        stack.push(global(module, name));
        break;
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = pop();
        const module = pop();
        if (typeof module !== 'string' || typeof name !== 'string') fail('pickle: STACK_GLOBAL needs two strings');
        stack.push(global(module, name));
        break;
      }
      case 0x81: {
        // NEWOBJ cls.__new__(cls, *args)
        const args = pop();
        const cls = pop();
        if (!(cls instanceof Global) || cls.name !== 'Booster') fail('pickle: NEWOBJ of something other than Booster');
        if (!(args instanceof PTuple) || args.items.length !== 0)
          fail('pickle: unexpected Booster constructor arguments');
        stack.push(new BoosterObject());
        break;
      }
      case 0x52: {
        // REDUCE
        const args = pop();
        const fn = pop();
        stack.push(call(fn, args));
        break;
      }
      case 0x62: {
        // BUILD obj.__setstate__(state)
        const state = pop();
        const o = top();
        if (!(o instanceof BoosterObject)) fail('pickle: BUILD on an object other than a Booster');
        o.state = state;
        break;
      }
      case 0x32: // DUP
        stack.push(top());
        break;
      case 0x30: // POP
        if (stack.pop() === undefined) fail('pickle: stack underflow');
        break;
      case 0x31: // POP_MARK
        popMark();
        break;
      default:
        fail(
          `pickle: opcode 0x${op.toString(16).padStart(2, '0')} at byte ${pos - 1} is not allowed in a pickled xgboost Booster`,
        );
    }
    if (stack.length > 1 << 20) fail('pickle: stack too deep');
  }
}

function finish(result: PValue, protocol: number): PickledBooster {
  if (!(result instanceof BoosterObject)) {
    fail('the pickle does not contain an xgboost.core.Booster (SageMaker XGBoost pickles a Booster)');
  }
  const state = result.state;
  if (!(state instanceof Map)) fail('pickled Booster has no state dict');
  const handle = state.get('handle');
  if (!(handle instanceof Uint8Array)) fail("pickled Booster has no 'handle' bytes (was it an unfitted Booster?)");
  const attributes: Record<string, string | number | boolean | null> = {};
  for (const [k, v] of state) {
    if (typeof k !== 'string' || k === 'handle') continue;
    if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' || v === null) attributes[k] = v;
    else if (typeof v === 'bigint') attributes[k] = Number(v);
  }
  return { raw: handle, attributes, protocol };
}

function latin1Bytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 255) fail('pickle: latin1 string has a character above U+00FF');
    out[i] = c;
  }
  return out;
}

function littleEndianSigned(bytes: Uint8Array): number | bigint {
  if (bytes.length === 0) return 0;
  if (bytes.length > 64) fail('pickle: integer too large');
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]);
  if (bytes[bytes.length - 1] & 0x80) v -= 1n << BigInt(8 * bytes.length);
  if (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
  return v;
}
