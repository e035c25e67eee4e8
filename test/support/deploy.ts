// Deploys a model artifact the way the seed notebook does (model, serverless endpoint config,
// endpoint) and waits for InService: the end of every train-then-serve test.
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  type SageMakerClient,
  waitUntilEndpointInService,
} from '@aws-sdk/client-sagemaker';

/** The model and endpoint config are `name`; the endpoint too unless `endpointName` says otherwise. */
export async function deployServerless(
  sm: SageMakerClient,
  name: string,
  container: { Image: string; ModelDataUrl: string },
  role = 'arn:aws:iam::111122223333:role/sm',
  o: { endpointName?: string; maxConcurrency?: number } = {},
): Promise<void> {
  const endpoint = o.endpointName ?? name;
  await sm.send(new CreateModelCommand({ ModelName: name, ExecutionRoleArn: role, PrimaryContainer: container }));
  await sm.send(
    new CreateEndpointConfigCommand({
      EndpointConfigName: name,
      ProductionVariants: [
        {
          VariantName: 'AllTraffic',
          ModelName: name,
          ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: o.maxConcurrency ?? 2 },
        },
      ],
    }),
  );
  await sm.send(new CreateEndpointCommand({ EndpointName: endpoint, EndpointConfigName: name }));
  await waitUntilEndpointInService(
    { client: sm, maxWaitTime: 60, minDelay: 1, maxDelay: 1 },
    { EndpointName: endpoint },
  );
}
