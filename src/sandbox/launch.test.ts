// A sandbox whose bwrap failed for a transient reason while building it is built again; any other
// failure is the caller's at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LaunchError, retryTransient } from './launch.js';

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

  it('gives up after three attempts with the last complaint', async () => {
    const f = failing(Array(5).fill('bwrap: loopback: Failed RTM_NEWADDR: No child processes'));
    await assert.rejects(retryTransient(f.attempt), /loopback: Failed RTM_NEWADDR/);
    assert.equal(f.calls, 3);
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
