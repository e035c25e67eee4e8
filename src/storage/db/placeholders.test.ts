// Unit tests for the `?` to `$n` placeholder rewrite used by the PostgreSQL adapter.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rewritePlaceholders } from './placeholders.js';

describe('rewritePlaceholders', () => {
  const cases: Array<[string, string]> = [
    ['SELECT 1', 'SELECT 1'],
    ['SELECT ? , ?', 'SELECT $1 , $2'],
    ["SELECT '?', ?", "SELECT '?', $1"],
    ["SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"],
    ["SELECT E'\\'?', ?", "SELECT E'\\'?', $1"],
    ['SELECT "a?b", ?', 'SELECT "a?b", $1'],
    ['SELECT ? -- why?\n, ?', 'SELECT $1 -- why?\n, $2'],
    ['SELECT /* ? /* ? */ ? */ ?', 'SELECT /* ? /* ? */ ? */ $1'],
    ['DO $$ SELECT ? $$; SELECT ?', 'DO $$ SELECT ? $$; SELECT $1'],
    ['SELECT $tag$ ? $tag$, ?', 'SELECT $tag$ ? $tag$, $1'],
    ['SELECT a$b, ?', 'SELECT a$b, $1'],
    ['WHERE x IN (?,?,?)', 'WHERE x IN ($1,$2,$3)'],
    ["SELECT 'unterminated ?", "SELECT 'unterminated ?"],
  ];
  for (const [input, expected] of cases) {
    it(JSON.stringify(input), () => assert.equal(rewritePlaceholders(input), expected));
  }
});
