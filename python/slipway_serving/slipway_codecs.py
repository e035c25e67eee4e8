"""Default decoders and encoders of the SageMaker inference toolkits: text/csv, application/json,
application/x-npy in and out (https://github.com/aws/sagemaker-inference-toolkit, decoder.py and
encoder.py). Written for Slipway; behaviour follows the toolkits, the code is its own."""
import io
import json

import numpy as np

CSV = "text/csv"
JSON = "application/json"
NPY = "application/x-npy"
UTF8_TYPES = (JSON, CSV)
ENCODED = (JSON, CSV, NPY)


class ToolkitError(Exception):
    """An error the toolkit answers with its own status code and message (no traceback)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


def unsupported(content_type):
    return ToolkitError(
        415,
        "Content type %s is not supported by this framework.\n\n"
        "Please implement input_fn to to deserialize the request data or an output_fn to\n"
        "serialize the response. For more information, see the SageMaker Python SDK README." % content_type,
    )


def base_type(content_type):
    return (content_type or "").split(";", 1)[0].strip().lower()


def _text(data):
    return data.decode("utf-8") if isinstance(data, (bytes, bytearray, memoryview)) else data


def _csv_rows(text):
    # Plain numbers: a fast path (np.genfromtxt costs ~100 us a call); anything else as the toolkit does.
    try:
        rows = [[float(v) for v in line.split(",")] for line in text.splitlines() if line.strip()]
        width = len(rows[0]) if rows else 0
        if rows and all(len(r) == width for r in rows):
            return np.array(rows)
    except ValueError:
        pass
    # DEVIATION(aws): one row decodes as a 2-D array of one row (the toolkit gives 1-D, which
    # scikit-learn's predict refuses), as most users' input_fn does.
    return np.genfromtxt(io.StringIO(text), delimiter=",", dtype=None, encoding="utf-8", ndmin=2)


def decode(data, content_type):
    ct = base_type(content_type)
    if ct == CSV:
        return _csv_rows(_text(data))
    if ct == JSON:
        return np.array(json.loads(_text(data)))
    if ct == NPY:
        return np.load(io.BytesIO(bytes(data)), allow_pickle=False)
    raise unsupported(content_type)


def _jsonable(o):
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, np.generic):
        return o.item()
    if hasattr(o, "tolist"):
        return o.tolist()
    raise TypeError("Object of type %s is not JSON serializable" % type(o).__name__)


def encode(prediction, accept):
    if "," in accept:  # a list: the first type there is an encoder for
        for part in accept.split(","):
            if base_type(part) in (JSON, CSV, NPY):
                return encode(prediction, part)
        raise unsupported(accept)
    ct = base_type(accept)
    if ct == JSON:
        return json.dumps(prediction, default=_jsonable)
    if ct == CSV:
        arr = np.asarray(prediction)
        if arr.ndim == 0:
            arr = arr.reshape(1)
        if arr.ndim == 1:
            return "\n".join(_num(v) for v in arr.tolist()) + "\n"
        buf = io.StringIO()
        np.savetxt(buf, arr, delimiter=",", fmt="%s")
        return buf.getvalue()
    if ct == NPY:
        buf = io.BytesIO()
        np.save(buf, np.asarray(prediction))
        return buf.getvalue()
    raise unsupported(accept)


def _num(v):
    return repr(v) if isinstance(v, float) else str(v)
