"""Imported by moto's tests/conftest.py; custom ids are moto's feature, not the API's."""


class ResourceIdentifier:
    def __init__(self, *_, **__):
        pass


class _IdManager:
    def set_custom_id(self, *_, **__):
        import pytest

        pytest.skip("moto's custom-id feature is not part of the SageMaker API")

    def unset_custom_id(self, *_, **__):
        pass


moto_id_manager = _IdManager()
