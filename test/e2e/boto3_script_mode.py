"""Script mode with boto3, exactly as the SageMaker Python SDK calls it: SKLearn / XGBoost / PyTorch
estimators (sourcedir.tar.gz uploaded, hyperparameters JSON-encoded with sagemaker_program and
sagemaker_submit_directory), SKLearnProcessor / ScriptProcessor / FrameworkProcessor, and the failures
a user meets (missing entry point, syntax error, exception, exit 1, empty model dir, runtime limit,
requirements.txt this host cannot install).

Usage: python3 boto3_script_mode.py ENDPOINT_URL ACCOUNT_ID CSV FIXTURES_DIR [torch]
"""
import io
import json
import os
import sys
import tarfile
import time

import boto3
from botocore.config import Config
from botocore.exceptions import WaiterError

endpoint, account, csv_path, fixtures = sys.argv[1:5]
with_torch = len(sys.argv) > 5 and sys.argv[5] == "torch"
region = "us-east-1"
kw = dict(endpoint_url=endpoint, region_name=region, aws_access_key_id="AKIDSCRIPT", aws_secret_access_key="secret")
s3 = boto3.client("s3", config=Config(s3={"addressing_style": "path"}), **kw)
sm = boto3.client("sagemaker", **kw)
logs = boto3.client("logs", **kw)
wait = {"Delay": 1, "MaxAttempts": 180}
role = f"arn:aws:iam::{account}:role/sm"
bucket = "script-mode"
SKLEARN = f"683313688378.dkr.ecr.{region}.amazonaws.com/sagemaker-scikit-learn:1.2-1-cpu-py3"
XGBOOST = f"683313688378.dkr.ecr.{region}.amazonaws.com/sagemaker-xgboost:1.7-1"
PYTORCH = f"763104351884.dkr.ecr.{region}.amazonaws.com/pytorch-training:2.0.1-cpu-py310"
s3.create_bucket(Bucket=bucket)
s3.upload_file(csv_path, bucket, "data/train/train.csv")


def sourcedir(files, key):
    """A tar.gz of the source directory's files at its root, as the SDK's tar_and_upload_dir makes it."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    s3.put_object(Bucket=bucket, Key=key, Body=buf.getvalue())
    return f"s3://{bucket}/{key}"


def fixture(*parts):
    return open(os.path.join(fixtures, *parts)).read()


def train(name, image, program, files, hps=None, metrics=None, channel="train", max_runtime=600):
    uri = sourcedir(files, f"{name}/source/sourcedir.tar.gz")
    hyperparameters = {k: json.dumps(v) for k, v in (hps or {}).items()}
    hyperparameters.update({
        "sagemaker_program": json.dumps(program),
        "sagemaker_submit_directory": json.dumps(uri),
        "sagemaker_container_log_level": "20",
        "sagemaker_job_name": json.dumps(name),
        "sagemaker_region": json.dumps(region),
    })
    spec = {"TrainingImage": image, "TrainingInputMode": "File", "EnableSageMakerMetricsTimeSeries": True}
    if metrics:
        spec["MetricDefinitions"] = metrics
    sm.create_training_job(
        TrainingJobName=name, RoleArn=role, AlgorithmSpecification=spec, HyperParameters=hyperparameters,
        InputDataConfig=[{"ChannelName": channel, "ContentType": "text/csv", "DataSource": {"S3DataSource": {
            "S3DataType": "S3Prefix", "S3Uri": f"s3://{bucket}/data/train", "S3DataDistributionType": "FullyReplicated"}}}],
        OutputDataConfig={"S3OutputPath": f"s3://{bucket}/output"},
        ResourceConfig={"InstanceType": "ml.m5.large", "InstanceCount": 1, "VolumeSizeInGB": 5},
        StoppingCondition={"MaxRuntimeInSeconds": max_runtime},
    )
    return name


def finished(name):
    try:
        sm.get_waiter("training_job_completed_or_stopped").wait(TrainingJobName=name, WaiterConfig=wait)
    except WaiterError:
        pass  # Failed: the caller reads why
    return sm.describe_training_job(TrainingJobName=name)


def log_text(group, prefix):
    streams = logs.describe_log_streams(logGroupName=group, logStreamNamePrefix=prefix)["logStreams"]
    return "\n".join(e["message"] for s in streams
                     for e in logs.get_log_events(logGroupName=group, logStreamName=s["logStreamName"])["events"])


def model_files(uri):
    key = uri.split("/", 3)[3]
    body = s3.get_object(Bucket=uri.split("/")[2], Key=key)["Body"].read()
    with tarfile.open(fileobj=io.BytesIO(body)) as tar:
        return sorted(tar.getnames())


sk_files = {"train.py": fixture("sklearn", "train.py"), "helpers.py": fixture("sklearn", "helpers.py"),
            "requirements.txt": "numpy\nscikit-learn>=1.0\n"}
jobs = [
    # _tuning_objective_metric: what a tuning job adds to each training job's hyperparameters (the toolkit
    # keeps it from the script's arguments, which the "Invoking script" line below checks)
    train("sk-train", SKLEARN, "train.py", sk_files,
          {"n-estimators": 12, "max-depth": 4, "label": "rings", "_tuning_objective_metric": "train:rmse"},
          [{"Name": "train:rmse", "Regex": "train_rmse=([0-9.]+);"}]),
    train("xgb-script", XGBOOST, "train.py", {"train.py": fixture("xgboost", "train.py")},
          {"num_round": 5, "max_depth": 3, "eta": 0.3}),
    # what users get wrong
    train("bad-missing", SKLEARN, "nope.py", {"train.py": "print(1)\n"}),
    train("bad-syntax", SKLEARN, "train.py", {"train.py": "def broken(:\n"}),
    train("bad-raise", SKLEARN, "train.py", {"train.py": "import os\nraise ValueError('learning rate must be positive, got -1')\n"}),
    train("bad-exit", SKLEARN, "train.py", {"train.py": "import sys\nprint('giving up', file=sys.stderr)\nsys.exit(3)\n"}),
    train("bad-empty", SKLEARN, "train.py", {"train.py": "print('forgot to save')\n"}),
    train("bad-slow", SKLEARN, "train.py", {"train.py": "import time\nprint('sleeping', flush=True)\ntime.sleep(60)\n"},
          max_runtime=2),
    train("bad-reqs", SKLEARN, "train.py", {"train.py": "print(1)\n", "requirements.txt": "numpy\nslipway-no-such-package==9.9\n"}),
]
if with_torch:
    jobs.append(train("pt-train", PYTORCH, "train.py", {"train.py": fixture("pytorch", "train.py")},
                      {"epochs": 30, "lr": 0.01}, channel="training"))

# SKLearnProcessor: the code is an input, the command python3 (SKLearnProcessor(...).run(code=...)).
code_uri = f"s3://{bucket}/processing/code/preprocess.py"
s3.put_object(Bucket=bucket, Key="processing/code/preprocess.py", Body=fixture("processing", "preprocess.py").encode())
s3.upload_file(csv_path, bucket, "raw/abalone.csv")


def processing(name, image, entrypoint, inputs, arguments=None):
    sm.create_processing_job(
        ProcessingJobName=name, RoleArn=role,
        AppSpecification={"ImageUri": image, "ContainerEntrypoint": entrypoint, **({"ContainerArguments": arguments} if arguments else {})},
        ProcessingResources={"ClusterConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.large", "VolumeSizeInGB": 5}},
        ProcessingInputs=[{"InputName": n, "S3Input": {"S3Uri": u, "LocalPath": p, "S3DataType": "S3Prefix", "S3InputMode": "File"}}
                          for n, u, p in inputs],
        ProcessingOutputConfig={"Outputs": [
            {"OutputName": o, "S3Output": {"S3Uri": f"s3://{bucket}/{name}/{o}", "LocalPath": f"/opt/ml/processing/output/{o}",
                                           "S3UploadMode": "EndOfJob"}} for o in ("train", "test")]},
    )
    return name


raw = ("raw", f"s3://{bucket}/raw", "/opt/ml/processing/input/raw")
procs = [
    processing("sk-proc", SKLEARN, ["python3", "/opt/ml/processing/input/code/preprocess.py"],
               [raw, ("code", code_uri, "/opt/ml/processing/input/code")], ["--test-size", "0.2"]),
    # ScriptProcessor(image_uri=<xgboost image>, command=["python3"])
    processing("xgb-proc", XGBOOST, ["python3", "/opt/ml/processing/input/code/preprocess.py"],
               [raw, ("code", code_uri, "/opt/ml/processing/input/code")]),
]
# FrameworkProcessor(estimator_cls=SKLearn, ...).run(code="preprocess.py", source_dir=...): the SDK
# uploads sourcedir.tar.gz and a runproc.sh that unpacks it and starts `python3 preprocess.py`.
src_uri = sourcedir({"preprocess.py": fixture("processing", "preprocess.py")}, "fw-proc/source/sourcedir.tar.gz")
runproc = """#!/bin/bash
cd /opt/ml/processing/input/code/
tar -xzf sourcedir.tar.gz
set -e
python3 preprocess.py "$@"
"""
s3.put_object(Bucket=bucket, Key="fw-proc/entrypoint/runproc.sh", Body=runproc.encode())
procs.append(processing("fw-proc", SKLEARN, ["/bin/bash", "/opt/ml/processing/input/entrypoint/runproc.sh"],
                        [raw, ("code", src_uri.rsplit("/", 1)[0], "/opt/ml/processing/input/code"),
                         ("entrypoint", f"s3://{bucket}/fw-proc/entrypoint", "/opt/ml/processing/input/entrypoint")]))

# --- the estimators' jobs
d = finished("sk-train")
assert d["TrainingJobStatus"] == "Completed", (d.get("FailureReason"), log_text("/aws/sagemaker/TrainingJobs", "sk-train/"))
assert model_files(d["ModelArtifacts"]["S3ModelArtifacts"]) == ["model.joblib"], d["ModelArtifacts"]
out = d["ModelArtifacts"]["S3ModelArtifacts"].replace("model.tar.gz", "output.tar.gz")
assert s3.head_object(Bucket=bucket, Key=out.split("/", 3)[3])
metrics = {m["MetricName"]: m["Value"] for m in d.get("FinalMetricDataList", [])}
assert "train:rmse" in metrics and 0 < metrics["train:rmse"] < 3, metrics
text = log_text("/aws/sagemaker/TrainingJobs", "sk-train/")
assert "runs on /usr/bin/python3" in text or "runs on " in text, text[:2000]
assert "scikit-learn" in text, text[:2000]
assert "Invoking script with the following command:" in text, text[:3000]
assert "train.py --label rings --max-depth 4 --n-estimators 12" in text, text[:3000]
assert "args {'n_estimators': 12, 'max_depth': 4, 'label': 'rings'" in text, text[:3000]
assert "every requirement is already installed" in text, text[:3000]
assert "first line of train.py" in text
print("sklearn estimator: ok", metrics)

d = finished("xgb-script")
assert d["TrainingJobStatus"] == "Completed", d.get("FailureReason")
assert model_files(d["ModelArtifacts"]["S3ModelArtifacts"]) == ["xgboost-model"]
assert "train-rmse" in log_text("/aws/sagemaker/TrainingJobs", "xgb-script/")
print("xgboost script mode: ok")

if with_torch:
    d = finished("pt-train")
    assert d["TrainingJobStatus"] == "Completed", d.get("FailureReason")
    assert model_files(d["ModelArtifacts"]["S3ModelArtifacts"]) == ["model.pt"]
    print("pytorch estimator: ok")

expect = {
    "bad-missing": ["ClientError: the entry point nope.py (sagemaker_program) is not in the source directory", "train.py"],
    "bad-syntax": ["AlgorithmError: ExecuteUserScriptError:", "SyntaxError", "exit code 1"],
    "bad-raise": ["AlgorithmError: ExecuteUserScriptError:", "ValueError: learning rate must be positive, got -1",
                  'line 2', "Command \""],
    "bad-exit": ["ExitCode 3", "exit code 3"],
    "bad-empty": ["ClientError: The training script wrote nothing to /opt/ml/model"],
    "bad-reqs": ["ClientError: requirements.txt in the source directory asks for slipway-no-such-package==9.9 (not installed)"],
}
for name, parts in expect.items():
    d = finished(name)
    assert d["TrainingJobStatus"] == "Failed", (name, d["TrainingJobStatus"])
    for p in parts:
        assert p in d["FailureReason"], (name, p, d["FailureReason"])
d = finished("bad-slow")
assert d["TrainingJobStatus"] == "Stopped" or "MaxRuntimeInSeconds" in d.get("FailureReason", "") or d["SecondaryStatus"] == "MaxRuntimeExceeded", d
assert "sleeping" in log_text("/aws/sagemaker/TrainingJobs", "bad-slow/")
print("failures: ok")

# --- processing
for name in [p for p in procs]:
    try:
        sm.get_waiter("processing_job_completed_or_stopped").wait(ProcessingJobName=name, WaiterConfig=wait)
    except WaiterError:
        pass
    p = sm.describe_processing_job(ProcessingJobName=name)
    assert p["ProcessingJobStatus"] == "Completed", (name, p.get("FailureReason"), p.get("ExitMessage"))
    listed = s3.list_objects_v2(Bucket=bucket, Prefix=f"{name}/train/")["Contents"]
    assert [o["Key"] for o in listed] == [f"{name}/train/train.csv"], listed
    text = log_text("/aws/sagemaker/ProcessingJobs", f"{name}/")
    assert "split " in text and "runs on " in text, text[:2000]
print("processing: ok")
print("script mode: ok")
