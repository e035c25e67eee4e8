import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approvalTransitionError } from './approval.js';

test('allowed approval transitions', () => {
  for (const [from, to] of [
    ['PendingManualApproval', 'Approved'],
    ['PendingManualApproval', 'Rejected'],
    ['Rejected', 'Approved'],
    ['Approved', 'Rejected'],
    ['Approved', 'Approved'],
  ]) {
    assert.equal(approvalTransitionError(from!, to!), undefined, `${from} → ${to}`);
  }
});

test('refused approval transitions', () => {
  assert.match(approvalTransitionError('Approved', 'PendingManualApproval')!, /from Approved to PendingManualApproval/);
  assert.match(approvalTransitionError('Rejected', 'PendingManualApproval')!, /from Rejected/);
});
