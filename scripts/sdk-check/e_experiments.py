"""3e (#29 regression): Run/log_metric, ExperimentAnalytics, training_job_analytics, Session().default_bucket() (STS)."""
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import step  # noqa: E402

import sagemaker  # noqa: E402
from sagemaker.analytics import ExperimentAnalytics, TrainingJobAnalytics  # noqa: E402
from sagemaker.experiments import Run, load_run  # noqa: E402
from sagemaker.sklearn import SKLearn  # noqa: E402

sess = common.session()
results = {}
exp = f"sdk-exp-{int(time.time())}"


def check(name, fn):
    step(name)
    try:
        out = fn()
        results[name] = "ok"
        return out
    except Exception:
        traceback.print_exc()
        results[name] = "error"


def run_block():
    with Run(experiment_name=exp, run_name="run-1", sagemaker_session=sess) as run:
        run.log_parameter("lr", 0.1)
        run.log_parameters({"depth": 4, "kind": "rf"})
        for i in range(5):
            run.log_metric(name="loss", value=1.0 / (i + 1), step=i)
        run.log_metric(name="acc", value=0.9)
    print("run", run.run_name, "trial component", run._trial_component.trial_component_name)
    with load_run(experiment_name=exp, run_name="run-1", sagemaker_session=sess) as r2:
        r2.log_metric(name="acc", value=0.95)
    with Run(experiment_name=exp, run_name="run-1", sagemaker_session=sess) as r3:  # same names again
        r3.log_parameter("again", 1)


check("Run + log_metric + load_run", run_block)


def analytics():
    time.sleep(1)
    df = ExperimentAnalytics(experiment_name=exp, sagemaker_session=sess).dataframe()
    print(df.T.to_string())
    assert len(df) == 1, f"{len(df)} rows"
    return df


check("ExperimentAnalytics.dataframe", analytics)


def training_analytics():
    train_uri, _, _ = common.upload_train(sess, "exp-sdk")
    est = SKLearn(entry_point="train.py", source_dir=os.path.join(common.SOURCES, "sklearn"), framework_version="1.2-1",
                  instance_type="ml.m5.large", role=common.ROLE, sagemaker_session=sess,
                  hyperparameters={"n-estimators": 5},
                  metric_definitions=[{"Name": "train:rmse", "Regex": "train_rmse=([0-9.]+);"}])
    with Run(experiment_name=exp, run_name="run-train", sagemaker_session=sess):
        est.fit({"train": train_uri}, logs=False)
    df = est.training_job_analytics.dataframe()
    print(df.to_string())
    assert len(df) >= 1
    df2 = TrainingJobAnalytics(est.latest_training_job.name, metric_names=["train:rmse"], sagemaker_session=sess).dataframe()
    print(df2.to_string())
    df3 = ExperimentAnalytics(experiment_name=exp, sagemaker_session=sess).dataframe()
    print(df3[["TrialComponentName", "DisplayName"]].to_string())


check("estimator.training_job_analytics.dataframe", training_analytics)


def plain_session():
    s = sagemaker.Session()  # no clients handed in: env AWS_ENDPOINT_URL only
    return s.default_bucket()


def plain_session_sts_patched():
    import sagemaker.session as smsession

    smsession.sts_regional_endpoint = lambda region: os.environ["AWS_ENDPOINT_URL"]
    s = sagemaker.Session()
    b = s.default_bucket()
    print("default bucket", b, "account", s.account_id())
    return b


step("sagemaker.Session().default_bucket() (unpatched: the SDK's STS endpoint is https://sts.REGION.amazonaws.com)")
import socket  # noqa: E402

socket.setdefaulttimeout(10)
try:
    import botocore.config

    print("default bucket", plain_session())
    results["Session().default_bucket() unpatched"] = "ok"
except Exception as e:
    print("FAILS:", type(e).__name__, str(e)[:300])
    results["Session().default_bucket() unpatched"] = "error: " + type(e).__name__
check("Session().default_bucket() with sts_regional_endpoint patched", plain_session_sts_patched)

print("E DONE", json.dumps(results, indent=1))
