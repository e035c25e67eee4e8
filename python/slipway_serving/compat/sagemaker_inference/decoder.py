from slipway_codecs import ToolkitError, decode as _decode

from .errors import UnsupportedFormatError


def decode(obj, content_type):
    """Bytes of `content_type` (CSV, JSON, NPY) to a numpy array, as the toolkit's decoder.decode."""
    try:
        return _decode(obj, content_type)
    except ToolkitError as e:
        if e.status == 415:
            raise UnsupportedFormatError(content_type) from None
        raise
