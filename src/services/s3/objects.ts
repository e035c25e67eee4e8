// Object operations: PutObject, GetObject (ranges, parts, conditions), HeadObject, DeleteObject,
// DeleteObjects, CopyObject, ListObjectsV2 and ListObjects (v1).
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_Operations_Amazon_Simple_Storage_Service.html
import type {
  CopyObjectOutput,
  CopyObjectRequest,
  DeleteObjectOutput,
  DeleteObjectRequest,
  DeleteObjectsOutput,
  DeleteObjectsRequest,
  GetObjectOutput,
  GetObjectRequest,
  HeadObjectOutput,
  HeadObjectRequest,
  ListObjectsOutput,
  ListObjectsRequest,
  ListObjectsV2Output,
  ListObjectsV2Request,
  PutObjectOutput,
  PutObjectRequest,
  Object as S3Object,
} from '../../generated/s3/shapes.js';
import type { RequestContext } from '../../protocol/context.js';
import type { ChecksumAlgorithm } from '../../protocol/rest-xml/checksums.js';
import { PayloadStream } from '../../protocol/rest-xml/payload.js';
import { S3Error, s3Error } from '../../protocol/rest-xml/s3-errors.js';
import type { BlobRange, StoredObject } from '../../storage/blobs/object-store.js';
import {
  assertWritableKey,
  checkPreconditions,
  checksumMember,
  checkUserMetadata,
  contentHeadersOf,
  decodeToken,
  encodeToken,
  listingEncoder,
  MAX_PUT_SIZE,
  maxKeysOf,
  ownerOf,
  parseRange,
  quoteEtag,
  requireBucket,
  type S3Deps,
  sameEtag,
  storedHeaders,
} from './common.js';

/** The request body the protocol hands over for streaming payloads. */
export function payloadOf(body: unknown): PayloadStream {
  if (!(body instanceof PayloadStream)) throw new Error('streaming payload was not bound');
  return body;
}

/** Checksum output members for an object (only full-object reads carry them, as in S3). */
function checksumOutput(o: StoredObject): Record<string, string> {
  if (!o.checksum) return {};
  return { [checksumMember(o.checksum.algorithm)]: o.checksum.value, ChecksumType: o.checksum.type };
}

/** Writes `body` as the object at bucket/key, refusing it (and keeping nothing) if it fails verification. */
async function storeBody(
  deps: S3Deps,
  body: PayloadStream,
  object: Omit<StoredObject, 'size' | 'etag' | 'segments' | 'checksum'>,
  check?: (existing: StoredObject | undefined) => void,
): Promise<StoredObject> {
  const blob = await deps.store.writeBlob(body);
  const digest = body.digest();
  const stored: StoredObject = {
    ...object,
    size: blob.size,
    etag: quoteEtag(digest.md5),
    segments: [[blob.id, blob.size]],
    ...(digest.checksum
      ? { checksum: { algorithm: digest.checksum.algorithm, value: digest.checksum.value, type: 'FULL_OBJECT' } }
      : {}),
  };
  if (!(await deps.store.commitObject(stored, check))) throw s3Error('NoSuchBucket', { BucketName: object.bucket });
  return stored;
}

/** Conditional writes (If-None-Match: *, If-Match: etag), checked against what is stored at commit. */
function writePrecondition(ifMatch: string | undefined, ifNoneMatch: string | undefined, key: string) {
  if (ifMatch === undefined && ifNoneMatch === undefined) return undefined;
  return (existing: StoredObject | undefined) => {
    if (ifNoneMatch !== undefined && existing && (ifNoneMatch.trim() === '*' || sameEtag(ifNoneMatch, existing.etag))) {
      throw s3Error('PreconditionFailed', { Condition: 'If-None-Match' });
    }
    if (ifMatch !== undefined) {
      if (!existing) throw s3Error('NoSuchKey', { Key: key });
      if (ifMatch.trim() !== '*' && !sameEtag(ifMatch, existing.etag))
        throw s3Error('PreconditionFailed', { Condition: 'If-Match' });
    }
  };
}

export class ObjectHandlers {
  constructor(private readonly deps: S3Deps) {}

  async putObject(input: PutObjectRequest): Promise<PutObjectOutput> {
    const body = payloadOf(input.Body);
    assertWritableKey(input.Key);
    const userMetadata = checkUserMetadata(input.Metadata);
    await requireBucket(this.deps, input.Bucket);
    const stored = await storeBody(
      this.deps,
      body,
      { bucket: input.Bucket, key: input.Key, lastModified: Date.now(), headers: storedHeaders(input), userMetadata },
      writePrecondition(input.IfMatch, input.IfNoneMatch, input.Key),
    );
    return {
      ETag: stored.etag,
      Size: stored.size,
      ...(stored.checksum
        ? { [checksumMember(stored.checksum.algorithm)]: stored.checksum.value, ChecksumType: 'FULL_OBJECT' as const }
        : {}),
    };
  }

  private async read(input: GetObjectRequest, withBody: boolean): Promise<GetObjectOutput> {
    if (input.PartNumber !== undefined && input.Range !== undefined) {
      throw new S3Error('InvalidRequest', 'Cannot specify both Range header and partNumber query parameter');
    }
    if (input.PartNumber !== undefined && (input.PartNumber < 1 || input.PartNumber > 10_000)) {
      throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive', {
        ArgumentName: 'partNumber',
      });
    }
    const rangeOf = (o: StoredObject): BlobRange | undefined => {
      checkPreconditions(o, input);
      if (input.PartNumber !== undefined) {
        let start = 0;
        for (let i = 0; i < o.segments.length; i++) {
          const size = o.segments[i]![1];
          if (i === input.PartNumber - 1) return size === 0 ? undefined : { start, end: start + size - 1 };
          start += size;
        }
        throw new S3Error('InvalidPartNumber', 'The requested partnumber is not satisfiable', {
          PartNumberRequested: input.PartNumber,
          ActualPartCount: o.segments.length,
        });
      }
      return parseRange(input.Range, o.size);
    };
    let object: StoredObject;
    let range: BlobRange | undefined;
    let Body: GetObjectOutput['Body'];
    if (withBody) {
      const r = await this.deps.store.readObject(input.Bucket, input.Key, rangeOf);
      if (!r) {
        await requireBucket(this.deps, input.Bucket);
        throw s3Error('NoSuchKey', { Key: input.Key });
      }
      ({ object, range } = r);
      Body = r.stream;
    } else {
      const o = await this.deps.store.getObject(input.Bucket, input.Key);
      if (!o) {
        await requireBucket(this.deps, input.Bucket);
        throw s3Error('NoSuchKey', { Key: input.Key });
      }
      object = o;
      range = rangeOf(o);
    }
    const partial = range !== undefined || input.PartNumber !== undefined;
    const length = range ? range.end - range.start + 1 : input.PartNumber !== undefined ? 0 : object.size;
    const headers = contentHeadersOf(object);
    return {
      ...(Body ? { Body } : {}),
      AcceptRanges: 'bytes',
      LastModified: new Date(object.lastModified),
      ContentLength: length,
      ETag: object.etag,
      ...headers,
      // response-* query parameters override the stored headers (presigned download links use them).
      ...(input.ResponseContentType !== undefined ? { ContentType: input.ResponseContentType } : {}),
      ...(input.ResponseCacheControl !== undefined ? { CacheControl: input.ResponseCacheControl } : {}),
      ...(input.ResponseContentDisposition !== undefined
        ? { ContentDisposition: input.ResponseContentDisposition }
        : {}),
      ...(input.ResponseContentEncoding !== undefined ? { ContentEncoding: input.ResponseContentEncoding } : {}),
      ...(input.ResponseContentLanguage !== undefined ? { ContentLanguage: input.ResponseContentLanguage } : {}),
      ...(input.ResponseExpires !== undefined ? { Expires: input.ResponseExpires } : {}),
      ...(Object.keys(object.userMetadata).length ? { Metadata: { ...object.userMetadata } } : {}),
      ...(range ? { ContentRange: `bytes ${range.start}-${range.end}/${object.size}` } : {}),
      ...(input.PartNumber !== undefined || object.partsCount !== undefined
        ? { PartsCount: object.partsCount ?? 1 }
        : {}),
      // Checksums describe the whole object, so S3 sends them only for full reads asked for them.
      ...(input.ChecksumMode === 'ENABLED' && !partial ? checksumOutput(object) : {}),
    } as GetObjectOutput;
  }

  getObject(input: GetObjectRequest): Promise<GetObjectOutput> {
    return this.read(input, true);
  }

  async headObject(input: HeadObjectRequest): Promise<HeadObjectOutput> {
    return this.read(input as GetObjectRequest, false) as Promise<HeadObjectOutput>;
  }

  async deleteObject(input: DeleteObjectRequest): Promise<DeleteObjectOutput> {
    await requireBucket(this.deps, input.Bucket);
    // Deleting a key that does not exist succeeds, as in S3.
    await this.deps.store.deleteObject(input.Bucket, input.Key);
    return {};
  }

  async deleteObjects(input: DeleteObjectsRequest): Promise<DeleteObjectsOutput> {
    const objects = input.Delete?.Objects ?? [];
    if (objects.length === 0 || objects.length > 1000) throw s3Error('MalformedXML');
    await requireBucket(this.deps, input.Bucket);
    const Deleted: NonNullable<DeleteObjectsOutput['Deleted']> = [];
    const Errors: NonNullable<DeleteObjectsOutput['Errors']> = [];
    for (const o of objects) {
      if (typeof o.Key !== 'string') throw s3Error('MalformedXML');
      try {
        await this.deps.store.deleteObject(input.Bucket, o.Key);
        if (!input.Delete.Quiet) Deleted.push({ Key: o.Key, ...(o.VersionId ? { VersionId: o.VersionId } : {}) });
      } catch (err) {
        Errors.push({ Key: o.Key, Code: 'InternalError', Message: (err as Error).message });
      }
    }
    return { ...(Deleted.length ? { Deleted } : {}), ...(Errors.length ? { Errors } : {}) };
  }

  async copyObject(input: CopyObjectRequest): Promise<CopyObjectOutput> {
    const source = parseCopySource(input.CopySource);
    assertWritableKey(input.Key);
    await requireBucket(this.deps, input.Bucket);
    const replace = input.MetadataDirective === 'REPLACE';
    if (input.MetadataDirective !== undefined && !replace && input.MetadataDirective !== 'COPY') {
      throw new S3Error('InvalidArgument', 'Unknown metadata directive.', {
        ArgumentName: 'x-amz-metadata-directive',
        ArgumentValue: input.MetadataDirective,
      });
    }
    if (
      source.bucket === input.Bucket &&
      source.key === input.Key &&
      !replace &&
      input.StorageClass === undefined &&
      input.WebsiteRedirectLocation === undefined
    ) {
      throw new S3Error(
        'InvalidRequest',
        "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
      );
    }
    const r = await this.deps.store.readObject(source.bucket, source.key, (o) => {
      copyPreconditions(o, input);
      return undefined;
    });
    if (!r) {
      await requireBucket(this.deps, source.bucket);
      throw s3Error('NoSuchKey', { Key: source.key });
    }
    const src = r.object;
    const body = new PayloadStream(r.stream, {}, { maxSize: MAX_PUT_SIZE });
    // A full-object checksum stays valid for the same bytes; recompute it so the copy carries one.
    if (src.checksum?.type === 'FULL_OBJECT') body.computeAlso(src.checksum.algorithm as ChecksumAlgorithm);
    if (src.size > MAX_PUT_SIZE) {
      r.stream.destroy();
      throw new S3Error(
        'InvalidRequest',
        'The specified copy source is larger than the maximum allowable size for a copy source: 5368709120',
      );
    }
    const stored = await storeBody(
      this.deps,
      body,
      {
        bucket: input.Bucket,
        key: input.Key,
        lastModified: Date.now(),
        headers: replace
          ? storedHeaders(input)
          : { ...src.headers, ...storedHeaders({ ...contentHeadersOf(src), ...pickDefined(input) }) },
        userMetadata: replace ? checkUserMetadata(input.Metadata) : { ...src.userMetadata },
      },
      writePrecondition(input.IfMatch, input.IfNoneMatch, input.Key),
    );
    return {
      CopyObjectResult: {
        ETag: stored.etag,
        LastModified: new Date(stored.lastModified),
        ...(stored.checksum
          ? { [checksumMember(stored.checksum.algorithm)]: stored.checksum.value, ChecksumType: 'FULL_OBJECT' as const }
          : {}),
      },
    };
  }

  async listObjectsV2(input: ListObjectsV2Request, ctx: RequestContext): Promise<ListObjectsV2Output> {
    const enc = listingEncoder(input.EncodingType);
    const maxKeys = maxKeysOf(input.MaxKeys, 'max-keys');
    await requireBucket(this.deps, input.Bucket);
    const from =
      input.ContinuationToken !== undefined
        ? decodeToken(input.ContinuationToken)
        : input.StartAfter
          ? { after: input.StartAfter }
          : undefined;
    const page = await this.deps.store.listObjects(input.Bucket, {
      ...(input.Prefix ? { prefix: input.Prefix } : {}),
      ...(input.Delimiter ? { delimiter: input.Delimiter } : {}),
      ...(from ? { from } : {}),
      maxKeys,
    });
    const owner = input.FetchOwner ? ownerOf(ctx.accountId) : undefined;
    return {
      IsTruncated: page.truncated,
      Contents: page.objects.map((o) => listEntry(o, enc, owner)),
      Name: input.Bucket,
      Prefix: enc(input.Prefix ?? ''),
      ...(input.Delimiter ? { Delimiter: enc(input.Delimiter) } : {}),
      MaxKeys: maxKeys,
      CommonPrefixes: page.commonPrefixes.map((p) => ({ Prefix: enc(p) })),
      ...(input.EncodingType ? { EncodingType: input.EncodingType } : {}),
      KeyCount: page.objects.length + page.commonPrefixes.length,
      ...(input.ContinuationToken !== undefined ? { ContinuationToken: input.ContinuationToken } : {}),
      ...(page.truncated && page.next ? { NextContinuationToken: encodeToken(page.next) } : {}),
      ...(input.StartAfter !== undefined ? { StartAfter: enc(input.StartAfter) } : {}),
    };
  }

  async listObjects(input: ListObjectsRequest, ctx: RequestContext): Promise<ListObjectsOutput> {
    const enc = listingEncoder(input.EncodingType);
    const maxKeys = maxKeysOf(input.MaxKeys, 'max-keys');
    await requireBucket(this.deps, input.Bucket);
    const page = await this.deps.store.listObjects(input.Bucket, {
      ...(input.Prefix ? { prefix: input.Prefix } : {}),
      ...(input.Delimiter ? { delimiter: input.Delimiter } : {}),
      ...(input.Marker ? { from: { after: input.Marker } } : {}),
      maxKeys,
    });
    const owner = ownerOf(ctx.accountId);
    return {
      IsTruncated: page.truncated,
      Marker: enc(input.Marker ?? ''),
      // S3 sends NextMarker only with a delimiter; without one, clients continue from the last key.
      ...(page.truncated && input.Delimiter && page.last !== undefined ? { NextMarker: enc(page.last) } : {}),
      Contents: page.objects.map((o) => listEntry(o, enc, owner)),
      Name: input.Bucket,
      Prefix: enc(input.Prefix ?? ''),
      ...(input.Delimiter ? { Delimiter: enc(input.Delimiter) } : {}),
      MaxKeys: maxKeys,
      CommonPrefixes: page.commonPrefixes.map((p) => ({ Prefix: enc(p) })),
      ...(input.EncodingType ? { EncodingType: input.EncodingType } : {}),
    };
  }
}

function listEntry(o: StoredObject, enc: (s: string) => string, owner?: { ID: string; DisplayName: string }): S3Object {
  return {
    Key: enc(o.key),
    LastModified: new Date(o.lastModified),
    ETag: o.etag,
    Size: o.size,
    StorageClass: (o.headers['storage-class'] ?? 'STANDARD') as S3Object['StorageClass'],
    ...(owner ? { Owner: owner } : {}),
    ...(o.checksum
      ? {
          ChecksumAlgorithm: [o.checksum.algorithm as NonNullable<S3Object['ChecksumAlgorithm']>[number]],
          ChecksumType: o.checksum.type as S3Object['ChecksumType'],
        }
      : {}),
  };
}

/** `x-amz-copy-source`: `[/]bucket/key[?versionId=...]`, URL-encoded. */
function parseCopySource(raw: string): { bucket: string; key: string } {
  const noVersion = raw.split('?')[0]!;
  let decoded: string;
  try {
    decoded = decodeURIComponent(noVersion);
  } catch {
    throw new S3Error('InvalidArgument', 'Invalid copy source encoding', { ArgumentName: 'x-amz-copy-source' });
  }
  const s = decoded.startsWith('/') ? decoded.slice(1) : decoded;
  const slash = s.indexOf('/');
  if (slash <= 0 || slash === s.length - 1) {
    throw new S3Error('InvalidArgument', 'Copy Source must mention the source bucket and key: sourcebucket/sourcekey', {
      ArgumentName: 'x-amz-copy-source',
      ArgumentValue: raw,
    });
  }
  return { bucket: s.slice(0, slash), key: s.slice(slash + 1) };
}

function copyPreconditions(o: StoredObject, input: CopyObjectRequest): void {
  try {
    checkPreconditions(o, {
      IfMatch: input.CopySourceIfMatch,
      IfNoneMatch: input.CopySourceIfNoneMatch,
      IfModifiedSince: input.CopySourceIfModifiedSince,
      IfUnmodifiedSince: input.CopySourceIfUnmodifiedSince,
    });
  } catch (err) {
    // For a copy every failed source condition is 412, including the ones GET answers with 304.
    if (err instanceof S3Error && err.code === 'NotModified')
      throw s3Error('PreconditionFailed', { Condition: 'x-amz-copy-source-If-None-Match' });
    throw err;
  }
}

function pickDefined(input: CopyObjectRequest) {
  const out: Record<string, unknown> = {};
  for (const k of ['StorageClass', 'WebsiteRedirectLocation'] as const) if (input[k] !== undefined) out[k] = input[k];
  return out;
}
