// Reads the credential scope of a SigV4-signed request (header or presigned query) to learn the
// region and the service the client meant, for routing only: it trusts nothing. Verification (with
// a credentials file) is src/auth/sigv4.ts, which parses the same fields strictly.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
import type { IncomingHttpHeaders } from 'node:http';

export interface CredentialScope {
  readonly accessKeyId: string;
  readonly region: string;
  readonly service: string;
}

const SCOPE = /Credential=([^/,\s]+)\/\d{8}\/([^/,\s]+)\/([^/,\s]+)\/aws4_request/;

export function credentialScope(headers: IncomingHttpHeaders, query?: URLSearchParams): CredentialScope | undefined {
  const auth = headers.authorization;
  let m = typeof auth === 'string' ? SCOPE.exec(auth) : null;
  if (!m && query) {
    const cred = query.get('X-Amz-Credential');
    if (cred) m = SCOPE.exec(`Credential=${cred}`);
  }
  return m ? { accessKeyId: m[1]!, region: m[2]!, service: m[3]! } : undefined;
}
