"""Names moto's tests import from moto's own SageMaker implementation.

VpcConfig only builds request parameters, so it is here as such. The others are moto's internal
classes, tested directly (not through the API): a test that uses them is skipped, as it tests
moto, not SageMaker.
"""
import pytest


class VpcConfig:
    def __init__(self, security_group_ids, subnets):
        self.response_object = {"SecurityGroupIds": security_group_ids, "Subnets": subnets}


def _internal(name):
    class _Internal:
        def __getattr__(self, attr):
            # pytest looks at every module attribute while collecting: only a test's call skips.
            if attr.startswith("_") or attr == "pytestmark":
                raise AttributeError(attr)
            pytest.skip(f"tests moto's own {name}.{attr}, not the SageMaker API")

        def __call__(self, *_, **__):
            pytest.skip(f"tests moto's own {name}, not the SageMaker API")

    return _Internal()


ModelPackage = _internal("ModelPackage")
FakePipeline = _internal("FakePipeline")
sagemaker_backends = _internal("sagemaker_backends")
