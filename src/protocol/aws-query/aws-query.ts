// AWS query protocol (STS; CloudWatch for older SDKs and the AWS CLI): `POST /` with a
// form-encoded body (or `GET /?Action=...`) naming `Action` and `Version`, XML answers wrapped in
// `<ActionResponse><ActionResult>`, errors as `<ErrorResponse>` with the model's query codes.
// https://smithy.io/2.0/aws/protocols/aws-query-protocol.html
import { SerializationException, UnknownOperationException } from '../common-errors.js';
import type { RequestContext } from '../context.js';
import { ServiceError, toServiceError } from '../service-error.js';
import { validateInput } from '../validation/validate.js';
import { headerValue, type WireRequest, type WireResponse } from '../wire.js';
import type { Handler } from '../aws-json/aws-json.js';
import type { ModelService, ProtocolOptions } from '../operations.js';
import { parameterTree, readInput } from './form.js';
import { queryCode } from './query-errors.js';
import type { QueryOperationMeta, QueryServiceModel } from './query-model.js';
import { queryErrorResponse, queryResponse } from './xml-output.js';

const CONTENT_TYPE = 'text/xml';

/** The parameters of a query request: the form body of a POST, or the query string of a GET. */
export function queryParameters(req: WireRequest): URLSearchParams {
  if (req.method === 'GET') return req.query;
  const type = headerValue(req.headers, 'content-type') ?? '';
  if (req.body.length > 0 && !type.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    throw new SerializationException(`Content-Type ${type || '(none)'} is not application/x-www-form-urlencoded.`);
  }
  const params = new URLSearchParams(req.body.toString('utf8'));
  // Parameters may also travel in the query string of a POST (as some clients send Action there).
  for (const [k, v] of req.query) if (!params.has(k)) params.append(k, v);
  return params;
}

export class AwsQueryProtocol {
  private readonly byAction = new Map<string, { op: QueryOperationMeta; handler: Handler }>();
  private readonly model: QueryServiceModel;

  constructor(
    service: ModelService<QueryServiceModel>,
    private readonly options: ProtocolOptions = {},
  ) {
    this.model = service.model;
    for (const op of Object.values(service.model.operations)) {
      const fn = (service.handlers as Record<string, unknown>)[op.handler];
      if (typeof fn !== 'function') throw new Error(`no handler ${op.handler} for ${op.name}`);
      this.byAction.set(op.name, { op, handler: fn.bind(service.handlers) as Handler });
    }
  }

  async handle(req: WireRequest, ctx: RequestContext): Promise<WireResponse> {
    try {
      if (req.method !== 'POST' && req.method !== 'GET') {
        throw new UnknownOperationException(`The HTTP method ${req.method} is not supported.`);
      }
      const params = queryParameters(req);
      const action = params.get('Action');
      if (!action) throw new ServiceErrorLike('MissingAction', 'Missing Action');
      const entry = this.byAction.get(action);
      const version = params.get('Version');
      if (!entry || (version !== null && version !== this.model.metadata.apiVersion)) {
        throw new ServiceErrorLike(
          'InvalidAction',
          `Could not find operation ${action} for version ${version ?? 'NO_VERSION_SPECIFIED'}`,
        );
      }
      const { op } = entry;
      const raw = op.input ? readInput(this.model, op.input, parameterTree(params)) : {};
      const input = op.input ? validateInput(this.model, op.input, raw, { blobs: 'bytes' }) : {};
      ctx.gate?.operation(op.name, input as Record<string, unknown>);
      const output = ((await entry.handler(input, ctx)) ?? {}) as Record<string, unknown>;
      return {
        status: 200,
        headers: { 'content-type': CONTENT_TYPE },
        body: queryResponse(this.model, op.name, op.resultWrapper, op.output, output, ctx.requestId),
      };
    } catch (err) {
      return this.error(err, ctx);
    }
  }

  /** Writes any error the query way (also those raised before the protocol, such as authentication's). */
  error(err: unknown, ctx: RequestContext): WireResponse {
    let e = toServiceError(err, ctx);
    if (this.options.mapError) e = this.options.mapError(e);
    return queryError(this.model, e, ctx.requestId);
  }
}

export function queryError(model: QueryServiceModel, e: ServiceError, requestId: string): WireResponse {
  return {
    status: e.httpStatus,
    headers: { 'content-type': CONTENT_TYPE },
    body: queryErrorResponse(
      model.metadata.xmlNamespace,
      e.fault === 'server' ? 'Receiver' : 'Sender',
      queryCode(model, e),
      e.message,
      requestId,
    ),
  };
}

/** Protocol-level errors that only the query protocol has (no shape, no JSON counterpart). */
class ServiceErrorLike extends ServiceError {
  constructor(code: string, message: string) {
    super(code, message, 400);
  }
}
