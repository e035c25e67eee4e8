import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

test('defaults: 127.0.0.1:4810, graph 8182, ./.slipway, account 000000000000, SQLite', () => {
  const c = loadConfig([], {});
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 4810);
  assert.equal(c.graphPort, 8182);
  assert.ok(c.dataDir.endsWith('/.slipway'));
  assert.equal(c.accountId, '000000000000');
  assert.equal(c.databaseUrl, undefined);
  assert.ok(Object.isFrozen(c));
});

test('flags win over environment', () => {
  const c = loadConfig(['--port', '9000', '--account-id', '111122223333'], {
    SLIPWAY_PORT: '1',
    SLIPWAY_ACCOUNT_ID: '999999999999',
    SLIPWAY_DATABASE_URL: 'postgres://u@h/db',
  });
  assert.equal(c.port, 9000);
  assert.equal(c.accountId, '111122223333');
  assert.equal(c.databaseUrl, 'postgres://u@h/db');
});

test('bad values are clear errors', () => {
  assert.throws(() => loadConfig(['--port', 'x'], {}), ConfigError);
  assert.throws(() => loadConfig(['--account-id', '12'], {}), /12 digits/);
  assert.throws(() => loadConfig(['--database-url', 'mysql://x'], {}), /postgres/);
  assert.throws(() => loadConfig(['--bogus'], {}), ConfigError);
});

test('secure by default: off loopback only with a credentials file or --allow-anonymous', () => {
  assert.equal(loadConfig(['--host', '::1'], {}).host, '::1');
  assert.equal(loadConfig(['--host', 'localhost'], {}).host, 'localhost');
  assert.throws(() => loadConfig(['--host', '0.0.0.0'], {}), /--credentials-file/);
  assert.throws(() => loadConfig([], { SLIPWAY_HOST: '10.1.2.3' }), /--credentials-file/);
  const open = loadConfig(['--host', '0.0.0.0', '--allow-anonymous'], {});
  assert.equal(open.allowAnonymous, true);
  const team = loadConfig(['--host', '0.0.0.0'], { SLIPWAY_CREDENTIALS_FILE: 'creds.json' });
  assert.ok(team.credentialsFile?.endsWith('/creds.json'));
});

test('--invoke-poll-us: 400 by default, env SLIPWAY_INVOKE_POLL_US, 0 turns it off', () => {
  assert.equal(loadConfig([], {}).invokePollMicros, 400);
  assert.equal(loadConfig(['--invoke-poll-us', '0'], {}).invokePollMicros, 0);
  assert.equal(loadConfig([], { SLIPWAY_INVOKE_POLL_US: '500' }).invokePollMicros, 500);
  assert.throws(() => loadConfig(['--invoke-poll-us', 'x'], {}), /invoke-poll-us/);
});

test('--worker-poll-us: off by default, env SLIPWAY_WORKER_POLL_US', () => {
  assert.equal(loadConfig([], {}).workerPollMicros, 0);
  assert.equal(loadConfig(['--worker-poll-us', '300'], {}).workerPollMicros, 300);
  assert.equal(loadConfig([], { SLIPWAY_WORKER_POLL_US: '1000' }).workerPollMicros, 1000);
  assert.throws(() => loadConfig(['--worker-poll-us', '-5'], {}), /worker-poll-us/);
});
