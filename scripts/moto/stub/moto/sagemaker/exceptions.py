class ValidationError(Exception):
    """moto's own exception class; the tests that raise it are skipped (see models.py)."""
