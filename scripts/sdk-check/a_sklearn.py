"""3a: SKLearn estimator fit -> serverless deploy -> predict (CSV and JSON)."""
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import step  # noqa: E402

from sagemaker.deserializers import CSVDeserializer, JSONDeserializer  # noqa: E402
from sagemaker.serializers import CSVSerializer, JSONSerializer  # noqa: E402
from sagemaker.serverless import ServerlessInferenceConfig  # noqa: E402
from sagemaker.sklearn import SKLearn  # noqa: E402

sess = common.session()
train_uri, X, y = common.upload_train(sess, "sklearn-sdk")
src = os.path.join(common.SOURCES, "sklearn")

step("SKLearn.fit")
est = SKLearn(
    entry_point="train.py",
    source_dir=src,
    framework_version="1.2-1",
    py_version="py3",
    instance_type="ml.m5.large",
    instance_count=1,
    role=common.ROLE,
    sagemaker_session=sess,
    hyperparameters={"n-estimators": 20, "max-depth": 6},
    metric_definitions=[{"Name": "train:rmse", "Regex": "train_rmse=([0-9.]+);"}],
)
est.fit({"train": train_uri}, wait=True, logs=True)
job = est.latest_training_job.describe()
print("status", job["TrainingJobStatus"], "model", job["ModelArtifacts"]["S3ModelArtifacts"])
print("final metrics", job.get("FinalMetricDataList"))
print("image", job["AlgorithmSpecification"]["TrainingImage"])

step("SKLearn.deploy serverless")
try:
    predictor = est.deploy(
        serverless_inference_config=ServerlessInferenceConfig(memory_size_in_mb=2048, max_concurrency=2),
        entry_point="inference.py",
        source_dir=src,
    )
except Exception:
    traceback.print_exc()
    sys.exit(1)
print("endpoint", predictor.endpoint_name)

rows = X[:3]
ok = True
for name, ser, de, payload in [
    ("CSV", CSVSerializer(), CSVDeserializer(), rows),
    ("JSON", JSONSerializer(), JSONDeserializer(), rows.tolist()),
    ("default (npy)", None, None, rows),
]:
    step(f"predict {name}")
    try:
        if ser is not None:
            predictor.serializer, predictor.deserializer = ser, de
        else:
            from sagemaker.deserializers import NumpyDeserializer
            from sagemaker.serializers import NumpySerializer
            predictor.serializer, predictor.deserializer = NumpySerializer(), NumpyDeserializer()
        out = predictor.predict(payload)
        print("prediction", out, "truth", y[:3])
    except Exception:
        ok = False
        traceback.print_exc()

step("cleanup")
predictor.delete_model()  # before delete_endpoint: it looks the model up through the endpoint config
predictor.delete_endpoint()
print("A DONE", "ok" if ok else "with failures")
