// Requests sent at the same moment, each answered as its own: signed Creates of distinct names all
// created (PostgreSQL runs their transactions truly at once, where SQLite's one writer queues them:
// two jobs naming one image both wrote its lineage artifact, and the later one was told its own
// name "already exists"), one name created once whatever the number of callers, Describes and
// Invokes answered with their own resource and payload, several principals decided each as itself,
// and S3 and CloudWatch likewise. The SDK clients send each batch together, so the server often
// reads several of them in one event-loop turn and authenticates them together (turn-stage.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CloudWatchClient, ListMetricsCommand, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  AddAssociationCommand,
  AssociateTrialComponentCommand,
  CreateActionCommand,
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateExperimentCommand,
  CreateModelCommand,
  CreateModelPackageCommand,
  CreateModelPackageGroupCommand,
  CreateProcessingJobCommand,
  CreateTrainingJobCommand,
  CreateTrialCommand,
  CreateTrialComponentCommand,
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeExperimentCommand,
  DescribeModelCommand,
  DescribeModelPackageCommand,
  DescribeProcessingJobCommand,
  DescribeTrainingJobCommand,
  ListArtifactsCommand,
  ListAssociationsCommand,
  ListTrialComponentsCommand,
  SageMakerClient,
  waitUntilEndpointInService,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { ALICE, ALICE_ARN, BOB, BOB_ARN, writeCredentialsFile } from '../support/credentials.js';
import {
  ACCOUNT,
  CREDENTIALS,
  databaseArgs,
  REGION,
  startServer,
  tempDir,
  type TestServer,
} from '../support/server.js';

type Creds = { accessKeyId: string; secretAccessKey: string };

const ROLE = `arn:aws:iam::${ACCOUNT}:role/sm`;
const ECHO = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/slipway-test-echo:1`;
/** Requests in each batch: more than the two a race needs, fewer than the pool's ten connections. */
const N = 8;
const arn = (type: string, name: string) => `arn:aws:sagemaker:${REGION}:${ACCOUNT}:${type}/${name}`;

/**
 * Every Create here shares its image and input with the others of its batch: the lineage artifact
 * of an image or a data set is one per URI, created by whichever job names it first.
 */
const CREATES = {
  training: {
    send: (sm: SageMakerClient, name: string) =>
      sm.send(
        new CreateTrainingJobCommand({
          TrainingJobName: name,
          RoleArn: ROLE,
          AlgorithmSpecification: { TrainingImage: 'acct/sagemaker-xgboost:1.7-1', TrainingInputMode: 'File' },
          HyperParameters: { num_round: '2' },
          InputDataConfig: [
            {
              ChannelName: 'train',
              DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://concurrent-data/train/' } },
            },
          ],
          OutputDataConfig: { S3OutputPath: 's3://concurrent-data/out' },
          ResourceConfig: { InstanceType: 'ml.m5.large', InstanceCount: 1, VolumeSizeInGB: 1 },
          StoppingCondition: { MaxRuntimeInSeconds: 60 },
        }),
      ),
    answered: (o: { TrainingJobArn?: string }) => o.TrainingJobArn,
    describe: async (sm: SageMakerClient, name: string) =>
      (await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: name }))).TrainingJobArn,
    arnType: 'training-job',
    taken: (name: string) =>
      `Training job names must be unique within an AWS account and region, and a training job with this name already exists (${arn('training-job', name)})`,
  },
  processing: {
    send: (sm: SageMakerClient, name: string) =>
      sm.send(
        new CreateProcessingJobCommand({
          ProcessingJobName: name,
          RoleArn: ROLE,
          AppSpecification: { ImageUri: 'acct/prep:1' },
          ProcessingInputs: [
            {
              InputName: 'raw',
              S3Input: {
                S3Uri: 's3://concurrent-data/raw/',
                LocalPath: '/opt/ml/processing/input',
                S3DataType: 'S3Prefix',
                S3InputMode: 'File',
              },
            },
          ],
          ProcessingResources: { ClusterConfig: { InstanceCount: 1, InstanceType: 'ml.m5.large', VolumeSizeInGB: 1 } },
        }),
      ),
    answered: (o: { ProcessingJobArn?: string }) => o.ProcessingJobArn,
    describe: async (sm: SageMakerClient, name: string) =>
      (await sm.send(new DescribeProcessingJobCommand({ ProcessingJobName: name }))).ProcessingJobArn,
    arnType: 'processing-job',
    taken: (name: string) =>
      `Job name must be unique within an AWS account and region, and a job with this name already exists (${arn('processing-job', name)})`,
  },
  model: {
    send: (sm: SageMakerClient, name: string) =>
      sm.send(
        new CreateModelCommand({
          ModelName: name,
          ExecutionRoleArn: ROLE,
          PrimaryContainer: { Image: 'acct/serve:1', ModelDataUrl: 's3://concurrent-data/model.tar.gz' },
        }),
      ),
    answered: (o: { ModelArn?: string }) => o.ModelArn,
    describe: async (sm: SageMakerClient, name: string) =>
      (await sm.send(new DescribeModelCommand({ ModelName: name }))).ModelArn,
    arnType: 'model',
    taken: (name: string) => `Cannot create already existing model "${arn('model', name)}".`,
  },
  package: {
    send: (sm: SageMakerClient, name: string) =>
      sm.send(
        new CreateModelPackageCommand({
          ModelPackageName: name,
          InferenceSpecification: {
            Containers: [{ Image: 'acct/serve:2', ModelDataUrl: 's3://concurrent-data/package.tar.gz' }],
            SupportedContentTypes: ['text/csv'],
            SupportedResponseMIMETypes: ['text/csv'],
          },
        }),
      ),
    answered: (o: { ModelPackageArn?: string }) => o.ModelPackageArn,
    describe: async (sm: SageMakerClient, name: string) =>
      (await sm.send(new DescribeModelPackageCommand({ ModelPackageName: name }))).ModelPackageArn,
    arnType: 'model-package',
    taken: (name: string) => `Model Package already exists: ${arn('model-package', name)}`,
  },
  experiment: {
    send: (sm: SageMakerClient, name: string) => sm.send(new CreateExperimentCommand({ ExperimentName: name })),
    answered: (o: { ExperimentArn?: string }) => o.ExperimentArn,
    describe: async (sm: SageMakerClient, name: string) =>
      (await sm.send(new DescribeExperimentCommand({ ExperimentName: name }))).ExperimentArn,
    arnType: 'experiment',
    taken: (name: string) => `Experiment '${arn('experiment', name)}' already exists.`,
  },
  config: {
    send: (sm: SageMakerClient, name: string) =>
      sm.send(
        new CreateEndpointConfigCommand({
          EndpointConfigName: name,
          ProductionVariants: [
            {
              VariantName: 'AllTraffic',
              ModelName: 'shared',
              ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: 1 },
            },
          ],
        }),
      ),
    answered: (o: { EndpointConfigArn?: string }) => o.EndpointConfigArn,
    describe: async (sm: SageMakerClient, name: string) =>
      (await sm.send(new DescribeEndpointConfigCommand({ EndpointConfigName: name }))).EndpointConfigArn,
    arnType: 'endpoint-config',
    taken: (name: string) => `Cannot create already existing endpoint configuration "${arn('endpoint-config', name)}".`,
  },
  // Endpoints of one configuration: each deployment's lineage names the same image and model data.
  endpoint: {
    send: (sm: SageMakerClient, name: string) =>
      sm.send(new CreateEndpointCommand({ EndpointName: name, EndpointConfigName: 'shared' })),
    answered: (o: { EndpointArn?: string }) => o.EndpointArn,
    describe: async (sm: SageMakerClient, name: string) =>
      (await sm.send(new DescribeEndpointCommand({ EndpointName: name }))).EndpointArn,
    arnType: 'endpoint',
    taken: (name: string) => `Cannot create already existing endpoint "${arn('endpoint', name)}".`,
  },
} as const;

type Kind = keyof typeof CREATES;

function outcome(r: PromiseSettledResult<unknown>): string {
  if (r.status === 'fulfilled') return 'ok';
  const e = r.reason as Error & { $metadata?: { httpStatusCode?: number } };
  return `${e.$metadata?.httpStatusCode} ${e.name}: ${e.message}`;
}

/** `count` names of one batch, distinct from every other batch's. */
let batch = 0;
const names = (kind: string, count = N) => {
  batch++;
  return Array.from({ length: count }, (_, i) => `${kind}-${batch}-${i}`);
};

/** What every server below must do, whatever its database and authentication. */
function createsAnsweredAsTheirOwn(sm: () => SageMakerClient) {
  before(async () => {
    // What the endpoint configurations and endpoints above name. The image runs nowhere: their
    // deployments fail, after the Creates this file is about.
    await sm().send(
      new CreateModelCommand({
        ModelName: 'shared',
        ExecutionRoleArn: ROLE,
        PrimaryContainer: { Image: 'acct/never-runs:1', ModelDataUrl: 's3://concurrent-data/shared.tar.gz' },
      }),
    );
    await CREATES.config.send(sm(), 'shared');
  });

  for (const kind of Object.keys(CREATES) as Kind[]) {
    const c = CREATES[kind];
    test(`${N} concurrent ${kind} Creates of distinct names: each answer names its own, and every one exists`, async () => {
      const batchNames = names(kind);
      const settled = await Promise.allSettled(batchNames.map((name) => c.send(sm(), name)));
      assert.deepEqual(
        settled.map((r, i) =>
          r.status === 'fulfilled' ? c.answered(r.value as never) : `${batchNames[i]}: ${outcome(r)}`,
        ),
        batchNames.map((name) => arn(c.arnType, name)),
      );
      // Described all at once too: each answer is the resource asked for.
      const described = await Promise.all(batchNames.map((name) => c.describe(sm(), name)));
      assert.deepEqual(
        described,
        batchNames.map((name) => arn(c.arnType, name)),
      );
    });
  }

  test(`${N} concurrent Creates of one name: one creates it, every other caller is told it already exists`, async () => {
    for (const kind of Object.keys(CREATES) as Kind[]) {
      const c = CREATES[kind];
      const [name] = names(`${kind}-same`, 1) as [string];
      const settled = await Promise.allSettled(Array.from({ length: N }, () => c.send(sm(), name)));
      const outcomes = settled.map(outcome).sort();
      assert.deepEqual(
        outcomes,
        [
          ...Array.from(
            { length: N - 1 },
            () =>
              `400 ${kind === 'training' || kind === 'processing' ? 'ResourceInUse' : 'ValidationException'}: ${c.taken(name)}`,
          ),
          'ok',
        ].sort(),
        kind,
      );
      assert.equal(await c.describe(sm(), name), arn(c.arnType, name));
    }
  });

  test('jobs naming the same new data sets in different orders, at once: every one is created', async () => {
    // Each transaction takes the artifacts it creates in one order (their keys'), whatever the
    // order of the channels: two of them never wait for each other both ways.
    const batchNames = names('channels');
    const uris = [
      `s3://concurrent-data/${batch}/a/`,
      `s3://concurrent-data/${batch}/b/`,
      `s3://concurrent-data/${batch}/c/`,
    ];
    const settled = await Promise.allSettled(
      batchNames.map((name, i) =>
        sm().send(
          new CreateTrainingJobCommand({
            TrainingJobName: name,
            RoleArn: ROLE,
            AlgorithmSpecification: { TrainingImage: `acct/own-image-${batch}-${i}:1`, TrainingInputMode: 'File' },
            InputDataConfig: (i % 2 ? [...uris].reverse() : uris).map((S3Uri, c) => ({
              ChannelName: `c${c}`,
              DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri } },
            })),
            OutputDataConfig: { S3OutputPath: 's3://concurrent-data/out' },
            ResourceConfig: { InstanceType: 'ml.m5.large', InstanceCount: 1, VolumeSizeInGB: 1 },
            StoppingCondition: { MaxRuntimeInSeconds: 60 },
          }),
        ),
      ),
    );
    assert.deepEqual(
      settled.map((r, i) => (r.status === 'fulfilled' ? r.value.TrainingJobArn : `${batchNames[i]}: ${outcome(r)}`)),
      batchNames.map((name) => arn('training-job', name)),
    );
  });

  test(`${N} concurrent CreateModelPackage calls with one ClientToken: every caller gets the one package`, async () => {
    const [name] = names('token', 1) as [string];
    const answers = await Promise.all(
      Array.from({ length: N }, () =>
        sm().send(
          new CreateModelPackageCommand({
            ModelPackageName: name,
            ClientToken: `token-of-${name}`,
            InferenceSpecification: {
              Containers: [{ Image: 'acct/serve:3' }],
              SupportedContentTypes: ['text/csv'],
              SupportedResponseMIMETypes: ['text/csv'],
            },
          }),
        ),
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.ModelPackageArn),
      Array.from({ length: N }, () => arn('model-package', name)),
    );
  });

  test(`${N} concurrent versions into one model package group: versions 1 to ${N}, each answered once`, async () => {
    const [group] = names('group', 1) as [string];
    await sm().send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: group }));
    const answers = await Promise.all(
      Array.from({ length: N }, () =>
        sm().send(
          new CreateModelPackageCommand({
            ModelPackageGroupName: group,
            InferenceSpecification: {
              Containers: [{ Image: `acct/${group}:1` }],
              SupportedContentTypes: ['text/csv'],
              SupportedResponseMIMETypes: ['text/csv'],
            },
          }),
        ),
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.ModelPackageArn).sort(),
      Array.from({ length: N }, (_, i) => arn('model-package', `${group}/${i + 1}`)).sort(),
    );
  });

  test(`${N} concurrent AssociateTrialComponent calls of one pair: all succeed, one membership`, async () => {
    const [name] = names('run', 1) as [string];
    await sm().send(new CreateExperimentCommand({ ExperimentName: name }));
    await sm().send(new CreateTrialCommand({ TrialName: name, ExperimentName: name }));
    await sm().send(new CreateTrialComponentCommand({ TrialComponentName: name }));
    const settled = await Promise.allSettled(
      Array.from({ length: N }, () =>
        sm().send(new AssociateTrialComponentCommand({ TrialName: name, TrialComponentName: name })),
      ),
    );
    assert.deepEqual(
      settled.map(outcome),
      Array.from({ length: N }, () => 'ok'),
    );
    const listed = await sm().send(new ListTrialComponentsCommand({ TrialName: name }));
    assert.deepEqual(
      listed.TrialComponentSummaries?.map((c) => c.TrialComponentName),
      [name],
    );
  });

  test(`${N} concurrent AddAssociation calls of one pair: one adds it, the others are told it exists`, async () => {
    const [from, to] = names('action', 2) as [string, string];
    const actionArn = (name: string) => arn('action', name);
    for (const ActionName of [from, to])
      await sm().send(
        new CreateActionCommand({ ActionName, ActionType: 'Test', Source: { SourceUri: `urn:${ActionName}` } }),
      );
    const settled = await Promise.allSettled(
      Array.from({ length: N }, () =>
        sm().send(new AddAssociationCommand({ SourceArn: actionArn(from), DestinationArn: actionArn(to) })),
      ),
    );
    assert.deepEqual(
      settled.map(outcome).sort(),
      [
        ...Array.from(
          { length: N - 1 },
          () =>
            `400 ValidationException: Association between '${actionArn(from)}' and '${actionArn(to)}' already exists.`,
        ),
        'ok',
      ].sort(),
    );
    const listed = await sm().send(new ListAssociationsCommand({ SourceArn: actionArn(from) }));
    assert.equal(listed.AssociationSummaries?.length, 1);
  });

  test('the jobs of a batch share one artifact per image and data set, with no copies', async () => {
    const listed = await sm().send(new ListArtifactsCommand({ SourceUri: 'acct/prep:1', MaxResults: 100 }));
    assert.equal(listed.ArtifactSummaries?.length, 1);
    const data = await sm().send(
      new ListArtifactsCommand({ SourceUri: 's3://concurrent-data/train/', MaxResults: 100 }),
    );
    assert.equal(data.ArtifactSummaries?.length, 1);
  });
}

describe('concurrent requests, PostgreSQL with a credentials file', () => {
  let server: TestServer;
  const client = <T>(make: new (cfg: never) => T, creds: Creds = ALICE, extra: object = {}): T =>
    new make({ endpoint: server.endpoint, region: REGION, credentials: creds, maxAttempts: 1, ...extra } as never);

  before(async () => {
    server = await startServer([
      ...databaseArgs('postgres'),
      '--credentials-file',
      writeCredentialsFile(tempDir()),
      '--containers-file',
      'test/fixtures/containers/containers.json',
    ]);
  });
  after(() => server?.close());

  let sm: SageMakerClient | undefined;
  createsAnsweredAsTheirOwn(() => (sm ??= client(SageMakerClient)));

  test('signed by different principals at once: each is decided and answered as its own signer', async () => {
    const [allowed, denied] = [names('alice-model', 4), names('bob-model', 4)];
    const model = (ModelName: string) =>
      new CreateModelCommand({ ModelName, ExecutionRoleArn: ROLE, PrimaryContainer: { Image: 'acct/serve:1' } });
    const sts = (c: Creds) => client(STSClient, c).send(new GetCallerIdentityCommand({}));
    const settled = await Promise.allSettled([
      ...allowed.flatMap((name, i) => [
        client(SageMakerClient, ALICE).send(model(name)),
        client(SageMakerClient, BOB).send(model(denied[i]!)),
        sts(ALICE),
        sts(BOB),
      ]),
    ]);
    allowed.forEach((name, i) => {
      const [a, b, sa, sb] = settled.slice(i * 4, i * 4 + 4) as [
        PromiseSettledResult<{ ModelArn?: string }>,
        PromiseSettledResult<unknown>,
        PromiseSettledResult<{ Arn?: string }>,
        PromiseSettledResult<{ Arn?: string }>,
      ];
      assert.equal(a.status === 'fulfilled' ? a.value.ModelArn : outcome(a), arn('model', name));
      assert.equal(
        outcome(b),
        `400 AccessDeniedException: User: ${BOB_ARN} is not authorized to perform: sagemaker:CreateModel on resource: ${arn('model', denied[i]!)} because no identity-based policy allows the sagemaker:CreateModel action`,
      );
      assert.equal(sa.status === 'fulfilled' ? sa.value.Arn : outcome(sa), ALICE_ARN);
      assert.equal(sb.status === 'fulfilled' ? sb.value.Arn : outcome(sb), BOB_ARN);
    });
  });

  test(`${N} concurrent InvokeEndpoint calls: each gets the answer to its own payload`, async () => {
    const sm = client(SageMakerClient);
    await sm.send(
      new CreateModelCommand({ ModelName: 'echo', ExecutionRoleArn: ROLE, PrimaryContainer: { Image: ECHO } }),
    );
    await sm.send(
      new CreateEndpointConfigCommand({
        EndpointConfigName: 'echo',
        ProductionVariants: [
          {
            VariantName: 'AllTraffic',
            ModelName: 'echo',
            ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: N },
          },
        ],
      }),
    );
    await sm.send(new CreateEndpointCommand({ EndpointName: 'echo', EndpointConfigName: 'echo' }));
    await waitUntilEndpointInService(
      { client: sm, maxWaitTime: 30, minDelay: 1, maxDelay: 1 },
      { EndpointName: 'echo' },
    );
    const rt = client(SageMakerRuntimeClient);
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          rt.send(
            new InvokeEndpointCommand({
              EndpointName: 'echo',
              ContentType: 'text/csv',
              Body: Buffer.from(`${round * 100 + i}`),
              CustomAttributes: `caller-${i}`,
            }),
          ),
        ),
      );
      assert.deepEqual(
        answers.map((a) => [Buffer.from(a.Body!).toString().trim(), a.CustomAttributes]),
        Array.from({ length: N }, (_, i) => [`${round * 100 + i}`, `caller-${i}`]),
      );
    }
  });

  test(`${N} concurrent S3 writes and reads: each object holds its own body`, async () => {
    const s3 = client(S3Client, ALICE, { forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: 'concurrent' }));
    const keys = names('object');
    await Promise.all(
      keys.map((Key) => s3.send(new PutObjectCommand({ Bucket: 'concurrent', Key, Body: `body of ${Key}` }))),
    );
    const bodies = await Promise.all(
      keys.map(async (Key) =>
        (await s3.send(new GetObjectCommand({ Bucket: 'concurrent', Key }))).Body!.transformToString(),
      ),
    );
    assert.deepEqual(
      bodies,
      keys.map((k) => `body of ${k}`),
    );
  });

  test(`${N} concurrent PutMetricData calls: every metric is recorded`, async () => {
    const cw = client(CloudWatchClient);
    const metrics = names('metric');
    await Promise.all(
      metrics.map((MetricName) =>
        cw.send(new PutMetricDataCommand({ Namespace: 'Concurrent', MetricData: [{ MetricName, Value: 1 }] })),
      ),
    );
    const listed = await cw.send(new ListMetricsCommand({ Namespace: 'Concurrent' }));
    assert.deepEqual(listed.Metrics?.map((m) => m.MetricName).sort(), [...metrics].sort());
  });
});

describe('concurrent requests, PostgreSQL without a credentials file', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(databaseArgs('postgres'));
  });
  after(() => server?.close());
  let sm: SageMakerClient | undefined;
  createsAnsweredAsTheirOwn(
    () =>
      (sm ??= new SageMakerClient({
        endpoint: server.endpoint,
        region: REGION,
        credentials: CREDENTIALS,
        maxAttempts: 1,
      })),
  );
});

describe('concurrent requests, SQLite with a credentials file', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(['--credentials-file', writeCredentialsFile(tempDir())]);
  });
  after(() => server?.close());
  let sm: SageMakerClient | undefined;
  createsAnsweredAsTheirOwn(
    () =>
      (sm ??= new SageMakerClient({ endpoint: server.endpoint, region: REGION, credentials: ALICE, maxAttempts: 1 })),
  );
});
