// The AWS query protocol's request encoding: form parameters (`Action=...&Version=...&X.member.1.Y=...`)
// read into the input shape they flatten. Lists are `Name.member.N` (or `Name.N` when flattened),
// maps `Name.entry.N.key` / `.value`, structures `Name.Member`; scalars are text.
// https://smithy.io/2.0/aws/protocols/aws-query-protocol.html#query-key-resolution
import { SerializationException } from '../common-errors.js';
import type { QueryServiceModel, QueryShapeMeta } from './query-model.js';

/** The parameters as a tree of their dotted names: leaves are the values. */
type Node = { value?: string; children?: Map<string, Node> };

/** Most parameters one request may carry (PutMetricData: 1,000 data of up to 150 values each). */
export const MAX_PARAMETERS = 400_000;

/** Builds the tree of every parameter but Action and Version. */
export function parameterTree(params: URLSearchParams): Node {
  const root: Node = {};
  let n = 0;
  for (const [key, value] of params) {
    if (++n > MAX_PARAMETERS)
      throw new SerializationException(`A request may carry at most ${MAX_PARAMETERS} parameters.`);
    if (key === 'Action' || key === 'Version') continue;
    let node = root;
    let start = 0;
    for (;;) {
      const dot = key.indexOf('.', start);
      const part = dot < 0 ? key.slice(start) : key.slice(start, dot);
      node.children ??= new Map();
      let child = node.children.get(part);
      if (!child) {
        child = {};
        node.children.set(part, child);
      }
      node = child;
      if (dot < 0) break;
      start = dot + 1;
    }
    node.value = value;
  }
  return root;
}

/**
 * The input a request's parameters spell, shaped by `shapeName`: members not given are absent,
 * scalars converted to their type (a bad number is a SerializationException naming the parameter).
 * Constraints are left to the validator, which runs on the result.
 */
export function readInput(model: QueryServiceModel, shapeName: string, tree: Node): Record<string, unknown> {
  return readStructure(model, model.shapes[shapeName]!, tree, '');
}

function readStructure(
  model: QueryServiceModel,
  shape: QueryShapeMeta,
  node: Node,
  path: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(shape.members ?? {})) {
    const wire = member.locationName ?? name;
    const child = node.children?.get(wire);
    if (!child) continue;
    const v = readValue(model, model.shapes[member.shape]!, child, path ? `${path}.${wire}` : wire, member.flattened);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

function readValue(
  model: QueryServiceModel,
  shape: QueryShapeMeta,
  node: Node,
  path: string,
  flattenedMember = false,
): unknown {
  switch (shape.type) {
    case 'structure':
      return readStructure(model, shape, node, path);
    case 'list': {
      // An empty list is sent as the bare name with an empty value (`Dimensions=`).
      if (!node.children) return node.value === '' ? [] : undefined;
      const flattened = shape.flattened || flattenedMember;
      const items = flattened ? node : node.children.get(shape.memberName ?? 'member');
      if (!items?.children) return [];
      const member = model.shapes[shape.member!]!;
      const out: unknown[] = [];
      // Items are numbered from 1 with no gaps; a gap ends the list, as AWS reads it.
      for (let i = 1; ; i++) {
        const item = items.children.get(String(i));
        if (!item) break;
        out.push(readValue(model, member, item, `${path}.${i}`));
      }
      return out;
    }
    case 'map': {
      if (!node.children) return node.value === '' ? {} : undefined;
      const entries = shape.flattened || flattenedMember ? node : node.children.get('entry');
      const out: Record<string, unknown> = {};
      if (!entries?.children) return out;
      const valueShape = model.shapes[shape.value!]!;
      for (let i = 1; ; i++) {
        const entry = entries.children.get(String(i));
        const key = entry?.children?.get('key')?.value;
        if (!entry || key === undefined) break;
        const value = entry.children?.get('value');
        if (value) out[key] = readValue(model, valueShape, value, `${path}.${i}.value`);
      }
      return out;
    }
    default:
      return node.value === undefined ? undefined : scalar(shape, node.value, path);
  }
}

function scalar(shape: QueryShapeMeta, v: string, path: string): unknown {
  switch (shape.type) {
    case 'integer':
    case 'long': {
      const n = Number(v);
      if (v.trim() === '' || !Number.isInteger(n))
        throw new SerializationException(`Invalid value '${v}' for parameter ${path}.`);
      return n;
    }
    case 'float':
    case 'double': {
      const n = Number(v);
      if (v.trim() === '' || (Number.isNaN(n) && v !== 'NaN')) {
        throw new SerializationException(`Invalid value '${v}' for parameter ${path}.`);
      }
      return n;
    }
    case 'boolean':
      if (v !== 'true' && v !== 'false')
        throw new SerializationException(`Invalid value '${v}' for parameter ${path}.`);
      return v === 'true';
    case 'timestamp': {
      // ISO 8601 as the SDKs write it; epoch seconds are accepted too.
      const d = /^-?\d+(\.\d+)?$/.test(v) ? new Date(Number(v) * 1000) : new Date(v);
      if (Number.isNaN(d.getTime()))
        throw new SerializationException(`Invalid timestamp '${v}' for parameter ${path}.`);
      return d;
    }
    case 'blob':
      return Buffer.from(v, 'base64');
    default:
      return v;
  }
}
