// What a role Slipway acts as may do with an `s3://` location: the bulk loader and jobs read their
// inputs and write their outputs as the role the request names (iamRoleArn, a job's RoleArn).
import type { Authorizer } from './authorizer.js';

const split = (uri: string) => /^s3:\/\/([^/]+)\/?(.*)$/.exec(uri);

/** Lists and reads `s3://bucket/prefix`: both s3:ListBucket on the bucket and s3:GetObject under it. */
export function roleMayRead(authz: Authorizer, role: string, uri: string, region?: string): boolean {
  const m = split(uri);
  if (!m) return true;
  const [, bucket, prefix] = m;
  return (
    authz.roleMay(role, 's3:ListBucket', `arn:aws:s3:::${bucket}`, region) &&
    authz.roleMay(role, 's3:GetObject', `arn:aws:s3:::${bucket}/${prefix}`, region)
  );
}

/** Writes the object `s3://bucket/key` (s3:PutObject). */
export function roleMayWrite(authz: Authorizer, role: string, uri: string, region?: string): boolean {
  const m = split(uri);
  return !m || authz.roleMay(role, 's3:PutObject', `arn:aws:s3:::${m[1]}/${m[2]}`, region);
}
