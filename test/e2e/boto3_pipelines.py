"""AWS's abalone pipeline (built with the SageMaker SDK's sagemaker.workflow: its definition is the
committed fixture test/fixtures/pipelines/abalone/definition.json) driven through boto3 as the SDK
drives it: CreatePipeline, StartPipelineExecution, the execution's steps, the registered package
and its lineage down to the raw data; a second identical execution served from the cache; an
impossible threshold failing through the FailStep.

Usage: python3 boto3_pipelines.py ENDPOINT_URL ACCOUNT_ID RAW_CSV BATCH_CSV FIXTURE_DIR
"""
import json
import os
import sys
import time

import boto3
from botocore.config import Config

endpoint, account, raw_csv, batch_csv, fixture = sys.argv[1:6]
region = "us-east-1"
kw = dict(endpoint_url=endpoint, region_name=region, aws_access_key_id="AKIDBOTO3", aws_secret_access_key="secret")
s3 = boto3.client("s3", config=Config(s3={"addressing_style": "path"}), **kw)
sm = boto3.client("sagemaker", **kw)

definition = open(os.path.join(fixture, "definition.json")).read()
bucket = f"sagemaker-{region}-{account}"
s3.create_bucket(Bucket=bucket)
s3.upload_file(raw_csv, bucket, "abalone/abalone-dataset.csv")
s3.upload_file(batch_csv, bucket, "abalone/abalone-dataset-batch/batch.csv")
# The SDK uploaded the step scripts while it built the definition: put them where it says.
for step in json.loads(definition)["Steps"]:
    for i in step.get("Arguments", {}).get("ProcessingInputs", []):
        if i["InputName"] == "code":
            uri = i["S3Input"]["S3Uri"]
            s3.upload_file(os.path.join(fixture, uri.rsplit("/", 1)[1]), bucket, uri.split("/", 3)[3])

role = f"arn:aws:iam::{account}:role/SageMakerPipelines"
arn = sm.create_pipeline(PipelineName="AbalonePipeline", PipelineDefinition=definition, RoleArn=role,
                         PipelineDescription="abalone")["PipelineArn"]
assert arn == f"arn:aws:sagemaker:{region}:{account}:pipeline/abalonepipeline", arn
# upsert: a second create says "already exists", as the SDK's Pipeline.upsert expects.
try:
    sm.create_pipeline(PipelineName="AbalonePipeline", PipelineDefinition=definition, RoleArn=role)
    raise AssertionError("a second CreatePipeline succeeded")
except sm.exceptions.ClientError as e:
    assert e.response["Error"]["Code"] == "ValidationException" and "already exists" in e.response["Error"]["Message"], e
sm.update_pipeline(PipelineName="AbalonePipeline", PipelineDefinition=definition, RoleArn=role)


def run(parameters=()):
    started = time.time()
    ex = sm.start_pipeline_execution(PipelineName="AbalonePipeline", PipelineParameters=list(parameters))["PipelineExecutionArn"]
    while True:
        d = sm.describe_pipeline_execution(PipelineExecutionArn=ex)
        if d["PipelineExecutionStatus"] not in ("Executing", "Stopping"):
            break
        assert time.time() - started < 120, d
        time.sleep(0.2)
    steps = {s["StepName"]: s for s in sm.list_pipeline_execution_steps(PipelineExecutionArn=ex)["PipelineExecutionSteps"]}
    return ex, d, steps, time.time() - started


# 1. The whole pipeline: preprocess, train, evaluate, condition true, register, create model, transform.
ex1, d, steps, took = run()
assert d["PipelineExecutionStatus"] == "Succeeded", (d, steps)
assert set(steps) == {"AbaloneProcess", "AbaloneTrain", "AbaloneEval", "AbaloneMSECond", "AbaloneRegisterModel-RegisterModel",
                      "AbaloneCreateModel-CreateModel", "AbaloneTransform"}, sorted(steps)
assert all(s["StepStatus"] == "Succeeded" for s in steps.values()), steps
assert steps["AbaloneMSECond"]["Metadata"]["Condition"]["Outcome"] == "True"
train_arn = steps["AbaloneTrain"]["Metadata"]["TrainingJob"]["Arn"]
# ARNs lower-case job names, as SageMaker's do; the name keeps its case.
job = sm.describe_training_job(TrainingJobName=train_arn.split("/")[-1])
train_name = job["TrainingJobName"]
assert train_name.startswith("pipelines-" + ex1.split("/")[-1] + "-AbaloneTrain-"), train_name
assert job["TrainingJobStatus"] == "Completed"
assert job["InputDataConfig"][0]["DataSource"]["S3DataSource"]["S3Uri"].endswith("/AbaloneProcess/output/train")
tags = {t["Key"]: t["Value"] for t in sm.list_tags(ResourceArn=train_arn)["Tags"]}
assert tags["sagemaker:pipeline-execution-arn"] == ex1, tags
assert steps["AbaloneEval"]["Metadata"]["ProcessingJob"]["Arn"].startswith(f"arn:aws:sagemaker:{region}:{account}:processing-job/")
model_arn = steps["AbaloneCreateModel-CreateModel"]["Metadata"]["Model"]["Arn"]
transform = sm.describe_transform_job(TransformJobName=steps["AbaloneTransform"]["Metadata"]["TransformJob"]["Arn"].split("/")[-1])
assert transform["ModelName"].lower() == model_arn.split("/")[-1] and transform["TransformJobStatus"] == "Completed"
outputs = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="AbaloneTransform/")["Contents"]]
assert len(outputs) == 1 and outputs[0].endswith("batch.csv.out"), outputs
out = s3.get_object(Bucket=bucket, Key=outputs[0])["Body"].read().decode().split()
assert len(out) == len(open(batch_csv).read().split()), len(out)

# The evaluation report the condition read.
report = json.loads(s3.get_object(Bucket=bucket, Key=sm.describe_processing_job(
    ProcessingJobName=steps["AbaloneEval"]["Metadata"]["ProcessingJob"]["Arn"].split("/")[-1]
)["ProcessingOutputConfig"]["Outputs"][0]["S3Output"]["S3Uri"].split("/", 3)[3] + "/evaluation.json")["Body"].read())
mse = report["regression_metrics"]["mse"]["value"]
assert 0 < mse < 6, report

# One package, pending approval, with the pipeline's lineage down to the raw input.
packages = sm.list_model_packages(ModelPackageGroupName="AbaloneModelPackageGroup")["ModelPackageSummaryList"]
assert len(packages) == 1 and packages[0]["ModelApprovalStatus"] == "PendingManualApproval", packages
package_arn = steps["AbaloneRegisterModel-RegisterModel"]["Metadata"]["RegisterModel"]["Arn"]
assert packages[0]["ModelPackageArn"] == package_arn
pkg = sm.describe_model_package(ModelPackageName=package_arn)
assert pkg["InferenceSpecification"]["Containers"][0]["ModelDataUrl"] == job["ModelArtifacts"]["S3ModelArtifacts"]
assert pkg["ModelMetrics"]["ModelQuality"]["Statistics"]["S3Uri"].endswith("/evaluation.json")
artifact = sm.list_artifacts(SourceUri=package_arn)["ArtifactSummaries"][0]["ArtifactArn"]
lineage = sm.query_lineage(StartArns=[artifact], Direction="Ascendants", IncludeEdges=True, MaxDepth=10)
arns = {v["Arn"] for v in lineage["Vertices"]}
raw = sm.list_artifacts(SourceUri=f"s3://{bucket}/abalone/abalone-dataset.csv")["ArtifactSummaries"]
assert raw and raw[0]["ArtifactArn"] in arns, (raw, lineage["Vertices"])
components = {v["Arn"].split("/")[-1] for v in lineage["Vertices"] if v["LineageType"] == "TrialComponent"}
assert f"{train_name}-aws-training-job".lower() in components, components
assert any(c.endswith("-aws-processing-job") and "-abaloneprocess-" in c for c in components), components

# Experiments: one per pipeline, a trial per execution holding the steps' trial components.
ex1_id = ex1.split("/")[-1]
assert d["PipelineExperimentConfig"] == {"ExperimentName": "AbalonePipeline", "TrialName": ex1_id}, d
trial = sm.describe_trial(TrialName=ex1_id)
assert trial["ExperimentName"] == "AbalonePipeline"
in_trial = {c["TrialComponentName"] for c in sm.list_trial_components(TrialName=ex1_id)["TrialComponentSummaries"]}
assert f"{train_name}-aws-training-job" in in_trial and len(in_trial) == 4, in_trial  # 2 processing, training, transform

params = {p["Name"]: p["Value"] for p in sm.list_pipeline_parameters_for_execution(PipelineExecutionArn=ex1)["PipelineParameters"]}
assert params["MseThreshold"] == "6.0" and params["ProcessingInstanceCount"] == "1", params
assert sm.describe_pipeline_definition_for_execution(PipelineExecutionArn=ex1)["PipelineDefinition"] == definition

# 2. The same execution again: every job step comes from the cache, no job runs.
jobs_before = len(sm.list_training_jobs()["TrainingJobSummaries"]), len(sm.list_processing_jobs()["ProcessingJobSummaries"])
ex2, d2, steps2, took2 = run()
assert d2["PipelineExecutionStatus"] == "Succeeded", (d2, steps2)
for name in ("AbaloneProcess", "AbaloneTrain", "AbaloneEval"):
    assert steps2[name]["CacheHitResult"]["SourcePipelineExecutionArn"] == ex1, steps2[name]
    assert steps2[name]["Metadata"] == steps[name]["Metadata"], (steps2[name], steps[name])
assert (len(sm.list_training_jobs()["TrainingJobSummaries"]), len(sm.list_processing_jobs()["ProcessingJobSummaries"])) == jobs_before

# 3. An impossible threshold: the condition is false and the FailStep fails the execution.
ex3, d3, steps3, _ = run([{"Name": "MseThreshold", "Value": "0"}])
assert d3["PipelineExecutionStatus"] == "Failed", d3
assert steps3["AbaloneMSECond"]["Metadata"]["Condition"]["Outcome"] == "False"
fail = steps3["AbaloneMSEFail"]
assert fail["StepStatus"] == "Failed" and fail["FailureReason"] == "Execution failed due to MSE > 0.0", fail
assert fail["Metadata"]["Fail"]["ErrorMessage"] == "Execution failed due to MSE > 0.0"
assert "AbaloneMSEFail" in d3["FailureReason"], d3
assert "AbaloneRegisterModel-RegisterModel" not in steps3
assert len(sm.list_model_packages(ModelPackageGroupName="AbaloneModelPackageGroup")["ModelPackageSummaryList"]) == 2

# A bad parameter is refused at the start.
try:
    sm.start_pipeline_execution(PipelineName="AbalonePipeline", PipelineParameters=[{"Name": "ProcessingInstanceCount", "Value": "one"}])
    raise AssertionError("a bad Integer parameter was accepted")
except sm.exceptions.ClientError as e:
    assert e.response["Error"]["Code"] == "ValidationException", e

listed = sm.list_pipeline_executions(PipelineName="AbalonePipeline")["PipelineExecutionSummaries"]
assert [e["PipelineExecutionArn"] for e in listed] == [ex3, ex2, ex1], listed
print(f"abalone pipeline: ok (first run {took:.2f} s, cached run {took2:.2f} s)")
