"""Extras: script mode under HyperparameterTuner, and the model registry (register -> ModelPackage.deploy)."""
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import step  # noqa: E402

from sagemaker import ModelPackage  # noqa: E402
from sagemaker.deserializers import CSVDeserializer  # noqa: E402
from sagemaker.predictor import Predictor  # noqa: E402
from sagemaker.serializers import CSVSerializer  # noqa: E402
from sagemaker.serverless import ServerlessInferenceConfig  # noqa: E402
from sagemaker.sklearn import SKLearn  # noqa: E402
from sagemaker.tuner import HyperparameterTuner, IntegerParameter  # noqa: E402

sess = common.session()
results = {}
train_uri, X, y = common.upload_train(sess, "mlops-sdk")
src = os.path.join(common.SOURCES, "sklearn")


def check(name, fn):
    step(name)
    try:
        fn()
        results[name] = "ok"
    except Exception as e:
        traceback.print_exc()
        results[name] = f"error: {type(e).__name__}: {str(e)[:300]}"


def est():
    return SKLearn(entry_point="train.py", source_dir=src, framework_version="1.2-1", instance_type="ml.m5.large",
                   role=common.ROLE, sagemaker_session=sess, hyperparameters={"max-depth": 5},
                   metric_definitions=[{"Name": "train:rmse", "Regex": "train_rmse=([0-9.]+);"}])


def tuning():
    tuner = HyperparameterTuner(est(), "train:rmse", {"n-estimators": IntegerParameter(3, 30)},
                                metric_definitions=[{"Name": "train:rmse", "Regex": "train_rmse=([0-9.]+);"}],
                                objective_type="Minimize", max_jobs=3, max_parallel_jobs=2)
    tuner.fit({"train": train_uri}, wait=True)
    print("best", tuner.best_training_job())
    print(tuner.analytics().dataframe()[["TrainingJobName", "n-estimators", "FinalObjectiveValue"]].to_string())
    best = tuner.best_estimator()
    print("best estimator", type(best).__name__, best.hyperparameters().get("n-estimators"), best.entry_point)
    p = best.deploy(serverless_inference_config=ServerlessInferenceConfig(memory_size_in_mb=2048, max_concurrency=1),
                    entry_point="inference.py", source_dir=src,
                    serializer=CSVSerializer(), deserializer=CSVDeserializer())
    try:
        print("prediction", p.predict(X[:2]), "truth", y[:2])
    finally:
        p.delete_model()
        p.delete_endpoint()


check("HyperparameterTuner(SKLearn script mode) -> best_estimator().deploy", tuning)


def registry():
    e = est()
    e.fit({"train": train_uri}, logs=False)
    group = f"sdk-group-{int(time.time())}"
    mp = e.register(content_types=["text/csv"], response_types=["text/csv"], inference_instances=["ml.m5.large"],
                    transform_instances=["ml.m5.large"], model_package_group_name=group,
                    approval_status="Approved", entry_point="inference.py", source_dir=src)
    print("model package", mp.model_package_arn)
    desc = sess.sagemaker_client.describe_model_package(ModelPackageName=mp.model_package_arn)
    print("containers", json.dumps(desc["InferenceSpecification"]["Containers"], default=str)[:500])
    pkg = ModelPackage(role=common.ROLE, model_package_arn=mp.model_package_arn, sagemaker_session=sess)
    name = f"sdk-pkg-{int(time.time())}"
    pkg.deploy(initial_instance_count=1, instance_type="ml.m5.large", endpoint_name=name)
    p = Predictor(name, sagemaker_session=sess, serializer=CSVSerializer(), deserializer=CSVDeserializer())
    try:
        print("prediction", p.predict(X[:2]), "truth", y[:2])
    finally:
        p.delete_model()
        p.delete_endpoint()


check("register (model package group) -> ModelPackage.deploy -> predict", registry)

print("H DONE", json.dumps(results, indent=1))
