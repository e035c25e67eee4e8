import io
import json

import numpy as np
import xgboost as xgb
from slipway_codecs import base_type


def csv_to_dmatrix(string_like, dtype=None):
    text = string_like.decode("utf-8") if isinstance(string_like, (bytes, bytearray)) else string_like
    arr = np.loadtxt(io.StringIO(text), delimiter=",", dtype=dtype or np.float32, ndmin=2)
    return xgb.DMatrix(arr)


def libsvm_to_dmatrix(string_like):
    text = string_like.decode("utf-8") if isinstance(string_like, (bytes, bytearray)) else string_like
    rows, cols, vals, n = [], [], [], 0
    for i, line in enumerate(l for l in text.splitlines() if l.strip()):
        n = i + 1
        for tok in line.split()[1:]:
            k, v = tok.split(":")
            rows.append(i)
            cols.append(int(k))
            vals.append(float(v))
    from scipy.sparse import csr_matrix  # noqa: PLC0415

    return xgb.DMatrix(csr_matrix((vals, (rows, cols)), shape=(n, (max(cols) + 1) if cols else 0)))


def npy_to_numpy(npy_array):
    return np.load(io.BytesIO(bytes(npy_array)), allow_pickle=False)


def json_to_jsonlines(json_data):
    return [json.dumps(r) for r in json.loads(json_data)]


def decode(obj, content_type):
    """A request body to an xgboost DMatrix, as the container's encoder.decode."""
    ct = base_type(content_type)
    if ct == "text/csv":
        return csv_to_dmatrix(obj)
    if ct in ("text/libsvm", "text/x-libsvm"):
        return libsvm_to_dmatrix(obj)
    if ct == "application/x-npy":
        return xgb.DMatrix(npy_to_numpy(obj))
    if ct == "application/json":
        text = obj.decode("utf-8") if isinstance(obj, (bytes, bytearray)) else obj
        return xgb.DMatrix(np.array(json.loads(text), dtype=np.float32, ndmin=2))
    from sagemaker_inference.errors import UnsupportedFormatError  # noqa: PLC0415

    raise UnsupportedFormatError(content_type)
