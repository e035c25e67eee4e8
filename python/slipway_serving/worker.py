"""Slipway's model server for SageMaker framework images: the inference toolkit's contract
(model_fn once, then per request input_fn -> predict_fn -> output_fn, or transform_fn) behind
Slipway's framed protocol on its stdin/stdout (serve_channel below; the Node side is
src/inference/runtimes/container/channel-container.ts). One request at a time.

Environment: SM_MODEL_DIR (the model), SLIPWAY_CODE_DIR (the user's code, may be empty),
SAGEMAKER_PROGRAM (the module), SLIPWAY_FRAMEWORK (sklearn, xgboost, pytorch, ...),
SAGEMAKER_DEFAULT_INVOCATIONS_ACCEPT (default application/json), SLIPWAY_WORKER_POLL_US (Poller below).
The user's print() goes to standard error (the model's log), never into the protocol."""
import importlib
import os
import select
import struct
import sys
import time
import traceback

sys.dont_write_bytecode = True
# SCHED_BATCH (same nice value, same share of the CPU) before anything starts a thread, so that the
# model's threads inherit it: a request's wake-up then no longer preempts the server that wrote it
# on the same CPU, which finishes its turn (the answers it has to write) first. On 2 vCPUs this
# served 10-30 % more requests a second (docs/benchmarks.md, issue 30).
try:
    os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
except (AttributeError, OSError):  # not Linux, or a seccomp filter that refuses it: the default
    pass
_real_stdout = sys.stdout
sys.stdout = sys.stderr  # user code's print() is the model's log, never the protocol

import slipway_codecs as codecs  # noqa: E402
import slipway_handlers as handlers  # noqa: E402

MAX_TRACE = 2500
_OWN_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def log(msg):
    sys.stderr.write("slipway_serving: %s\n" % msg)
    sys.stderr.flush()


def user_trace(exc):
    """The traceback without the import machinery's and this server's own frames."""
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if not f.filename.startswith("<frozen") and not f.filename.startswith(_OWN_DIR)
    ]
    lines = ["Traceback (most recent call last):\n"] + traceback.format_list(frames)
    return "".join(lines + traceback.format_exception_only(type(exc), exc))


def startup_failure(what, exc):
    if any(not f.filename.startswith(_OWN_DIR) for f in traceback.extract_tb(exc.__traceback__)):
        sys.stderr.write(user_trace(exc))  # where in the user's code; a refusal of our own is its line alone
    line = traceback.format_exception_only(type(exc), exc)[-1].strip()
    log("%s: %s" % (what, line))
    sys.stderr.flush()
    os._exit(1)


def error_text(exc):
    """The exception's own line first, then the traceback's tail (as the toolkit's 500 body holds it)."""
    trace = user_trace(exc)
    first = traceback.format_exception_only(type(exc), exc)[-1].strip()
    if len(trace) > MAX_TRACE:
        trace = "..." + trace[-MAX_TRACE:]
    return "%s\n\n%s" % (first, trace)


class Handler:
    def __init__(self):
        self.framework = os.environ.get("SLIPWAY_FRAMEWORK", "sklearn")
        self.model_dir = os.environ.get("SM_MODEL_DIR", "/opt/ml/model")
        self.code_dir = os.environ.get("SLIPWAY_CODE_DIR", "")
        self.default_accept = os.environ.get("SAGEMAKER_DEFAULT_INVOCATIONS_ACCEPT") or codecs.JSON
        # scikit-learn's and XGBoost's containers hand input_fn text for CSV and JSON, PyTorch's bytes.
        self.text_bodies = self.framework in ("sklearn", "xgboost")
        fns = dict(handlers.defaults(self.framework))
        self.transform_fn = None
        program = os.environ.get("SAGEMAKER_PROGRAM", "").strip()
        if program:
            module = self.load_module(program)
            for name in ("model_fn", "input_fn", "predict_fn", "output_fn"):
                f = getattr(module, name, None)
                if callable(f):
                    fns[name] = f
            t = getattr(module, "transform_fn", None)
            self.transform_fn = t if callable(t) else None
        self.input_fn = fns["input_fn"]
        self.predict_fn = fns["predict_fn"]
        self.output_fn = fns["output_fn"]
        try:
            self.model = fns["model_fn"](self.model_dir)
        except Exception as e:  # noqa: BLE001
            startup_failure("model_fn failed", e)

    def load_module(self, program):
        name = program[:-3] if program.endswith(".py") else program
        code = self.code_dir
        if not code or not os.path.isdir(code):
            log("SAGEMAKER_PROGRAM is %s but the model has no code directory (code/ in model.tar.gz or SAGEMAKER_SUBMIT_DIRECTORY)" % program)
            os._exit(1)
        if not os.path.exists(os.path.join(code, name + ".py")) and not os.path.isdir(os.path.join(code, name)):
            files = sorted(n for n in os.listdir(code) if not n.startswith("."))[:20]
            log("SAGEMAKER_PROGRAM %s was not found in the code directory %s (it holds: %s)" % (program, code, ", ".join(files) or "nothing"))
            os._exit(1)
        if os.path.exists(os.path.join(code, "requirements.txt")):
            log("%s/requirements.txt is not installed at serving time: the packages it names must be installed for %s" % (code, sys.executable))
        sys.path.insert(0, code)
        # What code written for the framework images imports from their toolkits (sagemaker_inference,
        # sagemaker_xgboost_container.encoder): last on the path, so an installed package wins.
        sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "compat"))
        try:
            return importlib.import_module(name.replace("/", "."))
        except BaseException as e:  # noqa: BLE001  (a SyntaxError, a missing import, SystemExit)
            startup_failure("importing %s failed" % program, e)

    def invoke(self, body, content_type, accept):
        """(status, content_type, bytes)."""
        content_type = content_type or codecs.JSON
        if not accept or accept == "*/*":
            accept = self.default_accept
        ct = codecs.base_type(content_type)
        data = body
        if self.text_bodies and ct in codecs.UTF8_TYPES:
            data = body.decode("utf-8")
        try:
            if self.transform_fn is not None:
                result = self.transform_fn(self.model, data, content_type, accept)
            else:
                result = self.output_fn(self.predict_fn(self.input_fn(data, content_type), self.model), accept)
        except codecs.ToolkitError as e:
            return e.status, "text/plain", e.message.encode("utf-8")
        except Exception as e:  # noqa: BLE001
            traceback.print_exc(file=sys.stderr)
            return 500, "text/plain", error_text(e).encode("utf-8", "replace")
        out_type = accept
        if "," in out_type:  # a list of types: the one the default encoder chose
            out_type = next((codecs.base_type(t) for t in accept.split(",") if codecs.base_type(t) in codecs.ENCODED), accept)
        if isinstance(result, tuple) and len(result) == 2:
            result, out_type = result
        if isinstance(result, str):
            result = result.encode("utf-8")
        elif isinstance(result, (bytearray, memoryview)):
            result = bytes(result)
        elif not isinstance(result, bytes):
            result = codecs.encode(result, codecs.JSON).encode("utf-8")
            out_type = codecs.JSON
        return 200, out_type, result


def _fill(fd, have, want):
    """`have` and what follows it on `fd` until there are at least `want` bytes. One read holds a
    whole request as a rule (the server writes a request in one write and waits for its answer)."""
    chunks = [have]
    size = len(have)
    while size < want:
        chunk = os.read(fd, max(want - size, 65536))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


class Poller:
    """Adaptive busy-polling for the next request before the worker sleeps in its read, as the
    kernel's haltpoll governor polls before an idle vCPU halts (--worker-poll-us; off by default).
    A sleeping worker must be woken by the server's write, and where wake-ups are dear (a virtual
    machine whose idle vCPUs halt at once) that costs each request more than the model's own code
    (docs/benchmarks.md, issue 30). The worker looks for a request for up to `window` ns after an
    answer, yielding the CPU to anything runnable between looks. The window grows (from 50 us,
    doubling, up to `max_ns`) while requests come within DENSE times `max_ns` of the last answer,
    and halves (to none) while they come later: a worker with sparse traffic does not poll, one
    with dense traffic spends at most `max_ns` a request. A yield that returns late means another
    task wants this CPU: the worker then stops polling for a while."""

    START_NS = 50_000
    DENSE = 4
    # A yield that took this long gave the CPU to another task: it is wanted, and a request that
    # comes meanwhile waits for that task's time slice (milliseconds) where a sleeping worker
    # would be woken at once. Then no polling for the next BACKOFF gaps.
    CONTENDED_NS = 1_000_000
    BACKOFF = 256

    def __init__(self, fd, max_ns, give_way=os.sched_yield):
        self.max_ns = max_ns
        self._give_way = give_way
        self.window = 0
        self.backoff = 0
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN)

    def wait(self):
        """Polls for a request (or the end of the input); returns when the read that follows will
        find one (None) or may sleep (the time polling began, for `slept`)."""
        if not self.max_ns:
            return None
        clock = time.perf_counter_ns
        t0 = clock()
        if self.backoff:
            self.backoff -= 1
            return t0
        if self.window:
            deadline = t0 + self.window
            poll = self._poll.poll
            give_way = self._give_way
            while not poll(0):
                t = clock()
                if t >= deadline:
                    return t0
                give_way()
                if clock() - t > self.CONTENDED_NS:
                    self.backoff = self.BACKOFF
                    return t0
            return None
        return t0

    def slept(self, t0):
        """The next request came `now - t0` after the answer, later than the window."""
        if time.perf_counter_ns() - t0 <= self.max_ns * self.DENSE:
            self.window = min(self.max_ns, max(self.START_NS, self.window * 2))
        else:
            self.window //= 2
            if self.window < self.START_NS:
                self.window = 0


def poll_setting(value):
    """SLIPWAY_WORKER_POLL_US (set by the server: --worker-poll-us) in ns; 0 when absent or bad."""
    try:
        return max(0, int(value or 0)) * 1000
    except ValueError:
        return 0


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def serve_channel(handler):
    """Slipway's own protocol on the pipes it started this process with (no port, no HTTP).

    A request: >IHHH (body length, then the lengths of content type, accept, custom attributes),
    those three strings, the body. An answer: >IHHH (body length, status, content-type length,
    custom-attributes length), those strings, the body. The first answer (status 0) says the model
    is loaded. fd 1 is then the model's log too (C libraries that print), like print()."""
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    head = struct.Struct(">IHHH")
    size = head.size
    unpack_from = head.unpack_from
    pack = head.pack
    poller = Poller(proto_in, poll_setting(os.environ.get("SLIPWAY_WORKER_POLL_US")))
    _write_all(proto_out, pack(0, 0, 0, 0))
    pending = b""
    while True:
        try:
            if len(pending) < size:
                # Between requests (nothing of the next one read yet): poll before sleeping.
                t0 = poller.wait() if not pending else None
                pending = _fill(proto_in, pending, size)
                if t0 is not None:
                    poller.slept(t0)
            n, lct, lacc, lattr = unpack_from(pending)
            start = size + lct + lacc + lattr
            end = start + n
            if len(pending) < end:
                pending = _fill(proto_in, pending, end)
        except EOFError:
            return
        ct = pending[size : size + lct].decode("latin-1")
        accept = pending[size + lct : size + lct + lacc].decode("latin-1")
        body = pending[start:end]
        pending = pending[end:]
        status, ctype, out = handler.invoke(body, ct, accept)
        ctype_b = ctype.encode("latin-1", "replace")
        _write_all(proto_out, pack(len(out), status, len(ctype_b), 0) + ctype_b + out)


def main():
    handler = Handler()
    log("model loaded (%s%s)" % (handler.framework, ", " + os.environ["SAGEMAKER_PROGRAM"] if os.environ.get("SAGEMAKER_PROGRAM") else ""))
    serve_channel(handler)


if __name__ == "__main__":
    main()
