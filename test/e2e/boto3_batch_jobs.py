"""Processing and batch transform with boto3: a processing script splits the CSV, the built-in
XGBoost trains on its output, a transform job predicts every row; the botocore waiters
processing_job_completed_or_stopped / transform_job_completed_or_stopped, the job's log in
CloudWatch Logs, and the lineage from the transform job's model back to the processing job.

Usage: python3 boto3_batch_jobs.py ENDPOINT_URL ACCOUNT_ID CSV
"""
import sys

import boto3
from botocore.config import Config

endpoint, account, csv_path = sys.argv[1], sys.argv[2], sys.argv[3]
region = "us-east-1"
kw = dict(endpoint_url=endpoint, region_name=region, aws_access_key_id="AKIDBOTO3", aws_secret_access_key="secret")
s3 = boto3.client("s3", config=Config(s3={"addressing_style": "path"}), **kw)
sm = boto3.client("sagemaker", **kw)
logs = boto3.client("logs", **kw)
wait = {"Delay": 1, "MaxAttempts": 120}
role = f"arn:aws:iam::{account}:role/sm"
bucket = "batch-boto3"
s3.create_bucket(Bucket=bucket)
s3.upload_file(csv_path, bucket, "raw/abalone.csv")
rows = open(csv_path).read().strip().split("\n")

sm.create_processing_job(
    ProcessingJobName="prep-boto3",
    RoleArn=role,
    AppSpecification={"ImageUri": f"{account}.dkr.ecr.{region}.amazonaws.com/slipway-test-process:1",
                      "ContainerArguments": ["--mode", "ok"]},
    ProcessingResources={"ClusterConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.xlarge", "VolumeSizeInGB": 5}},
    ProcessingInputs=[{"InputName": "raw", "S3Input": {"S3Uri": f"s3://{bucket}/raw", "LocalPath": "/opt/ml/processing/input/raw",
                                                       "S3DataType": "S3Prefix", "S3InputMode": "File"}}],
    ProcessingOutputConfig={"Outputs": [
        {"OutputName": o, "S3Output": {"S3Uri": f"s3://{bucket}/prep/{o}", "LocalPath": f"/opt/ml/processing/output/{o}",
                                       "S3UploadMode": "EndOfJob"}} for o in ("train", "validation")]},
)
sm.get_waiter("processing_job_completed_or_stopped").wait(ProcessingJobName="prep-boto3", WaiterConfig=wait)
p = sm.describe_processing_job(ProcessingJobName="prep-boto3")
assert p["ProcessingJobStatus"] == "Completed", p
streams = logs.describe_log_streams(logGroupName="/aws/sagemaker/ProcessingJobs", logStreamNamePrefix="prep-boto3/")
events = logs.get_log_events(logGroupName="/aws/sagemaker/ProcessingJobs",
                             logStreamName=streams["logStreams"][0]["logStreamName"])["events"]
assert any(e["message"].startswith("split ") for e in events), events

image = f"683313688378.dkr.ecr.{region}.amazonaws.com/sagemaker-xgboost:1.7-1"
sm.create_training_job(
    TrainingJobName="train-boto3",
    RoleArn=role,
    AlgorithmSpecification={"TrainingImage": image, "TrainingInputMode": "File"},
    HyperParameters={"objective": "reg:squarederror", "num_round": "20"},
    InputDataConfig=[{"ChannelName": "train", "ContentType": "text/csv",
                      "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": f"s3://{bucket}/prep/train"}}}],
    OutputDataConfig={"S3OutputPath": f"s3://{bucket}/models"},
    ResourceConfig={"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 5},
    StoppingCondition={"MaxRuntimeInSeconds": 600},
)
sm.get_waiter("training_job_completed_or_stopped").wait(TrainingJobName="train-boto3", WaiterConfig=wait)
model_url = sm.describe_training_job(TrainingJobName="train-boto3")["ModelArtifacts"]["S3ModelArtifacts"]
sm.create_model(ModelName="abalone-boto3", ExecutionRoleArn=role,
                PrimaryContainer={"Image": image, "ModelDataUrl": model_url})

features = "\n".join(",".join(r.split(",")[1:]) for r in rows) + "\n"
s3.put_object(Bucket=bucket, Key="batch/in/abalone.csv", Body=features.encode())
sm.create_transform_job(
    TransformJobName="batch-boto3",
    ModelName="abalone-boto3",
    BatchStrategy="MultiRecord",
    MaxPayloadInMB=6,
    TransformInput={"DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": f"s3://{bucket}/batch/in/"}},
                    "ContentType": "text/csv", "SplitType": "Line"},
    TransformOutput={"S3OutputPath": f"s3://{bucket}/batch/out", "AssembleWith": "Line"},
    TransformResources={"InstanceType": "ml.m5.large", "InstanceCount": 1},
)
sm.get_waiter("transform_job_completed_or_stopped").wait(TransformJobName="batch-boto3", WaiterConfig=wait)
t = sm.describe_transform_job(TransformJobName="batch-boto3")
assert t["TransformJobStatus"] == "Completed", t
out = s3.get_object(Bucket=bucket, Key="batch/out/abalone.csv.out")["Body"].read().decode().strip().split("\n")
assert len(out) == len(rows), (len(out), len(rows))
assert all(0 < float(x) < 30 for x in out)

# Lineage: the model artifact the training job produced contributed to the transform job, and the
# training data set is the processing job's output.
tc = sm.list_trial_components(SourceArn=t["TransformJobArn"])["TrialComponentSummaries"][0]
assert tc["TrialComponentName"] == "batch-boto3-aws-transform-job", tc
up = sm.query_lineage(StartArns=[tc["TrialComponentArn"]], Direction="Ascendants", MaxDepth=10)
proc_tc = sm.list_trial_components(SourceArn=p["ProcessingJobArn"])["TrialComponentSummaries"][0]["TrialComponentArn"]
assert proc_tc in [v["Arn"] for v in up["Vertices"]], up["Vertices"]
print("batch jobs: ok")
