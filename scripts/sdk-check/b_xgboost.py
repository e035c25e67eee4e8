"""3b: sagemaker.xgboost.XGBoost (script mode, framework_version 1.7-1) fit -> deploy -> predict."""
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import step  # noqa: E402

from sagemaker.deserializers import CSVDeserializer, JSONDeserializer  # noqa: E402
from sagemaker.serializers import CSVSerializer, JSONSerializer  # noqa: E402
from sagemaker.serverless import ServerlessInferenceConfig  # noqa: E402
from sagemaker.xgboost import XGBoost  # noqa: E402

sess = common.session()
train_uri, X, y = common.upload_train(sess, "xgboost-sdk")
src = os.path.join(common.SOURCES, "xgboost")

step("XGBoost.fit")
est = XGBoost(
    entry_point="train.py",
    source_dir=src,
    framework_version="1.7-1",
    instance_type="ml.m5.large",
    instance_count=1,
    role=common.ROLE,
    sagemaker_session=sess,
    hyperparameters={"num_round": 20, "max_depth": 4, "eta": 0.3},
    metric_definitions=[{"Name": "train:rmse", "Regex": r"train-rmse:([0-9.]+)"}],
)
est.fit({"train": train_uri})
job = est.latest_training_job.describe()
print("status", job["TrainingJobStatus"], job["ModelArtifacts"]["S3ModelArtifacts"])
print("image", job["AlgorithmSpecification"]["TrainingImage"], "metrics", job.get("FinalMetricDataList"))

mode = sys.argv[1] if len(sys.argv) > 1 else "serverless"
# argv[2]: inference script (inference_container_encoder.py imports sagemaker_xgboost_container.encoder)
entry = sys.argv[2] if len(sys.argv) > 2 else "inference.py"
step(f"XGBoost.deploy ({mode}, {entry})")
kw = dict(entry_point=entry, source_dir=src)
if mode == "serverless":
    kw["serverless_inference_config"] = ServerlessInferenceConfig(memory_size_in_mb=2048, max_concurrency=2)
else:
    kw.update(initial_instance_count=1, instance_type="ml.m5.large")
try:
    predictor = est.deploy(**kw)
except Exception:
    traceback.print_exc()
    sys.exit(1)

ok = True
for name, ser, de, payload in [
    ("CSV", CSVSerializer(), CSVDeserializer(), X[:3]),
    ("JSON", JSONSerializer(), JSONDeserializer(), X[:3].tolist()),
]:
    step(f"predict {name}")
    try:
        predictor.serializer, predictor.deserializer = ser, de
        print("prediction", predictor.predict(payload), "truth", y[:3])
    except Exception:
        ok = False
        traceback.print_exc()

predictor.delete_model()  # before delete_endpoint: it looks the model up through the endpoint config
predictor.delete_endpoint()
print("B DONE", "ok" if ok else "with failures")
