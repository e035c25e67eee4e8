"""Answers as AWS answers them (issue 34), through Debian's boto3: missing jobs are
ValidationException in SageMaker's words (lineage kinds keep ResourceNotFound); job and model
package ARNs are lower-cased, model package groups keep their case; CreateModelPackage into a
missing group; a failed endpoint's variants are not "Creating"; UpdateEndpointWeightsAndCapacities
on instance-based variants (Updating → InService, traffic follows the weights); List*Jobs newest
first by default.

Usage: python3 boto3_aws_answers.py ENDPOINT_URL ACCOUNT_ID MODEL_TAR_GZ SEED_CSV
"""
import sys
import time

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

endpoint, account, model_tar, seed = sys.argv[1:5]
region = "us-east-1"
kw = dict(endpoint_url=endpoint, region_name=region, aws_access_key_id="AKIDBOTO3", aws_secret_access_key="secret")
s3 = boto3.client("s3", config=Config(s3={"addressing_style": "path"}), **kw)
sm = boto3.client("sagemaker", config=Config(retries={"max_attempts": 1}), **kw)
rt = boto3.client("sagemaker-runtime", **kw)
role = f"arn:aws:iam::{account}:role/sm"
image = f"683313688378.dkr.ecr.{region}.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3"
arn = f"arn:aws:sagemaker:{region}:{account}"
wait = {"Delay": 1, "MaxAttempts": 60}


def error(fn, **kwargs):
    try:
        fn(**kwargs)
    except ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    raise AssertionError(f"{fn.__name__} succeeded")


s3.create_bucket(Bucket="answers")
s3.upload_file(model_tar, "answers", "abalone/model.tar.gz")
s3.put_object(Bucket="answers", Key="in/rows.csv", Body=seed.encode() + b"\n")
sm.create_model(ModelName="abalone", ExecutionRoleArn=role,
                PrimaryContainer={"Image": image, "ModelDataUrl": "s3://answers/abalone/model.tar.gz"})

# 1. A job that does not exist: ValidationException, in the words AWS's own clients match.
for call, key in ((sm.describe_training_job, "TrainingJobName"), (sm.stop_training_job, "TrainingJobName")):
    assert error(call, **{key: "no-such-job"}) == ("ValidationException", "Requested resource not found."), call
for call, key in ((sm.describe_processing_job, "ProcessingJobName"), (sm.stop_processing_job, "ProcessingJobName"),
                  (sm.describe_transform_job, "TransformJobName"), (sm.stop_transform_job, "TransformJobName")):
    assert error(call, **{key: "no-such-job"}) == (
        "ValidationException", "Could not find requested job with name no-such-job"), call
assert error(sm.describe_model, ModelName="nope")[0] == "ValidationException"
assert error(sm.describe_endpoint, EndpointName="nope") == (
    "ValidationException", f'Could not find endpoint "{arn}:endpoint/nope".')
# Lineage and experiment kinds answer ResourceNotFound, as their model and AWS do.
assert error(sm.describe_experiment, ExperimentName="nope")[0] == "ResourceNotFound"
assert error(sm.describe_trial_component, TrialComponentName="nope")[0] == "ResourceNotFound"

# 2. ARN case: jobs and model packages lower-cased, a model package group keeps its case.
job = sm.create_processing_job(
    ProcessingJobName="Prep-Mixed-Case", RoleArn=role,
    AppSpecification={"ImageUri": f"{account}.dkr.ecr.{region}.amazonaws.com/not-mapped:1"},
    ProcessingResources={"ClusterConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.xlarge", "VolumeSizeInGB": 5}},
)["ProcessingJobArn"]
assert job == f"{arn}:processing-job/prep-mixed-case", job
assert sm.describe_processing_job(ProcessingJobName="Prep-Mixed-Case")["ProcessingJobArn"] == job
group = sm.create_model_package_group(ModelPackageGroupName="AbaloneModelPackageGroupName")["ModelPackageGroupArn"]
assert group == f"{arn}:model-package-group/AbaloneModelPackageGroupName", group
spec = {"Containers": [{"Image": image, "ModelDataUrl": "s3://answers/abalone/model.tar.gz"}],
        "SupportedContentTypes": ["text/csv"], "SupportedResponseMIMETypes": ["text/csv"]}
package = sm.create_model_package(ModelPackageGroupName="AbaloneModelPackageGroupName",
                                  InferenceSpecification=spec)["ModelPackageArn"]
assert package == f"{arn}:model-package/abalonemodelpackagegroupname/1", package
described = sm.describe_model_package(ModelPackageName=package)
assert described["ModelPackageGroupName"] == "AbaloneModelPackageGroupName", described
assert sm.list_tags(ResourceArn=package)["Tags"] == []

# 3. A package into a group that does not exist.
assert error(sm.create_model_package, ModelPackageGroupName="NoSuchGroup", InferenceSpecification=spec) == (
    "ValidationException", "Model Package Group does not exist.")

# 4. An endpoint that fails: its variant is not left "Creating".
sm.create_model(ModelName="missing", ExecutionRoleArn=role,
                PrimaryContainer={"Image": image, "ModelDataUrl": "s3://answers/nothing/model.tar.gz"})
sm.create_endpoint_config(EndpointConfigName="missing", ProductionVariants=[
    {"VariantName": "AllTraffic", "ModelName": "missing", "ServerlessConfig": {"MemorySizeInMB": 1024, "MaxConcurrency": 1}}])
sm.create_endpoint(EndpointName="missing", EndpointConfigName="missing")
for _ in range(60):
    failed = sm.describe_endpoint(EndpointName="missing")
    if failed["EndpointStatus"] != "Creating":
        break
    time.sleep(0.5)
assert failed["EndpointStatus"] == "Failed", failed
assert failed["FailureReason"], failed
assert [v.get("VariantStatus") for v in failed["ProductionVariants"]] == [None], failed["ProductionVariants"]
assert error(sm.update_endpoint_weights_and_capacities, EndpointName="missing",
             DesiredWeightsAndCapacities=[{"VariantName": "AllTraffic", "DesiredWeight": 2}])[1].startswith(
    "Cannot update failed endpoint")

# 5. UpdateEndpointWeightsAndCapacities on two instance-based variants.
sm.create_endpoint_config(EndpointConfigName="ab", ProductionVariants=[
    {"VariantName": "A", "ModelName": "abalone", "InstanceType": "ml.m5.large", "InitialInstanceCount": 1,
     "InitialVariantWeight": 1},
    {"VariantName": "B", "ModelName": "abalone", "InstanceType": "ml.m5.large", "InitialInstanceCount": 1,
     "InitialVariantWeight": 1}])
ab_arn = sm.create_endpoint(EndpointName="ab", EndpointConfigName="ab")["EndpointArn"]
sm.get_waiter("endpoint_in_service").wait(EndpointName="ab", WaiterConfig=wait)


def served(n=24):
    out = set()
    for _ in range(n):
        r = rt.invoke_endpoint(EndpointName="ab", ContentType="text/csv", Body=seed.encode())
        out.add(r["InvokedProductionVariant"])
    return out


assert served(40) == {"A", "B"}
assert error(sm.update_endpoint_weights_and_capacities, EndpointName="nope",
             DesiredWeightsAndCapacities=[{"VariantName": "A", "DesiredWeight": 1}]) == (
    "ValidationException", f'Could not find endpoint "{arn}:endpoint/nope".')
assert error(sm.update_endpoint_weights_and_capacities, EndpointName="ab",
             DesiredWeightsAndCapacities=[{"VariantName": "C", "DesiredWeight": 1}]) == (
    "ValidationException", 'The variant name(s) "C" is/are not present within endpoint configuration "ab".')
assert error(sm.update_endpoint_weights_and_capacities, EndpointName="ab",
             DesiredWeightsAndCapacities=[{"VariantName": "A", "DesiredWeight": 1},
                                          {"VariantName": "A", "DesiredWeight": 2}]) == (
    "ValidationException", 'The variant name "A" was non-unique within the request.')
assert error(sm.update_endpoint_weights_and_capacities, EndpointName="ab",
             DesiredWeightsAndCapacities=[{"VariantName": "A", "DesiredWeight": 0},
                                          {"VariantName": "B", "DesiredWeight": 0}])[0] == "ValidationException"

# All traffic to B, which also gets a second instance.
out = sm.update_endpoint_weights_and_capacities(EndpointName="ab", DesiredWeightsAndCapacities=[
    {"VariantName": "A", "DesiredWeight": 0}, {"VariantName": "B", "DesiredWeight": 1, "DesiredInstanceCount": 2}])
assert out["EndpointArn"] == ab_arn
# While it updates (a capacity update can also be over before the next call: then it is InService),
# the variant shows what is asked and what runs, and says Updating.
updating = sm.describe_endpoint(EndpointName="ab")
if updating["EndpointStatus"] == "Updating":
    b = updating["ProductionVariants"][1]
    assert (b["DesiredInstanceCount"], b["CurrentInstanceCount"], b["DesiredWeight"]) == (2, 1, 1.0), b
    assert b["VariantStatus"][0]["Status"] == "Updating", b
else:
    assert updating["EndpointStatus"] == "InService", updating
assert served(8) <= {"A", "B"}  # still serving while it updates
sm.get_waiter("endpoint_in_service").wait(EndpointName="ab", WaiterConfig=wait)
done = sm.describe_endpoint(EndpointName="ab")
va, vb = done["ProductionVariants"]
assert (va["CurrentWeight"], va["DesiredWeight"], vb["CurrentWeight"]) == (0.0, 0.0, 1.0), done
assert (vb["CurrentInstanceCount"], vb["DesiredInstanceCount"], va["CurrentInstanceCount"]) == (2, 2, 1), done
assert "VariantStatus" not in va and "VariantStatus" not in vb, done
assert "FailureReason" not in done, done
assert served(30) == {"B"}
# A target variant is still reachable when its weight is 0.
assert rt.invoke_endpoint(EndpointName="ab", ContentType="text/csv", Body=seed.encode(),
                          TargetVariant="A")["InvokedProductionVariant"] == "A"
# Weights alone move traffic back: all to A.
sm.update_endpoint_weights_and_capacities(EndpointName="ab", DesiredWeightsAndCapacities=[
    {"VariantName": "A", "DesiredWeight": 3}, {"VariantName": "B", "DesiredWeight": 0}])
sm.get_waiter("endpoint_in_service").wait(EndpointName="ab", WaiterConfig=wait)
time.sleep(1.1)  # the invoke path trusts an endpoint's row for a second
assert served(30) == {"A"}

# 8. List*Jobs without SortBy/SortOrder: newest first.
for i in range(3):
    sm.create_training_job(
        TrainingJobName=f"order-{i}", RoleArn=role,
        AlgorithmSpecification={"TrainingImage": f"{account}.dkr.ecr.{region}.amazonaws.com/not-mapped:1",
                                "TrainingInputMode": "File"},
        OutputDataConfig={"S3OutputPath": "s3://answers/out"},
        ResourceConfig={"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 5},
        StoppingCondition={"MaxRuntimeInSeconds": 60})
    sm.create_processing_job(
        ProcessingJobName=f"order-{i}", RoleArn=role,
        AppSpecification={"ImageUri": f"{account}.dkr.ecr.{region}.amazonaws.com/not-mapped:1"},
        ProcessingResources={"ClusterConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.xlarge", "VolumeSizeInGB": 5}})
    sm.create_transform_job(
        TransformJobName=f"order-{i}", ModelName="abalone",
        TransformInput={"DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://answers/in/"}},
                        "ContentType": "text/csv"},
        TransformOutput={"S3OutputPath": "s3://answers/batch"},
        TransformResources={"InstanceType": "ml.m5.large", "InstanceCount": 1})
    time.sleep(0.01)
newest_first = ["order-2", "order-1", "order-0"]
names = [j["TrainingJobName"] for j in sm.list_training_jobs(NameContains="order-")["TrainingJobSummaries"]]
assert names == newest_first, names
names = [j["ProcessingJobName"] for j in sm.list_processing_jobs(NameContains="order-")["ProcessingJobSummaries"]]
assert names == newest_first, names
names = [j["TransformJobName"] for j in sm.list_transform_jobs(NameContains="order-")["TransformJobSummaries"]]
assert names == newest_first, names
names = [j["TrainingJobName"] for j in sm.list_training_jobs(NameContains="order-", SortOrder="Ascending")["TrainingJobSummaries"]]
assert names == newest_first[::-1], names
print("aws answers: ok")
