// REST-XML protocol (S3): operations routed by method, URI template, sub-resource query keys and
// the required query/header members the model declares; members bound to path labels, headers,
// header maps (x-amz-meta-*) and query strings; XML or a byte stream as the payload.
// https://smithy.io/2.0/aws/protocols/aws-restxml-protocol.html
// https://docs.aws.amazon.com/AmazonS3/latest/API/RESTCommonResponseHeaders.html
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { OperationMeta } from '../model.js';
import type { ServiceError } from '../service-error.js';
import { S3Error, s3Error } from './s3-errors.js';
import { escapeXml, parseXml, XML_DECLARATION, type XmlElement, XmlSyntaxError } from './xml.js';
import type { RestXmlServiceModel, XmlMemberMeta, XmlShapeMeta } from './xml-model.js';

export const S3_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';

export interface XmlRequest {
  readonly method: string;
  /** Path without the query string, still percent-encoded (virtual-hosted bucket already prepended). */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
}

export interface XmlResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Readable | null;
}

type Segment = { literal: string } | { label: string; greedy: boolean };

interface Route {
  readonly op: OperationMeta;
  readonly method: string;
  readonly segments: readonly Segment[];
  /** Sub-resource keys from the requestUri (`?uploads`, `?list-type=2`): all must be present. */
  readonly literalQuery: ReadonlyArray<readonly [string, string | undefined]>;
  /** Required members bound to the query or headers: their presence tells PutObject from UploadPart. */
  readonly requiredQuery: readonly string[];
  readonly requiredHeaders: readonly string[];
  /** Every query key the operation understands (to spot sub-resources it does not). */
  readonly knownQuery: ReadonlySet<string>;
}

/** Query keys every request may carry: the JS SDK's `x-id`, presigned-URL SigV4 parameters. */
const ALWAYS_ALLOWED_QUERY = /^(x-id|x-amz-.*)$/i;

function compileRoute(model: RestXmlServiceModel, op: OperationMeta): Route {
  const [pathPart, queryPart] = op.http.requestUri.split('?');
  const segments: Segment[] = pathPart!
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      const m = /^\{([^}+]+)(\+)?\}$/.exec(s);
      return m ? { label: m[1]!, greedy: m[2] === '+' } : { literal: s };
    });
  const literalQuery = (queryPart ? queryPart.split('&') : []).map((kv) => {
    const eq = kv.indexOf('=');
    return eq < 0 ? ([kv, undefined] as const) : ([kv.slice(0, eq), kv.slice(eq + 1)] as const);
  });
  const requiredQuery: string[] = [];
  const requiredHeaders: string[] = [];
  const knownQuery = new Set(literalQuery.map(([k]) => k));
  const input = op.input ? model.shapes[op.input] : undefined;
  for (const [name, m] of Object.entries(input?.members ?? {})) {
    const wire = m.locationName ?? name;
    if (m.location === 'querystring') knownQuery.add(wire);
    if (!input?.required?.includes(name)) continue;
    if (m.location === 'querystring') requiredQuery.push(wire);
    if (m.location === 'header') requiredHeaders.push(wire.toLowerCase());
  }
  return { op, method: op.http.method, segments, literalQuery, requiredQuery, requiredHeaders, knownQuery };
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw s3Error('InvalidURI');
  }
}

/**
 * Matches a raw path against a template. A greedy label takes the rest of the path verbatim, so
 * S3 keys keep their empty segments and leading or doubled slashes (`a//b`, `/x`).
 */
function matchPath(segments: readonly Segment[], rawPath: string): Record<string, string> | undefined {
  const labels: Record<string, string> = {};
  let rest = rawPath.startsWith('/') ? rawPath.slice(1) : rawPath;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if ('label' in seg && seg.greedy) {
      if (rest === '') return undefined;
      labels[seg.label] = decodeSegment(rest);
      rest = '';
      break;
    }
    const slash = rest.indexOf('/');
    const part = slash < 0 ? rest : rest.slice(0, slash);
    if (part === '') return undefined;
    if ('literal' in seg) {
      if (part !== seg.literal) return undefined;
    } else labels[seg.label] = decodeSegment(part);
    rest = slash < 0 ? '' : rest.slice(slash + 1);
  }
  // `/bucket/` is the bucket itself: a trailing slash after the last label is not a new segment.
  return rest === '' ? labels : undefined;
}

/** Timestamps in headers are RFC 7231 dates; in XML bodies, ISO 8601 with milliseconds. */
export const httpDate = (d: Date): string => d.toUTCString();
export const isoDate = (d: Date): string => d.toISOString();

export class RestXmlProtocol {
  private readonly routes: Route[];

  constructor(
    readonly model: RestXmlServiceModel,
    /**
     * Root element of each output document by operation. botocore drops Smithy's @xmlName on
     * output structures, so S3's names (ListBucketResult, ...) cannot come from the model.
     */
    private readonly outputRoots: Readonly<Record<string, string>>,
  ) {
    this.routes = Object.values(model.operations).map((op) => compileRoute(model, op));
  }

  /**
   * The operation a request means: method and path first, then every sub-resource key and
   * required query/header member present, preferring the most specific match.
   */
  match(req: XmlRequest): { op: OperationMeta; labels: Record<string, string> } {
    let best: { route: Route; labels: Record<string, string>; score: number } | undefined;
    let pathMatched = false;
    for (const route of this.routes) {
      const labels = matchPath(route.segments, req.path);
      if (!labels) continue;
      pathMatched = true;
      if (route.method !== req.method) continue;
      let score = 0;
      let ok = true;
      for (const [k, v] of route.literalQuery) {
        const got = req.query.get(k);
        if (got === null || (v !== undefined && got !== v)) ok = false;
        score += 10;
      }
      for (const k of route.requiredQuery) {
        if (!req.query.has(k)) ok = false;
        score++;
      }
      for (const h of route.requiredHeaders) {
        if (req.headers[h] === undefined) ok = false;
        score++;
      }
      if (ok && (!best || score > best.score)) best = { route, labels, score };
    }
    if (!best) {
      if (pathMatched)
        throw s3Error('MethodNotAllowed', {
          Method: req.method,
          ResourceType: req.path.split('/').length > 2 ? 'OBJECT' : 'BUCKET',
        });
      throw s3Error('InvalidURI');
    }
    // A sub-resource the operation does not serve (`?acl`, `?tagging`, `?versioning`...) must not
    // silently become the plain operation (a bucket listing, an object overwrite).
    for (const [k, v] of req.query) {
      if (v === '' && !best.route.knownQuery.has(k) && !ALWAYS_ALLOWED_QUERY.test(k)) {
        throw new S3Error('NotImplemented', `Slipway does not implement the '${k}' sub-resource (${req.method}).`);
      }
    }
    return { op: best.route.op, labels: best.labels };
  }

  /** Members bound to the URI, headers and query string (the payload is bound by the caller). */
  bindInput(op: OperationMeta, req: XmlRequest, labels: Record<string, string>): Record<string, unknown> {
    const input: Record<string, unknown> = {};
    if (!op.input) return input;
    const shape = this.model.shapes[op.input]!;
    for (const [name, m] of Object.entries(shape.members ?? {})) {
      const target = this.model.shapes[m.shape]!;
      const wire = m.locationName ?? name;
      switch (m.location) {
        case 'uri':
          if (labels[wire] !== undefined) input[name] = labels[wire];
          break;
        case 'header': {
          const raw = req.headers[wire.toLowerCase()];
          if (raw === undefined) break;
          const v = Array.isArray(raw) ? raw.join(',') : raw;
          const typed =
            target.type === 'list' ? v.split(',').map((s) => s.trim()) : fromText(target, v, wire, 'header');
          if (typed !== undefined) input[name] = typed;
          break;
        }
        case 'headers': {
          // A header map (x-amz-meta-*): keys are the rest of the header name, lower-case as HTTP/1.1 delivers them.
          const prefix = wire.toLowerCase();
          const map: Record<string, string> = {};
          for (const [h, v] of Object.entries(req.headers)) {
            if (h.startsWith(prefix) && v !== undefined)
              map[h.slice(prefix.length)] = Array.isArray(v) ? v.join(',') : v;
          }
          if (Object.keys(map).length) input[name] = map;
          break;
        }
        case 'querystring': {
          if (target.type === 'list') {
            const all = req.query.getAll(wire);
            if (all.length) input[name] = all;
          } else {
            const v = req.query.get(wire);
            if (v !== null) {
              const typed = fromText(target, v, wire, 'query');
              if (typed !== undefined) input[name] = typed;
            }
          }
          break;
        }
        default:
          break;
      }
    }
    return input;
  }

  /** The payload member of an operation's input and whether it streams. */
  payloadOf(op: OperationMeta): { name: string; member: XmlMemberMeta; shape: XmlShapeMeta } | undefined {
    const shape = op.input ? this.model.shapes[op.input] : undefined;
    if (!shape?.payload) return undefined;
    const member = shape.members![shape.payload]!;
    return { name: shape.payload, member, shape: this.model.shapes[member.shape]! };
  }

  /** Reads an XML payload document into the member's shape; MalformedXML when it does not parse. */
  parsePayload(op: OperationMeta, body: Buffer): unknown {
    const payload = this.payloadOf(op);
    if (!payload || body.length === 0) return undefined;
    let root: XmlElement;
    try {
      root = parseXml(body.toString('utf8'));
    } catch (err) {
      if (err instanceof XmlSyntaxError) throw s3Error('MalformedXML');
      throw err;
    }
    const expected = payload.member.locationName ?? payload.name;
    if (root.name !== expected) throw s3Error('MalformedXML');
    return this.fromXml(payload.member.shape, root);
  }

  private fromXml(shapeName: string, el: XmlElement): unknown {
    const shape = this.model.shapes[shapeName]!;
    switch (shape.type) {
      case 'structure': {
        const out: Record<string, unknown> = {};
        for (const [name, m] of Object.entries(shape.members ?? {})) {
          if (m.location) continue;
          const target = this.model.shapes[m.shape]!;
          const wire = m.locationName ?? name;
          if (target.type === 'list' && (m.flattened || target.flattened)) {
            const items = el.children.filter((c) => c.name === wire);
            if (items.length) out[name] = items.map((c) => this.fromXml(target.member!, c));
          } else {
            const child = el.children.find((c) => c.name === wire);
            if (child) out[name] = this.fromXml(m.shape, child);
          }
        }
        return out;
      }
      case 'list': {
        const itemName = shape.memberName ?? 'member';
        return el.children.filter((c) => c.name === itemName).map((c) => this.fromXml(shape.member!, c));
      }
      default: {
        const v = fromText(shape, el.text, el.name, 'xml');
        return v;
      }
    }
  }

  /** Serialises a handler's output: header members, a streaming or XML payload, or an XML document. */
  writeOutput(op: OperationMeta, output: Record<string, unknown>): XmlResponse {
    const headers: Record<string, string> = {};
    let status = op.http.responseCode ?? 200;
    if (!op.output) return { status, headers, body: null };
    const shape = this.model.shapes[op.output]!;
    let body: XmlResponse['body'] = null;
    const bodyMembers: string[] = [];
    for (const [name, m] of Object.entries(shape.members ?? {})) {
      const v = output[name];
      if (v === undefined || v === null) continue;
      const target = this.model.shapes[m.shape]!;
      if (m.location === 'header') headers[(m.locationName ?? name).toLowerCase()] = toHeaderText(target, v);
      else if (m.location === 'headers') {
        for (const [k, mv] of Object.entries(v as Record<string, string>))
          headers[`${(m.locationName ?? name).toLowerCase()}${k}`] = mv;
      } else if (m.location === 'statusCode') status = Number(v);
      else if (name === shape.payload) {
        if (target.type === 'blob' || m.streaming) body = v as Readable;
        else body = XML_DECLARATION + this.element(m.locationName ?? name, m.shape, v, m.xmlNamespace ?? S3_NAMESPACE);
      } else bodyMembers.push(name);
    }
    if (!shape.payload && bodyMembers.length > 0) {
      const root = this.outputRoots[op.name] ?? shape.locationName ?? op.output;
      body = XML_DECLARATION + this.element(root, op.output, output, S3_NAMESPACE);
    }
    if (typeof body === 'string') headers['content-type'] = 'application/xml';
    return { status, headers, body };
  }

  /** One element (and its children) for a value of `shapeName`. */
  private element(name: string, shapeName: string, v: unknown, xmlns?: string): string {
    const shape = this.model.shapes[shapeName]!;
    const open = xmlns ? `<${name} xmlns="${xmlns}">` : `<${name}>`;
    switch (shape.type) {
      case 'structure': {
        const parts: string[] = [open];
        const obj = v as Record<string, unknown>;
        for (const [member, m] of Object.entries(shape.members ?? {})) {
          const mv = obj[member];
          if (mv === undefined || mv === null || m.location || m.xmlAttribute) continue;
          const target = this.model.shapes[m.shape]!;
          const wire = m.locationName ?? member;
          if (target.type === 'list' && (m.flattened || target.flattened)) {
            for (const item of mv as unknown[]) parts.push(this.element(wire, target.member!, item));
          } else parts.push(this.element(wire, m.shape, mv));
        }
        parts.push(`</${name}>`);
        return parts.join('');
      }
      case 'list': {
        const itemName = shape.memberName ?? 'member';
        return `${open}${(v as unknown[]).map((item) => this.element(itemName, shape.member!, item)).join('')}</${name}>`;
      }
      case 'timestamp':
        return `${open}${isoDate(v as Date)}</${name}>`;
      case 'blob':
        return `${open}${Buffer.from(v as Uint8Array).toString('base64')}</${name}>`;
      default:
        return `${open}${escapeXml(String(v))}</${name}>`;
    }
  }
}

/** Header and query values are text; typed members are parsed from it. */
function fromText(shape: XmlShapeMeta, v: string, wire: string, where: 'header' | 'query' | 'xml'): unknown {
  switch (shape.type) {
    case 'integer':
    case 'long': {
      const t = v.trim();
      if (!/^-?\d+$/.test(t)) {
        if (where === 'xml') throw s3Error('MalformedXML');
        throw s3Error(
          'InvalidArgument',
          { ArgumentName: wire, ArgumentValue: v },
          `Provided ${wire} not an integer or within integer range`,
        );
      }
      return Number(t);
    }
    case 'float':
    case 'double':
      return Number(v);
    case 'boolean': {
      const t = v.trim().toLowerCase();
      if (t !== 'true' && t !== 'false') {
        if (where === 'xml') throw s3Error('MalformedXML');
        throw s3Error('InvalidArgument', { ArgumentName: wire, ArgumentValue: v }, `Invalid value for ${wire}`);
      }
      return t === 'true';
    }
    case 'timestamp': {
      const d = new Date(/^\d+$/.test(v) ? Number(v) * 1000 : v);
      // S3 ignores a date header it cannot parse (If-Modified-Since: garbage is no condition).
      return Number.isNaN(d.getTime()) ? undefined : d;
    }
    default:
      return v;
  }
}

function toHeaderText(shape: XmlShapeMeta, v: unknown): string {
  if (v instanceof Date) return httpDate(v);
  if (shape.type === 'list') return (v as unknown[]).map(String).join(', ');
  return String(v);
}

/** S3's error document: `<Error><Code/><Message/>...<RequestId/><HostId/></Error>`; HEAD answers carry no body. */
export function xmlError(err: ServiceError, requestId: string, hostId: string, head: boolean): XmlResponse {
  const headers: Record<string, string> = {};
  if (err instanceof S3Error) Object.assign(headers, err.headers);
  if (head || err.httpStatus === 304) return { status: err.httpStatus, headers, body: null };
  const extra = Object.entries(err.extraFields())
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `<${k}>${escapeXml(String(v))}</${k}>`)
    .join('');
  headers['content-type'] = 'application/xml';
  return {
    status: err.httpStatus,
    headers,
    body: `${XML_DECLARATION}<Error><Code>${escapeXml(err.code)}</Code><Message>${escapeXml(err.message)}</Message>${extra}<RequestId>${requestId}</RequestId><HostId>${hostId}</HostId></Error>`,
  };
}
