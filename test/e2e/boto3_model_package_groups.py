"""Model package groups and tags through boto3, a second real AWS client.

Usage: python3 boto3_model_package_groups.py ENDPOINT_URL ACCOUNT_ID
Exits non-zero (with an assertion message) on the first difference from SageMaker's behaviour.
"""
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

endpoint, account = sys.argv[1], sys.argv[2]
region = "us-west-2"
sm = boto3.client(
    "sagemaker",
    endpoint_url=endpoint,
    region_name=region,
    aws_access_key_id="AKIDBOTO3",
    aws_secret_access_key="secret",
    config=Config(retries={"max_attempts": 20, "mode": "adaptive"}),
)


def expect_error(code, fragment, fn, **kwargs):
    try:
        fn(**kwargs)
    except ClientError as e:
        err = e.response["Error"]
        assert err["Code"] == code, err
        assert fragment in err["Message"], err
        assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 400
        return
    raise AssertionError(f"expected {code}")


arn = sm.create_model_package_group(
    ModelPackageGroupName="boto3-abalone",
    ModelPackageGroupDescription="made by boto3",
    Tags=[{"Key": "client", "Value": "boto3"}],
)["ModelPackageGroupArn"]
assert arn == f"arn:aws:sagemaker:{region}:{account}:model-package-group/boto3-abalone", arn

d = sm.describe_model_package_group(ModelPackageGroupName="boto3-abalone")
assert d["ModelPackageGroupArn"] == arn
assert d["ModelPackageGroupDescription"] == "made by boto3"
assert d["ModelPackageGroupStatus"] == "Completed"
assert d["CreationTime"].year >= 2024, d["CreationTime"]
assert sm.describe_model_package_group(ModelPackageGroupName=arn)["ModelPackageGroupName"] == "boto3-abalone"

for i in range(7):
    sm.create_model_package_group(ModelPackageGroupName=f"boto3-page-{i}")
names = []
pages = 0
for page in sm.get_paginator("list_model_package_groups").paginate(
    NameContains="boto3-page", SortBy="Name", SortOrder="Descending", PaginationConfig={"PageSize": 3}
):
    pages += 1
    names += [g["ModelPackageGroupName"] for g in page["ModelPackageGroupSummaryList"]]
assert pages == 3, pages
assert names == [f"boto3-page-{i}" for i in reversed(range(7))], names

sm.add_tags(ResourceArn=arn, Tags=[{"Key": "stage", "Value": "dev"}])
tags = sm.list_tags(ResourceArn=arn)["Tags"]
assert tags == [{"Key": "client", "Value": "boto3"}, {"Key": "stage", "Value": "dev"}], tags
sm.delete_tags(ResourceArn=arn, TagKeys=["client"])
assert sm.list_tags(ResourceArn=arn)["Tags"] == [{"Key": "stage", "Value": "dev"}]

expect_error(
    "ValidationException",
    "1 validation error detected: Value 'x!' at 'modelPackageGroupName' failed to satisfy constraint: "
    "Member must satisfy regular expression pattern: [a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}",
    sm.create_model_package_group,
    ModelPackageGroupName="x!",
)
expect_error(
    "ValidationException",
    f"Model Package Group already exists: {arn}",
    sm.create_model_package_group,
    ModelPackageGroupName="boto3-abalone",
)
sm.delete_model_package_group(ModelPackageGroupName="boto3-abalone")
expect_error(
    "ValidationException",
    f"ModelPackageGroup {arn} does not exist.",
    sm.describe_model_package_group,
    ModelPackageGroupName="boto3-abalone",
)
expect_error("ValidationException", "does not exist", sm.delete_model_package_group, ModelPackageGroupName="nope")
print("boto3 model package group workflow: ok")
