"""The SageMaker Python SDK's HyperparameterTuner on the built-in XGBoost algorithm, call for call
through boto3: what sagemaker 2.230's tuner.fit, tuner.wait, tuner.best_training_job,
tuner.analytics().dataframe(), HyperparameterTuner.attach and tuner.deploy sent (recorded with a
botocore hook against Slipway; RandomSeed left out, Debian's botocore 1.29 does not know it), so CI
needs only Debian's python3-boto3:

    tuner = HyperparameterTuner(xgb, "validation:rmse", ranges, max_jobs=10, max_parallel_jobs=2,
                                objective_type="Minimize", strategy="Bayesian")
    tuner.fit({"train": ..., "validation": ...}); tuner.best_training_job()
    tuner.analytics().dataframe(); tuner.deploy(1, "ml.m5.xlarge").predict(row)

Usage: python3 boto3_tuning.py ENDPOINT_URL ACCOUNT_ID TRAIN_CSV VALIDATION_CSV
"""
import sys
import time

import boto3
from botocore.config import Config

endpoint, account, train_csv, validation_csv = sys.argv[1:5]
region = "us-east-1"
kw = dict(endpoint_url=endpoint, region_name=region, aws_access_key_id="AKIDBOTO3", aws_secret_access_key="secret")
s3 = boto3.client("s3", config=Config(s3={"addressing_style": "path"}), **kw)
sm = boto3.client("sagemaker", **kw)
rt = boto3.client("sagemaker-runtime", **kw)

bucket = f"sagemaker-{region}-{account}"
s3.create_bucket(Bucket=bucket)
s3.upload_file(train_csv, bucket, "abalone/train/abalone.csv")
s3.upload_file(validation_csv, bucket, "abalone/validation/abalone.csv")
image = f"683313688378.dkr.ecr.{region}.amazonaws.com/sagemaker-xgboost:1.7-1"
role = f"arn:aws:iam::{account}:role/SageMakerRole"

# tuner.fit(): session.create_tuning_job with _map_tuning_config / _map_training_config.
job_name = "sagemaker-xgboost-" + time.strftime("%y%m%d-%H%M")
ranges = {
    "ContinuousParameterRanges": [
        {"Name": "eta", "MinValue": "0", "MaxValue": "1", "ScalingType": "Auto"},
        {"Name": "min_child_weight", "MinValue": "1", "MaxValue": "10", "ScalingType": "Auto"},
        {"Name": "alpha", "MinValue": "0", "MaxValue": "2", "ScalingType": "Auto"},
    ],
    "IntegerParameterRanges": [{"Name": "max_depth", "MinValue": "1", "MaxValue": "10", "ScalingType": "Auto"}],
    "CategoricalParameterRanges": [],
}
channel = lambda name: {  # noqa: E731
    "ChannelName": name,
    "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": f"s3://{bucket}/abalone/{name}/",
                                    "S3DataDistributionType": "FullyReplicated"}},
    "ContentType": "text/csv",
}
sm.create_hyper_parameter_tuning_job(
    HyperParameterTuningJobName=job_name,
    HyperParameterTuningJobConfig={
        "Strategy": "Bayesian",
        "ResourceLimits": {"MaxNumberOfTrainingJobs": 10, "MaxParallelTrainingJobs": 2},
        "TrainingJobEarlyStoppingType": "Off",
        "HyperParameterTuningJobObjective": {"Type": "Minimize", "MetricName": "validation:rmse"},
        "ParameterRanges": ranges,
    },
    TrainingJobDefinition={
        "StaticHyperParameters": {"objective": "reg:squarederror", "num_round": "50", "subsample": "0.7", "gamma": "4"},
        "RoleArn": role,
        "OutputDataConfig": {"S3OutputPath": f"s3://{bucket}/abalone/output"},
        "StoppingCondition": {"MaxRuntimeInSeconds": 86400},
        "HyperParameterTuningResourceConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.xlarge", "VolumeSizeInGB": 30},
        "AlgorithmSpecification": {"TrainingInputMode": "File", "TrainingImage": image},
        "InputDataConfig": [channel("train"), channel("validation")],
    },
)

# tuner.wait(): session.wait_for_tuning_job polls DescribeHyperParameterTuningJob.
started = time.time()
while True:
    desc = sm.describe_hyper_parameter_tuning_job(HyperParameterTuningJobName=job_name)
    if desc["HyperParameterTuningJobStatus"] in ("Completed", "Failed", "Stopped"):
        break
    assert time.time() - started < 120, desc["TrainingJobStatusCounters"]
    time.sleep(0.2)
assert desc["HyperParameterTuningJobStatus"] == "Completed", desc.get("FailureReason")
assert desc["TrainingJobStatusCounters"]["Completed"] == 10, desc["TrainingJobStatusCounters"]
print(f"tuning job {job_name}: 10 jobs in {time.time() - started:.1f} s")

# tuner.best_training_job()
best = desc["BestTrainingJob"]
best_name = best["TrainingJobName"]
best_value = best["FinalHyperParameterTuningJobObjectiveMetric"]["Value"]

# tuner.analytics().dataframe(): ListTrainingJobsForHyperParameterTuningJob pages of 100, reshaped.
summaries, args = [], {}
while True:
    page = sm.list_training_jobs_for_hyper_parameter_tuning_job(HyperParameterTuningJobName=job_name, MaxResults=100, **args)
    summaries += page["TrainingJobSummaries"]
    if "NextToken" in page and page["TrainingJobSummaries"]:
        args["NextToken"] = page["NextToken"]
    else:
        break
rows = []
for s in summaries:
    row = {k: float(v) for k, v in s["TunedHyperParameters"].items()}
    row.update(TrainingJobName=s["TrainingJobName"], TrainingJobStatus=s["TrainingJobStatus"],
               FinalObjectiveValue=s.get("FinalHyperParameterTuningJobObjectiveMetric", {}).get("Value"),
               TrainingElapsedTimeSeconds=(s["TrainingEndTime"] - s["TrainingStartTime"]).total_seconds())
    rows.append(row)
assert len(rows) == 10, len(rows)
assert set(rows[0]) >= {"eta", "min_child_weight", "alpha", "max_depth", "FinalObjectiveValue"}, rows[0]
top = min(rows, key=lambda r: r["FinalObjectiveValue"])
assert top["TrainingJobName"] == best_name and abs(top["FinalObjectiveValue"] - best_value) < 1e-9, (top, best)
for r in rows:
    assert 0 <= r["eta"] <= 1 and 1 <= r["min_child_weight"] <= 10 and r["max_depth"] == int(r["max_depth"]), r
# analytics().tuning_ranges reads the ranges back from the description.
assert [r["Name"] for r in desc["HyperParameterTuningJobConfig"]["ParameterRanges"]["ContinuousParameterRanges"]] == \
    ["eta", "min_child_weight", "alpha"]

# HyperparameterTuner.attach(job_name) removes the hyperparameter SageMaker adds, and reads the
# definition's ResourceConfig and the algorithm's MetricDefinitions.
definition = desc["TrainingJobDefinition"]
assert definition["StaticHyperParameters"].pop("_tuning_objective_metric") == "validation:rmse", definition
assert definition["ResourceConfig"] == {"InstanceCount": 1, "InstanceType": "ml.m5.xlarge", "VolumeSizeInGB": 30}, definition
metric_names = [m["Name"] for m in definition["AlgorithmSpecification"]["MetricDefinitions"]]
assert "validation:rmse" in metric_names, metric_names

# tuner.deploy(1, "ml.m5.xlarge"): Estimator.attach(best) then estimator.deploy.
training = sm.describe_training_job(TrainingJobName=best_name)
assert training["TuningJobArn"] == desc["HyperParameterTuningJobArn"], training.get("TuningJobArn")
assert training["OutputDataConfig"]["KmsKeyId"] == "", training["OutputDataConfig"]  # Estimator.attach reads it
assert sm.list_tags(ResourceArn=training["TrainingJobArn"])["Tags"] == []
model_data = training["ModelArtifacts"]["S3ModelArtifacts"]
model_name = "sagemaker-xgboost-" + time.strftime("%Y-%m-%d-%H-%M-%S-000")
sm.create_model(ModelName=model_name, ExecutionRoleArn=role,
                PrimaryContainer={"Image": image, "Environment": {}, "ModelDataUrl": model_data})
sm.create_endpoint_config(EndpointConfigName=best_name, ProductionVariants=[{
    "VariantName": "AllTraffic", "ModelName": model_name, "InitialVariantWeight": 1,
    "InitialInstanceCount": 1, "InstanceType": "ml.m5.xlarge"}])
sm.create_endpoint(EndpointName=best_name, EndpointConfigName=best_name, Tags=[])
sm.get_waiter("endpoint_in_service").wait(EndpointName=best_name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
# predictor.predict(row) with the CSV serializer.
body = rt.invoke_endpoint(EndpointName=best_name, ContentType="text/csv",
                          Body=b"1,0.5,0.4,0.15,0.3,0.13,0.07,0.09")["Body"].read()
assert 3 < float(body) < 25, body
print("tuning with boto3: ok")
