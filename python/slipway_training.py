"""Slipway's stand-in for the SageMaker training toolkit inside a framework image.

Runs inside the job's sandbox with /opt/ml laid out as SageMaker lays it out and the source
directory unpacked at /opt/ml/code. It does what sagemaker-training-toolkit does for a script-mode
job: decodes the hyperparameters (each a JSON value, as the SageMaker Python SDK encodes them), sets
the SM_* environment, installs requirements.txt when it asks for something missing (from a local
wheel directory only: this host has no package index), and runs the entry point with the user's
hyperparameters as `--name value` arguments. The script runs in this interpreter (runpy, as
`__main__`) rather than in a second one, so its first line comes right after Python's start-up.
An exception becomes /opt/ml/output/failure as the toolkit's ExecuteUserScriptError words it.
"""
import json
import os
import sys

ML = "/opt/ml"
CODE = ML + "/code"
FAILURE = ML + "/output/failure"
CLIENT_ERROR_EXIT = 86


def _decode(value):
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        return value


def _text(value):
    if isinstance(value, bytes):
        return value.decode("latin1")
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _arg_value(value):
    if hasattr(value, "items"):
        return ",".join("%s=%s" % (k, v) for k, v in sorted(value.items()))
    if isinstance(value, bytes):
        return value.decode("latin1")
    return str(value)


def to_cmd_args(hps):
    args = []
    for key in sorted(hps):
        args.append(("--%s" if len(key) > 1 else "-%s") % key)
        args.append(_arg_value(hps[key]))
    return args


def _fail(message, code, echo=True):
    try:
        with open(FAILURE, "w") as f:
            f.write(message)
    except OSError:
        pass
    if echo:
        sys.stderr.write(message + "\n")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _read_json(path, default):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def _requirement_class():
    try:
        from packaging.requirements import Requirement  # noqa: PLC0415
    except ImportError:
        try:
            from pip._vendor.packaging.requirements import Requirement  # noqa: PLC0415
        except ImportError:
            return None
    return Requirement


def unsatisfied(path):
    """The lines of a requirements file this interpreter does not already satisfy."""
    import importlib.metadata as md  # noqa: PLC0415

    Requirement = _requirement_class()
    missing = []
    with open(path) as f:
        for raw in f:
            line = raw.split(" #")[0].strip()
            if not line or line.startswith("#") or line.startswith("-"):
                continue
            if Requirement is None:
                missing.append((line, "cannot be checked"))
                continue
            try:
                req = Requirement(line)
            except Exception:
                missing.append((line, "not a requirement this host can resolve"))
                continue
            if req.marker is not None and not req.marker.evaluate():
                continue
            if req.url:
                missing.append((line, "a URL"))
                continue
            try:
                have = md.version(req.name)
            except md.PackageNotFoundError:
                missing.append((line, "not installed"))
                continue
            if req.specifier and not req.specifier.contains(have, prereleases=True):
                missing.append((line, "installed: %s" % have))
    return missing


def install_requirements():
    path = os.path.join(CODE, "requirements.txt")
    if not os.path.isfile(path):
        return
    missing = unsatisfied(path)
    if not missing:
        print("requirements.txt: every requirement is already installed for %s" % sys.executable, flush=True)
        return
    wanted = ", ".join("%s (%s)" % m for m in missing)
    wheels = os.environ.get("SLIPWAY_WHEELS")
    if not wheels:
        _fail(
            "ClientError: requirements.txt in the source directory asks for %s; this host installs packages only "
            "from a local wheel directory, and none is configured: name one as \"wheels\" under \"frameworks\" in "
            "Slipway's containers file, or install them for %s." % (wanted, sys.executable),
            CLIENT_ERROR_EXIT,
        )
    target = "/tmp/slipway-requirements"
    listed = "/tmp/slipway-requirements.txt"
    with open(listed, "w") as f:
        f.write("\n".join(m[0] for m in missing) + "\n")
    print("Installing from %s: %s" % (wheels, wanted), flush=True)
    import subprocess  # noqa: PLC0415

    cmd = [sys.executable, "-m", "pip", "install", "--no-index", "--find-links", wheels, "--target", target,
           "--disable-pip-version-check", "--no-warn-script-location", "-r", listed]
    done = subprocess.run(cmd, stdout=sys.stdout, stderr=sys.stderr)
    if done.returncode != 0:
        _fail(
            "ClientError: requirements.txt in the source directory could not be installed from %s (pip exit code %d): "
            "%s" % (wheels, done.returncode, wanted),
            CLIENT_ERROR_EXIT,
        )
    sys.path.insert(1, target)
    os.environ["PYTHONPATH"] = target + os.pathsep + os.environ.get("PYTHONPATH", "")


# The toolkit's own hyperparameters (sagemaker_training.params.SAGEMAKER_HYPERPARAMETERS): never the script's
# arguments nor SM_HP_*. A tuning job adds _tuning_objective_metric to each training job's hyperparameters.
SAGEMAKER_HYPERPARAMETERS = (
    "sagemaker_program", "sagemaker_submit_directory", "sagemaker_enable_cloudwatch_metrics", "sagemaker_region",
    "sagemaker_container_log_level", "sagemaker_job_name", "default_user_module_name", "_tuning_objective_metric",
    "sagemaker_s3_output",
)


def environment(hps, sm, program):
    config = ML + "/input/config"
    resource = _read_json(config + "/resourceconfig.json", {})
    data_config = _read_json(config + "/inputdataconfig.json", {})
    channels = sorted(data_config)
    log_level = sm.get("sagemaker_container_log_level", 20)
    module_name = program[:-3] if program.endswith(".py") else program
    env = {
        "additional_framework_parameters": {k: v for k, v in sm.items() if k not in SAGEMAKER_HYPERPARAMETERS},
        "channel_input_dirs": {c: ML + "/input/data/" + c for c in channels},
        "current_host": resource.get("current_host", "algo-1"),
        "current_instance_type": resource.get("current_instance_type", "local"),
        "framework_module": os.environ.get("SLIPWAY_FRAMEWORK_MODULE"),
        "hosts": resource.get("hosts", ["algo-1"]),
        "hyperparameters": hps,
        "input_config_dir": config,
        "input_data_config": data_config,
        "input_dir": ML + "/input",
        "is_master": True,
        "job_name": os.environ.get("TRAINING_JOB_NAME", sm.get("sagemaker_job_name")),
        "log_level": log_level,
        "master_hostname": resource.get("current_host", "algo-1"),
        "model_dir": ML + "/model",
        "module_dir": sm.get("sagemaker_submit_directory"),
        "module_name": module_name,
        "network_interface_name": resource.get("network_interface_name", "eth0"),
        "num_cpus": int(os.environ.get("SM_NUM_CPUS", "1")),
        "num_gpus": 0,
        "num_neurons": 0,
        "output_data_dir": ML + "/output/data",
        "output_dir": ML + "/output",
        "output_intermediate_dir": ML + "/output/intermediate",
        "resource_config": resource,
        "user_entry_point": program,
    }
    out = {"SM_" + k.upper(): _text(v) for k, v in env.items() if k not in ("hyperparameters",)}
    out["SM_HPS"] = _text(hps)
    out["SM_CHANNELS"] = _text(channels)
    out["SM_USER_ARGS"] = _text(to_cmd_args(hps))
    out["SM_FRAMEWORK_PARAMS"] = _text(env["additional_framework_parameters"])
    out["SM_TRAINING_ENV"] = json.dumps(env, sort_keys=True, separators=(",", ":"))
    for c in channels:
        out["SM_CHANNEL_" + c.upper()] = ML + "/input/data/" + c
    for k, v in hps.items():
        out["SM_HP_" + k.upper()] = _text(v)
    return out


def _error_message(exc_type, exc, tb):
    import traceback  # noqa: PLC0415

    lines = traceback.format_exception_only(exc_type, exc)
    frames = [f for f in traceback.extract_tb(tb) if f.filename != __file__ and "runpy" not in f.filename]
    # the user's own frames first (the innermost two), then where it ended, if elsewhere
    own = [f for f in frames if f.filename.startswith(CODE + "/")][-2:]
    shown = own + ([frames[-1]] if frames and frames[-1] not in own else [])
    tail = "".join(traceback.format_list(shown))
    return ("".join(lines).strip() + ("\nTraceback (most recent call last):\n" + tail.rstrip() if tail else ""))[:700]


def main():
    raw = _read_json(ML + "/input/config/hyperparameters.json", {})
    decoded = {k: _decode(v) for k, v in raw.items()}
    sm = {k: v for k, v in decoded.items() if k in SAGEMAKER_HYPERPARAMETERS or k.startswith("sagemaker_")}
    hps = {k: v for k, v in decoded.items() if k not in sm}
    program = sm.get("sagemaker_program")
    if not isinstance(program, str) or not program:
        _fail("ClientError: the hyperparameter sagemaker_program (the SDK's entry_point) is missing.", CLIENT_ERROR_EXIT)
    path = os.path.join(CODE, program)
    if not os.path.isfile(path):
        have = sorted(os.listdir(CODE))[:20] if os.path.isdir(CODE) else []
        _fail("ClientError: the entry point %s (sagemaker_program) is not in the source directory %s; it holds: %s"
              % (program, sm.get("sagemaker_submit_directory", "(none given)"), ", ".join(have) or "nothing"),
              CLIENT_ERROR_EXIT)
    os.environ.update(environment(hps, sm, program))
    os.chdir(CODE)
    install_requirements()
    args = to_cmd_args(hps)
    command = [sys.executable, program] + args
    print("Invoking script with the following command:\n\n%s\n" % " ".join(command), flush=True)
    if not program.endswith(".py"):
        # a shell script or another executable, as the toolkit runs it
        os.execv("/bin/sh", ["/bin/sh", "-c", "exec \"$0\" \"$@\"", "./" + program] + args)
    sys.argv = [program] + args
    sys.path[0] = CODE
    import runpy  # noqa: PLC0415

    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code is None or code == 0:
            sys.exit(0)
        if not isinstance(code, int):
            sys.stderr.write(str(code) + "\n")
            code = 1
        sys.stdout.flush()
        _fail('ExecuteUserScriptError:\nExitCode %d\nErrorMessage ""\nCommand "%s"' % (code, " ".join(command)), code)
    except BaseException:
        import traceback  # noqa: PLC0415

        exc_type, exc, tb = sys.exc_info()
        sys.stdout.flush()
        # the traceback as `python train.py` prints it: from the script's own frame, not this launcher's
        shown = tb
        while shown is not None and (shown.tb_frame.f_code.co_filename == __file__ or "runpy" in shown.tb_frame.f_code.co_filename):
            shown = shown.tb_next
        traceback.print_exception(exc_type, exc, shown or tb)
        msg = _error_message(exc_type, exc, tb)
        _fail('ExecuteUserScriptError:\nExitCode 1\nErrorMessage "%s"\nCommand "%s"' % (msg, " ".join(command)), 1, False)


if __name__ == "__main__":
    main()
