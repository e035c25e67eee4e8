// Request and response formats of the SageMaker XGBoost serving container (algorithm mode,
// sagemaker_xgboost_container/algorithm_mode/serve.py and serve_utils.py), by container version.
//
// Requests: text/csv (one row per line, empty cells are missing, optional label_size=1 parameter),
// text/libsvm | text/x-libsvm (1-based indices unless an index 0 appears; absent = missing).
// No container version decodes application/json requests in algorithm mode: they are refused with
// the container's 415 message. A missing Content-Type is read as libsvm, as the container does.
//
// Responses:
//   1.0-1, 1.2-x (and the older 0.90 / 0.72 images): predictions joined with ',' and no trailing
//     newline, always text/csv (multi-class rows print as Python lists: "[0.1, 0.9],[0.8, 0.2]").
//   1.3-1 and later: Accept text/csv (default, also for */* or none) → one prediction per line,
//     newline-terminated, multi-class rows comma-separated; Accept application/json →
//     {"predictions": [{"score": ...}, ...]}; any other Accept → 406.
//   Batch transform (SAGEMAKER_BATCH) in every version: one prediction per line + final newline.
// Numbers print as Python prints a float (repr): 0.30000001192092896, 1e-05, 2.0, nan.

import { decodeCsvBytes, SCRATCH_MAX_BYTES, type Scratch } from './csv-bytes.js';
import { XGBoostServingError } from './errors.js';
import type { XGBoostModel } from './model.js';

export interface ContainerVersion {
  major: number;
  minor: number;
  /** the "-N" build after the version (1.0-1 → 1), 0 when absent */
  build: number;
  /** repository name: 'sagemaker-xgboost' or the older 'xgboost' */
  repository: string;
  tag: string;
}

export type ResponseStyle = 'comma' | 'lines';

const KNOWN_REPOSITORIES = new Set(['sagemaker-xgboost', 'xgboost']);

/**
 * Parse an XGBoost image URI, e.g. `123456789012.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3`.
 * Returns undefined when the image is not an XGBoost algorithm image. The first-generation
 * `xgboost:1` / `xgboost:latest` images (XGBoost 0.72) parse as 0.72.
 */
export function parseContainerVersion(image: string): ContainerVersion | undefined {
  if (typeof image !== 'string') return undefined;
  const at = image.indexOf('@');
  const ref = at >= 0 ? image.slice(0, at) : image;
  const slash = ref.lastIndexOf('/');
  const last = ref.slice(slash + 1);
  const colon = last.indexOf(':');
  const repository = (colon >= 0 ? last.slice(0, colon) : last).toLowerCase();
  if (!KNOWN_REPOSITORIES.has(repository)) return undefined;
  const tag = colon >= 0 ? last.slice(colon + 1) : 'latest';
  const m = /^(\d+)\.(\d+)(?:\.\d+)?(?:-(\d+))?(?:-|$)/.exec(tag);
  if (m) return { major: Number(m[1]), minor: Number(m[2]), build: m[3] ? Number(m[3]) : 0, repository, tag };
  if (repository === 'xgboost' && (tag === 'latest' || /^\d+$/.test(tag))) {
    return { major: 0, minor: 72, build: 0, repository, tag };
  }
  return undefined;
}

/** 1.3-1 and later print one prediction per line and can answer JSON; earlier ones join with ','. */
export function responseStyle(version: ContainerVersion): ResponseStyle {
  return version.major > 1 || (version.major === 1 && version.minor >= 3) ? 'lines' : 'comma';
}

export interface DecodedRequest {
  /** row-major, numFeatures values per row, NaN = missing */
  rows: Float32Array;
  nRows: number;
  format: 'csv' | 'libsvm';
}

const VALID_CONTENT_TYPES =
  'csv, libsvm, parquet, recordio-protobuf, text/csv, text/libsvm, text/x-libsvm, application/x-parquet, application/x-recordio-protobuf';

interface MediaType {
  type: string;
  params: Record<string, string>;
}

/** cgi.parse_header, lower-cased. */
export function parseMediaType(value: string): MediaType {
  const parts = value.split(';');
  const type = parts[0].trim().toLowerCase();
  const params: Record<string, string> = {};
  for (const p of parts.slice(1)) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    let v = p.slice(eq + 1).trim();
    if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    params[k] = v.toLowerCase();
  }
  return { type, params };
}

function requestFormat(contentType: string | undefined): 'csv' | 'libsvm' {
  if (contentType === undefined || contentType === null || contentType === '') return 'libsvm';
  const { type, params } = parseMediaType(contentType);
  if (type === 'text/csv' || type === 'csv') {
    if (params.label_size !== undefined && params.label_size !== '1') {
      throw new XGBoostServingError(
        415,
        `${contentType} is not an accepted csv ContentType. Optional parameter label_size must be equal to 1`,
      );
    }
    return 'csv';
  }
  if (type === 'text/libsvm' || type === 'text/x-libsvm' || type === 'libsvm') return 'libsvm';
  if (
    type === 'parquet' ||
    type === 'application/x-parquet' ||
    type === 'recordio-protobuf' ||
    type === 'application/x-recordio-protobuf'
  ) {
    throw new XGBoostServingError(415, `Content-type ${contentType} is not supported.`);
  }
  throw new XGBoostServingError(415, `${contentType} is not an accepted ContentType: ${VALID_CONTENT_TYPES}.`);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Python bytes.strip(): ASCII whitespace at both ends. */
function strip(s: string): string {
  return s.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, '');
}

const FLOAT_RE = /^[+-]?(?:\d+(?:_\d+)*\.?(?:\d+(?:_\d+)*)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?$/;

/** Python float(str), as numpy's astype(float) applies it. Returns undefined when invalid. */
export function parsePythonFloat(cell: string): number | undefined {
  // Fast path for plain decimals ([-]digits[.digits]), which Number() reads exactly as float() does;
  // anything else (or anything Number() refuses) takes the full grammar below.
  if (plainDecimal(cell)) {
    const n = Number(cell);
    if (!Number.isNaN(n)) return n;
  }
  const s = cell.trim();
  if (FLOAT_RE.test(s)) return Number(s.includes('_') ? s.replace(/_/g, '') : s);
  switch (s.toLowerCase()) {
    case 'nan':
    case '+nan':
    case '-nan':
      return Number.NaN;
    case 'inf':
    case '+inf':
    case 'infinity':
    case '+infinity':
      return Number.POSITIVE_INFINITY;
    case '-inf':
    case '-infinity':
      return Number.NEGATIVE_INFINITY;
    default:
      return undefined;
  }
}

/** Only digits, '.', and a leading '-': no spaces, exponents, hex, underscores or words. */
function plainDecimal(s: string): boolean {
  const n = s.length;
  if (n === 0 || n > 32) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || c === 46 || (c === 45 && i === 0))) return false;
  }
  return true;
}

function pyStrRepr(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function featureSizeError(kind: string, y: number, x: number): XGBoostServingError {
  return new XGBoostServingError(
    400,
    `Unable to evaluate payload provided: Feature size of ${kind} inference data ${y} is not consistent with feature size of trained model ${x}.`,
  );
}

/**
 * Decode an invocation body into rows of `numFeatures` values. Throws XGBoostServingError (415 for
 * an unsupported or unparsable body, 400 for a feature count that does not fit the model).
 * An empty body should be answered 204 before calling this (see `invokeXGBoost`).
 */
export function decodeRequest(
  body: Uint8Array,
  contentType: string | undefined,
  _version: ContainerVersion | undefined,
  numFeatures: number,
  scratch?: Scratch,
): DecodedRequest {
  const format = requestFormat(contentType);
  if (format === 'csv') {
    // Plain numeric CSV straight from the bytes (same values); anything else takes the text route.
    const fast = decodeCsvBytes(body, numFeatures, scratch);
    if (fast) return { rows: fast.rows, nRows: fast.nRows, format };
  }
  let text: string;
  try {
    text = strip(utf8.decode(body));
  } catch {
    throw new XGBoostServingError(
      415,
      `Loading ${format} data failed with Exception, please ensure data is in ${format} format:\n <class 'UnicodeDecodeError'>\n 'utf-8' codec can't decode the payload`,
    );
  }
  return format === 'csv' ? decodeCsvText(text, numFeatures) : decodeLibsvm(text, numFeatures);
}

function csvFail(detail: string): never {
  throw new XGBoostServingError(
    415,
    `Loading csv data failed with Exception, please ensure data is in csv format:\n <class 'ValueError'>\n ${detail}`,
  );
}

function sniffDelimiter(firstLine: string): string {
  if (firstLine.includes(',')) return ',';
  for (const d of ['\t', ';', '|', ' ']) if (firstLine.includes(d)) return d;
  return ',';
}

/** The text route of a CSV body (after UTF-8 decoding and strip()); exported for tests. */
export function decodeCsvText(text: string, nf: number): DecodedRequest {
  if (text.length === 0) csvFail('could not determine delimiter');
  const lines = text.split('\n');
  const delim = sniffDelimiter(lines[0].slice(0, 512));
  const nRows = lines.length;
  const firstCols = lines[0].split(delim).length;
  // The container accepts rows of num_feature columns, or one fewer (the last feature missing).
  if (firstCols !== nf && firstCols + 1 !== nf) throw featureSizeError('csv', firstCols, nf);
  const rows = new Float32Array(nRows * nf);
  for (let r = 0; r < nRows; r++) {
    const cells = lines[r].split(delim);
    if (cells.length !== firstCols) {
      throw new XGBoostServingError(
        400,
        `Unable to evaluate payload provided: row ${r + 1} has ${cells.length} columns but row 1 has ${firstCols}; every row needs the model's ${nf} features.`,
      );
    }
    const o = r * nf;
    for (let c = 0; c < firstCols; c++) {
      const cell = cells[c];
      if (cell === '' || cell === '\r') {
        rows[o + c] = Number.NaN;
        continue;
      }
      const v = parsePythonFloat(cell);
      if (v === undefined) csvFail(`could not convert string to float: ${pyStrRepr(cell)}`);
      rows[o + c] = v;
    }
    for (let c = firstCols; c < nf; c++) rows[o + c] = Number.NaN;
  }
  return { rows, nRows, format: 'csv' };
}

function libsvmFail(detail: string): never {
  throw new XGBoostServingError(
    415,
    `Loading libsvm data failed with Exception, please ensure data is in libsvm format:\n <class 'ValueError'>\n ${detail}`,
  );
}

function decodeLibsvm(text: string, nf: number): DecodedRequest {
  const lines = text.length === 0 ? [] : text.split('\n');
  const nRows = lines.length;
  const idx: number[] = [];
  const val: number[] = [];
  const rowOf: number[] = [];
  let minCol = Number.POSITIVE_INFINITY;
  let maxCol = -1;
  for (let r = 0; r < nRows; r++) {
    for (const item of lines[r].split(/[ \t\r]+/)) {
      const colon = item.indexOf(':');
      if (colon < 0) continue; // the label, or empty
      const is = item.slice(0, colon);
      const vs = item.slice(colon + 1);
      if (!/^[+-]?\d+$/.test(is.trim())) libsvmFail(`invalid literal for int() with base 10: ${pyStrRepr(is)}`);
      const col = Number(is);
      if (col < 0) libsvmFail(`negative column index ${col}`);
      const v = parsePythonFloat(vs);
      if (v === undefined) libsvmFail(`could not convert string to float: ${pyStrRepr(vs)}`);
      if (col < minCol) minCol = col;
      if (col > maxCol) maxCol = col;
      idx.push(col);
      val.push(v);
      rowOf.push(r);
    }
  }
  // Indices are 1-based unless an index 0 appears anywhere in the payload.
  const shift = idx.length > 0 && minCol >= 1 ? 1 : 0;
  const width = maxCol - shift + 1;
  if (width > nf) {
    throw new XGBoostServingError(
      400,
      `Unable to evaluate payload provided: Feature size of libsvm inference data ${width} is larger than feature size of trained model ${nf}.`,
    );
  }
  const rows = new Float32Array(nRows * nf).fill(Number.NaN);
  for (let k = 0; k < idx.length; k++) {
    const at = rowOf[k] * nf + idx[k] - shift;
    const prev = rows[at];
    rows[at] = Number.isNaN(prev) ? val[k] : prev + val[k]; // scipy sums duplicate entries
  }
  return { rows, nRows, format: 'libsvm' };
}

/** Python's repr() of a float. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Number.POSITIVE_INFINITY) return 'inf';
  if (x === Number.NEGATIVE_INFINITY) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // Both languages print the shortest round-trip digits; in [1e-4, 1e16) both use positional
  // notation, and Python adds ".0" to an integral value.
  const a = Math.abs(x);
  if (a >= 1e-4 && a < 1e16) {
    const t = String(x);
    return t.includes('.') ? t : `${t}.0`;
  }
  const sign = x < 0 ? '-' : '';
  const e = Math.abs(x).toExponential(); // shortest round-trip digits
  const ePos = e.indexOf('e');
  const digits = e.slice(0, ePos).replace('.', '');
  const exp = Number(e.slice(ePos + 1));
  if (exp < -4 || exp >= 16) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const ae = Math.abs(exp);
    return `${sign}${mant}e${exp < 0 ? '-' : '+'}${ae < 10 ? '0' : ''}${ae}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** json.dumps of a float. */
function pyJsonFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Number.POSITIVE_INFINITY) return 'Infinity';
  if (x === Number.NEGATIVE_INFINITY) return '-Infinity';
  return pyFloatRepr(x);
}

export interface EncodeOptions {
  /** values per prediction (num_class for multi:softprob, else 1) */
  outputsPerRow?: number;
  /** batch transform (the container's SAGEMAKER_BATCH): one prediction per line */
  batch?: boolean;
}

export interface EncodedResponse {
  body: string;
  contentType: string;
}

const SUPPORTED_ACCEPTS = ['application/json', 'application/jsonlines', 'application/x-recordio-protobuf', 'text/csv'];

/** Resolve the Accept header as the 1.3+ container does; throws 406 for an unsupported type. */
export function resolveAccept(accept: string | undefined, defaultAccept = 'text/csv'): string {
  const { type } = parseMediaType(accept ?? '');
  if (type === '' || type === '*/*') return defaultAccept;
  if (!SUPPORTED_ACCEPTS.includes(type)) {
    throw new XGBoostServingError(
      406,
      `Accept type ${type} is not supported. Please use supported accept types: ['${SUPPORTED_ACCEPTS.join("', '")}'].`,
    );
  }
  if (type !== 'text/csv' && type !== 'application/json') {
    throw new XGBoostServingError(
      406,
      `Accept type ${type} is not supported by this XGBoost runtime; use text/csv or application/json.`,
    );
  }
  return type;
}

/**
 * Encode predictions as the container version answers them. For multi-output predictions pass
 * `outputsPerRow` (predictions is then row-major).
 */
export function encodeResponse(
  predictions: ArrayLike<number>,
  accept: string | undefined,
  version: ContainerVersion,
  options?: EncodeOptions,
): EncodedResponse {
  const k = options?.outputsPerRow ?? 1;
  const n = k > 0 ? Math.floor(predictions.length / k) : 0;
  const row = (r: number, sep: string, fmt: (x: number) => string): string => {
    if (k === 1) return fmt(predictions[r]);
    const parts: string[] = new Array(k);
    for (let j = 0; j < k; j++) parts[j] = fmt(predictions[r * k + j]);
    return parts.join(sep);
  };
  const pyItem = (r: number): string => (k === 1 ? pyFloatRepr(predictions[r]) : `[${row(r, ', ', pyFloatRepr)}]`);
  const style = responseStyle(version);
  const mime = style === 'comma' ? 'text/csv' : resolveAccept(accept);
  if (options?.batch) {
    const lines: string[] = new Array(n);
    for (let r = 0; r < n; r++) lines[r] = pyItem(r);
    return { body: `${lines.join('\n')}\n`, contentType: mime };
  }
  if (style === 'comma') {
    const items: string[] = new Array(n);
    for (let r = 0; r < n; r++) items[r] = pyItem(r);
    return { body: items.join(','), contentType: 'text/csv' };
  }
  if (mime === 'application/json') {
    const items: string[] = new Array(n);
    for (let r = 0; r < n; r++)
      items[r] = `{"score": ${k === 1 ? pyJsonFloat(predictions[r]) : `[${row(r, ', ', pyJsonFloat)}]`}}`;
    return { body: `{"predictions": [${items.join(', ')}]}`, contentType: 'application/json' };
  }
  let out = '';
  for (let r = 0; r < n; r++) out += `${row(r, ',', pyFloatRepr)}\n`;
  return { body: out, contentType: 'text/csv' };
}

export interface InvocationRequest {
  body: Uint8Array;
  contentType?: string;
  accept?: string;
  /** batch transform semantics (the container's SAGEMAKER_BATCH) */
  batch?: boolean;
}

export interface InvocationResponse {
  /** 200 with a body, or 204 for an empty request */
  status: 200 | 204;
  body: string;
  contentType: string;
}

/**
 * One InvokeEndpoint call against a loaded model, end to end: decode, predict (honouring the
 * model's best_ntree_limit as the container does), encode. Throws XGBoostServingError carrying
 * the container's status (400, 406, 415) and message.
 */
export function invokeXGBoost(
  model: XGBoostModel,
  version: ContainerVersion,
  req: InvocationRequest,
): InvocationResponse {
  if (req.body.length === 0) return { status: 204, body: '', contentType: 'text/csv' };
  const { preds, k } = predictRequest(model, version, req);
  const enc = encodeResponse(preds, req.accept, version, { outputsPerRow: k, batch: req.batch });
  return { status: 200, body: enc.body, contentType: enc.contentType };
}

export interface InvocationBytes {
  status: 200 | 204;
  body: Uint8Array;
  contentType: string;
}

const EMPTY = new Uint8Array(0);
const utf8Encoder = new TextEncoder();

/**
 * `invokeXGBoost` answering bytes (what a worker thread hands back): the same body, UTF-8 encoded;
 * a batch transform answer of one value a row is written straight into bytes (`encodeLines`).
 */
export function invokeXGBoostBytes(
  model: XGBoostModel,
  version: ContainerVersion,
  req: InvocationRequest,
  scratch?: Scratch,
): InvocationBytes {
  if (req.body.length === 0) return { status: 204, body: EMPTY, contentType: 'text/csv' };
  const { preds, k } = predictRequest(model, version, req, scratch);
  if (req.batch && k === 1) {
    const contentType = responseStyle(version) === 'comma' ? 'text/csv' : resolveAccept(req.accept);
    return { status: 200, body: encodeLines(preds, scratch), contentType };
  }
  const enc = encodeResponse(preds, req.accept, version, { outputsPerRow: k, batch: req.batch });
  return { status: 200, body: utf8Encoder.encode(enc.body), contentType: enc.contentType };
}

function predictRequest(
  model: XGBoostModel,
  version: ContainerVersion,
  req: InvocationRequest,
  scratch?: Scratch,
): { preds: Float32Array; k: number } {
  const decoded = decodeRequest(req.body, req.contentType, version, model.numFeatures, scratch);
  if (responseStyle(version) === 'lines' && !req.batch) resolveAccept(req.accept); // fail fast is fine: nothing is stateful
  const opts = { ntreeLimit: model.bestNTreeLimit };
  return { preds: model.predict(decoded.rows, decoded.nRows, opts), k: model.outputsPerRow(opts) };
}

/**
 * The batch transform body of single-value predictions — each value as Python's repr, one a line —
 * written straight into bytes (the characters are ASCII); equal to encodeResponse's with batch.
 */
export function encodeLines(predictions: ArrayLike<number>, scratch?: Scratch): Uint8Array {
  const n = predictions.length;
  const want = n * 24 + 32;
  let out = scratch?.bytes && scratch.bytes.length >= want ? scratch.bytes : new Uint8Array(want);
  if (scratch && out.length <= SCRATCH_MAX_BYTES) scratch.bytes = out;
  let off = 0;
  for (let r = 0; r < n; r++) {
    const t = pyFloatRepr(predictions[r]);
    if (off + t.length + 1 > out.length) {
      const grown = new Uint8Array(out.length * 2 + t.length + 1);
      grown.set(out.subarray(0, off));
      out = grown;
    }
    for (let j = 0; j < t.length; j++) out[off++] = t.charCodeAt(j);
    out[off++] = 10;
  }
  // A copy that owns its buffer, so a worker thread can hand it over without another one.
  return out.slice(0, off);
}
