"""The differential test harness, python -m cutile2triton.difftest, on a fake
package of its own (tests/python/difftest_pkg: a cuTile module the converter
converts, one it refuses, one without cuda.tile, and tests named check_*.py).

No cuTile here: the original run cannot import cuda.tile (its test of the
kernel fails, which the report says), the converted run runs the converted
kernel under TRITON_INTERPRET=1. A test that reads the module's source passes
with the original and fails converted: the report's new failure, with its
first error line. A test records a perf property that differs by side: the
record table and its ratio.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = Path(__file__).resolve().parent / "difftest_pkg"
TOOL = ROOT / "build" / "cutile2triton"

sys.path.insert(0, str(ROOT / "python"))
import cutile2triton  # noqa: E402
from cutile2triton import difftest  # noqa: E402

# Some tests describe a machine without cuda.tile, as CI is: there the fake package's original side
# fails where it launches, and the harness's stub stands for the missing package.
NO_CUDA_TILE = pytest.mark.skipif(importlib.util.find_spec("cuda") is not None
                                  and importlib.util.find_spec("cuda.tile") is not None,
                                  reason="cuda.tile is installed here; the test describes a machine without it")

SCALE = "src/fakepkg/scale.py"
REFUSED = "src/fakepkg/refused.py"
NEW_FAILURE = "tests/check_scale.py::test_source_is_cutile"


def harness(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), TRITON_INTERPRET="1")
    return subprocess.run([sys.executable, "-m", "cutile2triton.difftest", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=900)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("difftest") / "difftest_pkg"
    shutil.copytree(PKG, root, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return root


@pytest.fixture(scope="module")
def both(tree, tmp_path_factory):
    work = tmp_path_factory.mktemp("work") / "w"
    report = work.parent / "report.json"
    run = harness(tree, "--print-record", "--workdir", work, "--json", report)
    assert run.returncode == 0, run.stderr
    return run, work, json.loads(report.read_text()), report


def test_shadow_tree_holds_the_conversions(tree, both):
    _, work, data, _ = both
    shadow = work / "shadow" / tree.name
    converted = (shadow / SCALE).read_text()
    assert converted == cutile2triton.convert((tree / SCALE).read_text(), filename=SCALE)
    assert "@triton.jit" in converted and "cuda.tile" not in converted
    # a refused module and a module without cuda.tile are the originals
    assert (shadow / REFUSED).read_text() == (tree / REFUSED).read_text()
    assert (shadow / "src/fakepkg/plain.py").read_text() == (tree / "src/fakepkg/plain.py").read_text()
    assert (shadow / "tests/check_scale.py").is_file()
    assert data["modules"][SCALE] == {"status": "converted"}
    assert data["modules"][REFUSED]["status"] == "refused"
    assert data["modules"][REFUSED]["error"].startswith(f"{REFUSED}:6:17: error: C2T403: ")
    assert set(data["modules"]) == {SCALE, REFUSED}


@NO_CUDA_TILE
def test_counts_and_first_error(both):
    run, _, data, _ = both
    original, converted = data["runs"]["original"]["tests"], data["runs"]["converted"]["tests"]
    assert {k: v["status"] for k, v in original.items()} == {
        "tests/check_scale.py::test_scale_shift": "failed",  # no cuda.tile here
        NEW_FAILURE: "passed",
        "tests/check_scale.py::test_perf": "passed",
        "tests/check_scale.py::test_skipped": "skipped",
        "tests/check_plain.py::test_double": "passed",
        "tests/check_plain.py::test_refused_module_sees_no_cutile": "passed",
    }
    assert converted["tests/check_scale.py::test_scale_shift"]["status"] == "passed"
    assert converted[NEW_FAILURE]["status"] == "failed"
    (failure,) = data["comparison"]["new_failures"]
    assert {k: failure[k] for k in ("test", "error")} == \
        {"test": NEW_FAILURE, "error": "AssertionError: fakepkg.scale does not import cuda.tile"}
    # the failure's further `E` lines (pytest's assertion rewriting) come with it
    assert failure["detail"].splitlines()[0] == "AssertionError: fakepkg.scale does not import cuda.tile"
    assert "assert 'import cuda.tile' in" in failure["detail"]
    assert data["comparison"]["passes_only_converted"] == ["tests/check_scale.py::test_scale_shift"]
    out = run.stdout
    assert "cuTile modules: 2: 1 converted (substituted in the shadow tree), 1 refused (left as the original)" in out
    assert f"  refused: {REFUSED}:6:17: error: C2T403: host code uses the cuda.tile module itself" in out
    assert "cuda.tile: NOT importable (ModuleNotFoundError: No module named 'cuda" in out  # 'cuda' or 'cuda.tile'
    lines = out.splitlines()
    assert lines[lines.index(next(l for l in lines if l.strip().startswith("tests/check_scale.py ")))].split() == \
        ["tests/check_scale.py", "2/1/1", "2/1/1", "1"]
    assert next(l for l in lines if l.strip().startswith("tests/check_plain.py ")).split() == \
        ["tests/check_plain.py", "2/0/0", "2/0/0", "0"]
    assert next(l for l in lines if l.strip().startswith("(all)")).split() == ["(all)", "4/1/1", "4/1/1", "1"]
    at = lines.index("new failures (pass with the original, fail converted): 1")
    assert lines[at + 1:at + 3] == [f"  {NEW_FAILURE}", "      AssertionError: fakepkg.scale does not import cuda.tile"]
    assert lines[at + 3].startswith("        assert 'import cuda.tile' in")


def test_per_module_table(both):
    run, _, data, _ = both
    # the kernel test ran the module's code (converted side; the original failed before it)
    assert data["runs"]["converted"]["usage"] == {"tests/check_scale.py::test_scale_shift": [SCALE]}
    row = next(l for l in run.stdout.splitlines() if l.strip().startswith(SCALE))
    assert row.split() == [SCALE, "converted", "1", "0/1/0", "1/0/0", "0"]
    assert "(1 other cuTile modules ran in no test: --all-modules lists them)" in run.stdout
    assert data["runs"]["converted"]["imported"][SCALE] == "fakepkg.scale"
    assert data["runs"]["converted"]["imported_elsewhere"] == []


def test_perf_records_side_by_side(both):
    run, _, data, _ = both
    lines = run.stdout.splitlines()
    at = lines.index("perf records (record_property; ratio = converted / original, > 1: the converted value is larger)")
    assert lines[at + 3].split() == ["tests/check_scale.py::test_perf", "benchmark.fake.median", "1", "2.5", "2.500"]
    assert len(lines) == at + 4  # the string field (kernel_name) is no number: no row
    assert data["runs"]["converted"]["tests"]["tests/check_scale.py::test_perf"]["properties"] == \
        {"benchmark": {"fake": {"median": 2.5, "kernel_name": "scale_shift_kernel"}}}


def test_from_json_renders_the_same(both):
    run, _, _, report = both
    again = harness("--from-json", report, "--print-record")
    assert again.returncode == 0, again.stderr
    assert again.stdout == run.stdout
    keys = harness("--from-json", report, "--print-record", "--record-keys", "*.mean")
    assert "(no numeric records)" in keys.stdout


@NO_CUDA_TILE
def test_from_json_puts_one_sided_reports_side_by_side(both, tmp_path):
    # a run per side (each in its own device session, say) renders as one run of both sides
    run, _, data, _ = both
    original = dict(data, runs={"original": data["runs"]["original"]}, shadow=None,
                    modules={rel: {"status": "converted"} for rel in data["modules"]})
    converted = dict(data, runs={"converted": data["runs"]["converted"]})
    for name, part in (("o.json", original), ("c.json", converted)):
        (tmp_path / name).write_text(json.dumps(part))
    merged = tmp_path / "merged.json"
    again = harness("--from-json", tmp_path / "o.json", "--from-json", tmp_path / "c.json", "--print-record",
                    "--json", merged)
    assert again.returncode == 0, again.stderr
    assert again.stdout == run.stdout  # the converted file's module table, the comparison made again
    assert json.loads(merged.read_text())["comparison"] == data["comparison"]
    assert data["comparison"]["new_failures"]  # so the comparison above compares something
    # an original run of another selection (check_plain.py not in it): "-" on its side of that file
    subset = dict(original, runs={"original": dict(
        data["runs"]["original"],
        tests={k: v for k, v in data["runs"]["original"]["tests"].items() if "check_plain" not in k},
        collected=[k for k in data["runs"]["original"]["collected"] if "check_plain" not in k])})
    (tmp_path / "s.json").write_text(json.dumps(subset))
    part = harness("--from-json", tmp_path / "s.json", "--from-json", tmp_path / "c.json")
    assert part.returncode == 0, part.stderr
    row = next(line for line in part.stdout.splitlines() if line.strip().startswith("tests/check_plain.py "))
    assert row.split() == ["tests/check_plain.py", "-", "2/0/0", "0"]
    twice = harness("--from-json", tmp_path / "c.json", "--from-json", tmp_path / "c.json")
    assert twice.returncode == 2 and "its converted run is also in" in twice.stderr


@NO_CUDA_TILE
def test_only_converted_with_the_stub(tree):
    run = harness(tree, "--only-converted", "--stub-cuda-tile", "-k", "plain or scale_shift")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "original run" not in out
    assert "the harness's stub stood for it (--stub-cuda-tile)" in out
    # the refused module's import probe succeeds with the stub: that test fails, the kernel test passes
    assert "converted run: failures: 1" in out
    lines = out.splitlines()
    at = lines.index("converted run: failures: 1")
    assert lines[at + 1] == "  tests/check_plain.py::test_refused_module_sees_no_cutile"
    assert lines[at + 2].startswith("      assert True is False")
    assert next(l for l in lines if l.strip().startswith("(all)")).split() == ["(all)", "-", "2/1/0", "0"]


def test_convert_only_with_the_executable(tree, tmp_path):
    work = tmp_path / "w"
    run = harness(tree, "--convert-only", "--converter", TOOL, "--workdir", work)
    assert run.returncode == 0, run.stderr
    assert (work / "shadow" / tree.name / SCALE).read_text() == \
        cutile2triton.convert((tree / SCALE).read_text(), filename=SCALE)
    assert f"  refused: {REFUSED}:6:17: error: C2T403: " in run.stdout
    assert "original run" not in run.stdout and "converted run" not in run.stdout


@pytest.mark.parametrize("args, message", [
    ([], "ROOT is required"),
    (["/no/such/folder"], "/no/such/folder: not a folder"),
    (["{tree}", "--only-original", "--only-converted"], "exclude each other"),
    (["--from-json", "/no/such.json"], "not a difftest JSON file"),
    (["{tree}", "--pythonpath", "nope"], "--pythonpath nope:"),
    (["{tree}", "--workdir", "{tree}"], "exists and is not an empty folder"),
    (["{tree}", "--json", "/no/such/folder/r.json"], "its folder does not exist"),
    (["{tree}", "--converter", "/no/such/cutile2triton"], "no such executable"),
])
def test_usage_errors_exit_2(tree, args, message):
    run = harness(*[a.format(tree=tree) for a in args])
    assert run.returncode == 2
    assert message in run.stderr
    assert run.stdout == ""


def test_pytest_that_cannot_start_exits_1(tree):
    run = harness(tree, "--only-converted", "--", "--no-such-pytest-option")
    assert run.returncode == 1
    assert "converted run: pytest exited 4 (usage error)" in run.stderr
    assert "--no-such-pytest-option" in run.stderr
    run = harness(tree, "--only-original", "--python", "/no/such/python")
    assert run.returncode == 1
    assert "original run: pytest could not start" in run.stderr


def test_timeout_skips_what_is_left_and_reports_what_ran(tree, tmp_path):
    # 20 tests of 1 s against a --timeout of 20 s: past the deadline (10 s before it) the tests
    # left are skipped, the run ends and the report counts them
    slow = tmp_path / "slow_pkg"
    shutil.copytree(tree, slow, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    (slow / "tests" / "check_slow.py").write_text(
        "import time\nimport pytest\n\n\n@pytest.mark.parametrize('i', range(20))\n"
        "def test_slow(i):\n    time.sleep(1)\n")
    run = harness("--only-converted", "--timeout", "20", "--json", tmp_path / "r.json", slow, "tests/check_slow.py")
    assert run.returncode == 0, run.stderr
    assert "tests did not run: the --timeout deadline came first" in run.stdout, run.stdout
    tests = json.loads((tmp_path / "r.json").read_text())["runs"]["converted"]["tests"]
    statuses = [t["status"] for t in tests.values()]
    assert 0 < statuses.count("passed") < 20 and statuses.count("passed") + statuses.count("skipped") == 20, tests


def test_a_run_stopped_at_the_timeout_reports_the_tests_that_ended(tree, tmp_path):
    # a test that outlasts --timeout: pytest is stopped (no JUnit XML), and the outcomes the
    # probe wrote as each test ended are the run's results
    slow = tmp_path / "stuck_pkg"
    shutil.copytree(tree, slow, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    (slow / "tests" / "check_stuck.py").write_text(
        "import time\n\n\ndef test_a():\n    pass\n\n\ndef test_b():\n    assert 1 == 2, 'b is wrong'\n\n\n"
        "def test_c():\n    time.sleep(600)\n\n\ndef test_d():\n    pass\n")
    start = time.time()
    run = harness("--only-converted", "--timeout", "12", "--json", tmp_path / "r.json", slow, "tests/check_stuck.py")
    assert run.returncode == 0, run.stderr
    assert time.time() - start < 120
    assert "WARNING: stopped at --timeout 12 s (a test still running at the deadline): 2 tests ended before it " \
           "and are counted; 2 collected tests did not end" in run.stdout, run.stdout
    converted = json.loads((tmp_path / "r.json").read_text())["runs"]["converted"]
    assert {k: v["status"] for k, v in converted["tests"].items()} == \
        {"tests/check_stuck.py::test_a": "passed", "tests/check_stuck.py::test_b": "failed"}
    assert converted["tests"]["tests/check_stuck.py::test_b"]["message"] == "AssertionError: b is wrong"
    assert converted["returncode"] is None and converted["stopped"] == 12
    assert "      AssertionError: b is wrong" in run.stdout


def test_a_run_stopped_before_any_test_ended_exits_1(tree, tmp_path):
    slow = tmp_path / "stuck_pkg"
    shutil.copytree(tree, slow, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    (slow / "tests" / "check_stuck.py").write_text("import time\n\n\ndef test_c():\n    time.sleep(600)\n")
    run = harness("--only-converted", "--timeout", "8", slow, "tests/check_stuck.py")
    assert run.returncode == 1
    assert "did not finish within --timeout 8 s and reported no test before" in run.stderr


JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="tests.ops.test_a.TestA" name="test_op[1-cutile]" file="tests/ops/test_a.py" line="3" time="0.5">
  <properties><property name="benchmark" value="{'cutile': {'mean': 2.0}}"/></properties>
</testcase>
<testcase classname="tests.ops.test_a.TestA" name="test_op[2-cutile]" file="tests/ops/test_a.py" line="3" time="0.1">
  <failure message="AssertionError: 1 != 2&#10;more">E   AssertionError: 1 != 2</failure>
</testcase>
<testcase classname="tests.ops.test_a" name="test_free" file="tests/ops/test_a.py" line="9" time="0.1">
  <skipped type="pytest.skip" message="no GPU">skip</skipped>
</testcase>
<testcase classname="" name="tests.ops.test_b" file="tests/ops/test_b.py" time="0">
  <error message="collection failure">E   ImportError: no module</error>
</testcase>
<testcase classname="tests.ops.test_a" name="test_teardown" file="tests/ops/test_a.py" time="0">
  <error message="failed on teardown with &quot;RuntimeError: x&quot;">E RuntimeError: x</error>
</testcase>
</testsuite></testsuites>
"""


def test_parse_junit(tmp_path):
    path = tmp_path / "r.xml"
    path.write_text(JUNIT)
    tests = difftest.parse_junit(path)
    assert {k: (v["status"], v["file"], v["message"]) for k, v in tests.items()} == {
        "tests/ops/test_a.py::TestA::test_op[1-cutile]": ("passed", "tests/ops/test_a.py", ""),
        "tests/ops/test_a.py::TestA::test_op[2-cutile]": ("failed", "tests/ops/test_a.py", "AssertionError: 1 != 2"),
        "tests/ops/test_a.py::test_free": ("skipped", "tests/ops/test_a.py", "no GPU"),
        "tests/ops/test_b.py": ("error", "tests/ops/test_b.py", "ImportError: no module"),
        "tests/ops/test_a.py::test_teardown": ("error", "tests/ops/test_a.py",
                                               'failed on teardown with "RuntimeError: x"'),
    }
    assert tests["tests/ops/test_a.py::TestA::test_op[1-cutile]"]["properties"] == {"benchmark": {"cutile": {"mean": 2.0}}}


def test_dotted_names():
    assert difftest.dotted_names("src/pkg/ops/k.py", ["src"]) == ["pkg.ops.k", "src.pkg.ops.k"]
    assert difftest.dotted_names("src/pkg/__init__.py", ["src"]) == ["pkg", "src.pkg"]
    assert difftest.dotted_names("skills/my-skill/k.py", []) == []


PROBE_DRIVER = """
import json, os, sys, types
sys.path.insert(0, sys.argv[1])
import difftest_probe as probe
probe.pytest_configure(None)
sys.path.insert(0, os.environ["C2T_DIFFTEST_TREE"])
import kmod
for nodeid, calls in (("t::a", 1), ("t::b", 0), ("t::c", 2)):
    probe.pytest_runtest_protocol(types.SimpleNamespace(nodeid=nodeid), None)
    for _ in range(calls):
        kmod.f()
    probe.pytest_runtest_logfinish(nodeid, None)
probe.pytest_collection_finish(types.SimpleNamespace(items=[types.SimpleNamespace(nodeid=n) for n in "abc"]))
probe.pytest_sessionfinish(None, 0)
"""


def _pythons():
    found = [sys.executable]
    for name in ("python3.12", "python3.13"):
        path = shutil.which(name)
        if path and subprocess.run([path, "-c", "import sys"], capture_output=True).returncode == 0:
            found.append(path)
    return found


@pytest.mark.parametrize("python", _pythons())
def test_probe_attributes_module_code_to_tests(tmp_path, python):
    """The probe alone (no pytest needed): sys.monitoring on 3.12+, sys.setprofile before."""
    (tmp_path / "kmod.py").write_text("def f():\n    return 1\n")
    (tmp_path / "modules.json").write_text(json.dumps({"kmod.py": ["kmod"]}))
    env = dict(os.environ, C2T_DIFFTEST_PROBE_OUT=str(tmp_path / "out"), C2T_DIFFTEST_TREE=str(tmp_path),
               C2T_DIFFTEST_MODULES=str(tmp_path / "modules.json"), C2T_DIFFTEST_STUB="1")
    run = subprocess.run([python, "-c", PROBE_DRIVER, str(ROOT / "python" / "cutile2triton")], env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    (out,) = (tmp_path / "out").glob("probe-*.json")
    data = json.loads(out.read_text())
    version = tuple(int(p) for p in data["python"].split(".")[:2])
    assert data["attribution"] == ("sys.monitoring" if version >= (3, 12) else "sys.setprofile")
    assert data["usage"] == {"t::a": ["kmod.py"], "t::c": ["kmod.py"]}
    assert data["imported"] == {"kmod.py": "kmod"}
    assert data["collected"] == ["a", "b", "c"]


STUB_DRIVER = """
import sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import difftest_probe  # (installs the stub: no cuda.tile here)
import cuda.other, cuda.tile as ct, cuda.tile.tune  # a namespace package 'cuda' keeps its own modules
from cuda.tile import Constant
assert cuda.other.VALUE == 7 and ct.__c2t_difftest_stub__


@ct.kernel(occupancy=2)
def k(x, n: Constant[int]):
    pass


@ct.function
def g(x):
    pass


ct.launch = lambda *args: None  # a module may patch the stub module
k.note = "kept"
print(k.note, repr(k.replace_hints(occupancy=4)))
for use in (lambda: k(1), lambda: g(1), lambda: ct.cdiv(5, 2), lambda: ct.float16 == 1, lambda: bool(ct.bfloat16),
            lambda: ct.tune.exhaustive_search([1])):
    try:
        use()
    except difftest_probe.CudaTileStubError as exc:
        print(exc)
"""


@NO_CUDA_TILE
def test_stub_imports_what_was_not_converted_and_fails_where_it_runs(tmp_path):
    (tmp_path / "cuda").mkdir()
    (tmp_path / "cuda" / "other.py").write_text("VALUE = 7\n")
    env = dict(os.environ, C2T_DIFFTEST_STUB="1")
    run = subprocess.run([sys.executable, "-c", STUB_DRIVER, str(ROOT / "python" / "cutile2triton"), str(tmp_path)],
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    note = "cuda.tile is not installed; the difftest harness's stub (--stub-cuda-tile) stands for it, " \
           "and code that was not converted used it"
    assert run.stdout.splitlines() == [
        "kept <difftest stub __main__.k.replace_hints(...)>",
        f"__main__.k (@cuda.tile.kernel(...)) was called: {note}",
        f"__main__.g (@cuda.tile.function) was called: {note}",
        f"cuda.tile.cdiv(...) was called: {note}",
        f"cuda.tile.float16 was used as a value: {note}",
        f"cuda.tile.bfloat16 was used as a value: {note}",
        f"cuda.tile.tune.exhaustive_search(...) was called: {note}",
    ]
