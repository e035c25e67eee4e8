import assert from 'node:assert/strict';
import { test } from 'node:test';
import { layout, periodFor } from './endpoint-history.js';

test('results laid on every period of the range: counts 0, latencies null where nothing ran', () => {
  const h = layout(
    [
      { Id: 'invocations', Timestamps: [120, 240], Values: [5, 2] },
      { Id: 'modelLatency', Timestamps: ['1970-01-01T00:02:00.000Z'], Values: [1500] },
      { Id: 'errors5xx', Timestamps: [9999], Values: [1] },
    ],
    60,
    300,
    60,
  );
  assert.deepEqual(h.x, [60, 120, 180, 240]);
  assert.deepEqual(h.invocations, [0, 5, 0, 2]);
  assert.deepEqual(h.errors5xx, [0, 0, 0, 0]);
  assert.deepEqual(h.modelLatency, [null, 1.5, null, null]);
  assert.equal(periodFor(3600), 60);
  assert.equal(periodFor(86_400), 300);
});
