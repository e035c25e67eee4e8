"""The framework toolkits' default handlers, used where the user's module defines none:
scikit-learn (sagemaker-scikit-learn-container), XGBoost script mode (sagemaker-xgboost-container),
PyTorch (sagemaker-pytorch-inference-toolkit), and a generic chain for the other frameworks."""
import os
import textwrap

import numpy as np

import slipway_codecs as codecs


def _sklearn_model_fn(model_dir):
    raise NotImplementedError(
        textwrap.dedent(
            """
            Please provide a model_fn implementation.
            See documentation for model_fn at https://github.com/aws/sagemaker-python-sdk
            """
        )
    )


def _utf8_float32(data, content_type):
    arr = codecs.decode(data, content_type)
    if codecs.base_type(content_type) in codecs.UTF8_TYPES and arr.dtype.kind in "iuf":
        return arr.astype(np.float32)
    return arr


def _sklearn_input_fn(data, content_type):
    return _utf8_float32(data, content_type)


def _predict(data, model):
    return model.predict(data)


def _output_fn(prediction, accept):
    return codecs.encode(prediction, accept)


def _xgb_model_fn(model_dir):
    import xgboost as xgb

    path = os.path.join(model_dir, "xgboost-model")
    if not os.path.exists(path):
        names = [n for n in os.listdir(model_dir) if not n.startswith(".") and n != "code"]
        if len(names) != 1:
            raise FileNotFoundError("No xgboost-model file in %s (found: %s)" % (model_dir, ", ".join(names) or "nothing"))
        path = os.path.join(model_dir, names[0])
    booster = xgb.Booster()
    try:
        booster.load_model(path)
    except Exception:
        import pickle

        with open(path, "rb") as f:
            booster = pickle.load(f)
    return booster


def _xgb_predict_fn(data, model):
    import xgboost as xgb

    if isinstance(model, xgb.Booster):
        if not isinstance(data, xgb.DMatrix):
            data = xgb.DMatrix(np.atleast_2d(data))
        return model.predict(data)
    return model.predict(data)


def _torch_model_fn(model_dir):
    import torch

    for name in ("model.pt", "model.pth"):
        path = os.path.join(model_dir, name)
        if os.path.exists(path):
            model = torch.jit.load(path, map_location="cpu")
            model.eval()
            return model
    raise FileNotFoundError(
        "Failed to load model with default model_fn: missing file model.pt or model.pth in %s. "
        "Provide a model_fn or save a TorchScript model." % model_dir
    )


def _torch_input_fn(data, content_type):
    import torch

    arr = codecs.decode(data, content_type)
    if codecs.base_type(content_type) in codecs.UTF8_TYPES:
        return torch.FloatTensor(np.asarray(arr, dtype=np.float32))
    return torch.from_numpy(arr)


def _torch_predict_fn(data, model):
    import torch

    with torch.no_grad():
        return model(data)


def _torch_output_fn(prediction, accept):
    import torch

    if isinstance(prediction, torch.Tensor):
        prediction = prediction.detach().cpu().numpy().tolist()
    return codecs.encode(prediction, accept)


DEFAULTS = {
    "sklearn": dict(model_fn=_sklearn_model_fn, input_fn=_sklearn_input_fn, predict_fn=_predict, output_fn=_output_fn),
    "xgboost": dict(model_fn=_xgb_model_fn, input_fn=_sklearn_input_fn, predict_fn=_xgb_predict_fn, output_fn=_output_fn),
    "pytorch": dict(model_fn=_torch_model_fn, input_fn=_torch_input_fn, predict_fn=_torch_predict_fn, output_fn=_torch_output_fn),
}
GENERIC = dict(model_fn=_sklearn_model_fn, input_fn=_sklearn_input_fn, predict_fn=_predict, output_fn=_output_fn)


def defaults(framework):
    return DEFAULTS.get(framework, GENERIC)
