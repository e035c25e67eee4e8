// Request and response formats of the ONNX runtime (Slipway's own: SageMaker has no built-in
// ONNX container, so these follow its common conventions).
// https://docs.aws.amazon.com/sagemaker/latest/dg/cdf-inference.html
//
// Requests:
//   text/csv          one row per line, comma-separated numbers → the model's (single) input [rows, k];
//                     for an input of rank > 2 with fixed trailing dimensions, each row is reshaped.
//   application/json  (also when Content-Type is absent) one of
//                       [[...], ...] or [...]                 the (single) input; one row may omit
//                                                             the batch dimension
//                       {"instances": X} / {"inputs": X}     X as above
//                       {"inputs": {"<name>": X, ...}}      every input by name
// Responses (the model's first output, or SLIPWAY_ONNX_OUTPUT):
//   application/json  (default, also for */*) {"predictions": <nested array, as the output's shape>}
//   text/csv          one line per row (first dimension), values comma-separated
// Errors: unsupported Content-Type 415, unsupported Accept 406, a payload that does not fit 400.

import { ContainerFailure } from '../../failure.js';

export interface TensorSpec {
  readonly name: string;
  /** onnxruntime type name: float32, float64, int32, int64, uint8, int8, int16, uint16, bool */
  readonly type: string;
  /** dimensions; strings (or negative numbers) are symbolic */
  readonly shape: readonly (number | string)[];
}

export interface DecodedTensor {
  readonly type: string;
  readonly data:
    | Float32Array
    | Float64Array
    | Int32Array
    | BigInt64Array
    | Uint8Array
    | Int8Array
    | Int16Array
    | Uint16Array;
  readonly dims: number[];
}

const NUMBER_TYPES = new Set(['float32', 'float64', 'int32', 'int64', 'uint8', 'int8', 'int16', 'uint16', 'bool']);

function bad(message: string): never {
  throw new ContainerFailure('response', 400, message);
}

function mediaType(v: string | undefined): string {
  return (v ?? '').split(';')[0]!.trim().toLowerCase();
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeOnnxRequest(
  body: Uint8Array,
  contentType: string | undefined,
  inputs: readonly TensorSpec[],
): Record<string, DecodedTensor> {
  const type = mediaType(contentType);
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    bad('The request body is not valid UTF-8.');
  }
  if (type === 'text/csv') {
    if (inputs.length !== 1) {
      bad(
        `The model has ${inputs.length} inputs; send application/json {"inputs": {"<name>": ...}} instead of text/csv.`,
      );
    }
    const input = inputs[0]!;
    const { values, dims } = parseCsv(text);
    return { [input.name]: toTensor(input, values, fitDims(input, dims, true)) };
  }
  if (type === 'application/json' || type === '') {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      bad(`The request body is not valid JSON: ${(e as Error).message}`);
    }
    let named: Record<string, unknown>;
    if (Array.isArray(doc) || typeof doc === 'number') named = single(inputs, doc);
    else if (doc && typeof doc === 'object') {
      const o = doc as Record<string, unknown>;
      const x = o.instances ?? o.inputs;
      if (x === undefined) bad('The JSON request needs "instances" or "inputs" (or is an array of rows).');
      named = Array.isArray(x) || typeof x === 'number' ? single(inputs, x) : (x as Record<string, unknown>);
      if (!named || typeof named !== 'object') bad('"inputs" must be an array or an object of named inputs.');
    } else bad('The JSON request must be an array of rows or an object.');
    const out: Record<string, DecodedTensor> = {};
    for (const input of inputs) {
      const x = named[input.name];
      if (x === undefined) bad(`The request has no value for the model input "${input.name}".`);
      const { values, dims } = flatten(x);
      out[input.name] = toTensor(input, values, fitDims(input, dims, false));
    }
    for (const k of Object.keys(named)) {
      if (!inputs.some((i) => i.name === k)) bad(`The model has no input named "${k}".`);
    }
    return out;
  }
  throw new ContainerFailure(
    'response',
    415,
    `Content type ${contentType} is not supported by this ONNX model; use text/csv or application/json.`,
  );
}

function single(inputs: readonly TensorSpec[], x: unknown): Record<string, unknown> {
  if (inputs.length !== 1) bad(`The model has ${inputs.length} inputs; send {"inputs": {"<name>": ...}}.`);
  return { [inputs[0]!.name]: x };
}

function parseCsv(text: string): { values: number[]; dims: number[] } {
  const lines = text.split('\n');
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  if (lines.length === 0) bad('The CSV request has no rows.');
  const values: number[] = [];
  let width = -1;
  for (let r = 0; r < lines.length; r++) {
    const cells = lines[r]!.split(',');
    if (width < 0) width = cells.length;
    else if (cells.length !== width) bad(`Row ${r + 1} has ${cells.length} values but row 1 has ${width}.`);
    for (const c of cells) {
      const s = c.trim();
      const v = s === '' ? Number.NaN : Number(s);
      if (Number.isNaN(v) && s.toLowerCase() !== 'nan' && s !== '')
        bad(`Could not convert ${JSON.stringify(s)} to a number.`);
      values.push(v);
    }
  }
  return { values, dims: [lines.length, width] };
}

function flatten(x: unknown): { values: number[]; dims: number[] } {
  const dims: number[] = [];
  let probe: unknown = x;
  while (Array.isArray(probe)) {
    dims.push(probe.length);
    probe = probe[0];
  }
  const values: number[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth === dims.length) {
      if (typeof v === 'number') values.push(v);
      else if (typeof v === 'boolean') values.push(v ? 1 : 0);
      else if (v === null) values.push(Number.NaN);
      else bad('Input values must be numbers in rectangular nested arrays.');
      return;
    }
    if (!Array.isArray(v) || v.length !== dims[depth])
      bad('Input arrays must be rectangular (every row the same length).');
    for (const e of v) walk(e, depth + 1);
  };
  walk(x, 0);
  return { values, dims };
}

function fixed(d: number | string): number | undefined {
  return typeof d === 'number' && d >= 0 ? d : undefined;
}

/** Adds the batch dimension to a single row and reshapes CSV rows for inputs of rank > 2. */
function fitDims(input: TensorSpec, dims: number[], csv: boolean): number[] {
  const rank = input.shape.length;
  let out = dims;
  if (csv && rank > 2) {
    // a CSV row holds one instance, flattened
    const trailing = input.shape.slice(1).map(fixed);
    if (trailing.every((d) => d !== undefined)) {
      const k = (trailing as number[]).reduce((a, b) => a * b, 1);
      if (k === dims[1]) out = [dims[0]!, ...(trailing as number[])];
    }
  } else if (!csv && rank > 0 && dims.length === rank - 1) out = [1, ...dims];
  const shapeText = `[${input.shape.join(',')}]`;
  if (rank > 0 && out.length !== rank) {
    bad(`Input "${input.name}" has shape [${out.join(',')}] but the model expects ${shapeText}.`);
  }
  for (let i = 0; i < rank; i++) {
    const want = fixed(input.shape[i]!);
    if (want !== undefined && want !== out[i]) {
      bad(`Input "${input.name}" has shape [${out.join(',')}] but the model expects ${shapeText}.`);
    }
  }
  return out;
}

function toTensor(input: TensorSpec, values: number[], dims: number[]): DecodedTensor {
  const t = input.type;
  if (!NUMBER_TYPES.has(t)) bad(`Input "${input.name}" has type ${t}, which this runtime cannot decode.`);
  const integral = t !== 'float32' && t !== 'float64';
  if (integral && !values.every(Number.isInteger)) bad(`Input "${input.name}" takes integers (${t}).`);
  let data: DecodedTensor['data'];
  switch (t) {
    case 'float32':
      data = Float32Array.from(values);
      break;
    case 'float64':
      data = Float64Array.from(values);
      break;
    case 'int32':
      data = Int32Array.from(values);
      break;
    case 'int64':
      data = BigInt64Array.from(values, (v) => BigInt(v));
      break;
    case 'int8':
      data = Int8Array.from(values);
      break;
    case 'int16':
      data = Int16Array.from(values);
      break;
    case 'uint16':
      data = Uint16Array.from(values);
      break;
    default: // uint8, bool
      data = Uint8Array.from(values);
  }
  return { type: t, data, dims };
}

export interface OnnxOutput {
  readonly data: ArrayLike<number | bigint | boolean | string>;
  readonly dims: readonly number[];
}

export function encodeOnnxResponse(out: OnnxOutput, accept: string | undefined): { body: string; contentType: string } {
  const type = mediaType(accept);
  const num = (i: number): number => {
    const v = out.data[i];
    return typeof v === 'number' ? v : Number(v);
  };
  if (type === 'text/csv') {
    const dims = out.dims;
    const rows = dims.length === 0 ? 1 : dims[0]!;
    const width = dims.length === 0 ? 1 : dims.slice(1).reduce((a, b) => a * b, 1);
    let s = '';
    for (let r = 0; r < rows; r++) {
      const parts: string[] = new Array(width);
      for (let j = 0; j < width; j++) parts[j] = String(num(r * width + j));
      s += `${parts.join(',')}\n`;
    }
    return { body: s, contentType: 'text/csv' };
  }
  if (type === '' || type === '*/*' || type === 'application/json') {
    let i = 0;
    const build = (depth: number): unknown => {
      if (depth === out.dims.length) return num(i++);
      const a: unknown[] = new Array(out.dims[depth]);
      for (let k = 0; k < a.length; k++) a[k] = build(depth + 1);
      return a;
    };
    return { body: JSON.stringify({ predictions: build(0) }), contentType: 'application/json' };
  }
  throw new ContainerFailure(
    'response',
    406,
    `Accept type ${accept} is not supported; use application/json or text/csv.`,
  );
}
