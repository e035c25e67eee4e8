// Which bucket a request's Host header names in S3's virtual-hosted style.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/VirtualHosting.html

/**
 * The bucket named by the Host header in virtual-hosted style: `<bucket>.localhost[:port]` or
 * `<bucket>.s3.<anything>` (e.g. `models.s3.slipway.internal`). IP addresses and bare names are path-style.
 */
export function virtualHostBucket(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const name = host.replace(/:\d+$/, '').toLowerCase();
  if (/^[\d.]+$/.test(name) || name.startsWith('[')) return undefined;
  const local = /^(.+)\.localhost$/.exec(name);
  if (local) return local[1];
  const s3 = /^(.+?)\.s3[.-]/.exec(name);
  return s3 && s3[1] !== 's3' ? s3[1] : undefined;
}
