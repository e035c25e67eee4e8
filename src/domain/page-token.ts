// Opaque, tamper-checked NextToken values: base64url(JSON position) + '.' + HMAC-SHA256 tag.
// The key lives in the database, so a token stays valid across restarts and replicas.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationException } from '../protocol/common-errors.js';

export class PageTokens {
  constructor(private readonly key: Buffer) {}

  /**
   * `scope` binds the token to one operation and its filters: a token from another listing, or
   * from the same listing with other filters, is refused rather than silently misapplied.
   */
  encode(scope: string, position: unknown): string {
    const body = Buffer.from(JSON.stringify(position)).toString('base64url');
    return `${body}.${this.tag(scope, body)}`;
  }

  decode<T>(scope: string, token: string): T {
    const dot = token.lastIndexOf('.');
    if (dot > 0) {
      const body = token.slice(0, dot);
      const tag = Buffer.from(token.slice(dot + 1), 'base64url');
      const want = Buffer.from(this.tag(scope, body), 'base64url');
      if (tag.length === want.length && timingSafeEqual(tag, want)) {
        try {
          return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T;
        } catch {
          // falls through to the error below
        }
      }
    }
    throw new ValidationException('Invalid pagination token. Please use the NextToken from a previous response.');
  }

  private tag(scope: string, body: string): string {
    return createHmac('sha256', this.key)
      .update(scope)
      .update('\0')
      .update(body)
      .digest()
      .subarray(0, 16)
      .toString('base64url');
  }
}
