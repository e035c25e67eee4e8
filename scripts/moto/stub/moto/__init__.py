"""What moto's SageMaker tests import from `moto`, for running them against Slipway.

The mock decorators and context managers do nothing: requests go to the Slipway server the
runner started (scripts/moto/slipway_moto_plugin.py points boto3 at it). Nothing of moto's own
code is here.
"""
import functools
import inspect

from . import settings  # noqa: F401


class _NoMock:
    """What `mock_aws()` returns: a context manager (and decorator) that changes nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, target):
        return mock_aws(target)

    def start(self, *_, **__):
        pass

    def stop(self, *_, **__):
        pass


def mock_aws(func=None, **_):
    """@mock_aws, @mock_aws(), `with mock_aws():` and on classes: the target, unchanged."""
    if func is None:
        return _NoMock()
    if inspect.isclass(func):
        return func

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


mock_sagemaker = mock_aws
mock_s3 = mock_aws
mock_sts = mock_aws
mock_iam = mock_aws
