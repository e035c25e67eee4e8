// FailureReasons in SageMaker's form, with the container's paths rather than this machine's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BlobNotFoundError } from '../storage/blobs/blob-store.js';
import { containerPaths, JobFailure, jobFailureReason } from './job-failure.js';

const JOBS = '/srv/slipway/.slipway/jobs';

test('a JobFailure keeps its words; the job directory reads as /opt/ml', () => {
  const why = {
    message: 'x',
    error: new JobFailure(`ClientError: Unable to parse ${JOBS}/abalone-1-mf3k2a/input/data/train/h.csv: line 3`),
  };
  assert.equal(jobFailureReason(why, JOBS), 'ClientError: Unable to parse /opt/ml/input/data/train/h.csv: line 3');
});

test('a missing bucket or object is a ClientError naming it', () => {
  assert.equal(
    jobFailureReason({ message: '', error: new BlobNotFoundError('s3://nope/train/', 'NoSuchBucket') }),
    'ClientError: The bucket of s3://nope/train/ does not exist (NoSuchBucket). Create it, or name a bucket that exists.',
  );
  assert.equal(
    jobFailureReason({ message: '', error: new BlobNotFoundError('s3://b/k.csv', 'NoSuchKey') }),
    'ClientError: s3://b/k.csv does not exist (NoSuchKey).',
  );
});

test('anything else is an InternalServerError, and worded reasons pass through', () => {
  assert.match(
    jobFailureReason({ message: 'boom', error: new TypeError('boom') }),
    /^InternalServerError: .*\(boom\)$/,
  );
  assert.equal(jobFailureReason({ message: 'AlgorithmError: exit code 1' }), 'AlgorithmError: exit code 1');
});

test('containerPaths rewrites every job directory and leaves other paths alone', () => {
  assert.equal(
    containerPaths(`a ${JOBS}/j1/model and "${JOBS}/j2" then /srv/other/x`, `${JOBS}/`),
    'a /opt/ml/model and "/opt/ml/" then /srv/other/x',
  );
});

test('an upload into a missing bucket says so in SageMaker form', async () => {
  const { uploadFailure } = await import('./job-failure.js');
  assert.equal(
    uploadFailure(new BlobNotFoundError('s3://nope/out/model.tar.gz', 'NoSuchBucket'), 'The model artifacts').message,
    'ClientError: Could not upload the model artifacts to s3://nope/out/model.tar.gz: the bucket does not exist (NoSuchBucket).',
  );
});
