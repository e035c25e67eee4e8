import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { PageTokens } from './page-token.js';

const tokens = new PageTokens(randomBytes(32));

test('round-trips a position', () => {
  const t = tokens.encode('ListX|a', { after: [1700000000000, 'name'] });
  assert.deepEqual(tokens.decode('ListX|a', t), { after: [1700000000000, 'name'] });
});

test('refuses tampered, foreign-scope and garbage tokens', () => {
  const t = tokens.encode('ListX|a', { after: 1 });
  const [body, tag] = t.split('.');
  const forged = Buffer.from(JSON.stringify({ after: 2 })).toString('base64url');
  assert.throws(() => tokens.decode('ListX|a', `${forged}.${tag}`), /Invalid pagination token/);
  assert.throws(() => tokens.decode('ListX|b', t), /Invalid pagination token/);
  assert.throws(() => tokens.decode('ListX|a', 'garbage'), /Invalid pagination token/);
  assert.throws(() => tokens.decode('ListX|a', `${body}.`), /Invalid pagination token/);
  assert.throws(() => new PageTokens(randomBytes(32)).decode('ListX|a', t), /Invalid pagination token/);
});
