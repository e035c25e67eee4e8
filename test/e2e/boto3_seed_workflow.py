"""The seed workflow of reference §1 A with boto3, exactly as the AWS example notebook calls it.

Usage: python3 boto3_seed_workflow.py ENDPOINT_URL ACCOUNT_ID MODEL_TAR_GZ EXPECTED_PREDICTION
"""
import sys
import time

import boto3
from botocore.config import Config

endpoint, account, model_file, expected = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
region = "us-east-2"
kw = dict(endpoint_url=endpoint, region_name=region, aws_access_key_id="AKIDBOTO3", aws_secret_access_key="secret")
s3 = boto3.client("s3", config=Config(s3={"addressing_style": "path"}), **kw)
sm = boto3.client("sagemaker", **kw)
runtime = boto3.client("sagemaker-runtime", **kw)

bucket = "sagemaker-us-east-2-" + account
s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": region})
s3.upload_file(model_file, bucket, "xgboost-abalone/output/model.tar.gz")
model_url = f"s3://{bucket}/xgboost-abalone/output/model.tar.gz"

ts = str(int(time.time()))
group = "xgboost-abalone" + ts
group_arn = sm.create_model_package_group(ModelPackageGroupName=group, ModelPackageGroupDescription="abalone")[
    "ModelPackageGroupArn"
]
image = f"257758044811.dkr.ecr.{region}.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3"
sm.create_model_package(
    ModelPackageGroupName=group_arn,
    ModelPackageDescription="xgboost abalone",
    ModelApprovalStatus="PendingManualApproval",
    InferenceSpecification={
        "Containers": [{"Image": image, "ModelDataUrl": model_url}],
        "SupportedContentTypes": ["text/csv"],
        "SupportedResponseMIMETypes": ["text/csv"],
    },
)
arn = sm.list_model_packages(ModelPackageGroupName=group)["ModelPackageSummaryList"][0]["ModelPackageArn"]
assert arn == f"arn:aws:sagemaker:{region}:{account}:model-package/{group}/1", arn
assert sm.describe_model_package(ModelPackageName=arn)["ModelApprovalStatus"] == "PendingManualApproval"
sm.update_model_package(ModelPackageArn=arn, ModelApprovalStatus="Approved")

role = f"arn:aws:iam::{account}:role/service-role/AmazonSageMaker-ExecutionRole"
sm.create_model(ModelName="abalone-model" + ts, ExecutionRoleArn=role, Containers=[{"ModelPackageName": arn}])
sm.create_endpoint_config(
    EndpointConfigName="abalone-cfg" + ts,
    ProductionVariants=[
        {"ServerlessConfig": {"MemorySizeInMB": 1024, "MaxConcurrency": 10}, "ModelName": "abalone-model" + ts, "VariantName": "AllTraffic"}
    ],
)
ep = "abalone-ep" + ts
sm.create_endpoint(EndpointName=ep, EndpointConfigName="abalone-cfg" + ts)
status = sm.describe_endpoint(EndpointName=ep)["EndpointStatus"]
assert status == "Creating", status
# The notebook polls every 15 s; Slipway is ready long before that.
while status == "Creating":
    time.sleep(0.05)
    status = sm.describe_endpoint(EndpointName=ep)["EndpointStatus"]
assert status == "InService", sm.describe_endpoint(EndpointName=ep)
sm.get_waiter("endpoint_in_service").wait(EndpointName=ep, WaiterConfig={"Delay": 1})

resp = runtime.invoke_endpoint(
    EndpointName=ep, ContentType="text/csv", Body=b".345,0.224414,.131102,0.042329,.279923,-0.110329,-0.099358,0.0"
)
body = resp["Body"].read().decode()
assert abs(float(body) - expected) <= 1e-6 * abs(expected), (body, expected)

sm.delete_model(ModelName="abalone-model" + ts)
sm.delete_endpoint_config(EndpointConfigName="abalone-cfg" + ts)
sm.delete_endpoint(EndpointName=ep)
sm.get_waiter("endpoint_deleted").wait(EndpointName=ep, WaiterConfig={"Delay": 1})
print("boto3 seed workflow: ok", body)
