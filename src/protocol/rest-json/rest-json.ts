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

/** Where one member of an input or output shape travels on the wire, worked out once per route. */
interface Binding {
  readonly name: string;
  readonly target: ShapeMeta;
  readonly location: 'uri' | 'header' | 'querystring' | 'statusCode' | 'payload' | 'body';
  /** Label, query parameter, or lower-cased header name. */
  readonly wireName: string;
}

interface Route {
  readonly op: OperationMeta;
  readonly handler: Handler;
  readonly method: string;
  readonly input: readonly Binding[];
  readonly output: readonly Binding[];
  /** Whether the output shape has a payload member (otherwise its body members form a JSON object). */
  readonly outputPayload: boolean;
  /** Literal segments, or label names for `{Label}` / `{Label+}` segments. */
  readonly segments: ReadonlyArray<{ literal: string } | { label: string; greedy: boolean }>;
}

function bindingsOf(model: ServiceModel, shapeName: string | null): Binding[] {
  const shape = shapeName ? model.shapes[shapeName] : undefined;
  return Object.entries(shape?.members ?? {}).map(([name, m]) => {
    const wireName = m.locationName ?? name;
    const location =
      m.location === 'uri' || m.location === 'querystring' || m.location === 'header' || m.location === 'statusCode'
        ? m.location
        : name === shape!.payload
          ? 'payload'
          : 'body';
    return {
      name,
      target: model.shapes[m.shape]!,
      location,
      wireName: location === 'header' ? wireName.toLowerCase() : wireName,
    };
  });
}

function compileRoute(model: ServiceModel, op: OperationMeta, handler: Handler): Route {
  const [pathPart] = op.http.requestUri.split('?');
  const segments = pathPart!
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      const m = /^\{([^}+]+)(\+)?\}$/.exec(s);
      return m ? { label: m[1]!, greedy: m[2] === '+' } : { literal: s };
    });
  return {
    op,
    handler,
    method: op.http.method,
    segments,
    input: bindingsOf(model, op.input),
    output: bindingsOf(model, op.output),
    outputPayload: Boolean(op.output && model.shapes[op.output]!.payload),
  };
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
      return compileRoute(model, op, fn.bind(handlers) as Handler);
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

  /** Serves a request; `matched` is this protocol's own match() result when the caller has it already. */
  async handle(req: WireRequest, ctx: RequestContext, matched = this.match(req)): Promise<WireResponse> {
    try {
      if (!matched) throw new UnknownOperationException(`No operation matches ${req.method} ${req.path}.`);
      const { route, labels } = matched;
      const raw = route.op.input ? this.bindInput(route, req, labels) : {};
      const input = route.op.input ? validateInput(this.model, route.op.input, raw, { blobs: 'bytes' }) : {};
      // Authorization needs the operation's resource, named by its input: asked here, once, for every operation.
      ctx.gate?.operation(route.op.name, input as Record<string, unknown>);
      const output = (await route.handler(input, ctx)) as Record<string, unknown> | undefined;
      return writeOutput(route, output ?? {});
    } catch (err) {
      return restJsonError(err, ctx);
    }
  }

  private bindInput(route: Route, req: WireRequest, labels: Record<string, string>): Record<string, unknown> {
    const input: Record<string, unknown> = {};
    let bodyMembers = false;
    for (const b of route.input) {
      switch (b.location) {
        case 'uri':
          if (labels[b.wireName] !== undefined) input[b.name] = labels[b.wireName];
          break;
        case 'header': {
          const v = req.headers[b.wireName];
          if (v !== undefined) input[b.name] = fromText(b.target, Array.isArray(v) ? v.join(',') : v);
          break;
        }
        case 'querystring': {
          if (b.target.type === 'list') {
            const all = req.query.getAll(b.wireName);
            if (all.length) input[b.name] = all;
          } else {
            const v = req.query.get(b.wireName);
            if (v !== null) input[b.name] = fromText(b.target, v);
          }
          break;
        }
        case 'payload':
          if (b.target.type === 'blob' || b.target.type === 'string') {
            // A raw payload: an empty body still binds (as an empty blob), as the SDKs send it.
            input[b.name] = b.target.type === 'blob' ? req.body : req.body.toString('utf8');
          } else if (req.body.length > 0) input[b.name] = parseJson(req.body);
          break;
        default:
          bodyMembers = true;
      }
    }
    if (bodyMembers && req.body.length > 0) {
      const body = parseJson(req.body);
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new SerializationException('Request body must be a JSON object.');
      }
      for (const b of route.input) {
        if (b.location === 'body' && (body as Record<string, unknown>)[b.name] !== undefined) {
          input[b.name] = (body as Record<string, unknown>)[b.name];
        }
      }
    }
    return input;
  }
}

function writeOutput(route: Route, output: Record<string, unknown>): WireResponse {
  const headers: Record<string, string> = {};
  let status = route.op.http.responseCode ?? 200;
  if (!route.op.output) return { status, headers, body: null };
  let body: WireResponse['body'] = null;
  const jsonMembers: Record<string, unknown> = {};
  for (const b of route.output) {
    const v = output[b.name];
    if (v === undefined || v === null) continue;
    if (b.location === 'header') headers[b.wireName] = String(v);
    else if (b.location === 'statusCode') status = Number(v);
    else if (b.location === 'payload') {
      body = v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : toAwsJson(v);
    } else jsonMembers[b.name] = v;
  }
  if (!route.outputPayload) {
    body = toAwsJson(jsonMembers);
    headers['content-type'] ??= 'application/json';
  }
  return { status, headers, body };
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
