"""The whole loop with boto3, as the README shows it: upload CSV -> train (the built-in XGBoost
algorithm) -> register the trained model -> approve -> deploy -> invoke -> read the job's log
through CloudWatch Logs -> see the lineage from the endpoint back to the training data.

Usage: python3 boto3_training_loop.py ENDPOINT_URL ACCOUNT_ID TRAIN_CSV
"""
import sys

import boto3
from botocore.config import Config

endpoint, account, train_csv = sys.argv[1], sys.argv[2], sys.argv[3]
region = "us-east-1"
kw = dict(endpoint_url=endpoint, region_name=region, aws_access_key_id="AKIDBOTO3", aws_secret_access_key="secret")
s3 = boto3.client("s3", config=Config(s3={"addressing_style": "path"}), **kw)
sm = boto3.client("sagemaker", **kw)
rt = boto3.client("sagemaker-runtime", **kw)
logs = boto3.client("logs", **kw)

bucket = f"sagemaker-{region}-{account}"
s3.create_bucket(Bucket=bucket)
s3.upload_file(train_csv, bucket, "abalone/train/abalone.csv")
image = f"683313688378.dkr.ecr.{region}.amazonaws.com/sagemaker-xgboost:1.7-1"
role = f"arn:aws:iam::{account}:role/sm"

sm.create_training_job(
    TrainingJobName="abalone-boto3",
    RoleArn=role,
    AlgorithmSpecification={"TrainingImage": image, "TrainingInputMode": "File"},
    HyperParameters={"objective": "reg:linear", "num_round": "50", "max_depth": "5", "eta": "0.2", "gamma": "4",
                     "min_child_weight": "6", "subsample": "0.7"},
    InputDataConfig=[{"ChannelName": "train", "ContentType": "text/csv",
                      "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": f"s3://{bucket}/abalone/train/"}}}],
    OutputDataConfig={"S3OutputPath": f"s3://{bucket}/abalone/output"},
    ResourceConfig={"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 5},
    StoppingCondition={"MaxRuntimeInSeconds": 3600},
)
sm.get_waiter("training_job_completed_or_stopped").wait(TrainingJobName="abalone-boto3",
                                                          WaiterConfig={"Delay": 1, "MaxAttempts": 120})
job = sm.describe_training_job(TrainingJobName="abalone-boto3")
assert job["TrainingJobStatus"] == "Completed", job.get("FailureReason")
model_url = job["ModelArtifacts"]["S3ModelArtifacts"]
assert model_url == f"s3://{bucket}/abalone/output/abalone-boto3/output/model.tar.gz", model_url
assert [t["Status"] for t in job["SecondaryStatusTransitions"]] == ["Starting", "Downloading", "Training", "Uploading", "Completed"]

# The job's log, as the SageMaker SDK's logs_for_job reads it.
streams = logs.describe_log_streams(logGroupName="/aws/sagemaker/TrainingJobs", logStreamNamePrefix="abalone-boto3/")["logStreams"]
assert len(streams) == 1 and streams[0]["logStreamName"].startswith("abalone-boto3/algo-1-"), streams
events = logs.get_log_events(logGroupName="/aws/sagemaker/TrainingJobs", logStreamName=streams[0]["logStreamName"],
                             startFromHead=True)["events"]
rounds = [e["message"] for e in events if e["message"].startswith("[")]
assert len(rounds) == 50 and rounds[-1].startswith("[49]\ttrain-rmse:"), rounds[-3:]
filtered = logs.filter_log_events(logGroupName="/aws/sagemaker/TrainingJobs", filterPattern='"[49]"')["events"]
assert len(filtered) == 1, filtered

group = "abalone-trained"
sm.create_model_package_group(ModelPackageGroupName=group)
pkg = sm.create_model_package(
    ModelPackageGroupName=group, ModelApprovalStatus="PendingManualApproval",
    InferenceSpecification={"Containers": [{"Image": image, "ModelDataUrl": model_url}],
                            "SupportedContentTypes": ["text/csv"], "SupportedResponseMIMETypes": ["text/csv"]})["ModelPackageArn"]
sm.update_model_package(ModelPackageArn=pkg, ModelApprovalStatus="Approved")
sm.create_model(ModelName="abalone-trained", ExecutionRoleArn=role, Containers=[{"ModelPackageName": pkg}])
sm.create_endpoint_config(EndpointConfigName="abalone-trained", ProductionVariants=[{
    "VariantName": "AllTraffic", "ModelName": "abalone-trained",
    "ServerlessConfig": {"MemorySizeInMB": 1024, "MaxConcurrency": 5}}])
sm.create_endpoint(EndpointName="abalone-trained", EndpointConfigName="abalone-trained")
sm.get_waiter("endpoint_in_service").wait(EndpointName="abalone-trained", WaiterConfig={"Delay": 1, "MaxAttempts": 60})
body = rt.invoke_endpoint(EndpointName="abalone-trained", ContentType="text/csv",
                          Body=b"1,0.5,0.4,0.15,0.3,0.13,0.07,0.09")["Body"].read()
assert 3 < float(body) < 25, body

endpoint_ctx = sm.list_contexts(ContextType="Endpoint")["ContextSummaries"][0]["ContextArn"]
up = sm.query_lineage(StartArns=[endpoint_ctx], Direction="Ascendants", IncludeEdges=True, MaxDepth=10)
kinds = {(v["LineageType"], v.get("Type")) for v in up["Vertices"]}
assert ("TrialComponent", "TrainingJob") in kinds, kinds
datasets = [v["Arn"] for v in up["Vertices"] if v.get("Type") == "DataSet"]
assert sm.describe_artifact(ArtifactArn=datasets[0])["Source"]["SourceUri"] == f"s3://{bucket}/abalone/train/"
print("training loop: ok")
