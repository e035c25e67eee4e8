// The demo's processing job: SageMaker's scikit-learn image in script mode (as SKLearnProcessor
// runs it: the script uploaded as an input, `python3 <script>` as the entrypoint) profiles the
// training data, column by column, into profile.json. The script needs only Python's standard
// library, so it runs on any host with a python3 (scikit-learn or not).
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  CreateProcessingJobCommand,
  DescribeProcessingJobCommand,
  type DescribeProcessingJobCommandOutput,
  type SageMakerClient,
} from '@aws-sdk/client-sagemaker';

/** SageMaker's scikit-learn image, as `sagemaker.image_uris.retrieve("sklearn", "us-east-1", "1.2-1")` gives it. */
export const SKLEARN_IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-scikit-learn:1.2-1-cpu-py3';

const PROFILE_SCRIPT = `"""Profiles the abalone training data: rows, and per column the mean, min and max."""
import csv, glob, json, os, statistics

rows = []
for path in sorted(glob.glob("/opt/ml/processing/input/data/**/*.csv", recursive=True)):
    with open(path) as f:
        rows.extend([float(x) for x in r] for r in csv.reader(f) if r)
names = ["rings"] + os.environ.get("FEATURES", "").split(",")
columns = list(zip(*rows))
profile = {"rows": len(rows), "columns": {
    (names[i] if i < len(names) else f"c{i}"): {"mean": round(statistics.fmean(c), 4), "min": min(c), "max": max(c)}
    for i, c in enumerate(columns)}}
os.makedirs("/opt/ml/processing/output/profile", exist_ok=True)
with open("/opt/ml/processing/output/profile/profile.json", "w") as f:
    json.dump(profile, f, indent=1)
print(f"profiled {len(rows)} rows of {len(columns)} columns")
`;

/** Uploads the script and starts the job; the caller waits with `profileFinished`. */
export async function startProfile(
  s3: S3Client,
  sm: SageMakerClient,
  o: { name: string; role: string; bucket: string; base: string; featureNames: readonly string[] },
): Promise<void> {
  await s3.send(new PutObjectCommand({ Bucket: o.bucket, Key: 'abalone/code/profile.py', Body: PROFILE_SCRIPT }));
  await sm.send(
    new CreateProcessingJobCommand({
      ProcessingJobName: o.name,
      RoleArn: o.role,
      AppSpecification: {
        ImageUri: SKLEARN_IMAGE,
        ContainerEntrypoint: ['python3', '/opt/ml/processing/input/code/profile.py'],
      },
      Environment: { FEATURES: o.featureNames.join(',') },
      ProcessingResources: { ClusterConfig: { InstanceCount: 1, InstanceType: 'ml.t3.medium', VolumeSizeInGB: 1 } },
      ProcessingInputs: [
        {
          InputName: 'data',
          S3Input: {
            S3Uri: `${o.base}/train/`,
            LocalPath: '/opt/ml/processing/input/data',
            S3DataType: 'S3Prefix',
            S3InputMode: 'File',
          },
        },
        {
          InputName: 'code',
          S3Input: {
            S3Uri: `${o.base}/code/profile.py`,
            LocalPath: '/opt/ml/processing/input/code',
            S3DataType: 'S3Prefix',
            S3InputMode: 'File',
          },
        },
      ],
      ProcessingOutputConfig: {
        Outputs: [
          {
            OutputName: 'profile',
            S3Output: {
              S3Uri: `${o.base}/profile/${o.name}`,
              LocalPath: '/opt/ml/processing/output/profile',
              S3UploadMode: 'EndOfJob',
            },
          },
        ],
      },
    }),
  );
}

/** Polls until the job ends; returns its description. */
export async function profileFinished(
  sm: SageMakerClient,
  name: string,
  until: <T>(what: string, read: () => Promise<T>, done: (v: T) => boolean) => Promise<T>,
): Promise<DescribeProcessingJobCommandOutput> {
  return until(
    `processing job ${name}`,
    () => sm.send(new DescribeProcessingJobCommand({ ProcessingJobName: name })),
    (j) => ['Completed', 'Failed', 'Stopped'].includes(j.ProcessingJobStatus ?? ''),
  );
}
