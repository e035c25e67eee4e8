"""What the SageMaker Python SDK (v2.230) sends for its everyday flows, recorded against Slipway and
replayed here with boto3 (Debian's python3-boto3), so CI checks them without the SDK itself:

  sagemaker.Session().default_bucket()   STS GetCallerIdentity; S3 ListBuckets, HeadBucket (404),
                                         CreateBucket, HeadBucket with ExpectedBucketOwner
  with Run(...) as run: run.log_metric   CreateExperiment, CreateTrial, CreateTrialComponent,
                                         Search (TrialComponentName, Parents.TrialName),
                                         AssociateTrialComponent, UpdateTrialComponent,
                                         sagemaker-metrics BatchPutMetrics
  load_run(...) / a second Run           Create* answering "already exists" then Describe*, and
                                         AssociateTrialComponent again, which must succeed
  ExperimentAnalytics(...).dataframe()   Search Parents.ExperimentName; Parameters, InputArtifacts,
                                         OutputArtifacts read with .items(), Metrics summaries
  estimator.fit() + training_job_analytics  CreateTrainingJob (built-in XGBoost), DescribeTrainingJob
                                         (AlgorithmSpecification.MetricDefinitions), CloudWatch
                                         GetMetricStatistics on /aws/sagemaker/TrainingJobs by
                                         TrainingJobName, Period 60, Average
  sagemaker.lineage helpers              ListArtifacts, ListAssociations, QueryLineage

Usage: boto3_sdk_workflow.py ENDPOINT ACCOUNT TRAIN_CSV
(AWS_DATA_PATH must hold a sagemaker-metrics model: Debian's botocore 1.29 predates the service.)
"""
import datetime
import sys
import time

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

endpoint, account, train_csv = sys.argv[1], sys.argv[2], sys.argv[3]
region = "us-east-1"
kw = dict(endpoint_url=endpoint, region_name=region, aws_access_key_id="AKIDSDK", aws_secret_access_key="secret",
          config=Config(retries={"max_attempts": 1}, s3={"addressing_style": "path"}))
sts, sm, metrics, cw = (boto3.client(s, **kw) for s in ("sts", "sagemaker", "sagemaker-metrics", "cloudwatch"))
s3 = boto3.resource("s3", **kw)


def code(fn, **args):
    try:
        fn(**args)
    except ClientError as e:
        return e.response["Error"]["Code"]
    return None


# --- Session.default_bucket()
assert sts.get_caller_identity()["Account"] == account
bucket = "sagemaker-%s-%s" % (region, account)
assert s3.Bucket(bucket).creation_date is None
assert code(s3.meta.client.head_bucket, Bucket=bucket) == "404"
s3.meta.client.create_bucket(Bucket=bucket)
s3.meta.client.head_bucket(Bucket=bucket, ExpectedBucketOwner=account)
assert code(s3.meta.client.head_bucket, Bucket=bucket, ExpectedBucketOwner="999999999999") == "403"

# --- with Run(experiment_name="churn", run_name="run-1") as run: run.log_parameter(...); run.log_metric(...)
experiment, trial, run = "churn", "Default-Run-Group-churn", "churn-run-1"
sm.create_experiment(ExperimentName=experiment, DisplayName=experiment)
sm.create_trial(ExperimentName=experiment, TrialName=trial)
sm.create_trial_component(TrialComponentName=run, DisplayName="run-1",
                          Tags=[{"Key": "sagemaker:trial-component-source", "Value": "sdk"}])


def associated():
    return sm.search(Resource="ExperimentTrialComponent", SearchExpression={"Filters": [
        {"Name": "TrialComponentName", "Operator": "Equals", "Value": run},
        {"Name": "Parents.TrialName", "Operator": "Equals", "Value": trial}]})["Results"]


assert associated() == []
sm.associate_trial_component(TrialComponentName=run, TrialName=trial)
assert len(associated()) == 1
sm.update_trial_component(TrialComponentName=run, Status={"PrimaryStatus": "InProgress"},
                          StartTime=datetime.datetime.now(datetime.timezone.utc),
                          Parameters={"lr": {"NumberValue": 0.1}, "optimizer": {"StringValue": "adam"}})
now = int(time.time())
r = metrics.batch_put_metrics(TrialComponentName=run, MetricData=[
    {"MetricName": "loss", "Timestamp": str(now - 3), "Step": 0, "Value": 1.0},
    {"MetricName": "loss", "Timestamp": str(now - 2), "Step": 1, "Value": 0.5},
    {"MetricName": "loss", "Timestamp": str(now - 1), "Step": 2, "Value": 0.25},
    {"MetricName": "accuracy", "Timestamp": str(now), "Value": 0.9},
    # Outside the accepted window: refused alone, in Errors.
    {"MetricName": "loss", "Timestamp": str(now - 30 * 86400), "Step": 3, "Value": 9.0},
])
assert r.get("Errors") == [{"Code": "VALIDATION_ERROR", "MetricIndex": 4}], r
sm.update_trial_component(TrialComponentName=run, Status={"PrimaryStatus": "Completed"},
                          EndTime=datetime.datetime.now(datetime.timezone.utc))

# --- load_run(...) in a job, or a second Run with the same names
assert code(sm.create_experiment, ExperimentName=experiment) == "ValidationException"
sm.describe_experiment(ExperimentName=experiment)
assert code(sm.create_trial, ExperimentName=experiment, TrialName=trial) == "ValidationException"
assert code(sm.create_trial_component, TrialComponentName=run) == "ValidationException"
again = sm.associate_trial_component(TrialComponentName=run, TrialName=trial)
assert again["TrialComponentArn"].endswith("experiment-trial-component/%s" % run), again
metrics.batch_put_metrics(TrialComponentName=run, MetricData=[{"MetricName": "loss", "Timestamp": str(now), "Step": 3, "Value": 0.125}])

tc = sm.describe_trial_component(TrialComponentName=run)
loss = next(m for m in tc["Metrics"] if m["MetricName"] == "loss")
assert (loss["Count"], loss["Min"], loss["Max"], loss["Last"]) == (4, 0.125, 1.0, 0.125), loss
assert abs(loss["Avg"] - 0.46875) < 1e-12 and loss["StdDev"] > 0, loss
assert tc["InputArtifacts"] == {} and tc["OutputArtifacts"] == {}, tc

# A second trial component without parameters or artifacts: maps still come back empty.
sm.create_trial_component(TrialComponentName="churn-run-2")
sm.associate_trial_component(TrialComponentName="churn-run-2", TrialName=trial)

# --- ExperimentAnalytics(experiment_name="churn").dataframe()
results = sm.search(Resource="ExperimentTrialComponent",
                    SearchExpression={"Filters": [{"Name": "Parents.ExperimentName", "Operator": "Equals", "Value": experiment}]})["Results"]
rows = {}
for t in (res["TrialComponent"] for res in results):
    row = {name: v.get("NumberValue", v.get("StringValue")) for name, v in sorted(t.get("Parameters", []).items())}
    for m in t.get("Metrics", []):
        for stat in ["Min", "Max", "Avg", "StdDev", "Last", "Count"]:
            if m.get(stat) is not None:
                row["%s - %s" % (m["MetricName"], stat)] = m[stat]
    for artifacts in (t.get("InputArtifacts", []), t.get("OutputArtifacts", [])):
        for name, v in sorted(artifacts.items()):
            row[name + " - Value"] = v.get("Value")
    row["Trials"] = [p["TrialName"] for p in t.get("Parents", [])]
    rows[t["TrialComponentName"]] = row
assert set(rows) == {"churn-run-1", "churn-run-2"}, rows
assert rows["churn-run-1"]["lr"] == 0.1 and rows["churn-run-1"]["loss - Last"] == 0.125, rows["churn-run-1"]
assert rows["churn-run-1"]["accuracy - Count"] == 1 and rows["churn-run-2"]["Trials"] == [trial], rows

# Each step's value, as the SDK's Studio charts read them.
by_step = metrics.batch_get_metrics(MetricQueries=[{
    "MetricName": "loss", "ResourceArn": tc["TrialComponentArn"], "MetricStat": "Avg",
    "Period": "IterationNumber", "XAxisType": "IterationNumber"}])["MetricQueryResults"][0]
assert (by_step["Status"], by_step["XAxisValues"], by_step["MetricValues"]) == ("Complete", [0, 1, 2, 3], [1.0, 0.5, 0.25, 0.125]), by_step
assert code(metrics.batch_put_metrics, TrialComponentName="no-such-run",
            MetricData=[{"MetricName": "x", "Timestamp": str(now), "Value": 1.0}]) == "ResourceNotFound"

# --- Estimator(image_uris.retrieve("xgboost", region, "1.7-1"), ...).fit(...); .training_job_analytics.dataframe()
s3.meta.client.upload_file(train_csv, bucket, "sdk/train/train.csv")
job = "sdk-xgboost-1"
image = "683313688378.dkr.ecr.%s.amazonaws.com/sagemaker-xgboost:1.7-1" % region
sm.create_training_job(
    TrainingJobName=job, RoleArn="arn:aws:iam::%s:role/sm" % account,
    AlgorithmSpecification={"TrainingImage": image, "TrainingInputMode": "File"},
    HyperParameters={"objective": "reg:squarederror", "num_round": "10", "max_depth": "3"},
    InputDataConfig=[{"ChannelName": "train", "ContentType": "text/csv", "DataSource": {"S3DataSource": {
        "S3DataType": "S3Prefix", "S3Uri": "s3://%s/sdk/train/" % bucket, "S3DataDistributionType": "FullyReplicated"}}}],
    OutputDataConfig={"S3OutputPath": "s3://%s/sdk/output" % bucket},
    ResourceConfig={"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 5},
    StoppingCondition={"MaxRuntimeInSeconds": 3600},
    ExperimentConfig={"ExperimentName": experiment, "TrialName": trial})
sm.get_waiter("training_job_completed_or_stopped").wait(TrainingJobName=job, WaiterConfig={"Delay": 1, "MaxAttempts": 180})
d = sm.describe_training_job(TrainingJobName=job)
assert d["TrainingJobStatus"] == "Completed", d.get("FailureReason")
names = [m["Name"] for m in d["AlgorithmSpecification"]["MetricDefinitions"]]
assert "train:rmse" in names and "validation:rmse" in names, names
rmse = next(m for m in d["AlgorithmSpecification"]["MetricDefinitions"] if m["Name"] == "train:rmse")
assert rmse["Regex"] == ".*\\[[0-9]+\\].*#011train-rmse:(\\S+)", rmse
final = {m["MetricName"]: m["Value"] for m in d["FinalMetricDataList"]}
datapoints = cw.get_metric_statistics(
    Namespace="/aws/sagemaker/TrainingJobs", MetricName="train:rmse",
    Dimensions=[{"Name": "TrainingJobName", "Value": job}],
    StartTime=d["TrainingStartTime"], EndTime=d["TrainingEndTime"] + datetime.timedelta(minutes=1),
    Period=60, Statistics=["Average"])["Datapoints"]
assert datapoints and all(p["Average"] > 0 for p in datapoints), datapoints
assert min(p["Average"] for p in datapoints) >= final["train:rmse"] - 1e-9
assert cw.get_metric_statistics(
    Namespace="/aws/sagemaker/TrainingJobs", MetricName="validation:rmse",
    Dimensions=[{"Name": "TrainingJobName", "Value": job}],
    StartTime=d["TrainingStartTime"], EndTime=d["TrainingEndTime"] + datetime.timedelta(minutes=1),
    Period=60, Statistics=["Average"])["Datapoints"] == []
hosts = cw.list_metrics(Namespace="/aws/sagemaker/TrainingJobs", Dimensions=[{"Name": "Host", "Value": job + "/algo-1"}])["Metrics"]
assert [m["MetricName"] for m in hosts] == ["train:rmse"], hosts
rounds = metrics.batch_get_metrics(MetricQueries=[{
    "MetricName": "train:rmse", "ResourceArn": d["TrainingJobArn"], "MetricStat": "Last",
    "Period": "IterationNumber", "XAxisType": "IterationNumber"}])["MetricQueryResults"][0]
assert rounds["XAxisValues"] == list(range(10)) and abs(rounds["MetricValues"][-1] - final["train:rmse"]) < 1e-9, rounds

# --- sagemaker.lineage helpers: artifacts of the job, what produced the model
arts = sm.list_artifacts()["ArtifactSummaries"]
assert {a["ArtifactType"] for a in arts} >= {"DataSet", "Image", "Model"}, arts
job_tc = sm.describe_trial_component(TrialComponentName=job + "-aws-training-job")
model = next(a for a in arts if a["ArtifactType"] == "Model")
up = sm.query_lineage(StartArns=[model["ArtifactArn"]], Direction="Ascendants", IncludeEdges=True, MaxDepth=10)
assert job_tc["TrialComponentArn"] in [v["Arn"] for v in up["Vertices"]], up
# The job joined the run's trial through its ExperimentConfig: ExperimentAnalytics sees it too.
assert any(p["TrialName"] == trial for p in sm.search(Resource="ExperimentTrialComponent", SearchExpression={"Filters": [
    {"Name": "TrialComponentName", "Operator": "Equals", "Value": job + "-aws-training-job"}]})["Results"][0]["TrialComponent"]["Parents"])
print("ok")
