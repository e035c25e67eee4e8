"""Shared set-up: a sagemaker.Session whose clients all talk to a local Slipway server."""
import os
import sys
import time

os.environ.setdefault("SAGEMAKER_SUPPRESS_V2_WARNING", "1")
ENDPOINT = os.environ.get("SLIPWAY_URL", "http://127.0.0.1:4870")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "test")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "test")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_ENDPOINT_URL", ENDPOINT)  # botocore >= 1.31 reads it for every client
# the SDK phones home (telemetry GET to an AWS bucket) after each call; opt out via SDK defaults config
os.environ.setdefault("SAGEMAKER_USER_CONFIG_OVERRIDE", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "config.yaml"))

import boto3  # noqa: E402
from botocore.config import Config  # noqa: E402

import sagemaker  # noqa: E402

REGION = "us-east-1"
ROLE = "arn:aws:iam::000000000000:role/SageMakerRole"
BUCKET = "sdk-test-bucket"
HERE = os.path.dirname(os.path.abspath(__file__))
# the source directories: the e2e tests' own (test/e2e/boto3_script_mode.py) plus what serving needs
SOURCES = os.path.join(HERE, "..", "..", "test", "fixtures", "script-mode")


def boto_session():
    return boto3.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name=REGION)


def session(bucket=BUCKET):
    b = boto_session()
    s3cfg = Config(s3={"addressing_style": "path"})
    sm = b.client("sagemaker", endpoint_url=ENDPOINT)
    rt = b.client("sagemaker-runtime", endpoint_url=ENDPOINT)
    metrics = b.client("sagemaker-metrics", endpoint_url=ENDPOINT)
    sess = sagemaker.Session(
        boto_session=b,
        sagemaker_client=sm,
        sagemaker_runtime_client=rt,
        sagemaker_metrics_client=metrics,
        default_bucket=bucket,
    )
    # s3 resource/client used by S3Uploader etc. come from boto_session; make them path style
    sess.s3_client = b.client("s3", endpoint_url=ENDPOINT, config=s3cfg)
    sess.s3_resource = b.resource("s3", endpoint_url=ENDPOINT, config=s3cfg)
    return sess


def abalone_csv(path, n=300, seed=0):
    """Label first, 7 numeric features, no header (the built-in algorithms' CSV layout)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    X = rng.random((n, 7))
    y = 3 + 10 * X[:, 0] + 4 * X[:, 1] - 2 * X[:, 2] + rng.normal(0, 0.3, n)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for yi, xi in zip(y, X):
            f.write(",".join(f"{v:.5f}" for v in [yi, *xi]) + "\n")
    return X, y


def upload_train(sess, prefix, n=300):
    local = f"/tmp/sdk-work/{prefix}/train/abalone.csv"
    X, y = abalone_csv(local, n)
    uri = sess.upload_data(os.path.dirname(local), bucket=sess.default_bucket(), key_prefix=f"{prefix}/train")
    return uri, X, y


def step(name):
    print(f"\n===== {name} ({time.strftime('%H:%M:%S')})", flush=True)
