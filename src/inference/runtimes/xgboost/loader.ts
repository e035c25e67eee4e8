// Format detection, as the SageMaker XGBoost container and xgboost itself do it:
//   * the container tries pickle.load first (containers 1.0-1 and 1.2-x write a pickled Booster),
//     then Booster.load_model (1.3-1 and later write save_model() output with no extension);
//   * xgboost's LoadModel looks at the content: '{' then '"' is JSON, '{' then a letter is UBJSON,
//     anything else is the legacy binary format (optionally prefixed by "binf");
//   * a pickled Booster's state holds XGBoosterSerializeToBuffer() output: "CONFIG-offset:" +
//     binary model + JSON config (xgboost 1.0 - 1.4), a JSON memory snapshot (1.5) or a UBJSON
//     memory snapshot (≥ 1.6), {"Model": ..., "Config": ...}.

import { specFromBinary } from './binary-model.js';
import { fail, XGBoostModelError } from './errors.js';
import { specFromJson } from './json-model.js';
import { type ModelSpec, XGBoostModel } from './model.js';
import { looksLikePickle, unpickleBooster } from './pickle.js';
import { type JsonValue, parseUBJSON } from './ubjson.js';

export type ModelFormat = 'pickle' | 'json' | 'ubjson' | 'binary' | 'config-offset';

export interface LoadOptions {
  /** refuse inputs larger than this many bytes (default 1 GiB) */
  maxBytes?: number;
}

const CONFIG_OFFSET = 'CONFIG-offset:';

/** Which format the bytes are in, judged from content only. */
export function detectModelFormat(bytes: Uint8Array): ModelFormat {
  if (looksLikePickle(bytes)) return 'pickle';
  if (startsWith(bytes, CONFIG_OFFSET)) return 'config-offset';
  const start = bytes.length >= 4 && startsWith(bytes, 'binf') ? 4 : 0;
  if (bytes[start] === 0x7b) {
    let i = start + 1;
    while (i < bytes.length && isSpace(bytes[i])) i++;
    if (bytes[i] === 0x22 || bytes[i] === 0x7d) return 'json';
    if ((bytes[i] >= 0x41 && bytes[i] <= 0x5a) || (bytes[i] >= 0x61 && bytes[i] <= 0x7a)) return 'ubjson';
    return 'json';
  }
  // JSON may start with whitespace when written by hand
  let i = 0;
  while (i < bytes.length && isSpace(bytes[i])) i++;
  if (i > 0 && bytes[i] === 0x7b) return 'json';
  return 'binary';
}

/**
 * Load an `xgboost-model` file in any format SageMaker XGBoost containers write (pickle, JSON,
 * UBJSON, legacy binary). Throws XGBoostModelError with a clear message on anything else.
 */
export function loadXGBoostModel(bytes: Uint8Array, options?: LoadOptions): XGBoostModel {
  const max = options?.maxBytes ?? 1 << 30;
  if (!(bytes instanceof Uint8Array)) throw new XGBoostModelError('model bytes must be a Uint8Array');
  if (bytes.length === 0) fail('model file is empty');
  if (bytes.length > max) fail(`model file is ${bytes.length} bytes, more than the ${max} allowed`);
  try {
    return new XGBoostModel(readSpec(bytes));
  } catch (e) {
    if (e instanceof XGBoostModelError) throw e;
    // Anything else (RangeError from a typed array, stack overflow, ...) is still a bad model file.
    throw new XGBoostModelError(`invalid xgboost model: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Parse into the intermediate spec (exported for tests and tools). */
export function readSpec(bytes: Uint8Array): ModelSpec {
  const format = detectModelFormat(bytes);
  if (format === 'pickle') {
    const p = unpickleBooster(bytes);
    if (p.raw.length === 0) fail('pickled Booster has an empty handle');
    const spec = readRaw(p.raw, `pickle(protocol ${p.protocol})`, true);
    const limit = p.attributes.best_ntree_limit;
    if (typeof limit === 'number' && Number.isInteger(limit) && limit > 0) spec.bestNTreeLimit = limit;
    return spec;
  }
  return readRaw(bytes, '', false);
}

function readRaw(bytes: Uint8Array, prefix: string, fromPickle: boolean): ModelSpec {
  const format = detectModelFormat(bytes);
  const label = (f: string): string => (prefix ? `${prefix}/${f}` : f);
  switch (format) {
    case 'pickle':
      return fail('a pickle nested in a pickle is not an xgboost model');
    case 'config-offset': {
      const at = CONFIG_OFFSET.length;
      if (bytes.length < at + 8) fail('serialised booster: truncated CONFIG-offset header');
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const off = view.getBigInt64(at, true);
      const body = bytes.subarray(at + 8);
      if (off <= 0n || off > BigInt(body.length)) {
        fail(`serialised booster: model length ${off} is outside the ${body.length} bytes that follow`);
      }
      return specFromBinary(body.subarray(0, Number(off)), label('config-offset'));
    }
    case 'json': {
      return specFromJson(parseXGBoostJson(bytes), label('json'));
    }
    case 'ubjson':
      return specFromJson(parseUBJSON(bytes), label('ubjson'));
    default:
      if (fromPickle || bytes.length >= 4) return specFromBinary(bytes, label('binary'));
      return fail('model file is too short to be an xgboost model');
  }
}

/**
 * JSON.parse, plus the non-standard literals xgboost's writer emits for non-finite floats (NaN,
 * Infinity, -Infinity; e.g. split_conditions of categorical nodes), rewritten outside strings only.
 */
export function parseXGBoostJson(bytes: Uint8Array): JsonValue {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  try {
    return JSON.parse(text) as JsonValue;
  } catch (first) {
    const fixed = rewriteNonFinite(text);
    if (fixed === text) return fail(`JSON model does not parse: ${(first as Error).message}`);
    try {
      return JSON.parse(fixed) as JsonValue;
    } catch (e) {
      return fail(`JSON model does not parse: ${(e as Error).message}`);
    }
  }
}

const NON_FINITE: [string, string][] = [
  ['-Infinity', '-1e999'],
  ['Infinity', '1e999'],
  ['-NaN', 'null'],
  ['NaN', 'null'],
  ['-inf', '-1e999'],
  ['inf', '1e999'],
  ['-nan', 'null'],
  ['nan', 'null'],
];

function rewriteNonFinite(text: string): string {
  const out: string[] = [];
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    if (c === 0x4e || c === 0x49 || c === 0x2d || c === 0x69 || c === 0x6e) {
      for (const [lit, rep] of NON_FINITE) {
        if (text.startsWith(lit, i)) {
          out.push(text.slice(last, i), rep);
          i += lit.length - 1;
          last = i + 1;
          break;
        }
      }
    }
  }
  if (last === 0) return text;
  out.push(text.slice(last));
  return out.join('');
}

function startsWith(b: Uint8Array, s: string): boolean {
  if (b.length < s.length) return false;
  for (let i = 0; i < s.length; i++) if (b[i] !== s.charCodeAt(i)) return false;
  return true;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
