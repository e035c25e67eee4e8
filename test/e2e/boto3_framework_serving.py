"""Framework models with boto3, as the SageMaker Python SDK deploys them: SKLearnModel(model_data=...,
entry_point="inference.py", source_dir=..., framework_version="1.2-1").deploy(serverless_inference_config=...)
both ways the SDK packs the code (repacked into code/ of model.tar.gz, or sourcedir.tar.gz uploaded
with SAGEMAKER_SUBMIT_DIRECTORY), an XGBoost script-mode model, a PyTorch one (when torch is
installed), a batch transform with the scikit-learn model, and a model whose code tries to read
the server's data directory (the sandbox must refuse).

Usage: python3 boto3_framework_serving.py ENDPOINT_URL ACCOUNT_ID DATA_DIR WITH_TORCH(0|1)"""
import io
import json
import os
import sys
import tarfile
import tempfile

import boto3
import joblib
import numpy as np
from botocore.config import Config
from sklearn.linear_model import LinearRegression

endpoint, account, data_dir, with_torch = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
region = "us-east-1"
kw = dict(endpoint_url=endpoint, region_name=region, aws_access_key_id="AKIDBOTO3", aws_secret_access_key="secret")
s3 = boto3.client("s3", config=Config(s3={"addressing_style": "path"}), **kw)
sm = boto3.client("sagemaker", **kw)
rt = boto3.client("sagemaker-runtime", **kw)
role = f"arn:aws:iam::{account}:role/sm"
bucket = "framework-serving"
s3.create_bucket(Bucket=bucket)
wait = {"Delay": 1, "MaxAttempts": 120}
SK_IMAGE = "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-scikit-learn:1.2-1-cpu-py3"
XGB_IMAGE = "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1"
PT_IMAGE = "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.0.1-cpu-py310-ubuntu20.04-sagemaker"

INFERENCE = '''import json, os
import joblib
import numpy as np

def model_fn(model_dir):
    return joblib.load(os.path.join(model_dir, "model.joblib"))

def input_fn(body, content_type):
    if content_type == "application/json":
        return np.array(json.loads(body)["instances"], dtype=float)
    raise ValueError("unsupported content type " + content_type)

def output_fn(prediction, accept):
    return json.dumps({"predictions": [round(float(p), 4) for p in prediction]}), "application/json"
'''

rng = np.random.default_rng(0)
X = rng.uniform(-5, 5, size=(100, 2))
y = X @ np.array([1.5, -2.0]) + 3.0


def targz(files):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def model_bytes(obj):
    with tempfile.TemporaryDirectory() as d:
        joblib.dump(obj, os.path.join(d, "m"))
        return open(os.path.join(d, "m"), "rb").read()


def put(key, data):
    s3.put_object(Bucket=bucket, Key=key, Body=data)
    return f"s3://{bucket}/{key}"


def deploy(name, image, model_url, env, memory=2048, concurrency=2):
    sm.create_model(ModelName=name, ExecutionRoleArn=role,
                    PrimaryContainer={"Image": image, "ModelDataUrl": model_url, "Environment": env})
    sm.create_endpoint_config(EndpointConfigName=name, ProductionVariants=[{
        "VariantName": "AllTraffic", "ModelName": name,
        "ServerlessConfig": {"MemorySizeInMB": memory, "MaxConcurrency": concurrency}}])
    sm.create_endpoint(EndpointName=name, EndpointConfigName=name)
    sm.get_waiter("endpoint_in_service").wait(EndpointName=name, WaiterConfig=wait)
    return name


def sdk_env(program, submit):
    return {"SAGEMAKER_PROGRAM": program, "SAGEMAKER_SUBMIT_DIRECTORY": submit,
            "SAGEMAKER_CONTAINER_LOG_LEVEL": "20", "SAGEMAKER_REGION": region}


def invoke(name, body, content_type, accept=None):
    kwargs = dict(EndpointName=name, Body=body, ContentType=content_type)
    if accept:
        kwargs["Accept"] = accept
    r = rt.invoke_endpoint(**kwargs)
    return r["Body"].read().decode(), r["ContentType"]


sk = model_bytes(LinearRegression().fit(X, y))

# 1. The SDK repacks: code/inference.py inside model.tar.gz, SAGEMAKER_SUBMIT_DIRECTORY=/opt/ml/model/code.
repacked = put("sk/repacked/model.tar.gz", targz({"model.joblib": sk, "code/inference.py": INFERENCE.encode()}))
deploy("sk-repacked", SK_IMAGE, repacked, sdk_env("inference.py", "/opt/ml/model/code"))
out, ctype = invoke("sk-repacked", json.dumps({"instances": [[2, 1], [0, 0]]}), "application/json")
assert json.loads(out) == {"predictions": [4.0, 3.0]}, out
assert ctype == "application/json", ctype
try:
    invoke("sk-repacked", "1,2", "text/csv")
    raise AssertionError("expected a ModelError")
except rt.exceptions.ModelError as e:
    msg = e.response["Error"]["Message"]
    assert "Received server error (500) from primary with message" in msg and "unsupported content type text/csv" in msg, msg
print("sklearn repacked: ok")

# 2. sourcedir.tar.gz uploaded beside a bare model.tar.gz; default handlers for CSV with Accept.
bare = put("sk/bare/model.tar.gz", targz({"model.joblib": sk}))
src = put("sk/source/sourcedir.tar.gz", targz({"inference.py": INFERENCE.split("def input_fn")[0].encode()}))
deploy("sk-sourcedir", SK_IMAGE, bare, sdk_env("inference.py", src))
out, ctype = invoke("sk-sourcedir", "2,1\n0,0", "text/csv", "text/csv")
assert [round(float(v)) for v in out.split()] == [4, 3], out
assert ctype == "text/csv", ctype
print("sklearn sourcedir: ok")

# 3. XGBoost script mode: the default model_fn loads xgboost-model.
import xgboost as xgb  # noqa: E402

booster = xgb.train({"objective": "reg:squarederror", "max_depth": 3}, xgb.DMatrix(X, label=y), num_boost_round=5)
with tempfile.TemporaryDirectory() as d:
    booster.save_model(os.path.join(d, "m.json"))
    xgb_model = open(os.path.join(d, "m.json"), "rb").read()
xgb_src = put("xgb/sourcedir.tar.gz", targz({"serve.py": b"print('xgboost script mode')\n"}))
deploy("xgb-script", XGB_IMAGE, put("xgb/model.tar.gz", targz({"xgboost-model": xgb_model})), sdk_env("serve.py", xgb_src))
out, _ = invoke("xgb-script", "2,1", "text/csv", "text/csv")
expected = booster.predict(xgb.DMatrix(np.array([[2.0, 1.0]], dtype=np.float32)))[0]
assert abs(float(out) - expected) < 1e-4, (out, expected)
print("xgboost script mode: ok")

# 4. PyTorch: the default model_fn loads TorchScript model.pt; inference.py adds nothing.
if with_torch:
    import torch  # noqa: E402

    lin = torch.nn.Linear(2, 1)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.5, -2.0]]))
        lin.bias.copy_(torch.tensor([3.0]))
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(lin), buf)
    pt = put("pt/model.tar.gz", targz({"model.pt": buf.getvalue(), "code/inference.py": b"# defaults\n"}))
    deploy("pt-model", PT_IMAGE, pt, sdk_env("inference.py", "/opt/ml/model/code"))
    out, _ = invoke("pt-model", json.dumps([[2, 1]]), "application/json")
    assert round(json.loads(out)[0][0]) == 4, out
    print("pytorch: ok")
else:
    print("pytorch: skipped (no torch)")

# 5. Batch transform with the scikit-learn model (default CSV handlers, one request per line).
put("bt/in/rows.csv", b"2,1\n0,0\n1,1\n")
sm.create_transform_job(
    TransformJobName="sk-transform", ModelName="sk-sourcedir",
    TransformInput={"DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": f"s3://{bucket}/bt/in"}},
                    "ContentType": "text/csv", "SplitType": "Line"},
    TransformOutput={"S3OutputPath": f"s3://{bucket}/bt/out", "Accept": "text/csv", "AssembleWith": "Line"},
    TransformResources={"InstanceType": "ml.m5.large", "InstanceCount": 1})
sm.get_waiter("transform_job_completed_or_stopped").wait(TransformJobName="sk-transform", WaiterConfig=wait)
job = sm.describe_transform_job(TransformJobName="sk-transform")
assert job["TransformJobStatus"] == "Completed", job
keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="bt/out").get("Contents", [])]
assert len(keys) == 1 and keys[0].endswith("rows.csv.out"), (keys, job)
body = s3.get_object(Bucket=bucket, Key=keys[0])["Body"].read().decode()
assert [round(float(v), 3) for v in body.split()] == [4, 3, 2.5], body
print("batch transform: ok")

# 6. The sandbox: the user's code cannot read the server's data directory.
SNOOP = '''import json, os

def model_fn(model_dir):
    return None

def transform_fn(model, body, content_type, accept):
    target = os.environ["SNOOP_DIR"]
    try:
        found = os.listdir(target)
    except Exception as e:
        found = "refused: %s" % type(e).__name__
    return json.dumps({"listing": found, "uid": os.getuid()})
'''
deploy("snoop", SK_IMAGE, put("snoop/model.tar.gz", targz({"code/inference.py": SNOOP.encode()})),
       dict(sdk_env("inference.py", "/opt/ml/model/code"), SNOOP_DIR=data_dir))
out, _ = invoke("snoop", "{}", "application/json")
seen = json.loads(out)
assert isinstance(seen["listing"], str) and seen["listing"].startswith("refused"), seen
assert seen["uid"] != 0, seen
print("sandbox: ok")
print("framework serving: ok")
