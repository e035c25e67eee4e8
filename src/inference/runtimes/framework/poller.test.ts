// The framework worker's busy-polling before it sleeps (python/slipway_serving/worker.py, Poller),
// driven in the Debian python3 over a socket pair: how its window adapts to the gaps between
// requests, that it gives up at the window's end, and that it never holds up the end of input.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { servingRoot } from './framework-runtime.js';
import { frameworkMissing, SYSTEM_PYTHON } from './test-support.js';

const skip = frameworkMissing('numpy', 'python3-numpy');

function run(script: string): Record<string, unknown> {
  const r = spawnSync(SYSTEM_PYTHON, ['-c', script], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: join(servingRoot(), 'slipway_serving') },
    timeout: 30_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

const PRELUDE = `
import json, os, socket, sys, time
from worker import Poller, poll_setting
a, b = socket.socketpair()
now = time.perf_counter_ns
`;

test('the window grows while requests come densely and falls to none while they are sparse', { skip }, () => {
  const r = run(`${PRELUDE}
p = Poller(a.fileno(), 300_000)
out = {"start": p.window}
# Each request came 400 us after the answer (within 4 x 300 us): a longer window would have caught it.
grown = []
for _ in range(4):
    p.slept(now() - 400_000)
    grown.append(p.window)
out["grown"] = grown
# A request already there is found by polling; the window is kept.
b.send(b"x")
out["found"] = p.wait()
out["kept"] = p.window
a.recv(1)
# Requests 5 ms apart: polling would be wasted.
shrunk = []
for _ in range(4):
    p.slept(now() - 5_000_000)
    shrunk.append(p.window)
out["shrunk"] = shrunk
sys.__stdout__.write(json.dumps(out) + "\\n")  # the worker sends print() to standard error
`);
  assert.equal(r.start, 0, 'a new worker does not poll before it has seen its traffic');
  assert.deepEqual(r.grown, [50_000, 100_000, 200_000, 300_000]);
  assert.equal(r.found, null);
  assert.equal(r.kept, 300_000);
  assert.deepEqual(r.shrunk, [150_000, 75_000, 0, 0]);
});

test('a yield that returns late stops polling for the next BACKOFF gaps', { skip }, () => {
  const r = run(`${PRELUDE}
slow = lambda: time.sleep(0.002)  # another task held the CPU for 2 ms
p = Poller(a.fileno(), 300_000, give_way=slow)
p.window = 300_000
t = now(); began = p.wait(); out = {"ms": (now() - t) / 1e6, "began": began is not None, "backoff": p.backoff}
b.send(b"x")  # a request is there, but polling is off for now: the read will find it
out["next"] = p.wait() is not None
out["left"] = p.backoff
out["BACKOFF"] = Poller.BACKOFF
sys.__stdout__.write(json.dumps(out) + "\\n")
`);
  assert.equal(r.began, true);
  assert.ok((r.ms as number) < 100, 'it stopped after the first late yield');
  assert.equal(r.backoff, r.BACKOFF);
  assert.equal(r.next, true, 'the gap after that is not polled');
  assert.equal(r.left, (r.BACKOFF as number) - 1);
});

test('polling ends at the window, at once with no window, and at the end of input', { skip }, () => {
  const r = run(`${PRELUDE}
p = Poller(a.fileno(), 2_000_000)
p.window = 2_000_000
t = now(); began = p.wait(); out = {"polled_ms": (now() - t) / 1e6, "began": began is not None}
p.window = 0
t = now(); p.wait(); out["idle_ms"] = (now() - t) / 1e6
off = Poller(a.fileno(), 0)
out["off"] = off.wait()
long = Poller(a.fileno(), 10_000_000_000)
long.window = 10_000_000_000
b.close()
t = now(); out["eof"] = long.wait(); out["eof_ms"] = (now() - t) / 1e6
out["settings"] = [poll_setting("300"), poll_setting(""), poll_setting(None), poll_setting("x"), poll_setting("-3")]
sys.__stdout__.write(json.dumps(out) + "\\n")  # the worker sends print() to standard error
`);
  assert.ok((r.polled_ms as number) >= 2, `polled ${r.polled_ms} ms of a 2 ms window`);
  assert.ok((r.polled_ms as number) < 1000);
  assert.equal(r.began, true, 'nothing came: the read that follows sleeps');
  assert.ok((r.idle_ms as number) < 50, 'no window: no polling');
  assert.equal(r.off, null, '--worker-poll-us 0: never polls');
  assert.equal(r.eof, null, 'the end of input is found by polling, so the worker reads it and stops');
  assert.ok((r.eof_ms as number) < 1000, `a 10 s window did not hold up the end of input (${r.eof_ms} ms)`);
  assert.deepEqual(r.settings, [300_000, 0, 0, 0, 0]);
});
