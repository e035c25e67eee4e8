// REST-JSON protocol (SageMaker Runtime): operations routed by method and URI template; members
// bound to path labels, headers and query strings; a blob payload travels raw.
// https://smithy.io/2.0/aws/protocols/aws-restjson1-protocol.html
import { SerializationException, UnknownOperationException } from '../common-errors.js';
import type { RequestContext } from '../context.js';
import type { OperationMeta, ServiceModel, ShapeMeta } from '../model.js';
import { toServiceError } from '../service-error.js';
import { validateInput } from '../validation/validate.js';
import { toAwsJson, type WireRequest, type WireResponse } from '../wire.js';
import type { Handler } from '../aws-json/aws-json.js';

interface Route {
  readonly op: OperationMeta;
  readonly handler: Handler;
  readonly method: string;
  /** Literal segments, or label names for `{Label}` / `{Label+}` segments. */
  readonly segments: ReadonlyArray<{ literal: string } | { label: string; greedy: boolean }>;
}

function compileRoute(op: OperationMeta, handler: Handler): Route {
  const [pathPart] = op.http.requestUri.split('?');
  const segments = pathPart!
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      const m = /^\{([^}+]+)(\+)?\}$/.exec(s);
      return m ? { label: m[1]!, greedy: m[2] === '+' } : { literal: s };
    });
  return { op, handler, method: op.http.method, segments };
}

function matchRoute(route: Route, method: string, parts: readonly string[]): Record<string, string> | undefined {
  if (route.method !== method) return undefined;
  const labels: Record<string, string> = {};
  let i = 0;
  for (const seg of route.segments) {
    if ('literal' in seg) {
      if (parts[i] !== seg.literal) return undefined;
      i++;
    } else if (seg.greedy) {
      if (i >= parts.length) return undefined;
      labels[seg.label] = parts.slice(i).map(decodeURIComponent).join('/');
      i = parts.length;
    } else {
      if (parts[i] === undefined || parts[i] === '') return undefined;
      try {
        labels[seg.label] = decodeURIComponent(parts[i]!);
      } catch {
        return undefined;
      }
      i++;
    }
  }
  return i === parts.length ? labels : undefined;
}

export class RestJsonProtocol {
  private readonly routes: Route[];

  constructor(
    private readonly model: ServiceModel,
    handlers: object,
  ) {
    this.routes = Object.values(model.operations).map((op) => {
      const fn = (handlers as Record<string, unknown>)[op.handler];
      if (typeof fn !== 'function') throw new Error(`no handler ${op.handler} for ${op.name}`);
      return compileRoute(op, fn.bind(handlers) as Handler);
    });
  }

  /** The route a request matches, or undefined when this service does not serve it. */
  match(req: WireRequest): { route: Route; labels: Record<string, string> } | undefined {
    const parts = req.path.split('/').filter((s) => s !== '');
    for (const route of this.routes) {
      const labels = matchRoute(route, req.method, parts);
      if (labels) return { route, labels };
    }
    return undefined;
  }

  async handle(req: WireRequest, ctx: RequestContext): Promise<WireResponse> {
    try {
      const matched = this.match(req);
      if (!matched) throw new UnknownOperationException(`No operation matches ${req.method} ${req.path}.`);
      const { route, labels } = matched;
      const raw = route.op.input ? this.bindInput(this.model.shapes[route.op.input]!, req, labels) : {};
      const input = route.op.input ? validateInput(this.model, route.op.input, raw, { blobs: 'bytes' }) : {};
      const output = (await route.handler(input, ctx)) as Record<string, unknown> | undefined;
      return this.writeOutput(route.op, output ?? {});
    } catch (err) {
      return restJsonError(err, ctx);
    }
  }

  private bindInput(shape: ShapeMeta, req: WireRequest, labels: Record<string, string>): Record<string, unknown> {
    const input: Record<string, unknown> = {};
    const members = shape.members ?? {};
    let bodyMembers = false;
    for (const [name, m] of Object.entries(members)) {
      const target = this.model.shapes[m.shape]!;
      const wireName = m.locationName ?? name;
      switch (m.location) {
        case 'uri':
          if (labels[wireName] !== undefined) input[name] = labels[wireName];
          break;
        case 'header': {
          const v = req.headers[wireName.toLowerCase()];
          if (v !== undefined) input[name] = fromText(target, Array.isArray(v) ? v.join(',') : v);
          break;
        }
        case 'querystring': {
          if (target.type === 'list') {
            const all = req.query.getAll(wireName);
            if (all.length) input[name] = all;
          } else {
            const v = req.query.get(wireName);
            if (v !== null) input[name] = fromText(target, v);
          }
          break;
        }
        default:
          if (name === shape.payload) {
            if (target.type === 'blob' || target.type === 'string') {
              // A raw payload: an empty body still binds (as an empty blob), as the SDKs send it.
              input[name] = target.type === 'blob' ? req.body : req.body.toString('utf8');
            } else if (req.body.length > 0) input[name] = parseJson(req.body);
          } else bodyMembers = true;
      }
    }
    if (bodyMembers && !shape.payload && req.body.length > 0) {
      const body = parseJson(req.body);
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new SerializationException('Request body must be a JSON object.');
      }
      for (const [name, m] of Object.entries(members)) {
        if (!m.location && (body as Record<string, unknown>)[name] !== undefined) {
          input[name] = (body as Record<string, unknown>)[name];
        }
      }
    }
    return input;
  }

  private writeOutput(op: OperationMeta, output: Record<string, unknown>): WireResponse {
    const headers: Record<string, string> = {};
    let status = op.http.responseCode ?? 200;
    if (!op.output) return { status, headers, body: null };
    const shape = this.model.shapes[op.output]!;
    let body: WireResponse['body'] = null;
    const jsonMembers: Record<string, unknown> = {};
    for (const [name, m] of Object.entries(shape.members ?? {})) {
      const v = output[name];
      if (v === undefined || v === null) continue;
      if (m.location === 'header') headers[(m.locationName ?? name).toLowerCase()] = String(v);
      else if (m.location === 'statusCode') status = Number(v);
      else if (name === shape.payload) {
        body = v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : toAwsJson(v);
      } else jsonMembers[name] = v;
    }
    if (!shape.payload) {
      body = toAwsJson(jsonMembers);
      headers['content-type'] ??= 'application/json';
    }
    return { status, headers, body };
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new SerializationException('Malformed JSON in request body.');
  }
}

/** Header and query values are text; typed members are parsed from it. */
function fromText(shape: ShapeMeta, v: string): unknown {
  switch (shape.type) {
    case 'integer':
    case 'long':
    case 'float':
    case 'double': {
      const n = Number(v);
      if (v.trim() === '' || Number.isNaN(n)) throw new SerializationException(`Invalid number: ${v}`);
      return n;
    }
    case 'boolean':
      if (v !== 'true' && v !== 'false') throw new SerializationException(`Invalid boolean: ${v}`);
      return v === 'true';
    case 'timestamp':
      return new Date(v);
    default:
      return v;
  }
}

/** REST-JSON errors: status from the error shape, type in X-Amzn-ErrorType, members in the body. */
export function restJsonError(err: unknown, ctx: RequestContext): WireResponse {
  const e = toServiceError(err, ctx);
  return {
    status: e.httpStatus,
    headers: { 'content-type': 'application/json', 'x-amzn-errortype': e.code },
    body: toAwsJson({ message: e.message, ...e.extraFields() }),
  };
}
