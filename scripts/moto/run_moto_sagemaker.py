#!/usr/bin/python3
"""Runs moto's own SageMaker test files (tests/test_sagemaker/ of a getmoto/moto checkout) against
Slipway, and sorts each failure into "AWS differs, and why" (scripts/moto/aws-differs.tsv) or
"unexplained" (a Slipway bug or a new test to look at).

    /usr/bin/python3 scripts/moto/run_moto_sagemaker.py /path/to/moto [--endpoint URL] [--files a,b] [-- pytest args]

Nothing is fetched: the moto checkout is given. Needs Debian's python3-boto3, python3-pytest and
python3-freezegun (the test files import it), and `npm run build` (the server is dist/). Without
--endpoint every test gets a fresh Slipway (a new data directory, account 123456789012 as moto's
tests expect), started from this repository; with --endpoint the tests share that server.
Exit status 0 when every failure is explained.
"""
import argparse
import csv
import json
import os
import socket
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# The files named in issue 34: what Slipway serves of SageMaker.
FILES = [
    "endpoint",
    "model_packages",
    "model_package_groups",
    "models",
    "experiment",
    "trial",
    "trial_component",
    "training",
    "transform",
    "processing",
    "search",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def reasons():
    """test id (file::name, parameters dropped) → why AWS answers otherwise than the test asserts."""
    out = {}
    with open(os.path.join(HERE, "aws-differs.tsv"), newline="") as f:
        for row in csv.reader(f, delimiter="\t"):
            if row and not row[0].startswith("#"):
                out[row[0]] = row[1]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("moto", help="path to a getmoto/moto checkout")
    ap.add_argument("--endpoint", help="a running Slipway (shared by every test) instead of a fresh one per test")
    ap.add_argument("--account-id", default="123456789012", help="the account moto's tests expect")
    ap.add_argument("--files", default=",".join(FILES), help="test files, by the part after test_sagemaker_")
    ap.add_argument("--junit", help="also keep pytest's JUnit XML here")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    a = ap.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    a.pytest_args = extra

    tests = os.path.join(os.path.abspath(a.moto), "tests", "test_sagemaker")
    if not os.path.isdir(tests):
        sys.exit(f"{tests} does not exist: give the path of a moto checkout")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(HERE, "stub"), HERE]))
    env["SLIPWAY_ACCOUNT_ID"] = a.account_id
    if a.endpoint:
        env["SLIPWAY_ENDPOINT"] = a.endpoint.rstrip("/")
    else:
        if not os.path.exists(os.path.join(REPO, "dist", "src", "cli")):
            sys.exit("dist/ is missing: run `npm run build` first")
        port = free_port()
        env["SLIPWAY_ENDPOINT"] = f"http://127.0.0.1:{port}"
        env["SLIPWAY_SERVE_COMMAND"] = json.dumps(
            ["node", os.path.join(REPO, "bin", "slipway.js"), "serve", "--port", str(port),
             "--graph-port", str(free_port()), "--account-id", a.account_id, "--log-level", "warn"])

    with tempfile.TemporaryDirectory(prefix="slipway-moto-run-") as tmp:
        ini = os.path.join(tmp, "pytest.ini")
        with open(ini, "w") as f:
            f.write("[pytest]\nmarkers =\n    network\n    requires_docker\n    aws_verified\n    requires_clean_slate\n")
        junit = a.junit or os.path.join(tmp, "junit.xml")
        files = [os.path.join(tests, f"test_sagemaker_{n}.py") for n in a.files.split(",") if n]
        cmd = [sys.executable, "-m", "pytest", "-p", "slipway_moto_plugin", "-p", "no:cacheprovider",
               "-c", ini, "--rootdir", os.path.abspath(a.moto), "-q", "-rN", "--tb=line",
               f"--junitxml={junit}", *files, *a.pytest_args]
        subprocess.run(cmd, env=env, cwd=tmp)
        results = ET.parse(junit).getroot()

    why = reasons()
    passed, failed, skipped, unexplained = [], [], [], []
    for case in results.iter("testcase"):
        name = f"{case.get('classname', '').rsplit('.', 1)[-1]}::{case.get('name')}"
        key = name.split("[")[0]
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        if case.find("skipped") is not None:
            skipped.append((name, case.find("skipped").get("message", "")))
        elif failure is None:
            passed.append(name)
        elif key in why:
            failed.append((name, why[key]))
        else:
            unexplained.append((name, (failure.get("message") or "").splitlines()[0][:300]))

    total = len(passed) + len(failed) + len(unexplained)
    print(f"\n{len(passed)} of {total} passed; {len(failed)} fail where AWS answers otherwise; "
          f"{len(unexplained)} unexplained; {len(skipped)} skipped")
    for name, reason in failed:
        print(f"  AWS differs  {name}: {reason}")
    for name, message in skipped:
        print(f"  skipped      {name}: {message}")
    for name, message in unexplained:
        print(f"  UNEXPLAINED  {name}: {message}")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
