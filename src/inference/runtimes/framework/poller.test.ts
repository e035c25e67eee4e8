// The framework worker's busy-polling before it sleeps (python/slipway_serving/worker.py, Poller),
// driven in the Debian python3 over a socket pair: how its window adapts to the gaps between
// requests, that it gives up at the window's end, that it never holds up the end of input, and
// that the worker's protocol loop uses it with the server's setting.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { servingRoot } from './framework-runtime.js';
import { frameworkMissing, SYSTEM_PYTHON } from './test-support.js';

const skip = frameworkMissing('numpy', 'python3-numpy');

function python(script: string, input?: Buffer, env: Record<string, string> = {}) {
  const r = spawnSync(SYSTEM_PYTHON, ['-c', script], {
    input,
    env: { ...process.env, PYTHONPATH: join(servingRoot(), 'slipway_serving'), ...env },
    timeout: 30_000,
  });
  assert.equal(r.status, 0, r.stderr.toString());
  return r;
}

/** The last line the script reports (JSON). */
function run(script: string): Record<string, unknown> {
  const lines = python(script).stdout.toString().trim().split('\n');
  return JSON.parse(lines.at(-1)!) as Record<string, unknown>;
}

const PRELUDE = `
import json, os, socket, sys, time
from worker import Poller, poll_setting
a, b = socket.socketpair()
now = time.perf_counter_ns
def report(out):
    sys.__stdout__.write(json.dumps(out) + "\\n")  # the worker sends print() to standard error
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
report(out)
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
report(out)
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
report(out)
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

test('the protocol loop polls with SLIPWAY_WORKER_POLL_US and answers every request', { skip }, () => {
  // Three requests on the worker's standard input (>IHHH, content type, body), then its end.
  const frame = (b: string) => {
    const head = Buffer.alloc(10);
    head.writeUInt32BE(b.length, 0);
    head.writeUInt16BE(10, 4);
    return Buffer.concat([head, Buffer.from('text/plain'), Buffer.from(b)]);
  };
  const input = Buffer.concat(['abc', 'hello', 'xy'].map(frame));
  const script = `
import json, os, worker
seen = {"max_ns": None, "waits": 0, "slept": 0}
class Recording(worker.Poller):
    def __init__(self, fd, max_ns):
        super().__init__(fd, max_ns)
        seen["max_ns"] = max_ns
    def wait(self):
        seen["waits"] += 1
        return super().wait()
    def slept(self, t0):
        seen["slept"] += 1
        super().slept(t0)
worker.Poller = Recording
class Reverse:
    def invoke(self, body, content_type, accept):
        return 200, content_type, body[::-1]
try:
    worker.serve_channel(Reverse())
finally:
    os.write(2, ("\\nSEEN " + json.dumps(seen)).encode())
`;
  const r = python(script, input, { SLIPWAY_WORKER_POLL_US: '300' });
  // The answers: the "loaded" frame, then each body reversed.
  const out = r.stdout;
  const bodies: string[] = [];
  for (let at = 0; at < out.length; ) {
    const n = out.readUInt32BE(at);
    const lct = out.readUInt16BE(at + 6);
    const lattr = out.readUInt16BE(at + 8);
    const start = at + 10 + lct + lattr;
    bodies.push(out.subarray(start, start + n).toString());
    at = start + n;
  }
  assert.deepEqual(bodies, ['', 'cba', 'olleh', 'yx']);
  const seen = JSON.parse(/SEEN (.*)$/.exec(r.stderr.toString())![1]!) as Record<string, number>;
  assert.equal(seen.max_ns, 300_000, 'the setting reaches the poller in µs → ns');
  assert.ok(seen.waits >= 2, 'the loop polls before each new request and before the end of input');
  assert.ok(seen.slept >= 1 && seen.slept < seen.waits, 'a read that slept adapts the window; the end does not');
});
