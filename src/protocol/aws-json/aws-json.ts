// AWS JSON 1.1 protocol (SageMaker control plane): `POST /`, `X-Amz-Target: <Prefix>.<Operation>`,
// JSON body in and out, errors as `{"__type","message"}` with X-Amzn-ErrorType.
// https://smithy.io/2.0/aws/protocols/aws-json-1_1-protocol.html
import { SerializationException, UnknownOperationException } from '../common-errors.js';
import type { RequestContext } from '../context.js';
import type { OperationMeta, ServiceModel } from '../model.js';
import { toServiceError } from '../service-error.js';
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

  constructor(private readonly service: AwsJsonService) {
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
      return { status: 200, headers: { 'content-type': CONTENT_TYPE }, body: toAwsJson(output ?? {}) };
    } catch (err) {
      return awsJsonError(err, ctx);
    }
  }
}

/** Writes any error the AWS JSON way; anything that is not a ServiceError becomes InternalFailure. */
export function awsJsonError(err: unknown, ctx: RequestContext): WireResponse {
  const e = toServiceError(err, ctx);
  return {
    status: e.httpStatus,
    headers: { 'content-type': CONTENT_TYPE, 'x-amzn-errortype': e.code },
    body: toAwsJson({ __type: e.code, message: e.message, ...e.extraFields() }),
  };
}
