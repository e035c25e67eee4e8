"""The account the tests expect: the one the runner starts Slipway with (--account-id)."""
import os

DEFAULT_ACCOUNT_ID = os.environ.get("SLIPWAY_ACCOUNT_ID", "123456789012")
ACCOUNT_ID = DEFAULT_ACCOUNT_ID
