import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isConsoleOrigin } from './console-cors.js';

test('the console origin is the host the graph request went to, on the AWS port', () => {
  assert.equal(isConsoleOrigin('http://127.0.0.1:4810', '127.0.0.1:8182', 4810), true);
  assert.equal(isConsoleOrigin('http://localhost:4810', 'localhost:8182', 4810), true);
  assert.equal(isConsoleOrigin('https://graph.example', 'graph.example:8182', 443), true);
});

test('other origins are not the console', () => {
  assert.equal(isConsoleOrigin('http://127.0.0.1:4811', '127.0.0.1:8182', 4810), false);
  assert.equal(isConsoleOrigin('http://evil.example:4810', '127.0.0.1:8182', 4810), false);
  assert.equal(isConsoleOrigin('null', '127.0.0.1:8182', 4810), false);
  assert.equal(isConsoleOrigin('file:///x', '127.0.0.1:8182', 4810), false);
});
