"""moto.core.config: tests/__init__.py sets an option here; Slipway reads none of it."""
default_user_config = {"batch": {"use_docker": False}, "lambda": {"use_docker": False}, "core": {}}
