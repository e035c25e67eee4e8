// Multipart upload: CreateMultipartUpload, UploadPart, CompleteMultipartUpload, AbortMultipartUpload,
// ListParts, ListMultipartUploads. https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html
// Parts are stored as blobs; completing an upload makes them the object's segments, moving no bytes.
import { createHash, randomBytes } from 'node:crypto';
import type {
  AbortMultipartUploadOutput,
  AbortMultipartUploadRequest,
  CompleteMultipartUploadOutput,
  CompleteMultipartUploadRequest,
  CreateMultipartUploadOutput,
  CreateMultipartUploadRequest,
  ListMultipartUploadsOutput,
  ListMultipartUploadsRequest,
  ListPartsOutput,
  ListPartsRequest,
  UploadPartOutput,
  UploadPartRequest,
} from '../../generated/s3/shapes.js';
import type { RequestContext } from '../../protocol/context.js';
import { type ChecksumAlgorithm, compositeChecksum } from '../../protocol/rest-xml/checksums.js';
import { S3Error, s3Error } from '../../protocol/rest-xml/s3-errors.js';
import type { PartRow, StoredObject, UploadRow } from '../../storage/blobs/object-store.js';
import {
  assertWritableKey,
  checksumAlgorithmOf,
  checksumMember,
  checkUserMetadata,
  listingEncoder,
  MAX_PART_NUMBER,
  MIN_PART_SIZE,
  maxKeysOf,
  ownerOf,
  quoteEtag,
  requireBucket,
  type S3Deps,
  sameEtag,
  storedHeaders,
} from './common.js';
import { payloadOf } from './objects.js';

/** Upload ids start with the creation time in hex, so ordering by id lists uploads of a key oldest first. */
function newUploadId(now: number): string {
  return now.toString(16).padStart(12, '0') + randomBytes(20).toString('hex');
}

export class MultipartHandlers {
  constructor(private readonly deps: S3Deps) {}

  /** The upload named by a request, which must be for this bucket and key. */
  private async upload(bucket: string, key: string, uploadId: string): Promise<UploadRow> {
    const u = await this.deps.store.getUpload(uploadId);
    if (!u || u.bucket !== bucket || u.key !== key) {
      await requireBucket(this.deps, bucket);
      throw s3Error('NoSuchUpload', { UploadId: uploadId });
    }
    return u;
  }

  async createMultipartUpload(
    input: CreateMultipartUploadRequest,
    ctx: RequestContext,
  ): Promise<CreateMultipartUploadOutput> {
    assertWritableKey(input.Key);
    const userMetadata = checkUserMetadata(input.Metadata);
    const algorithm = checksumAlgorithmOf(input.ChecksumAlgorithm);
    if (input.ChecksumType === 'FULL_OBJECT') {
      // DEVIATION(aws): full-object CRCs of multipart uploads would need CRC combination; not implemented.
      throw new S3Error('NotImplemented', 'Slipway supports only COMPOSITE checksums for multipart uploads.');
    }
    await requireBucket(this.deps, input.Bucket);
    const now = Date.now();
    const uploadId = newUploadId(now);
    const ok = await this.deps.store.createUpload({
      uploadId,
      bucket: input.Bucket,
      key: input.Key,
      initiated: now,
      headers: storedHeaders(input),
      userMetadata,
      ...(algorithm ? { checksumAlgorithm: algorithm } : {}),
    });
    if (!ok) throw s3Error('NoSuchBucket', { BucketName: input.Bucket });
    void ctx;
    return {
      Bucket: input.Bucket,
      Key: input.Key,
      UploadId: uploadId,
      ...(algorithm ? { ChecksumAlgorithm: algorithm, ChecksumType: 'COMPOSITE' as const } : {}),
    };
  }

  async uploadPart(input: UploadPartRequest): Promise<UploadPartOutput> {
    const body = payloadOf(input.Body);
    if (!Number.isInteger(input.PartNumber) || input.PartNumber < 1 || input.PartNumber > MAX_PART_NUMBER) {
      throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive', {
        ArgumentName: 'partNumber',
        ArgumentValue: input.PartNumber,
      });
    }
    const upload = await this.upload(input.Bucket, input.Key, input.UploadId);
    const algorithm = upload.checksumAlgorithm as ChecksumAlgorithm | undefined;
    if (algorithm) {
      const sent = body.checksumAlgorithm;
      if (sent && sent !== algorithm) {
        throw new S3Error(
          'InvalidRequest',
          `Checksum Type mismatch occurred, expected checksum Type: ${algorithm.toLowerCase()}, actual checksum Type: ${sent.toLowerCase()}`,
        );
      }
      // Parts of a checksummed upload always get one, so the object's composite checksum can be formed.
      body.computeAlso(algorithm);
    }
    const blob = await this.deps.store.writeBlob(body);
    const digest = body.digest();
    const part: PartRow = {
      partNumber: input.PartNumber,
      size: blob.size,
      etag: quoteEtag(digest.md5),
      blobId: blob.id,
      ...(digest.checksum && digest.checksum.algorithm === algorithm ? { checksum: digest.checksum.value } : {}),
      lastModified: Date.now(),
    };
    if (!(await this.deps.store.commitPart(upload.uploadId, part)))
      throw s3Error('NoSuchUpload', { UploadId: input.UploadId });
    return {
      ETag: part.etag,
      ...(digest.checksum ? { [checksumMember(digest.checksum.algorithm)]: digest.checksum.value } : {}),
    };
  }

  async completeMultipartUpload(
    input: CompleteMultipartUploadRequest,
    ctx: RequestContext,
  ): Promise<CompleteMultipartUploadOutput> {
    const requested = input.MultipartUpload?.Parts ?? [];
    if (requested.length === 0) throw s3Error('MalformedXML');
    for (const p of requested) {
      if (typeof p.PartNumber !== 'number' || typeof p.ETag !== 'string') throw s3Error('MalformedXML');
    }
    for (let i = 1; i < requested.length; i++) {
      if (requested[i]!.PartNumber! <= requested[i - 1]!.PartNumber!)
        throw s3Error('InvalidPartOrder', { UploadId: input.UploadId });
    }
    await this.upload(input.Bucket, input.Key, input.UploadId);
    const result = await this.deps.store.completeUpload(input.UploadId, (upload, stored) => {
      const byNumber = new Map(stored.map((p) => [p.partNumber, p]));
      const algorithm = upload.checksumAlgorithm;
      const parts: PartRow[] = [];
      for (let i = 0; i < requested.length; i++) {
        const want = requested[i]!;
        const have = byNumber.get(want.PartNumber!);
        if (!have || !sameEtag(have.etag, want.ETag!)) {
          throw s3Error('InvalidPart', { UploadId: input.UploadId, PartNumber: want.PartNumber, ETag: want.ETag });
        }
        // DEVIATION(aws): S3 insists every part of a checksummed upload is listed with its checksum;
        // Slipway verifies the checksums a client lists and accepts parts listed without one.
        const claimed = algorithm ? (want as Record<string, unknown>)[checksumMember(algorithm)] : undefined;
        if (typeof claimed === 'string' && claimed !== have.checksum) {
          throw new S3Error(
            'InvalidPart',
            `The ${algorithm} of part ${want.PartNumber} does not match the uploaded part.`,
            {
              UploadId: input.UploadId,
              PartNumber: want.PartNumber,
            },
          );
        }
        if (i < requested.length - 1 && have.size < MIN_PART_SIZE) {
          throw s3Error('EntityTooSmall', {
            ProposedSize: have.size,
            MinSizeAllowed: MIN_PART_SIZE,
            PartNumber: have.partNumber,
            ETag: have.etag,
          });
        }
        parts.push(have);
      }
      const size = parts.reduce((n, p) => n + p.size, 0);
      if (input.MpuObjectSize !== undefined && input.MpuObjectSize !== size) {
        throw new S3Error(
          'InvalidRequest',
          `The provided 'x-amz-mp-object-size' header value ${input.MpuObjectSize} does not match what was computed: ${size}`,
        );
      }
      // S3's multipart ETag: MD5 of the concatenated binary part MD5s, then "-<part count>".
      const md5s = createHash('md5');
      for (const p of parts) md5s.update(Buffer.from(p.etag.replace(/"/g, ''), 'hex'));
      const checksums = parts.map((p) => p.checksum);
      const composite =
        algorithm && checksums.every((c): c is string => c !== undefined)
          ? { algorithm, value: compositeChecksum(algorithm as ChecksumAlgorithm, checksums), type: 'COMPOSITE' }
          : undefined;
      const object: StoredObject = {
        bucket: upload.bucket,
        key: upload.key,
        size,
        etag: quoteEtag(`${md5s.digest('hex')}-${parts.length}`),
        lastModified: Date.now(),
        headers: upload.headers,
        userMetadata: upload.userMetadata,
        ...(composite ? { checksum: composite } : {}),
        partsCount: parts.length,
        segments: parts.map((p) => [p.blobId, p.size] as const),
      };
      return object;
    });
    if (result === 'no-upload') throw s3Error('NoSuchUpload', { UploadId: input.UploadId });
    if (result === 'no-bucket') throw s3Error('NoSuchBucket', { BucketName: input.Bucket });
    const o = result.object;
    void ctx;
    return {
      Location: `/${encodeURIComponent(o.bucket)}/${o.key.split('/').map(encodeURIComponent).join('/')}`,
      Bucket: o.bucket,
      Key: o.key,
      ETag: o.etag,
      ...(o.checksum
        ? { [checksumMember(o.checksum.algorithm)]: o.checksum.value, ChecksumType: 'COMPOSITE' as const }
        : {}),
    };
  }

  async abortMultipartUpload(input: AbortMultipartUploadRequest): Promise<AbortMultipartUploadOutput> {
    await this.upload(input.Bucket, input.Key, input.UploadId);
    if (!(await this.deps.store.abortUpload(input.UploadId)))
      throw s3Error('NoSuchUpload', { UploadId: input.UploadId });
    return {};
  }

  async listParts(input: ListPartsRequest, ctx: RequestContext): Promise<ListPartsOutput> {
    const upload = await this.upload(input.Bucket, input.Key, input.UploadId);
    const max = maxKeysOf(input.MaxParts, 'max-parts');
    const after = input.PartNumberMarker !== undefined ? Number(input.PartNumberMarker) : 0;
    if (!Number.isInteger(after) || after < 0) {
      throw new S3Error('InvalidArgument', 'Argument part-number-marker must be an integer between 0 and 2147483647', {
        ArgumentName: 'part-number-marker',
      });
    }
    const rows = await this.deps.store.listParts(upload.uploadId, { after, limit: max + 1 });
    const page = rows.slice(0, max);
    const truncated = rows.length > max;
    const owner = ownerOf(ctx.accountId);
    const alg = upload.checksumAlgorithm;
    return {
      Bucket: upload.bucket,
      Key: upload.key,
      UploadId: upload.uploadId,
      PartNumberMarker: after,
      ...(page.length ? { NextPartNumberMarker: page[page.length - 1]!.partNumber } : {}),
      MaxParts: max,
      IsTruncated: truncated,
      Parts: page.map((p) => ({
        PartNumber: p.partNumber,
        LastModified: new Date(p.lastModified),
        ETag: p.etag,
        Size: p.size,
        ...(alg && p.checksum ? { [checksumMember(alg)]: p.checksum } : {}),
      })),
      Initiator: owner,
      Owner: owner,
      StorageClass: (upload.headers['storage-class'] ?? 'STANDARD') as ListPartsOutput['StorageClass'],
      ...(alg
        ? { ChecksumAlgorithm: alg as ListPartsOutput['ChecksumAlgorithm'], ChecksumType: 'COMPOSITE' as const }
        : {}),
    };
  }

  async listMultipartUploads(
    input: ListMultipartUploadsRequest,
    ctx: RequestContext,
  ): Promise<ListMultipartUploadsOutput> {
    const enc = listingEncoder(input.EncodingType);
    const max = maxKeysOf(input.MaxUploads, 'max-uploads');
    await requireBucket(this.deps, input.Bucket);
    const page = await this.deps.store.listUploads(input.Bucket, {
      ...(input.Prefix ? { prefix: input.Prefix } : {}),
      ...(input.Delimiter ? { delimiter: input.Delimiter } : {}),
      ...(input.KeyMarker ? { keyMarker: input.KeyMarker } : {}),
      ...(input.UploadIdMarker ? { uploadIdMarker: input.UploadIdMarker } : {}),
      maxUploads: max,
    });
    const owner = ownerOf(ctx.accountId);
    return {
      Bucket: input.Bucket,
      KeyMarker: enc(input.KeyMarker ?? ''),
      UploadIdMarker: input.UploadIdMarker ?? '',
      ...(page.truncated
        ? { NextKeyMarker: enc(page.nextKeyMarker ?? ''), NextUploadIdMarker: page.nextUploadIdMarker ?? '' }
        : {}),
      Prefix: enc(input.Prefix ?? ''),
      ...(input.Delimiter ? { Delimiter: enc(input.Delimiter) } : {}),
      MaxUploads: max,
      IsTruncated: page.truncated,
      Uploads: page.uploads.map((u) => ({
        UploadId: u.uploadId,
        Key: enc(u.key),
        Initiated: new Date(u.initiated),
        StorageClass: (u.headers['storage-class'] ?? 'STANDARD') as 'STANDARD',
        Owner: owner,
        Initiator: owner,
        ...(u.checksumAlgorithm
          ? { ChecksumAlgorithm: u.checksumAlgorithm as 'CRC32', ChecksumType: 'COMPOSITE' as const }
          : {}),
      })),
      CommonPrefixes: page.commonPrefixes.map((p) => ({ Prefix: enc(p) })),
      ...(input.EncodingType ? { EncodingType: input.EncodingType } : {}),
    };
  }
}
