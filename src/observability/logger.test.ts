import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, prettyLine } from './logger.js';
import { MetricsRegistry } from './registry.js';

function sink(isTTY: boolean) {
  const lines: string[] = [];
  return { lines, dest: { isTTY, write: (s: string) => void lines.push(s) } };
}

test('on a terminal the lines are for people; elsewhere JSON; both counted by level', async () => {
  const m = new MetricsRegistry();
  const counters = { lines: m.counter('lines', 'l', ['level']), bytes: m.counter('bytes', 'b', ['level']) };
  const tty = sink(true);
  const log = createLogger({ level: 'info', format: 'auto', destination: tty.dest, counters });
  log.info({ requestId: 'r-1', op: 'PutObject', status: 200 }, 'request');
  log.error({ err: new Error('boom') }, 'request failed');
  log.debug('not written');
  assert.match(tty.lines[0]!, /^\d\d:\d\d:\d\d\.\d{3} .*INFO.* request .*requestId=r-1 op=PutObject status=200/);
  assert.match(tty.lines[1]!, /ERROR.* request failed\n {4}Error: boom\n {8}at /);
  const pipe = sink(false);
  createLogger({ level: 'info', format: 'auto', destination: pipe.dest, counters }).warn({ a: 1 }, 'careful');
  assert.equal(JSON.parse(pipe.lines[0]!).msg, 'careful');
  const forced = sink(false);
  createLogger({ level: 'info', format: 'pretty', destination: forced.dest }).info('hello');
  assert.match(forced.lines[0]!, /INFO {2}hello\n$/);
  const text = await m.render();
  assert.match(text, /^lines\{level="info"\} 1$/m);
  assert.match(text, /^lines\{level="error"\} 1$/m);
  assert.match(text, /^lines\{level="warn"\} 1$/m);
});

test('a line that is not JSON passes through', () => {
  assert.equal(prettyLine('plain text\n'), 'plain text\n');
});
