// A sandbox whose bwrap failed for a transient reason while building it is built again; any other
// failure is the caller's at once.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PassThrough } from 'node:stream';
import { drained, LaunchError, launch, rerunTransient, retryTransient } from './launch.js';
import { probeLayout } from './mount-plan.js';

/** launch() with a stand-in for bwrap that counts its runs and fails with `complaint`. */
async function launchWithFailingBwrap(complaint: string): Promise<{ error: unknown; runs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-launch-'));
  try {
    const bwrap = join(dir, 'bwrap');
    writeFileSync(bwrap, `#!/bin/sh\necho run >> ${join(dir, 'runs')}\necho '${complaint}' >&2\nexit 1\n`);
    chmodSync(bwrap, 0o755);
    const uid = process.getuid?.() ?? 0;
    const error = await launch({
      bwrap,
      layout: probeLayout(join(dir, 'generated')),
      uid,
      gid: process.getgid?.() ?? uid,
      argv: ['true'],
      cwd: '/',
      env: {},
      binds: [],
      hidden: [],
      shmBytes: 1 << 20,
      network: 'none',
      marker: {},
      prepare: async () => {},
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    return { error, runs: readFileSync(join(dir, 'runs'), 'utf8').trim().split('\n').length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('launch retries what the kernel refused for a moment', () => {
  const failing = (messages: string[]) => {
    let calls = 0;
    return {
      get calls() {
        return calls;
      },
      attempt: async () => {
        const m = messages[calls++];
        if (m !== undefined) throw new LaunchError(m);
        return 'launched';
      },
    };
  };

  it('builds a new sandbox after a refused fork or a lost loopback answer', async () => {
    const f = failing([
      'the sandbox ended before its program started (1): bwrap: Creating new namespace failed: Resource temporarily unavailable',
      'bwrap: loopback: Failed RTM_NEWADDR: No child processes',
    ]);
    assert.equal(await retryTransient(f.attempt), 'launched');
    assert.equal(f.calls, 3);
  });

  it('gives up after five attempts with the last complaint', async () => {
    const f = failing(Array(7).fill('bwrap: loopback: Failed RTM_NEWADDR: No child processes'));
    await assert.rejects(retryTransient(f.attempt), /loopback: Failed RTM_NEWADDR/);
    assert.equal(f.calls, 5);
  });

  it('launch itself builds the sandbox again for a transient complaint of bwrap, not for another', async () => {
    const transient = await launchWithFailingBwrap('bwrap: loopback: Failed RTM_NEWADDR: No child processes');
    assert.ok(transient.error instanceof LaunchError && /loopback: Failed/.test(transient.error.message));
    assert.equal(transient.runs, 5);
    const other = await launchWithFailingBwrap("bwrap: Can't find source path /nope: No such file or directory");
    assert.ok(other.error instanceof LaunchError);
    assert.equal(other.runs, 1);
  });

  it('does not retry what is not transient: a bind that cannot be made, an error of its own', async () => {
    const bind = failing(["bwrap: Can't find source path /nope: No such file or directory"]);
    await assert.rejects(retryTransient(bind.attempt), /Can't find source path/);
    assert.equal(bind.calls, 1);
    let other = 0;
    await assert.rejects(
      retryTransient(async () => {
        other++;
        throw new Error('Resource temporarily unavailable');
      }),
    );
    assert.equal(other, 1);
  });
});

describe('drained: an exit is told after the last of standard error', () => {
  it('waits for a pipe to end, then lets what it carried be read first', async () => {
    // A child's 'exit' can come before its pipes' last chunks: the exit message quotes them.
    const stderr = new PassThrough();
    let said = '';
    stderr.setEncoding('utf8').on('data', (d: string) => {
      said += d;
    });
    setTimeout(() => stderr.end('slipway_serving: the last word\n'), 50);
    const started = Date.now();
    await drained(stderr, 5000);
    assert.equal(said, 'slipway_serving: the last word\n');
    assert.ok(Date.now() - started < 4000);
  });

  it('gives up after its bound on a pipe a survivor holds open, and is at once done with an ended one', async () => {
    const held = new PassThrough().resume();
    const started = Date.now();
    await drained(held, 100);
    assert.ok(Date.now() - started >= 90, `resolved after ${Date.now() - started} ms`);
    const ended = new PassThrough().resume();
    ended.end();
    await new Promise((r) => ended.once('end', r));
    await drained(ended, 60_000);
    await drained(undefined, 60_000);
  });
});

describe('rerunTransient: a job whose sandbox bwrap could not finish setting up runs again', () => {
  const LOOPBACK = 'the sandbox could not be set up: bwrap: loopback: Failed RTM_NEWADDR: No child processes';
  it('runs again after a transient setup failure, and says so', async () => {
    const exits = [{ code: 1, startError: LOOPBACK }, { code: 0 }];
    const notes: string[] = [];
    const exit = await rerunTransient(
      async () => exits.shift()!,
      (why) => notes.push(why),
    );
    assert.deepEqual(exit, { code: 0 });
    assert.deepEqual(notes, [LOOPBACK]);
  });

  it('at most five runs in all; any other outcome is final at once', async () => {
    let runs = 0;
    const always = await rerunTransient(
      async () => {
        runs++;
        return { code: 1, startError: LOOPBACK };
      },
      () => {},
    );
    assert.equal(always.startError, LOOPBACK);
    assert.equal(runs, 5);
    runs = 0;
    const other = await rerunTransient(
      async () => {
        runs++;
        return { code: 1, startError: "the sandbox could not be set up: bwrap: Can't find source path /x" };
      },
      () => {},
    );
    assert.equal(runs, 1);
    assert.match(other.startError!, /Can't find/);
    runs = 0;
    await rerunTransient(
      async (): Promise<{ code: number; startError?: string }> => {
        runs++;
        return { code: 3 };
      },
      () => {},
    );
    assert.equal(runs, 1);
  });
});
