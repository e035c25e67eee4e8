"""3d: SKLearnProcessor.run, ScriptProcessor(image_uri=<xgboost image>, command=["python3"]), FrameworkProcessor(source_dir)."""
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import step  # noqa: E402

from sagemaker import image_uris  # noqa: E402
from sagemaker.processing import FrameworkProcessor, ProcessingInput, ProcessingOutput, ScriptProcessor  # noqa: E402
from sagemaker.s3 import S3Downloader  # noqa: E402
from sagemaker.sklearn import SKLearn, SKLearnProcessor  # noqa: E402

sess = common.session()
raw = f"/tmp/sdk-work/processing-sdk/raw/abalone.csv"
common.abalone_csv(raw, 400)
raw_uri = sess.upload_data(os.path.dirname(raw), bucket=sess.default_bucket(), key_prefix="processing-sdk/raw")
here = os.path.join(common.SOURCES, "processing")
bucket = sess.default_bucket()
results = {}


def listing(uri):
    return sorted(S3Downloader.list(uri, sagemaker_session=sess))


step("SKLearnProcessor.run")
try:
    p = SKLearnProcessor(framework_version="1.2-1", role=common.ROLE, instance_type="ml.m5.large",
                         instance_count=1, sagemaker_session=sess)
    p.run(
        code=os.path.join(here, "preprocess.py"),
        inputs=[ProcessingInput(source=raw_uri, destination="/opt/ml/processing/input/raw")],
        outputs=[
            ProcessingOutput(output_name="train", source="/opt/ml/processing/output/train",
                             destination=f"s3://{bucket}/processing-sdk/out/train"),
            ProcessingOutput(output_name="test", source="/opt/ml/processing/output/test"),
        ],
        arguments=["--test-size", "0.2"],
    )
    desc = p.latest_job.describe()
    print("status", desc["ProcessingJobStatus"], "image", desc["AppSpecification"]["ImageUri"])
    print("entrypoint", desc["AppSpecification"].get("ContainerEntrypoint"))
    outs = {o["OutputName"]: o["S3Output"]["S3Uri"] for o in desc["ProcessingOutputConfig"]["Outputs"]}
    for k, v in outs.items():
        print(k, v, listing(v))
    train_uri = outs["train"]
    results["SKLearnProcessor"] = desc["ProcessingJobStatus"]
except Exception:
    traceback.print_exc()
    results["SKLearnProcessor"] = "error"
    train_uri = None

step("ScriptProcessor (XGBoost image, command python3)")
try:
    xgb_image = image_uris.retrieve("xgboost", sess.boto_region_name, version="1.7-1")
    print("image", xgb_image)
    sp = ScriptProcessor(image_uri=xgb_image, command=["python3"], role=common.ROLE,
                         instance_type="ml.m5.large", instance_count=1, sagemaker_session=sess)
    sp.run(
        code=os.path.join(here, "xgb_check.py"),
        inputs=[ProcessingInput(source=train_uri or raw_uri, destination="/opt/ml/processing/input/train")],
        outputs=[ProcessingOutput(output_name="report", source="/opt/ml/processing/output/report")],
        arguments=["--flag", "x"],
    )
    desc = sp.latest_job.describe()
    out = desc["ProcessingOutputConfig"]["Outputs"][0]["S3Output"]["S3Uri"]
    print("status", desc["ProcessingJobStatus"], "report", S3Downloader.read_file(out + "/report.json", sagemaker_session=sess))
    results["ScriptProcessor"] = desc["ProcessingJobStatus"]
except Exception:
    traceback.print_exc()
    results["ScriptProcessor"] = "error"

step("FrameworkProcessor(SKLearn, source_dir)")
try:
    fp = FrameworkProcessor(estimator_cls=SKLearn, framework_version="1.2-1", py_version="py3",
                            role=common.ROLE, instance_type="ml.m5.large", instance_count=1,
                            sagemaker_session=sess, base_job_name="fw-proc")
    fp.run(
        code="split.py",
        source_dir=os.path.join(here, "fw"),
        inputs=[ProcessingInput(source=raw_uri, destination="/opt/ml/processing/input/raw")],
        outputs=[ProcessingOutput(output_name="parts", source="/opt/ml/processing/output/parts")],
        arguments=["--ratio", "0.75"],
    )
    desc = fp.latest_job.describe()
    out = desc["ProcessingOutputConfig"]["Outputs"][0]["S3Output"]["S3Uri"]
    print("status", desc["ProcessingJobStatus"], "entrypoint", desc["AppSpecification"].get("ContainerEntrypoint"))
    print("outputs", listing(out))
    results["FrameworkProcessor"] = desc["ProcessingJobStatus"]
except Exception:
    traceback.print_exc()
    results["FrameworkProcessor"] = "error"

print("D DONE", json.dumps(results))
