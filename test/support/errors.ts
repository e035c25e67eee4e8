// Asserting on the errors the real AWS SDK clients raise from Slipway's answers.
import assert from 'node:assert/strict';

export interface SdkError extends Error {
  readonly $metadata: { readonly httpStatusCode?: number; readonly requestId?: string };
  readonly [field: string]: unknown;
}

/**
 * Awaits `p` and requires it to fail with the AWS error `name`, whose message equals `message`
 * (or matches it), sent with HTTP `status` (400: every SageMaker control-plane error).
 */
export async function rejects(
  p: Promise<unknown>,
  name: string,
  message: string | RegExp,
  status = 400,
): Promise<SdkError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof Error && '$metadata' in err, `expected an AWS service error, got ${err}`);
    const e = err as SdkError;
    assert.equal(e.name, name, e.message);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    assert.equal(e.$metadata.httpStatusCode, status);
    return e;
  }
  assert.fail(`expected ${name}`);
}
