"""3c: PyTorch(framework_version 2.0.1, py310) fit -> deploy (TorchScript + model_fn) -> predict."""
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import step  # noqa: E402

import numpy as np  # noqa: E402
from sagemaker.deserializers import JSONDeserializer, NumpyDeserializer  # noqa: E402
from sagemaker.pytorch import PyTorch  # noqa: E402
from sagemaker.serializers import JSONSerializer, NumpySerializer  # noqa: E402
from sagemaker.serverless import ServerlessInferenceConfig  # noqa: E402

sess = common.session()
train_uri, X, y = common.upload_train(sess, "pytorch-sdk")
src = os.path.join(common.SOURCES, "pytorch")

step("PyTorch.fit")
est = PyTorch(
    entry_point="train.py",
    source_dir=src,
    framework_version="2.0.1",
    py_version="py310",
    instance_type="ml.m5.large",
    instance_count=1,
    role=common.ROLE,
    sagemaker_session=sess,
    hyperparameters={"epochs": 200, "lr": 0.1},
    metric_definitions=[{"Name": "train:loss", "Regex": r"loss=([0-9.]+)"}],
)
est.fit({"training": train_uri})
job = est.latest_training_job.describe()
print("status", job["TrainingJobStatus"], job["ModelArtifacts"]["S3ModelArtifacts"])
print("image", job["AlgorithmSpecification"]["TrainingImage"], "metrics", job.get("FinalMetricDataList"))

step("PyTorch.deploy serverless")
try:
    predictor = est.deploy(
        serverless_inference_config=ServerlessInferenceConfig(memory_size_in_mb=3072, max_concurrency=2),
        entry_point="inference.py",
        source_dir=src,
    )
except Exception:
    traceback.print_exc()
    sys.exit(1)

ok = True
for name, ser, de, payload in [
    ("npy (PyTorchPredictor default)", NumpySerializer(), NumpyDeserializer(), X[:3].astype(np.float32)),
    ("JSON", JSONSerializer(), JSONDeserializer(), X[:3].tolist()),
]:
    step(f"predict {name}")
    try:
        predictor.serializer, predictor.deserializer = ser, de
        print("prediction", predictor.predict(payload), "truth", y[:3])
    except Exception:
        ok = False
        traceback.print_exc()

predictor.delete_model()
predictor.delete_endpoint()
print("C DONE", "ok" if ok else "with failures")
