// The three AWS SDK clients an end-to-end test drives a Slipway server with (S3 path-style).
import { S3Client } from '@aws-sdk/client-s3';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { REGION } from './server.js';

export function sdkClients(endpoint: string, credentials = { accessKeyId: 'test', secretAccessKey: 'test' }) {
  const cfg = { endpoint, region: REGION, credentials };
  return {
    sm: new SageMakerClient(cfg),
    s3: new S3Client({ ...cfg, forcePathStyle: true }),
    rt: new SageMakerRuntimeClient(cfg),
  };
}
