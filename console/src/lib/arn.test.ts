import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageOf, shortName } from './arn.js';

test('short names tell models of different jobs apart, and keep ARNs, images and data sets short', () => {
  assert.equal(shortName('s3://b/abalone/output/slipway-demo-r2-shallow/output/model.tar.gz'), 'slipway-demo-r2-shallow/model.tar.gz');
  assert.equal(shortName('s3://b/abalone/train/'), 'abalone/train');
  assert.equal(shortName('s3://bucket'), 'bucket');
  assert.equal(shortName('arn:aws:sagemaker:us-east-1:0:endpoint/ep'), 'ep');
  assert.equal(shortName('683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1'), 'sagemaker-xgboost:1.7-1');
  assert.equal(pageOf('arn:aws:sagemaker:us-east-1:0:training-job/j1'), '/jobs/training/j1');
});
