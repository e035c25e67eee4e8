// Smithy RPC v2 CBOR protocol (CloudWatch as the current JS SDK speaks it): `POST
// /service/<Service>/operation/<Operation>` with `smithy-protocol: rpc-v2-cbor`, CBOR bodies in and
// out (timestamps as tag 1, epoch seconds), errors as a CBOR map with `__type` and `message`.
// The codec is the AWS SDK's own (@smithy/core/cbor), made for exactly this protocol's CBOR subset.
// https://smithy.io/2.0/additional-specs/protocols/smithy-rpc-v2.html
import { cbor, tag, tagSymbol } from '@smithy/core/cbor';
import { SerializationException, UnknownOperationException } from '../common-errors.js';
import type { RequestContext } from '../context.js';
import type { OperationMeta, ServiceModel } from '../model.js';
import type { ModelService, ProtocolOptions } from '../operations.js';
import { queryErrorHeader } from '../aws-query/query-errors.js';
import type { QueryServiceModel } from '../aws-query/query-model.js';
import { toServiceError } from '../service-error.js';
import { validateInput } from '../validation/validate.js';
import type { WireRequest, WireResponse } from '../wire.js';
import type { Handler } from '../aws-json/aws-json.js';

export const CBOR_CONTENT_TYPE = 'application/cbor';
const PATH = /^\/service\/([^/]+)\/operation\/([^/]+)$/;

/** Decoded CBOR → what the validator reads: tag 1 as a Date, integers as numbers. */
function fromCbor(v: unknown, depth = 0): unknown {
  if (depth > 64) throw new SerializationException('CBOR input is nested too deeply.');
  if (typeof v === 'bigint') {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new SerializationException('Integer out of range.');
    }
    return Number(v);
  }
  if (v === null || typeof v !== 'object' || v instanceof Uint8Array) return v;
  if ((v as Record<symbol, unknown>)[tagSymbol]) {
    const t = v as { tag: number | bigint; value: unknown };
    if (Number(t.tag) === 1 && (typeof t.value === 'number' || typeof t.value === 'bigint'))
      return new Date(Number(t.value) * 1000);
    throw new SerializationException(`CBOR tag ${t.tag} is not supported.`);
  }
  if (Array.isArray(v)) return v.map((x) => fromCbor(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = fromCbor(x, depth + 1);
  return out;
}

/** An output value → CBOR-ready: Dates as tag 1, absent members left out. */
function toCbor(v: unknown): unknown {
  if (v instanceof Date) return tag({ tag: 1, value: v.getTime() / 1000 });
  if (v === null || typeof v !== 'object' || v instanceof Uint8Array) return v;
  if (Array.isArray(v)) return v.map(toCbor);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== undefined) out[k] = toCbor(x);
  return out;
}

export function encodeCbor(v: unknown): Buffer {
  const bytes = cbor.serialize(toCbor(v));
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export class RpcV2CborProtocol {
  private readonly byName = new Map<string, { op: OperationMeta; handler: Handler }>();
  private readonly serviceName: string;

  constructor(
    private readonly service: ModelService<ServiceModel>,
    private readonly options: ProtocolOptions = {},
  ) {
    // The service's shape name; the models keep it as the JSON target prefix.
    this.serviceName = service.model.metadata.targetPrefix ?? service.model.metadata.serviceId;
    for (const op of Object.values(service.model.operations)) {
      const fn = (service.handlers as Record<string, unknown>)[op.handler];
      if (typeof fn !== 'function') throw new Error(`no handler ${op.handler} for ${op.name}`);
      this.byName.set(op.name, { op, handler: fn.bind(service.handlers) as Handler });
    }
  }

  /** The service name this protocol answers in `/service/<name>/operation/...`. */
  get name(): string {
    return this.serviceName;
  }

  async handle(req: WireRequest, ctx: RequestContext): Promise<WireResponse> {
    try {
      const m = PATH.exec(req.path);
      const entry = m && m[1] === this.serviceName ? this.byName.get(m[2]!) : undefined;
      if (!entry || req.method !== 'POST') {
        throw new UnknownOperationException(`Operation ${m?.[2] ?? req.path} is not supported.`);
      }
      let raw: unknown = {};
      if (req.body.length > 0) {
        try {
          raw = cbor.deserialize(req.body);
        } catch {
          throw new SerializationException('Malformed CBOR in request body.');
        }
        raw = fromCbor(raw);
      }
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || raw instanceof Uint8Array) {
        throw new SerializationException('Request body must be a CBOR map.');
      }
      const { op } = entry;
      const input = op.input ? validateInput(this.service.model, op.input, raw, { blobs: 'bytes' }) : {};
      ctx.gate?.operation(op.name, input as Record<string, unknown>);
      const output = await entry.handler(input, ctx);
      return {
        status: 200,
        headers: { 'content-type': CBOR_CONTENT_TYPE, 'smithy-protocol': 'rpc-v2-cbor' },
        body: encodeCbor(output ?? {}),
      };
    } catch (err) {
      return this.error(err, ctx);
    }
  }

  error(err: unknown, ctx: RequestContext): WireResponse {
    let e = toServiceError(err, ctx);
    if (this.options.mapError) e = this.options.mapError(e);
    const headers: Record<string, string> = {
      'content-type': CBOR_CONTENT_TYPE,
      'smithy-protocol': 'rpc-v2-cbor',
      'x-amzn-errortype': e.code,
    };
    const m = this.service.model as Partial<QueryServiceModel>;
    if (m.metadata?.awsQueryCompatible) headers['x-amzn-query-error'] = queryErrorHeader(m as QueryServiceModel, e);
    return {
      status: e.httpStatus,
      headers,
      body: encodeCbor({ __type: e.code, message: e.message, ...e.extraFields() }),
    };
  }
}
