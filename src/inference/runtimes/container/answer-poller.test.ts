// The server's loop polls for a worker's answer (--invoke-poll-us): it keeps turning while a
// polled-for answer is due and sleeps again once it came, or once the window is over; through a
// ChannelContainer, a worker whose last answer took longer than the window is waited for asleep.
// "Turning" is read off the event loop's utilization: a loop asleep in epoll_wait is idle.

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { AnswerPoller, CONTENDED, type RunDelay, threadRunDelay } from './answer-poller.js';
import { ChannelContainer } from './channel-container.js';

/** The share of the next `ms` the event loop was busy (not asleep waiting for I/O or timers). */
async function busyShare(ms: number): Promise<number> {
  const e0 = performance.eventLoopUtilization();
  await sleep(ms);
  return performance.eventLoopUtilization(e0).utilization;
}

/** A server thread that never waits for a CPU (these tests run beside others on a busy machine). */
const calm: RunDelay = () => 0;

class CountingPoller extends AnswerPoller {
  expects = 0;
  settles = 0;
  override expect(): void {
    this.expects++;
    super.expect();
  }
  override settled(): void {
    this.settles++;
    super.settled();
  }
}

/** Slipway's answer frame (channel-container.ts): >IHHH, the content type, the body. */
function answer(status: number, body: string, contentType = 'text/csv'): Buffer {
  const head = Buffer.alloc(10);
  head.writeUInt32BE(Buffer.byteLength(body), 0);
  head.writeUInt16BE(status, 4);
  head.writeUInt16BE(contentType.length, 6);
  head.writeUInt16BE(0, 8);
  return Buffer.concat([head, Buffer.from(contentType, 'latin1'), Buffer.from(body)]);
}

/** A ChannelContainer over streams, with a worker that answers each request after `delayMs`. */
async function fakeWorker(poller: AnswerPoller, delayMs: () => number) {
  const toWorker = new PassThrough();
  const fromWorker = new PassThrough();
  const timers = new Set<NodeJS.Timeout>();
  const c = new ChannelContainer(toWorker, fromWorker, { stop: () => {} }, poller);
  toWorker.on('data', () => {
    const reply = () => fromWorker.write(answer(200, '1.5\n'));
    const d = delayMs();
    if (d === 0) setImmediate(reply);
    else {
      const t = setTimeout(() => {
        timers.delete(t);
        reply();
      }, d);
      timers.add(t);
    }
  });
  fromWorker.write(answer(0, '', '')); // loaded
  await c.waitReady(1000);
  const ask = () => c.invoke({ body: Buffer.from('1,2'), contentType: 'text/csv', accept: 'text/csv' });
  const close = () => {
    for (const t of timers) clearTimeout(t);
  };
  return { c, ask, close };
}

describe('AnswerPoller', () => {
  it('keeps the loop turning while an answer is due, and lets it sleep once it came', async () => {
    const p = new AnswerPoller(60_000, calm); // a window far longer than the measurement
    await sleep(50); // the test runner's own start-up shares this loop at first
    assert.ok((await busyShare(30)) < 0.5, 'an idle loop sleeps');
    p.expect();
    const polling = await busyShare(30);
    p.settled();
    await sleep(5);
    const after = await busyShare(30);
    assert.ok(polling > 0.8, `the loop kept turning while the answer was due (busy ${polling.toFixed(2)})`);
    assert.ok(after < 0.5, `and slept again once it came (busy ${after.toFixed(2)})`);
  });

  it('stops at the end of the window even when the answer never comes', async () => {
    const p = new AnswerPoller(5_000, calm); // 5 ms
    p.expect();
    const share = await busyShare(60);
    assert.ok(share < 0.5, `polled for the window only (busy ${share.toFixed(2)} of 60 ms)`);
    const again = await busyShare(30);
    assert.ok(again < 0.2, `then the loop sleeps (busy ${again.toFixed(2)})`);
  });

  it('a window of 0 never polls; an answer slower than the window is not worth it', () => {
    assert.equal(new AnswerPoller(0, calm).worth(0), false);
    const p = new AnswerPoller(200, calm);
    assert.equal(p.worth(0.1), true);
    assert.equal(p.worth(0.3), false);
  });

  it('polls for nothing while the server’s thread waits for a CPU (the cores are contended)', async () => {
    // A run delay that grows by `share` of the time that passes.
    let share = 0.5;
    let delay = 0;
    let at = performance.now();
    const p = new AnswerPoller(60_000, () => {
      const t = performance.now();
      delay += (t - at) * 1e6 * share;
      at = t;
      return delay;
    });
    assert.equal(p.worth(0), true, 'nothing measured yet');
    await sleep(70);
    assert.equal(p.worth(0), false, 'the thread waited for a CPU half the time');
    share = CONTENDED / 3;
    await sleep(70);
    assert.equal(p.worth(0), true, 'the cores are free again');
    assert.equal(typeof threadRunDelay(), 'number', 'Linux reports the run delay');
  });

  it('through a channel: a fast worker’s answers are each polled for, and the loop sleeps after the last', async () => {
    const p = new CountingPoller(50_000, calm);
    const w = await fakeWorker(p, () => 0);
    for (let i = 0; i < 50; i++) assert.equal((await w.ask()).body.toString(), '1.5\n');
    assert.equal(p.expects, 50, 'every request was polled for');
    assert.equal(p.settles, 50, 'and every answer ended its polling');
    const after = await busyShare(30);
    assert.ok(after < 0.5, `no answer due: the loop sleeps (busy ${after.toFixed(2)})`);
  });

  it('through a channel: after an answer slower than the window, the next request is waited for asleep', async () => {
    const p = new CountingPoller(2_000, calm); // 2 ms
    let delay = 20;
    const w = await fakeWorker(p, () => delay);
    await w.ask(); // nothing known yet: polled for (2 ms), then the 20 ms answer
    await w.ask();
    await w.ask();
    assert.equal(p.expects, 1, 'only the first request, before its answer showed the model slow');
    delay = 0;
    await w.ask(); // the last answer was slow: asleep; this one is fast
    await w.ask();
    assert.equal(p.expects, 2, 'a fast answer makes the next one worth polling for again');
    assert.equal(p.settles, 2);
  });

  it('through a channel: a worker that dies with a request in flight ends its polling', async () => {
    const p = new CountingPoller(60_000, calm);
    const w = await fakeWorker(p, () => 60_000); // never answers in time
    const asked = w.ask();
    await sleep(5);
    w.c.exited('The container exited with code 1.');
    await assert.rejects(asked, /exited with code 1/);
    w.close();
    assert.deepEqual([p.expects, p.settles], [1, 1]);
    const after = await busyShare(30);
    assert.ok(after < 0.5, `the loop sleeps again (busy ${after.toFixed(2)})`);
  });
});
