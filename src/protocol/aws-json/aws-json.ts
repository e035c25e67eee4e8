// AWS JSON 1.1 and 1.0 protocols (SageMaker control plane, CloudWatch Logs; CloudWatch speaks 1.0):
// `POST /`, `X-Amz-Target: <Prefix>.<Operation>`, JSON body in and out, errors as
// `{"__type","message"}` with X-Amzn-ErrorType (and, for awsQueryCompatible services, the query
// code in x-amzn-query-error).
// https://smithy.io/2.0/aws/protocols/aws-json-1_1-protocol.html
import { SerializationException, UnknownOperationException } from '../common-errors.js';
import type { RequestContext } from '../context.js';
import type { OperationMeta, ServiceModel } from '../model.js';
import type { ProtocolOptions } from '../operations.js';
import { queryErrorHeader } from '../aws-query/query-errors.js';
import type { QueryServiceModel } from '../aws-query/query-model.js';
import { type ServiceError, toServiceError } from '../service-error.js';
import { validateInput } from '../validation/validate.js';
import { headerValue, toAwsJson, type WireRequest, type WireResponse } from '../wire.js';

const CONTENT_TYPE = 'application/x-amz-json-1.1';

export type Handler = (input: unknown, ctx: RequestContext) => Promise<unknown>;

export interface AwsJsonService {
  readonly model: ServiceModel;
  /** Handler object with one lowerCamel method per operation (a generated *Handlers interface). */
  readonly handlers: object;
}

export class AwsJsonProtocol {
  private readonly byTarget = new Map<string, { op: OperationMeta; handler: Handler }>();
  private readonly contentType: string;

  constructor(
    private readonly service: AwsJsonService,
    private readonly options: ProtocolOptions = {},
  ) {
    this.contentType = `application/x-amz-json-${service.model.metadata.jsonVersion ?? '1.1'}`;
    const prefix = service.model.metadata.targetPrefix;
    for (const op of Object.values(service.model.operations)) {
      const fn = (service.handlers as Record<string, unknown>)[op.handler];
      if (typeof fn !== 'function') throw new Error(`no handler ${op.handler} for ${op.name}`);
      this.byTarget.set(`${prefix}.${op.name}`, { op, handler: fn.bind(service.handlers) as Handler });
    }
  }

  get targetPrefix(): string {
    return this.service.model.metadata.targetPrefix ?? '';
  }

  /** The operation a request names, if any (for logs and metrics). */
  operationName(req: WireRequest): string | undefined {
    const target = headerValue(req.headers, 'x-amz-target');
    return target ? this.byTarget.get(target)?.op.name : undefined;
  }

  async handle(req: WireRequest, ctx: RequestContext): Promise<WireResponse> {
    try {
      const target = headerValue(req.headers, 'x-amz-target') ?? '';
      const entry = this.byTarget.get(target);
      if (!entry || req.method !== 'POST') {
        throw new UnknownOperationException(
          `Operation ${target.slice(target.indexOf('.') + 1) || '(none)'} is not supported.`,
        );
      }
      let raw: unknown = {};
      if (req.body.length > 0) {
        try {
          raw = JSON.parse(req.body.toString('utf8'));
        } catch {
          throw new SerializationException('Malformed JSON in request body.');
        }
      }
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
        throw new SerializationException('Request body must be a JSON object.');
      }
      const input = entry.op.input ? validateInput(this.service.model, entry.op.input, raw) : {};
      // Authorization needs the operation's resource, named by its input: asked here, once, for every operation.
      ctx.gate?.operation(entry.op.name, input as Record<string, unknown>);
      const output = await entry.handler(input, ctx);
      return { status: 200, headers: { 'content-type': this.contentType }, body: toAwsJson(output ?? {}) };
    } catch (err) {
      return this.error(err, ctx);
    }
  }

  /** Writes any error this service's way (also those raised before the protocol, such as authentication's). */
  error(err: unknown, ctx: RequestContext): WireResponse {
    let e = toServiceError(err, ctx);
    if (this.options.mapError) e = this.options.mapError(e);
    const r = awsJsonError(e, ctx, this.contentType);
    const m = this.service.model as Partial<QueryServiceModel>;
    if (m.metadata?.awsQueryCompatible) r.headers['x-amzn-query-error'] = queryErrorHeader(m as QueryServiceModel, e);
    return r;
  }
}

/** Writes any error the AWS JSON way; anything that is not a ServiceError becomes InternalFailure. */
export function awsJsonError(err: unknown, ctx: RequestContext, contentType = CONTENT_TYPE): WireResponse {
  const e: ServiceError = toServiceError(err, ctx);
  return {
    status: e.httpStatus,
    headers: { 'content-type': contentType, 'x-amzn-errortype': e.code },
    body: toAwsJson({ __type: e.code, message: e.message, ...e.extraFields() }),
  };
}
