// Bucket operations: CreateBucket, HeadBucket, DeleteBucket, ListBuckets, GetBucketLocation.
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateBucket.html
import type {
  CreateBucketOutput,
  CreateBucketRequest,
  DeleteBucketRequest,
  GetBucketLocationOutput,
  GetBucketLocationRequest,
  HeadBucketOutput,
  HeadBucketRequest,
  ListBucketsOutput,
  ListBucketsRequest,
} from '../../generated/s3/shapes.js';
import type { RequestContext } from '../../protocol/context.js';
import { S3Error, s3Error } from '../../protocol/rest-xml/s3-errors.js';
import { assertValidBucketName, decodeToken, encodeToken, ownerOf, requireBucket, type S3Deps } from './common.js';

const bucketArn = (name: string) => `arn:aws:s3:::${name}`;

export class BucketHandlers {
  constructor(private readonly deps: S3Deps) {}

  async createBucket(input: CreateBucketRequest, ctx: RequestContext): Promise<CreateBucketOutput> {
    assertValidBucketName(input.Bucket);
    // DEVIATION(aws): S3 requires the LocationConstraint to match the endpoint's region; Slipway has
    // one endpoint for every region, so the constraint (or the signing region) names the bucket's region.
    const region = input.CreateBucketConfiguration?.LocationConstraint || ctx.region;
    const { created, bucket } = await this.deps.store.createBucket({
      name: input.Bucket,
      account_id: ctx.accountId,
      region,
      created_at: Date.now(),
    });
    if (!created) {
      if (bucket.account_id !== ctx.accountId) throw s3Error('BucketAlreadyExists', { BucketName: input.Bucket });
      // S3's legacy us-east-1 behaviour: creating a bucket you already own there succeeds.
      if (!(bucket.region === 'us-east-1' && region === 'us-east-1'))
        throw s3Error('BucketAlreadyOwnedByYou', { BucketName: input.Bucket });
    }
    return { Location: `/${input.Bucket}`, BucketArn: bucketArn(input.Bucket) };
  }

  async headBucket(input: HeadBucketRequest): Promise<HeadBucketOutput> {
    const b = await requireBucket(this.deps, input.Bucket);
    // The SageMaker SDK's default bucket check: a bucket of another account is 403.
    if (input.ExpectedBucketOwner !== undefined && input.ExpectedBucketOwner !== b.account_id)
      throw s3Error('AccessDenied');
    return { BucketRegion: b.region, BucketArn: bucketArn(b.name), AccessPointAlias: false };
  }

  async getBucketLocation(input: GetBucketLocationRequest): Promise<GetBucketLocationOutput> {
    const b = await requireBucket(this.deps, input.Bucket);
    // us-east-1 is the empty constraint, as S3 answers.
    return {
      LocationConstraint: (b.region === 'us-east-1' ? '' : b.region) as GetBucketLocationOutput['LocationConstraint'],
    };
  }

  async deleteBucket(input: DeleteBucketRequest): Promise<void> {
    const r = await this.deps.store.deleteBucket(input.Bucket);
    if (r === 'missing') throw s3Error('NoSuchBucket', { BucketName: input.Bucket });
    if (r === 'not-empty') throw s3Error('BucketNotEmpty', { BucketName: input.Bucket });
  }

  async listBuckets(input: ListBucketsRequest, ctx: RequestContext): Promise<ListBucketsOutput> {
    const max = input.MaxBuckets ?? 10_000;
    if (max < 1 || max > 10_000) {
      throw new S3Error('InvalidArgument', 'Argument max-buckets must be between 1 and 10000', {
        ArgumentName: 'max-buckets',
      });
    }
    const after = input.ContinuationToken !== undefined ? decodeToken(input.ContinuationToken) : undefined;
    const rows = await this.deps.store.listBuckets(ctx.accountId, {
      ...(input.Prefix ? { prefix: input.Prefix } : {}),
      ...(after && 'after' in after ? { after: after.after } : {}),
      limit: max + 1,
    });
    const page = rows.slice(0, max);
    const filtered = input.BucketRegion ? page.filter((b) => b.region === input.BucketRegion) : page;
    return {
      Buckets: filtered.map((b) => ({
        Name: b.name,
        CreationDate: new Date(b.created_at),
        BucketRegion: b.region,
        BucketArn: bucketArn(b.name),
      })),
      Owner: ownerOf(ctx.accountId),
      ...(rows.length > max ? { ContinuationToken: encodeToken({ after: page[page.length - 1]!.name }) } : {}),
      ...(input.Prefix !== undefined ? { Prefix: input.Prefix } : {}),
    };
  }
}
