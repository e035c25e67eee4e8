"""As inference.py, but falls back to the container's own decoder as AWS's XGBoost script-mode examples do."""
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
    from sagemaker_xgboost_container import encoder

    return encoder.decode(request_body, content_type)
