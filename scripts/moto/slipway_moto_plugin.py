"""pytest plugin that runs moto's SageMaker tests against Slipway (loaded by run_moto_sagemaker.py).

Debian's boto3 (1.26) predates AWS_ENDPOINT_URL, so every boto3 client and resource is pointed at
Slipway here, with test credentials. moto gives each test an empty backend; Slipway gets the same
isolation by starting afresh for every test (a new data directory on the same port), unless the
runner was given an already running Slipway (--endpoint), which then keeps what earlier tests made.
"""
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

import boto3.session
import pytest

ENDPOINT = os.environ["SLIPWAY_ENDPOINT"]
os.environ.setdefault("AWS_ACCESS_KEY_ID", "test")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "test")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ["AWS_CONFIG_FILE"] = "/dev/null"
os.environ["AWS_SHARED_CREDENTIALS_FILE"] = "/dev/null"

_client = boto3.session.Session.client
_resource = boto3.session.Session.resource


def _pointed(kwargs):
    kwargs.setdefault("endpoint_url", ENDPOINT)
    if not kwargs.get("region_name"):
        kwargs["region_name"] = "us-east-1"
    kwargs.setdefault("aws_access_key_id", "test")
    kwargs.setdefault("aws_secret_access_key", "test")
    return kwargs


def client(self, *args, **kwargs):
    return _client(self, *args, **_pointed(kwargs))


def resource(self, *args, **kwargs):
    return _resource(self, *args, **_pointed(kwargs))


boto3.session.Session.client = client
boto3.session.Session.resource = resource


class _Server:
    """A fresh Slipway per test: the command the runner gave, a new data directory each time."""

    def __init__(self, command):
        self.command = command
        self.proc = None
        self.data_dir = None

    def restart(self):
        self.stop()
        self.data_dir = tempfile.mkdtemp(prefix="slipway-moto-")
        env = dict(os.environ, SLIPWAY_TRAINER_PREWARM="0")
        self.proc = subprocess.Popen(
            [*self.command, "--data-dir", self.data_dir],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(self.data_dir, "server.log"), "wb"),
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Slipway exited with {self.proc.returncode}; see {self.data_dir}/server.log")
            try:
                with urllib.request.urlopen(f"{ENDPOINT}/_slipway/health", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("Slipway did not answer /_slipway/health within 30 s")

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        if self.data_dir is not None:
            shutil.rmtree(self.data_dir, ignore_errors=True)
            self.data_dir = None


_server = _Server(json.loads(os.environ["SLIPWAY_SERVE_COMMAND"])) if os.environ.get("SLIPWAY_SERVE_COMMAND") else None


@pytest.fixture(autouse=True)
def _fresh_slipway():
    if _server is not None:
        _server.restart()
    yield


def pytest_unconfigure(config):
    if _server is not None:
        _server.stop()
