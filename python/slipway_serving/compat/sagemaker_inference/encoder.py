from slipway_codecs import ToolkitError, encode as _encode

from .errors import UnsupportedFormatError


def encode(array_like, content_type):
    """A prediction to bytes of `content_type` (CSV, JSON, NPY), as the toolkit's encoder.encode."""
    try:
        out = _encode(array_like, content_type)
    except ToolkitError as e:
        if e.status == 415:
            raise UnsupportedFormatError(content_type) from None
        raise
    return out.encode("utf-8") if isinstance(out, str) else out
