"""Inference script for the XGBoost framework model (script mode): model_fn."""
import os

import xgboost as xgb


def model_fn(model_dir):
    booster = xgb.Booster()
    booster.load_model(os.path.join(model_dir, "xgboost-model"))
    return booster


def input_fn(request_body, content_type):
    """Accept JSON too (the container's default input_fn takes CSV, libsvm, protobuf, parquet only)."""
    import json

    import numpy as np

    if content_type == "application/json":
        return xgb.DMatrix(np.asarray(json.loads(request_body), dtype=float))
    if content_type == "text/csv":
        body = request_body.decode() if isinstance(request_body, bytes) else request_body
        return xgb.DMatrix(np.loadtxt(body.splitlines(), delimiter=",", ndmin=2))
    raise ValueError(f"unsupported content type {content_type}")
