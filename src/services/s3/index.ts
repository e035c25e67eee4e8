// The embedded S3 API on the AWS port: routes a request (path-style or virtual-hosted), binds it
// through the rest-xml protocol, runs the operation and streams the answer or S3's XML error.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/VirtualHosting.html
import { virtualHostBucket } from '../../domain/s3-host.js';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { copySourceResource, deleteObjectsResources } from '../../auth/actions/s3.js';
import type { S3Handlers } from '../../generated/s3/handlers.js';
import { model } from '../../generated/s3/model.js';
import type { RawProtocolHandler } from '../../http/aws-api.js';
import type { RequestContext } from '../../protocol/context.js';
import { PayloadStream } from '../../protocol/rest-xml/payload.js';
import { type XmlResponse, RestXmlProtocol, S3_NAMESPACE, xmlError } from '../../protocol/rest-xml/rest-xml.js';
import { S3Error } from '../../protocol/rest-xml/s3-errors.js';
import { escapeXml, XML_DECLARATION } from '../../protocol/rest-xml/xml.js';
import { ServiceError } from '../../protocol/service-error.js';
import type { LocalObjectStore } from '../../storage/blobs/object-store.js';
import { BucketHandlers } from './buckets.js';
import { MAX_PUT_SIZE, type S3Deps } from './common.js';
import { MultipartHandlers } from './multipart.js';
import { ObjectHandlers } from './objects.js';

/** Root elements of S3's response documents (Smithy @xmlName, which botocore's model drops). */
const OUTPUT_ROOTS: Record<string, string> = {
  ListBuckets: 'ListAllMyBucketsResult',
  ListObjects: 'ListBucketResult',
  ListObjectsV2: 'ListBucketResult',
  DeleteObjects: 'DeleteResult',
  CreateMultipartUpload: 'InitiateMultipartUploadResult',
  CompleteMultipartUpload: 'CompleteMultipartUploadResult',
  ListParts: 'ListPartsResult',
  ListMultipartUploads: 'ListMultipartUploadsResult',
};

/** Largest XML request document (CompleteMultipartUpload with 10,000 parts and checksums fits). */
const MAX_XML_BODY = 4 * 1024 * 1024;

/** The S3 handlers, one object implementing the generated interface. */
export function createS3Handlers(deps: S3Deps): S3Handlers {
  const buckets = new BucketHandlers(deps);
  const objects = new ObjectHandlers(deps);
  const multipart = new MultipartHandlers(deps);
  return {
    createBucket: (i, c) => buckets.createBucket(i, c),
    headBucket: (i) => buckets.headBucket(i),
    deleteBucket: (i) => buckets.deleteBucket(i),
    listBuckets: (i, c) => buckets.listBuckets(i, c),
    getBucketLocation: (i) => buckets.getBucketLocation(i),
    putObject: (i) => objects.putObject(i),
    getObject: (i) => objects.getObject(i),
    headObject: (i) => objects.headObject(i),
    deleteObject: (i) => objects.deleteObject(i),
    deleteObjects: (i) => objects.deleteObjects(i),
    copyObject: (i) => objects.copyObject(i),
    listObjectsV2: (i, c) => objects.listObjectsV2(i, c),
    listObjects: (i, c) => objects.listObjects(i, c),
    createMultipartUpload: (i, c) => multipart.createMultipartUpload(i, c),
    uploadPart: (i) => multipart.uploadPart(i),
    completeMultipartUpload: (i, c) => multipart.completeMultipartUpload(i, c),
    abortMultipartUpload: (i) => multipart.abortMultipartUpload(i),
    listParts: (i, c) => multipart.listParts(i, c),
    listMultipartUploads: (i, c) => multipart.listMultipartUploads(i, c),
  };
}

const hostId = randomBytes(24).toString('base64');

/** Writes a response; a streamed body is piped (and HEAD answers never carry one). */
async function send(res: ServerResponse, r: XmlResponse, head: boolean): Promise<void> {
  const body = r.body;
  if (body instanceof Readable) {
    if (head) {
      body.destroy();
      res.writeHead(r.status, r.headers);
      res.end();
      return;
    }
    res.writeHead(r.status, r.headers);
    await pipeline(body, res);
    return;
  }
  if (body === null) {
    // A HEAD answer states the object's length without sending it.
    if (!head || r.headers['content-length'] === undefined) r.headers['content-length'] = '0';
    res.writeHead(r.status, r.headers);
    res.end();
    return;
  }
  const buf = Buffer.from(body, 'utf8');
  r.headers['content-length'] = String(buf.length);
  res.writeHead(r.status, r.headers);
  res.end(head ? undefined : buf);
}

export class S3Api implements RawProtocolHandler {
  private readonly protocol = new RestXmlProtocol(model, OUTPUT_ROOTS);

  constructor(private readonly handlers: S3Handlers) {}

  static create(store: LocalObjectStore, accountId: string): S3Api {
    return new S3Api(createS3Handlers({ store, accountId }));
  }

  async handle(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    const head = req.method === 'HEAD';
    const common: Record<string, string> = {
      'x-amz-request-id': ctx.requestId,
      'x-amz-id-2': hostId,
      server: 'Slipway',
    };
    let response: XmlResponse;
    let opName = '-';
    try {
      // Authentication happened before routing; a refused request learns nothing about the bucket.
      if (ctx.rejected) throw ctx.rejected;
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      let path = q < 0 ? url : url.slice(0, q);
      const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
      const vhost = virtualHostBucket(req.headers.host);
      if (vhost) path = `/${encodeURIComponent(vhost)}${path.startsWith('/') ? path : `/${path}`}`;
      const xmlReq = { method: req.method ?? 'GET', path, query, headers: req.headers };
      const { op, labels } = this.protocol.match(xmlReq);
      opName = op.name;
      if (ctx.record) ctx.record.operation = op.name;
      const input = this.protocol.bindInput(op, xmlReq, labels);
      const gate = ctx.gate;
      if (gate) {
        gate.operation(op.name, input);
        if (op.name === 'CopyObject' && typeof input.CopySource === 'string')
          gate.action('s3:GetObject', [copySourceResource(input.CopySource)]);
      }
      const payload = this.protocol.payloadOf(op);
      const signatures = ctx.chunkSignatures ? { chunkSignatures: ctx.chunkSignatures } : {};
      if (payload?.member.streaming) {
        input[payload.name] = new PayloadStream(req, req.headers, { maxSize: MAX_PUT_SIZE, ...signatures });
      } else if (payload) {
        const body = await new PayloadStream(req, req.headers, { maxSize: MAX_XML_BODY, ...signatures }).readAll(
          MAX_XML_BODY,
        );
        const value = this.protocol.parsePayload(op, body);
        if (value !== undefined) input[payload.name] = value;
        if (gate && op.name === 'DeleteObjects') {
          const objects = (value as { Objects?: Array<{ Key?: string }> } | undefined)?.Objects ?? [];
          // DEVIATION(aws): S3 reports a denied key in the result's Errors; Slipway refuses the whole request.
          gate.action(
            's3:DeleteObject',
            deleteObjectsResources(
              String(input.Bucket),
              objects.map((o) => String(o.Key)),
            ),
          );
        }
        if (op.name === 'DeleteObjects' && req.headers['content-md5'] === undefined && !hasChecksum(req)) {
          throw new S3Error('InvalidRequest', 'Missing required header for this request: Content-MD5');
        }
      }
      // Required members bound to the URI, query or headers are guaranteed by routing; a missing one is the XML body.
      for (const name of (op.input ? this.protocol.model.shapes[op.input]?.required : undefined) ?? []) {
        if (input[name] === undefined) throw new S3Error('MalformedXML');
      }
      const fn = (this.handlers as unknown as Record<string, (i: unknown, c: RequestContext) => Promise<unknown>>)[
        op.handler
      ]!;
      const output = ((await fn(input, ctx)) ?? {}) as Record<string, unknown>;
      if (op.name === 'GetBucketLocation') {
        const v = String(output.LocationConstraint ?? '');
        response = {
          status: 200,
          headers: { 'content-type': 'application/xml' },
          body: `${XML_DECLARATION}<LocationConstraint xmlns="${S3_NAMESPACE}">${escapeXml(v)}</LocationConstraint>`,
        };
      } else {
        response = this.protocol.writeOutput(op, output);
        // A ranged read (or one part of an object) answers 206 Partial Content.
        if ((op.name === 'GetObject' || op.name === 'HeadObject') && output.ContentRange !== undefined)
          response.status = 206;
      }
    } catch (err) {
      const e = err instanceof ServiceError ? err : internal(err, ctx, opName);
      if (ctx.record) ctx.record.errorCode = e.code;
      response = xmlError(e, ctx.requestId, hostId, head);
      // The body was not (fully) read: closing is cheaper than draining up to 5 GiB we will not keep.
      if (!req.complete && !head) response.headers.connection = 'close';
    }
    Object.assign(response.headers, common);
    try {
      await send(res, response, head);
    } catch (err) {
      // The client went away mid-download, or a blob read failed: nothing more can be said on this socket.
      ctx.log.debug({ err, requestId: ctx.requestId, op: opName }, 'response stream ended early');
      res.destroy();
    }
  }
}

function hasChecksum(req: IncomingMessage): boolean {
  return (
    Object.keys(req.headers).some((h) => h.startsWith('x-amz-checksum-') && h !== 'x-amz-checksum-mode') ||
    req.headers['x-amz-trailer'] !== undefined
  );
}

function internal(err: unknown, ctx: RequestContext, op: string): ServiceError {
  ctx.log.error({ err, requestId: ctx.requestId, op }, 'unhandled error');
  return new S3Error('InternalError');
}

/**
 * Stands in for the S3 API when --s3-endpoint sends object storage elsewhere: every S3 request is
 * answered with an error that says where to go instead.
 */
export class DisabledS3Api implements RawProtocolHandler {
  constructor(private readonly endpoint: string) {}

  async handle(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    const err = new S3Error(
      'NotImplemented',
      `Slipway's embedded S3 API is off because it was started with --s3-endpoint; send S3 requests to ${this.endpoint}.`,
    );
    const r = xmlError(err, ctx.requestId, hostId, req.method === 'HEAD');
    r.headers['x-amz-request-id'] = ctx.requestId;
    if (!req.complete) r.headers.connection = 'close';
    await send(res, r, req.method === 'HEAD');
    req.resume();
  }
}

/** The S3 API for the server's object storage: served when embedded, a clear refusal when external. */
export function s3Handler(
  storage: { objects?: LocalObjectStore; endpoint?: string },
  accountId: string,
): RawProtocolHandler {
  return storage.objects
    ? S3Api.create(storage.objects, accountId)
    : new DisabledS3Api(storage.endpoint ?? 'the configured S3 endpoint');
}
