"""pytest plugin loaded by the difftest harness (`-p _c2t_difftest_probe`) in
both of its pytest runs; not meant to be used by hand.

It writes, at the end of the session, one JSON file per process (xdist
workers included) into $C2T_DIFFTEST_PROBE_OUT:
- the collected test ids;
- for each test, which of the tree's cuTile modules ran code during it
  (sys.monitoring on Python 3.12+: each function reports once per test, then
  is disabled until the next test; sys.setprofile before 3.12);
- where the tracked modules and cuda.tile were imported from (so that a copy
  installed elsewhere that shadows the tree is seen, not silently tested).
As each test phase ends it also appends the outcome to outcomes-PID.jsonl there
(written where the test ran: an xdist worker), so that a run stopped at the
harness's --timeout, which writes no JUnit XML, still reports what it ran.
With $C2T_DIFFTEST_STUB=1 and no importable cuda.tile, `cuda.tile` and its
submodules import as stubs, so that modules that were not converted still
import (availability probes pass, decorators and annotations work) and fail
only when they run: calling a stub kernel or a cuda.tile function with
arguments, or comparing or testing a cuda.tile value, raises
CudaTileStubError naming the harness.
The harness copies this file's text into its work folder; it imports only the
standard library and pytest.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import threading
import time
import types

_OUT = os.environ.get("C2T_DIFFTEST_PROBE_OUT")
_TREE = os.path.realpath(os.environ.get("C2T_DIFFTEST_TREE", "."))
_MODULES_FILE = os.environ.get("C2T_DIFFTEST_MODULES")
_ATTRIBUTE = os.environ.get("C2T_DIFFTEST_ATTRIBUTE", "1") == "1"


def _load_modules():
    if not _MODULES_FILE:
        return {}
    try:
        with open(_MODULES_FILE, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


_MODULES = _load_modules()  # relpath -> [dotted names]
_BY_FILE = {os.path.join(_TREE, rel): rel for rel in _MODULES}
_BY_FILE.update({os.path.realpath(path): rel for path, rel in list(_BY_FILE.items())})


class _State:
    def __init__(self):
        self.current = None
        self.usage = {}
        self.collected = []
        self.lock = threading.Lock()


_state = _State()


def _note_code(filename):
    rel = _BY_FILE.get(filename)
    if rel is not None and _state.current is not None:
        with _state.lock:
            _state.usage.setdefault(_state.current, set()).add(rel)


# ---- attribution ----------------------------------------------------------
_monitoring = getattr(sys, "monitoring", None)
_tool_id = None


def _start_attribution():
    global _tool_id
    if not _ATTRIBUTE or not _BY_FILE:
        return "off"
    if _monitoring is not None:
        for candidate in (5, 4, 3, 2):
            if _monitoring.get_tool(candidate) is None:
                _tool_id = candidate
                break
        if _tool_id is None:
            return "off (no free sys.monitoring tool id)"
        _monitoring.use_tool_id(_tool_id, "c2t-difftest")
        disable = _monitoring.DISABLE

        def on_start(code, offset):
            _note_code(code.co_filename)
            return disable

        _monitoring.register_callback(_tool_id, _monitoring.events.PY_START, on_start)
        _monitoring.set_events(_tool_id, _monitoring.events.PY_START)
        return "sys.monitoring"

    def profile(frame, event, arg):
        if event == "call":
            _note_code(frame.f_code.co_filename)

    sys.setprofile(profile)
    threading.setprofile(profile)
    return "sys.setprofile"


def _restart_attribution():
    if _tool_id is not None:
        _monitoring.restart_events()


# ---- the cuda.tile stub ---------------------------------------------------
_STUB_NOTE = ("cuda.tile is not installed; the difftest harness's stub (--stub-cuda-tile) stands for it, "
              "and code that was not converted used it")


class CudaTileStubError(RuntimeError):
    """Code that was not converted used cuda.tile, which only the harness's stub stands for."""


class _Placeholder:
    """A name of the stub cuda.tile. Attribute access, subscripts and calls without
    positional arguments give placeholders (annotations, options, decorator factories);
    a call with one function (a decorator) gives a _StubKernel; any other call, and
    comparing, testing or iterating a placeholder, raises CudaTileStubError."""

    __slots__ = ("_c2t_name",)

    def __init__(self, name):
        object.__setattr__(self, "_c2t_name", name)

    def __repr__(self):
        return f"<difftest stub {self._c2t_name}>"

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Placeholder(f"{self._c2t_name}.{name}")

    def __setattr__(self, name, value):
        raise CudaTileStubError(f"{self._c2t_name}.{name} = ...: {_STUB_NOTE}")

    def __getitem__(self, key):
        return _Placeholder(f"{self._c2t_name}[...]")

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], _Placeholder):
            return _StubKernel(self._c2t_name, args[0])
        if not args:
            return _Placeholder(f"{self._c2t_name}(...)")
        raise CudaTileStubError(f"{self._c2t_name}(...) was called: {_STUB_NOTE}")

    def _refuse(self, *args, **kwargs):
        raise CudaTileStubError(f"{self._c2t_name} was used as a value: {_STUB_NOTE}")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __bool__ = __iter__ = __len__ = __int__ = __float__ = __index__ = __contains__ = _refuse
    __hash__ = object.__hash__


class _StubKernel:
    """What a stub decorator (@ct.kernel, @ct.function, ...) makes of a function: calling
    or launching it raises; its attributes are placeholders; it may be given attributes."""

    def __init__(self, decorator, function):
        self.__wrapped__ = function
        self.__name__ = getattr(function, "__name__", "kernel")
        self.__qualname__ = getattr(function, "__qualname__", self.__name__)
        self.__module__ = getattr(function, "__module__", None)
        self.__doc__ = getattr(function, "__doc__", None)
        self._c2t_decorator = decorator

    def __repr__(self):
        return f"<difftest stub {self._c2t_decorator} of {self.__module__}.{self.__qualname__}>"

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Placeholder(f"{self.__module__}.{self.__qualname__}.{name}")

    def __call__(self, *args, **kwargs):
        raise CudaTileStubError(f"{self.__module__}.{self.__qualname__} (@{self._c2t_decorator}) was called: "
                                f"{_STUB_NOTE}")


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Placeholder(f"{self.__name__}.{name}")


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in ("cuda", "cuda.tile") or fullname.startswith("cuda.tile."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        module.__c2t_difftest_stub__ = True
        return module

    def exec_module(self, module):
        pass


def _cuda_tile_importable():
    try:
        return importlib.util.find_spec("cuda.tile") is not None
    except (ImportError, ValueError):
        return False


_stubbed = False
if os.environ.get("C2T_DIFFTEST_STUB") == "1" and not _cuda_tile_importable():
    sys.meta_path.append(_StubFinder())  # last: a real cuda package keeps its own modules
    _stubbed = True


# ---- pytest hooks ---------------------------------------------------------
_attribution = "off"


def pytest_configure(config):
    global _attribution
    _attribution = _start_attribution()


def pytest_collection_finish(session):
    _state.collected = [item.nodeid for item in session.items]
    if _OUT:  # now, not only at the end: a run stopped at the harness's --timeout has no end
        try:
            os.makedirs(_OUT, exist_ok=True)
            with open(os.path.join(_OUT, f"collected-{os.getpid()}.json"), "w", encoding="utf-8") as f:
                json.dump(_state.collected, f)
        except OSError:
            pass


def pytest_runtest_protocol(item, nextitem):
    _state.current = item.nodeid
    _restart_attribution()


# the harness's --timeout: past this time (seconds since the epoch) the tests left are skipped,
# so that the run ends and writes its JUnit XML with what did run
_DEADLINE = float(os.environ.get("C2T_DIFFTEST_DEADLINE") or 0)
DEADLINE_SKIP = "not run: the difftest --timeout deadline came first"


def pytest_runtest_setup(item):
    if _DEADLINE and time.time() > _DEADLINE:
        import pytest

        pytest.skip(DEADLINE_SKIP)


# a failure's text kept for the report: its first lines (assert_close's mismatch counts)
_DETAIL_LINES = 8
_DETAIL_CHARS = 800
_outcomes = None


def _failure_detail(report):
    lines = [line for line in str(report.longrepr).splitlines() if line.startswith("E ")]
    text = "\n".join(line[1:].strip() for line in lines[:_DETAIL_LINES])
    return text[:_DETAIL_CHARS]


def pytest_runtest_logreport(report):
    global _outcomes
    if not _OUT or hasattr(report, "node"):  # hasattr: xdist's controller, given a worker's report
        return
    if report.when == "setup" and report.passed or report.when == "teardown" and not report.failed:
        return  # a test has ended when its call has, or its setup failed or skipped it
    entry = {"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
             "duration": report.duration, "properties": dict(report.user_properties)}
    if report.failed:
        entry["message"] = _failure_detail(report)
    elif report.skipped and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        entry["message"] = str(report.longrepr[2])
    try:
        if _outcomes is None:
            os.makedirs(_OUT, exist_ok=True)
            _outcomes = open(os.path.join(_OUT, f"outcomes-{os.getpid()}.jsonl"), "a", encoding="utf-8")
        _outcomes.write(json.dumps(entry, default=repr) + "\n")
        _outcomes.flush()
    except (OSError, TypeError, ValueError):
        pass


def pytest_runtest_logfinish(nodeid, location):
    _state.current = None


def _where_imported():
    tracked, elsewhere = {}, []
    names = {name: rel for rel, dotted in _MODULES.items() for name in dotted}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not path:
            continue
        real = os.path.realpath(path)
        rel = _BY_FILE.get(real) or _BY_FILE.get(path)
        if rel is not None:
            tracked[rel] = name
        elif name in names:
            elsewhere.append([name, path])
    return tracked, elsewhere


def _cuda_tile_state():
    module = sys.modules.get("cuda.tile")
    if module is None:
        return {"imported": False, "importable": _cuda_tile_importable() or _stubbed, "stub": _stubbed, "file": None}
    stub = bool(getattr(module, "__c2t_difftest_stub__", False))
    return {"imported": True, "importable": True, "stub": stub, "file": None if stub else getattr(module, "__file__", None)}


def _stop_attribution():
    if _tool_id is not None:
        _monitoring.set_events(_tool_id, 0)
        _monitoring.register_callback(_tool_id, _monitoring.events.PY_START, None)
        _monitoring.free_tool_id(_tool_id)
    elif _attribution == "sys.setprofile":
        sys.setprofile(None)
        threading.setprofile(None)


def pytest_sessionfinish(session, exitstatus):
    _stop_attribution()
    if not _OUT:
        return
    tracked, elsewhere = _where_imported()
    data = {
        "pid": os.getpid(),
        "python": sys.version.split()[0],
        "attribution": _attribution,
        "collected": _state.collected,
        "usage": {nodeid: sorted(rels) for nodeid, rels in _state.usage.items()},
        "imported": tracked,
        "imported_elsewhere": elsewhere,
        "cuda_tile": _cuda_tile_state(),
    }
    try:
        os.makedirs(_OUT, exist_ok=True)
        with open(os.path.join(_OUT, f"probe-{os.getpid()}.json"), "w", encoding="utf-8") as f:
            json.dump(data, f)
    except OSError:
        pass
