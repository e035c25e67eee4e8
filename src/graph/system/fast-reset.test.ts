import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FastResetTokens, RESET_TOKEN_TTL_MS } from './fast-reset.js';

describe('fast reset tokens', () => {
  it('accepts only the latest token, once, within 60 minutes', () => {
    let now = 1_000;
    const t = new FastResetTokens(() => now);
    const first = t.initiate();
    const second = t.initiate();
    assert.throws(() => t.consume(first), {
      code: 'InvalidParameterException',
      message: `System command parameter 'token' : '${first}' does not match database reset token`,
    });
    t.consume(second);
    assert.throws(() => t.consume(second), { code: 'InvalidParameterException' });
    const third = t.initiate();
    now += RESET_TOKEN_TTL_MS + 1;
    assert.throws(() => t.consume(third), { code: 'InvalidParameterException' });
    assert.throws(() => t.consume(undefined), { code: 'MissingParameterException' });
  });
});
