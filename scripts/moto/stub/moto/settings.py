"""moto.settings as the tests read it: Slipway is a server, like moto in server mode."""
import os

TEST_SERVER_MODE = True
TEST_DECORATOR_MODE = False
SKIP_REQUIRES_DOCKER = True


def get_s3_default_key_buffer_size():
    return 16 * 1024 * 1024


def test_server_mode_endpoint():
    return os.environ["SLIPWAY_ENDPOINT"]
