"""Extras: real-time deploy, default model_fn paths, missing model_fn, batch transform, attach."""
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import step  # noqa: E402

import numpy as np  # noqa: E402
from sagemaker.deserializers import CSVDeserializer  # noqa: E402
from sagemaker.estimator import Estimator  # noqa: E402
from sagemaker.pytorch import PyTorch  # noqa: E402
from sagemaker.serializers import CSVSerializer  # noqa: E402
from sagemaker.serverless import ServerlessInferenceConfig  # noqa: E402
from sagemaker.sklearn import SKLearn  # noqa: E402
from sagemaker.s3 import S3Downloader  # noqa: E402

sess = common.session()
results = {}
train_uri, X, y = common.upload_train(sess, "extras-sdk")
sk_src = os.path.join(common.SOURCES, "sklearn")


def check(name, fn):
    step(name)
    try:
        fn()
        results[name] = "ok"
    except Exception as e:
        traceback.print_exc()
        results[name] = f"error: {type(e).__name__}: {str(e)[:400]}"


sk = SKLearn(entry_point="train.py", source_dir=sk_src, framework_version="1.2-1", instance_type="ml.m5.large",
             role=common.ROLE, sagemaker_session=sess, hyperparameters={"n-estimators": 10})
sk.fit({"train": train_uri}, logs=False)


def sk_realtime():
    p = sk.deploy(initial_instance_count=1, instance_type="ml.m5.large", entry_point="inference.py", source_dir=sk_src,
                  serializer=CSVSerializer(), deserializer=CSVDeserializer())
    try:
        print("prediction", p.predict(X[:2]))
        r = sess.sagemaker_runtime_client.invoke_endpoint(EndpointName=p.endpoint_name, Body="1,2,3",
                                                          ContentType="text/csv")
        print("wrong width answered", r["Body"].read())
    except Exception as e:
        print("wrong width ->", type(e).__name__, str(e)[:300])
    finally:
        p.delete_model()
        p.delete_endpoint()


check("SKLearn real-time deploy (ml.m5.large)", sk_realtime)


def sk_no_model_fn():
    # SAGEMAKER_PROGRAM = train.py, which defines no model_fn: the sklearn toolkit requires one
    p = sk.deploy(serverless_inference_config=ServerlessInferenceConfig(memory_size_in_mb=2048, max_concurrency=1),
                  serializer=CSVSerializer(), deserializer=CSVDeserializer())
    try:
        print("prediction", p.predict(X[:2]))
    finally:
        p.delete_model()
        p.delete_endpoint()


check("SKLearn deploy without model_fn (expected to fail as the toolkit does)", sk_no_model_fn)


def sk_transform():
    data_local = "/tmp/sdk-work/extras-sdk/batch/in.csv"
    os.makedirs(os.path.dirname(data_local), exist_ok=True)
    np.savetxt(data_local, X[:10], delimiter=",", fmt="%.5f")
    data = sess.upload_data(os.path.dirname(data_local), bucket=sess.default_bucket(), key_prefix="extras-sdk/batch")
    t = sk.transformer(instance_count=1, instance_type="ml.m5.large", entry_point="inference.py",  # from the training source_dir
                       strategy="MultiRecord", assemble_with="Line", accept="text/csv")
    t.transform(data, content_type="text/csv", split_type="Line", wait=True, logs=False)
    outs = S3Downloader.list(t.output_path, sagemaker_session=sess)
    print("input", data, "output objects", outs)  # SDK's upload_data gives the prefix without a trailing '/'
    print(S3Downloader.read_file(outs[0], sagemaker_session=sess)[:200])


check("SKLearn batch transform (estimator.transformer)", sk_transform)


def attach():
    a = Estimator.attach(sk.latest_training_job.name, sagemaker_session=sess)
    print("attached", type(a).__name__, a.model_data, a.hyperparameters())
    b = SKLearn.attach(sk.latest_training_job.name, sagemaker_session=sess)
    print("SKLearn.attach", b.framework_version, b.entry_point, b.source_dir)


check("Estimator.attach / SKLearn.attach", attach)


def pt_default_model_fn():
    pt = PyTorch(entry_point="train.py", source_dir=os.path.join(common.SOURCES, "pytorch"), framework_version="2.0.1",
                 py_version="py310", instance_type="ml.m5.large", instance_count=1, role=common.ROLE,
                 sagemaker_session=sess, hyperparameters={"epochs": 50})
    pt.fit({"training": train_uri}, logs=False)
    # no inference entry point: SAGEMAKER_PROGRAM=train.py (no model_fn) -> the toolkit's default loads model.pt
    p = pt.deploy(serverless_inference_config=ServerlessInferenceConfig(memory_size_in_mb=3072, max_concurrency=1))
    try:
        print("prediction", p.predict(X[:2].astype(np.float32)))
    finally:
        p.delete_model()
        p.delete_endpoint()


check("PyTorch deploy with the default model_fn (TorchScript model.pt)", pt_default_model_fn)

print("F DONE", json.dumps(results, indent=1))
