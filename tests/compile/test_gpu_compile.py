"""Converted kernels compile for real GPUs (sm_90, sm_100) without one.

test_corpus_module: the operator tests (tests/ops, converted backend) are run in
a child process under TRITON_INTERPRET=1 through launch_record.py with the
kernels not run (C2T_RECORD_ONLY=1): every launch they make is recorded; then
tools/compile_check.py compiles each distinct launch (signature, constexprs,
specialization) for sm_90 and sm_100, checks shared memory <= 232,448 bytes and
the TMA path.  Compiles are cached by Triton (its cache, ~/.triton/cache or
$TRITON_CACHE_DIR), so a run after a change recompiles only what changed.

The case tests convert small kernels of tests/compile/cases and check the
converter's output both compiles and, under the interpreter, computes the same
as torch.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CORPUS = sorted(p.stem for p in (REPO / "corpus" / "cutile").glob("*.py"))
CONVERTER = Path(os.environ.get("C2T_BIN", REPO / "build" / "cutile2triton"))
TOOL = REPO / "tools" / "compile_check.py"


def _compile_env():
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    return env


@pytest.fixture(scope="session")
def corpus_results(tmp_path_factory):
    work = tmp_path_factory.mktemp("gpu_compile")
    launches = work / "launches.jsonl"
    env = dict(os.environ, TRITON_INTERPRET="1", C2T_RECORD_LAUNCHES=str(launches), C2T_RECORD_ONLY="1",
               PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-m", "pytest", "-q", "--tb=no", "-p", "no:cacheprovider", "-p", "launch_record",
                    "--basetemp", str(work / "ops"), "-k", "test_op and triton", str(REPO / "tests" / "ops")],
                   cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert launches.exists(), "the operator tests recorded no launch"
    out = work / "results.json"
    proc = subprocess.run([sys.executable, str(TOOL), "--launches", str(launches), "--json", str(out), "-j", "2"],
                          cwd=REPO, env=_compile_env(), capture_output=True, text=True)
    assert out.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    records = [json.loads(line) for line in launches.read_text().splitlines()]
    return records, json.loads(out.read_text())


@pytest.mark.parametrize("name", CORPUS)
def test_corpus_module(corpus_results, name):
    records, results = corpus_results
    module = f"c2t_triton_{name}"
    files = {r["file"] for r in records if r["module"] == module}
    assert files, f"no launch of {name} was recorded"
    mine = [r for r in results if r["file"] in files]
    assert {r["target"] for r in mine} == {"sm_90", "sm_100"}
    bad = [f"{r['target']} {r['kernel']} {r.get('constexprs')}: {p}" for r in mine for p in r["problems"]]
    assert not bad, "\n".join(bad[:20])


def test_tma_path_is_checked(corpus_results):
    """Some recorded launch takes the TMA path and its PTX holds TMA loads and stores."""
    _, results = corpus_results
    tma = [r for r in results if r.get("tma_launch") and r.get("ptx_tma_loads") and r.get("ptx_tma_stores")]
    assert {r["target"] for r in tma} == {"sm_90", "sm_100"}


# ---------------------------------------------------------------- own cases

def _convert(src, dst):
    proc = subprocess.run([str(CONVERTER), str(src), "-o", str(dst)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def _run_interpreted(module_path, body):
    """Import the converted module at `module_path` as m under TRITON_INTERPRET=1 in a child
    process, run `body` (Python lines using m and torch) and return whether it printed 'same'."""
    code = (f"import torch, importlib.util\n"
            f"spec = importlib.util.spec_from_file_location('case', {str(module_path)!r})\n"
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            + body + "print('same')\n")
    proc = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, TRITON_INTERPRET="1"),
                          capture_output=True, text=True)
    return "same" in proc.stdout, proc.stdout + proc.stderr


def _check_folder(folder, calls, tmp_path, *extra):
    calls_file = tmp_path / "calls_file.py"
    calls_file.write_text(calls)
    return subprocess.run([sys.executable, str(TOOL), "--calls", str(calls_file), str(folder), *extra],
                          cwd=REPO, env=_compile_env(), capture_output=True, text=True)


def _compile_case(tmp_path, case, calls):
    """Convert cases/CASE.py into tmp_path/mods, compile the launches `calls` records for sm_90
    (tools/compile_check.py) and return its results."""
    (tmp_path / "mods").mkdir()
    _convert(HERE / "cases" / f"{case}.py", tmp_path / "mods" / f"{case}.py")
    out = tmp_path / "results.json"
    proc = _check_folder(tmp_path / "mods", calls, tmp_path, "--targets", "90", "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(out.read_text())


FLATTEN_CALLS = """
import torch
def flatten(m):
    x = torch.randn(16, 2)
    m.launch_flatten_pairs_kernel(0, (2,), (x, torch.empty(32), 8))
CALLS = {"flatten_pairs": [flatten]}
"""


def test_constexpr_local_compiles(tmp_path):
    """`F = BLOCK * 2` then ct.reshape(t, (F,)): F must stay a constexpr in Triton."""
    (tmp_path / "mods").mkdir()
    _convert(HERE / "cases" / "flatten_pairs.py", tmp_path / "mods" / "flatten_pairs.py")
    assert "F: tl.constexpr = BLOCK * 2" in (tmp_path / "mods" / "flatten_pairs.py").read_text()
    proc = _check_folder(tmp_path / "mods", FLATTEN_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 compiles, 0 failed" in proc.stdout


def test_constexpr_local_runs(tmp_path):
    """The same kernel under the interpreter computes 2 * x.flatten()."""
    _convert(HERE / "cases" / "flatten_pairs.py", tmp_path / "flatten_pairs.py")
    same, output = _run_interpreted(tmp_path / "flatten_pairs.py",
                                    "x = torch.randn(24, 2)\n"
                                    "y = torch.empty(48)\n"
                                    "m.launch_flatten_pairs_kernel(0, (3,), (x, y, 8))\n"
                                    "torch.testing.assert_close(y, 2 * x.flatten())\n")
    assert same, output


TUPLE_CALLS = """
import torch
def floats(m):
    m.launch_tuple_params_kernel(0, (4,), (torch.randn(64, 32), torch.empty(64, 32), (2.0, 1.0, 4.0), (16, 32), (0, (1,))))
def ints(m):
    m.launch_tuple_params_kernel(0, (4,), (torch.randn(64, 32), torch.empty(64, 32), (3, 1, 4), (16, 32), (0, (1,))))
def partly(m):
    m.launch_partly_constant_kernel(0, (4,), (torch.randn(64), torch.empty(64), ((16, 2), 0.5)))
def mixed(m):
    m.launch_mixed_tuple_kernel(0, (4,), ((torch.randn(64), 3.0), torch.empty(64), 16))
def compared(m):
    m.launch_compared_tuple_kernel(0, (1,), (torch.randn(16), 16, (16,)))
    m.launch_compared_tuple_kernel(0, (1,), (torch.randn(16), 16, (16, 2)))
CALLS = {"tuple_params": [floats, ints, partly, mixed, compared]}
"""


def test_tuple_parameters_compile_and_run(tmp_path):
    """A tuple of numbers passed at launch is a Triton tuple argument, indexed as it is; a
    Constant parameter's tuple is a constexpr whose items (nested too) and len() are constexprs,
    so it can be a tile's shape; a tuple annotated with ct.Constant items gets those items as
    constexprs (the launcher passes them as tl.constexpr), the others at run time; a tuple of
    an array and a number passes both, None for the number's shape and strides. Both compile for the GPU and compute what cuTile does: the numbers
    as int32 or float32 scalars (3 / 4 is a true division)."""
    (tmp_path / "mods").mkdir()
    module = tmp_path / "mods" / "tuple_params.py"
    _convert(HERE / "cases" / "tuple_params.py", module)
    text = module.read_text()
    assert "offsets[0]" in text and "tiles: tl.constexpr" in text
    # the autotuner's hand pick counts the tile's elements from the tuple's items
    assert 'nargs["tiles"][0] * nargs["tiles"][1]' in text
    proc = _check_folder(tmp_path / "mods", TUPLE_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "6 launches, 12 compiles, 0 failed" in proc.stdout
    same, output = _run_interpreted(module,
                                    "x = torch.randn(64, 32)\n"
                                    "for offsets in ((2.0, 1.0, 4.0), (3, 1, 4)):\n"
                                    "    y = torch.empty(64, 32)\n"
                                    "    m.launch_tuple_params_kernel(0, (4,), (x, y, offsets, (16, 32), (0, (3,))))\n"
                                    "    want = x * offsets[0] + offsets[1] / offsets[2] + 2 * 3\n"
                                    "    torch.testing.assert_close(y, want)\n"
                                    "x = torch.randn(64)\n"
                                    "y = torch.empty(64)\n"
                                    "m.launch_partly_constant_kernel(0, (4,), (x, y, ((16, 2), 0.5)))\n"
                                    "torch.testing.assert_close(y, x * 0.5 + 2)\n"
                                    "m.launch_mixed_tuple_kernel(0, (4,), ((x, 3.0), y, 16))\n"
                                    "torch.testing.assert_close(y, x * 3.0)\n")
    assert same, output


RAW_CALLS = """
import torch
def histogram(m):
    m.launch_raw_histogram_kernel(0, (4,), (torch.randint(0, 8, (100,), dtype=torch.int32),
                                            torch.zeros(8, dtype=torch.int32), torch.zeros(1, dtype=torch.int32),
                                            100, 32))
def rows(m):
    m.launch_raw_rows_kernel(0, (4,), (torch.randn(64, 32), torch.empty(64, 32), 16, 32))
CALLS = {"raw_memory": [histogram, rows]}
"""


def test_raw_memory_compiles_and_computes(tmp_path):
    """Loads, stores and atomics at element offsets (x.get_raw_memory()) compile for the GPU
    (pointer operations: no descriptor) and compute the same under the interpreter."""
    (tmp_path / "mods").mkdir()
    module = tmp_path / "mods" / "raw_memory.py"
    _convert(HERE / "cases" / "raw_memory.py", module)
    proc = _check_folder(tmp_path / "mods", RAW_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 launches, 4 compiles, 0 failed" in proc.stdout, proc.stdout
    same, output = _run_interpreted(module,
                                    "v = torch.randint(0, 8, (100,), dtype=torch.int32)\n"
                                    "counts = torch.zeros(8, dtype=torch.int32)\n"
                                    "firsts = torch.zeros(1, dtype=torch.int32)\n"
                                    "m.launch_raw_histogram_kernel(0, (4,), (v, counts, firsts, 100, 32))\n"
                                    "torch.testing.assert_close(counts, torch.bincount(v.long(), minlength=8).int())\n"
                                    "assert 1 <= int(firsts[0]) <= 4\n"
                                    "x = torch.randn(64, 32)\n"
                                    "y = torch.empty(64, 32)\n"
                                    "m.launch_raw_rows_kernel(0, (4,), (x, y, 16, 32))\n"
                                    "torch.testing.assert_close(y, x * 2)\n")
    assert same, output


DEPENDENT_CALLS = """
import torch
def run(m):
    x, y = torch.randn(256), torch.randn(256)
    m.run(0, x, y, torch.empty(256), torch.empty(256))
CALLS = {"dependent_launch": [run]}
"""


def test_programmatic_dependent_launch_compiles_with_its_waits(tmp_path):
    """ct.grid_dependency_control_wait / _launch_dependents are PTX griddepcontrol
    instructions (sm_90 and sm_100), the consumer's launch asks Triton for launch_pdl; under
    the interpreter, which runs launches in order, both kernels compute as without it."""
    (tmp_path / "mods").mkdir()
    module = tmp_path / "mods" / "dependent_launch.py"
    _convert(HERE / "cases" / "dependent_launch.py", module)
    results = tmp_path / "results.json"
    proc = _check_folder(tmp_path / "mods", DEPENDENT_CALLS, tmp_path, "--json", str(results))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 launches, 4 compiles, 0 failed" in proc.stdout, proc.stdout
    by_kernel = {(r["kernel"], r["target"]): r for r in json.loads(results.read_text())}
    for target in ("sm_90", "sm_100"):
        producer, consumer = by_kernel["producer_kernel", target], by_kernel["consumer_kernel", target]
        assert producer["ptx_griddepcontrol"] == 1 and not producer["launch_pdl"], producer
        assert consumer["ptx_griddepcontrol"] == 1 and consumer["launch_pdl"], consumer
    same, output = _run_interpreted(module,
                                    "x, y = torch.randn(256), torch.randn(256)\n"
                                    "mid, out = torch.empty(256), torch.empty(256)\n"
                                    "m.run(0, x, y, mid, out)\n"
                                    "torch.testing.assert_close(out, x * 2 + y)\n")
    assert same, output


STATIC_CALLS = """
import torch
def rows(m):
    m.launch_static_dims_kernel(0, (4,), (torch.randn(4, 64), torch.empty(4)))
CALLS = {"static_dims": [rows]}
"""


def test_static_dimensions_compile_as_constexpr_tuples(tmp_path):
    """A static shape and strides (ct.ArrayAnnotation) are tl.constexpr tuples: the tile sized
    by one compiles for the GPU, with its descriptor path."""
    (tmp_path / "mods").mkdir()
    _convert(HERE / "cases" / "static_dims.py", tmp_path / "mods" / "static_dims.py")
    proc = _check_folder(tmp_path / "mods", STATIC_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 launches, 2 compiles, 0 failed" in proc.stdout, proc.stdout


VIEW_CALLS = """
import torch
def views(m):
    m.launch_tiled_views_kernel(0, (4,), (torch.randn(64, 96), torch.empty(64, 96), 16, 32))
def strided(m):
    m.launch_strided_views_kernel(0, (8,), (torch.randn(64, 96), torch.zeros(64, 96), 16, 8))
CALLS = {"tiled_views": [views, strided]}
"""


def test_tiled_views_compile_with_their_descriptor_paths(tmp_path):
    """A tiled view's load and store are the array's: they compile for the GPU with the TMA
    path of ct.load and ct.store, and compute the same under the interpreter; a view with
    traversal steps and its atomic stores compile and add each window once."""
    (tmp_path / "mods").mkdir()
    module = tmp_path / "mods" / "tiled_views.py"
    _convert(HERE / "cases" / "tiled_views.py", module)
    proc = _check_folder(tmp_path / "mods", VIEW_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the PTX holds a TMA load and a TMA store (cp.async.bulk.tensor)
    assert "2 launches, 4 compiles, 0 failed" in proc.stdout, proc.stdout
    assert proc.stdout.count("tiled_views_kernel shared=4104 tma=1/1") == 2, proc.stdout
    assert proc.stdout.count("strided_views_kernel") == 2, proc.stdout  # steps: pointers and atomics
    same, output = _run_interpreted(module,
                                    "x = torch.randn(64, 96)\n"
                                    "y = torch.empty(64, 96)\n"
                                    "m.launch_tiled_views_kernel(0, (4,), (x, y, 16, 32))\n"
                                    "torch.testing.assert_close(y, x * 2)\n"
                                    "y = torch.zeros(20, 30)\n"
                                    "x = torch.randn(20, 30)\n"
                                    "m.launch_strided_views_kernel(0, (3,), (x, y, 16, 8))\n"
                                    "covers = torch.zeros(20, 30)\n"
                                    "for r in range(0, 20, 8):\n"
                                    "    for c in range(0, 30, 8):\n"
                                    "        covers[r:r + 16, c:c + 16] += 1\n"
                                    "torch.testing.assert_close(y, x * covers)\n")
    assert same, output


UNPACKED_CALLS = """
import torch
def one(m):
    m.launch_unpacked_dims_kernel(0, (4,), (torch.randn(64, 32), torch.empty(64), 16))
CALLS = {"unpacked_dims": [one]}
"""


def test_unpacked_dimension_locals_compile_and_run(tmp_path):
    """`rows, cols = t.shape[0], t.shape[1]` in a tile function: each a constexpr local (as a
    plain local, Triton compiling for a GPU refused the reshape); under the interpreter the
    kernel gives the row sums."""
    (tmp_path / "mods").mkdir()
    module = tmp_path / "mods" / "unpacked_dims.py"
    _convert(HERE / "cases" / "unpacked_dims.py", module)
    assert "rows: tl.constexpr = t.shape[0]" in module.read_text()
    proc = _check_folder(tmp_path / "mods", UNPACKED_CALLS, tmp_path, "--targets", "90")
    assert proc.returncode == 0 and "1 compiles, 0 failed" in proc.stdout, proc.stdout + proc.stderr
    same, output = _run_interpreted(module, "x = torch.randn(64, 32)\n"
                                            "y = torch.empty(64)\n"
                                            "m.launch_unpacked_dims_kernel(0, (4,), (x, y, 16))\n"
                                            "torch.testing.assert_close(y, x.sum(1))\n")
    assert same, output


def test_checker_reports_invalid_triton_and_shared_limit(tmp_path):
    """The tool itself: a module that is not valid Triton fails with the cause; a
    kernel over the shared-memory limit fails."""
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "bad.py").write_text(
        "import torch, triton, triton.language as tl\n"
        "@triton.jit\n"
        "def k(x, BLOCK: tl.constexpr):\n"
        "    F = BLOCK * 2\n"
        "    t = tl.load(x + tl.arange(0, F))\n"
        "    tl.store(x + tl.arange(0, F), t)\n"
        "def host(x):\n"
        "    k[(1,)](x, 8)\n")
    (mods / "big.py").write_text(
        "import torch, triton, triton.language as tl\n"
        "@triton.jit\n"
        "def k(x, y, N: tl.constexpr):\n"
        "    i = tl.arange(0, N)\n"
        "    t = tl.load(x + i[:, None] * N + i[None, :])\n"
        "    tl.store(y + i[:, None] * N + i[None, :], tl.trans(t))\n"
        "def host(x, y):\n"
        "    k[(1,)](x, y, 128)\n")
    calls = ("import torch\n"
             "CALLS = {'bad': [lambda m: m.host(torch.zeros(16))],\n"
             "         'big': [lambda m: m.host(torch.zeros(128 * 128), torch.zeros(128 * 128))]}\n")
    proc = _check_folder(mods, calls, tmp_path, "--targets", "90", "--shared-limit", "1024")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "does not compile" in proc.stdout and "arange" in proc.stdout, proc.stdout
    assert "shared memory" in proc.stdout and "> 1024" in proc.stdout, proc.stdout


ROW_SCALE_CALLS = """
import torch
def exact(m):
    m.launch_row_scale_kernel(0, (4,), (torch.randn(4, 16), torch.zeros(4, 16), 16, 16))
def padded(m):
    m.launch_row_scale_kernel(0, (4,), (torch.randn(4, 12), torch.zeros(4, 12), 12, 16))
CALLS = {"row_scale": [exact, padded]}
"""


def test_tile_function_given_constants_keeps_them_constexpr(tmp_path):
    """A tile function called with a kernel's constexprs takes them as tl.constexpr
    parameters, so `exact = TILE == N` is a constexpr and check_bounds=not exact
    chooses its mask while compiling (a run-time bool there is invalid Triton)."""
    (tmp_path / "mods").mkdir()
    _convert(HERE / "cases" / "row_scale.py", tmp_path / "mods" / "row_scale.py")
    text = (tmp_path / "mods" / "row_scale.py").read_text()
    assert "N: tl.constexpr," in text.split("def scale_row(")[1].split("):")[0] + "):"
    proc = _check_folder(tmp_path / "mods", ROW_SCALE_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 failed" in proc.stdout
    same, output = _run_interpreted(tmp_path / "mods" / "row_scale.py",
                                    "for n in (16, 12):\n"
                                    "    x = torch.randn(4, n)\n"
                                    "    y = torch.zeros_like(x)\n"
                                    "    m.launch_row_scale_kernel(0, (4,), (x, y, n, 16))\n"
                                    "    torch.testing.assert_close(y, 2 * x)\n")
    assert same, output


TWO_PASS_CALLS = """
import torch
def half(m):
    m.launch_two_pass_kernel(0, (2,), (torch.randn(2, 32).half(), torch.zeros(2, 32).half(), 2, 16))
CALLS = {"two_pass": [half]}
"""


def test_a_name_set_afresh_in_each_iteration_is_not_loop_carried(tmp_path):
    """`t` is float16 before the second loop and float32 inside it: Triton refuses a
    loop-carried value whose type changes, so inside the loop it gets a name of its own."""
    (tmp_path / "mods").mkdir()
    _convert(HERE / "cases" / "two_pass.py", tmp_path / "mods" / "two_pass.py")
    assert "t_1 = t_1.to(tl.float32)" in (tmp_path / "mods" / "two_pass.py").read_text()
    proc = _check_folder(tmp_path / "mods", TWO_PASS_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 failed" in proc.stdout
    same, output = _run_interpreted(tmp_path / "mods" / "two_pass.py",
                                    "x = torch.randn(2, 32)\n"
                                    "y = torch.zeros(2, 32)\n"
                                    "m.launch_two_pass_kernel(0, (2,), (x, y, 2, 16))\n"
                                    "torch.testing.assert_close(y, x * x.mean(dim=1, keepdim=True))\n")
    assert same, output


VERSIONED_CALLS = """
import torch
def narrow(m):
    m.launch_versioned_sums_kernel(0, (2,), (torch.randn(32, 1), torch.zeros(2, 1), 16, 1))
def wide(m):
    m.launch_versioned_sums_kernel(0, (2,), (torch.randn(32, 8), torch.zeros(2, 8), 16, 8))
CALLS = {"versioned_sums": [narrow, wide]}
"""


def test_versions_per_outcome_of_a_constexpr_condition_compile_for_sm90(tmp_path):
    """Both versions of a kernel split on `W == 1` (lower_version.c) compile for sm_90."""
    (tmp_path / "mods").mkdir()
    _convert(HERE / "cases" / "versioned_sums.py", tmp_path / "mods" / "versioned_sums.py")
    assert (tmp_path / "mods" / "versioned_sums.py").read_text().count("if W == 1:") == 1
    proc = _check_folder(tmp_path / "mods", VERSIONED_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 failed" in proc.stdout


OPTIONAL_OPERAND_CALLS = """
import torch
def without(m):
    m.launch_optional_operand_kernel(0, (2,), (torch.randn(32, 32).half(), torch.zeros(32, 16).half(),
                                                torch.zeros(32, 16), 0, 32))
def with_rope(m):
    m.launch_optional_operand_kernel(0, (2,), (torch.randn(32, 32).half(), torch.randn(32, 16).half(),
                                                torch.zeros(32, 16), 16, 32))
CALLS = {"optional_operand": [without, with_rope]}
"""


def test_versions_of_a_tile_function_compile_for_sm90_and_run(tmp_path):
    """Both versions of a tile function split on its own `R > 0` (None or a tile) compile
    for sm_90, and compute x x^T (+ y y^T with R > 0) under the interpreter."""
    (tmp_path / "mods").mkdir()
    module = tmp_path / "mods" / "optional_operand.py"
    _convert(HERE / "cases" / "optional_operand.py", module)
    assert module.read_text().split("def scores(")[1].count("if R > 0:") == 1
    proc = _check_folder(tmp_path / "mods", OPTIONAL_OPERAND_CALLS, tmp_path, "--targets", "90")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 compiles, 0 failed" in proc.stdout
    same, output = _run_interpreted(module,
                                    "x = torch.randn(32, 32).half()\n"
                                    "for r in (0, 16):\n"
                                    "    y = torch.randn(32, 16).half()\n"
                                    "    out = torch.zeros(32, 16)\n"
                                    "    m.launch_optional_operand_kernel(0, (2,), (x, y, out, r, 32))\n"
                                    "    for i in range(2):\n"
                                    "        xs, ys = x[i * 16:(i + 1) * 16].float(), y[i * 16:(i + 1) * 16].float()\n"
                                    "        ref = sum(xs @ x[j * 16:(j + 1) * 16].float().T for j in range(2))\n"
                                    "        if r:\n"
                                    "            ref = ref + sum(ys @ y[j * 16:(j + 1) * 16].float().T for j in range(2))\n"
                                    "        torch.testing.assert_close(out[i * 16:(i + 1) * 16], ref, rtol=1e-2, atol=1e-2)\n")
    assert same, output


NUMBER_FOR_ARRAY_CALLS = """
import torch
def plain(m):
    m.matmul(torch.randn(64, 64).half(), torch.randn(64, 64).half(), torch.zeros(64, 64).half())
def relu(m):
    m.matmul(torch.randn(64, 64).half(), torch.randn(64, 64).half(), torch.zeros(64, 64).half(), 0, 1)
def biased(m):
    m.matmul(torch.randn(64, 64).half(), torch.randn(64, 64).half(), torch.zeros(64, 64).half(),
             torch.randn(64, 64).half(), 3)
CALLS = {"number_for_array": [plain, relu, biased]}
"""


def test_a_number_for_an_array_used_only_in_a_branch_not_taken(tmp_path):
    """cuTile compiles a kernel given a number for a parameter that only a branch not taken
    uses as an array (bias=0 where ACT != 3): the converted launcher passes it on, and Triton
    compiles each launch for sm_90; under the interpreter the three launches compute as torch,
    and one that takes the branch with a number fails (as cuTile's compile does)."""
    (tmp_path / "mods").mkdir()
    module = tmp_path / "mods" / "number_for_array.py"
    _convert(HERE / "cases" / "number_for_array.py", module)
    text = module.read_text()
    assert re.search(r'bias := _tensor\(bias, "bias"(, read_at=\d+)?, number=True\)', text)
    assert text.count("number=True") == 1  # a, b, c: used outside the branches, arrays
    proc = _check_folder(tmp_path / "mods", NUMBER_FOR_ARRAY_CALLS, tmp_path, "--targets", "90")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 compiles, 0 failed" in proc.stdout
    same, output = _run_interpreted(module, (
        "import triton\n"
        "a, b = torch.randn(64, 64).half(), torch.randn(64, 64).half()\n"
        "ref = a.float() @ b.float()\n"
        "for act, bias, want in ((0, 0, ref), (1, 0, ref.relu()), (3, torch.randn(64, 64).half(), None)):\n"
        "    c = torch.zeros(64, 64).half()\n"
        "    m.matmul(a, b, c, bias, act)\n"
        "    want = ref + bias.float() if want is None else want\n"
        "    torch.testing.assert_close(c.float(), want, rtol=1e-2, atol=5e-2)\n"
        "try:\n"
        "    m.matmul(a, b, torch.zeros(64, 64).half(), 0, 3)\n"
        "    raise SystemExit('a number read as an array ran')\n"
        "except (triton.CompilationError, triton.runtime.errors.InterpreterError):\n"
        "    pass\n"))
    assert same, output


PAGED_GATHER_CALLS = """
import torch
def half(m):
    m.launch_paged_gather_kernel(0, (2,), (torch.randn(6, 16, 64).half(), torch.tensor([5, 0, 2, 9, 1, 1, 3, 4]),
                                              torch.zeros(8, 16, 64).half(), 8, 4, 16, 64))
CALLS = {"paged_gather": [half]}
"""


def test_advanced_indexing_compiles_and_runs(tmp_path):
    """ct.load_advanced_indexing / ct.store_advanced_indexing (a sparse page axis and two
    ct.Slice ranges) become a 3-D pointer gather and scatter that compile for the GPU and,
    under the interpreter, read the pages (zero past the end) as torch indexing does."""
    (tmp_path / "mods").mkdir()
    _convert(HERE / "cases" / "paged_gather.py", tmp_path / "mods" / "paged_gather.py")
    assert "ct_load_advanced_3d(" in (tmp_path / "mods" / "paged_gather.py").read_text()
    proc = _check_folder(tmp_path / "mods", PAGED_GATHER_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 failed" in proc.stdout
    same, output = _run_interpreted(tmp_path / "mods" / "paged_gather.py",
                                    "cache = torch.randn(6, 16, 8)\n"
                                    "pages = torch.tensor([5, 0, 2, 9, 1, 1, 3, 4])\n"
                                    "out = torch.zeros(8, 8, 8)\n"
                                    "m.launch_paged_gather_kernel(0, (2,), (cache, pages, out, 10, 4, 8, 8))\n"
                                    "ref = torch.zeros(8, 8, 8)\n"
                                    "for i, p in enumerate(pages.tolist()):\n"
                                    "    if p < 6:\n"
                                    "        ref[i, :6] = cache[p, 10:16]\n"
                                    "assert torch.equal(out, ref * 2), (out, ref)\n")
    assert same, output


MATRIX_CALLS = """
import torch
def gemm_f16(m):
    a, b = torch.randn(512, 512).half(), torch.randn(512, 512).half()
    m.launch_gemm_kernel(0, (16,), (a, b, torch.empty(512, 512).half(), 128, 128, 64, 8))
def gemm_f32_as_tf32(m):
    a, b = torch.randn(512, 512), torch.randn(512, 512)
    m.launch_gemm_kernel(0, (16,), (a, b, torch.empty(512, 512), 128, 128, 32, 8))
def gemm_fp8(m):  # precise fp8 accumulation (use_fast_acc=False) keeps wgmma
    a, b = torch.randn(512, 512).to(torch.float8_e4m3fn), torch.randn(512, 512).to(torch.float8_e4m3fn)
    m.launch_gemm_kernel(0, (16,), (a, b, torch.empty(512, 512).half(), 128, 128, 64, 8))
def attention_f16(m):
    q = torch.randn(4, 512, 64).half()
    m.launch_attention_fwd_kernel(0, (8, 4, 1), (q, q, q, torch.empty_like(q), 0.125, 64, 64, 64))
def bmm_f16(m):  # (1, TM, TK) x (1, TK, TN) tiles: a 2-D product, so wgmma (a 3-D tl.dot is mma.sync)
    a, b = torch.randn(4, 256, 256).half(), torch.randn(4, 256, 256).half()
    m.launch_bmm_kernel(0, (4, 4, 4), (a, b, torch.empty(4, 256, 256).half(), 64, 64, 32, False))
def grouped_f16(m):  # a list of problems of different sizes: each item's tiles through its own descriptors
    As = [torch.randn(256, 512).half(), torch.randn(384, 512).half()]
    Bs = [torch.randn(512, 256).half(), torch.randn(512, 128).half()]
    Cs = [torch.empty(256, 256).half(), torch.empty(384, 128).half()]
    m.launch_grouped_gemm_kernel(0, (4,), (As, Bs, Cs, 128, 128, 64, 4))
def moe_up_f16(m):  # gathered token rows times an expert's gate and up weights, read transposed by order=
    x, w = torch.randn(256, 512).half(), torch.randn(8, 1024, 512).half()
    ids, experts = torch.arange(512, dtype=torch.int32), torch.arange(8, dtype=torch.int32)
    h = torch.empty(512, 1024).half()
    m.launch_expert_gemm_kernel(0, (64,), (x, w, w, h, ids, experts, torch.rand(512), 2, True, False,
                                           64, 128, 64, 8))
CALLS = {"gemm": [gemm_f16, gemm_f32_as_tf32, gemm_fp8], "attention_fwd": [attention_f16], "bmm": [bmm_f16],
         "grouped_gemm": [grouped_f16], "moe": [moe_up_f16]}
"""


def test_matrix_products_use_wgmma_and_tma(tmp_path):
    """ct.mma at 128x128x64 float16 (and float32 as tfloat32, fp8, attention's two products and
    a batched product of one batch per tile, a mixture-of-experts product of gathered rows)
    compiles for sm_90 to wgmma fed by TMA loads, within the H200's shared memory."""
    mods = tmp_path / "mods"
    mods.mkdir()
    for name in ("gemm", "attention_fwd", "bmm", "grouped_gemm", "moe"):
        _convert(REPO / "corpus" / "cutile" / f"{name}.py", mods / f"{name}.py")
    out = tmp_path / "results.json"
    proc = _check_folder(mods, MATRIX_CALLS, tmp_path, "--targets", "90", "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads(out.read_text())
    staging = [r for r in results if r["kernel"] == "_tf32_stage_kernel"]  # B's staged copy (below)
    results = [r for r in results if r["kernel"] != "_tf32_stage_kernel"]
    assert len(staging) == 1 and not staging[0]["problems"] and len(results) == 7
    for r in results:
        assert r["tma_launch"] and r["ptx_wgmma"] > 0 and r["ptx_tma_loads"] > 0, r
        assert r["shared"] <= 232448 and not r["problems"], r
    # float32 as tfloat32: B staged (rounded, K-major) at launch, so its tiles go from TMA to the
    # product and the wgmma are pipelined (with B rounded in registers Triton waits on each one)
    (tf32,) = [r for r in results if r["constexprs"].get("B_tf32_staged") == "True"]
    assert max(tf32["ptx_wgmma_waits"]) > 0, tf32


BMM_T_CALLS = """
import torch
def transposed(m):
    at, bt = torch.randn(2, 256, 128).half(), torch.randn(2, 192, 256).half()
    m.launch_bmm_t_kernel(0, (2, 3, 2), (at, bt, torch.empty(2, 128, 192).half(), 64, 64, 32))
def ordered(m):
    at, bt = torch.randn(2, 256, 128).half(), torch.randn(2, 192, 256).half()
    m.launch_bmm_order_kernel(0, (2, 3, 2), (at, bt, torch.empty(2, 128, 192).half(), 64, 64, 32))
CALLS = {"bmm_transposed": [transposed, ordered]}
"""


def test_transposed_operands_of_a_batched_product_stay_in_shared_memory(tmp_path):
    """ct.permute(tile, (0, 2, 1)) of (1, TK, TM) and (1, TN, TK) tiles feeding ct.mma, and the
    same transposes asked of the loads (order=(0, 2, 1), as attention kernels load keys): each
    operand goes from TMA to wgmma transposed in shared memory, no tile read back into registers
    (tl.permute of the 3-D tile cost a shared -> registers -> shared trip per step of K; TileGym's
    batched GEMM with a transposed operand ran at 0.65x cuTile's speed on the H200); the
    interpreter computes at.T @ bt.T."""
    results = _compile_case(tmp_path, "bmm_transposed", BMM_T_CALLS)
    assert {r["kernel"] for r in results} == {"bmm_t_kernel", "bmm_order_kernel"}
    for r in results:
        assert r["tma_launch"] and r["ptx_wgmma"] > 0 and r["ptx_tma_loads"] > 0 and not r["problems"], r
        assert r["ttgir_local_loads"] == 0, r
    ok, log = _run_interpreted(tmp_path / "mods" / "bmm_transposed.py", (
        "torch.manual_seed(0)\n"
        "at, bt = torch.randn(2, 96, 80), torch.randn(2, 72, 96)\n"
        "c = torch.empty(2, 80, 72)\n"
        "m.launch_bmm_t_kernel(0, (3, 3, 2), (at, bt, c, 32, 32, 16))\n"
        "ref = at.transpose(1, 2) @ bt.transpose(1, 2)\n"
        "assert torch.allclose(c, ref, atol=1e-4, rtol=1e-4), (c - ref).abs().max()\n"
        "c = torch.empty(2, 80, 72)\n"
        "m.launch_bmm_order_kernel(0, (3, 3, 2), (at, bt, c, 32, 32, 16))\n"
        "assert torch.allclose(c, ref, atol=1e-4, rtol=1e-4), (c - ref).abs().max()\n"))
    assert ok, log


ROW_LOOP_CALLS = """
import torch
def wide_rows(m):  # 512-wide tiles over 16-byte-aligned rows: descriptors (copied in several TMA boxes)
    x = torch.randn(1024, 512).half()
    m.launch_row_sums(0, (132,), (x, torch.empty(1024), 16, 512))
def unaligned_rows(m):  # float32 rows of 2056 bytes: no descriptor can address them, the pointer path
    x = torch.randn(1024, 514)[:, :512]
    m.launch_row_sums(0, (132,), (x, torch.empty(1024), 16, 512))
CALLS = {"row_loop": [wide_rows, unaligned_rows]}
"""


def test_a_loop_over_row_tiles_prefetches_its_loads(tmp_path):
    """The persistent row loop becomes tl.range(..., num_stages=_loop_stages): at the first
    candidate's 3 stages its loads are prefetched within the H200's shared memory: through a
    descriptor (cp.async.bulk.tensor; a 16 x 512 tile is wider than one TMA box, 256
    elements, and Triton copies it in several) where the rows allow one, else as pointer
    loads compiled to cp.async copies into shared memory (they were plain ld.global with the
    kernel's num_stages alone)."""
    tma, pointers = _compile_case(tmp_path, "row_loop", ROW_LOOP_CALLS)
    for r in (tma, pointers):
        assert r["constexprs"]["_loop_stages"] == "3", r
        assert r["shared"] <= 232448 and not r["problems"], r
    assert tma["tma_launch"] and tma["ptx_tma_loads"] > 0, tma
    assert not pointers["tma_launch"] and pointers["ptx_cp_async"] > 0, pointers


FP8_CALLS = """
import torch
def pointers(m):  # a row stride of 200 bytes: not TMA-aligned, the pointer path
    x = torch.randn(100, 200).to(torch.float8_e4m3fn)
    m.launch_fp8_dequant_kernel(0, (2, 4), (x, torch.rand(2, 4), torch.empty(100, 200).bfloat16(), 64))
CALLS = {"fp8_dequant": [pointers]}
"""


def test_fp8_tiles_with_zero_padding_compile(tmp_path):
    """padding_value=0 and PaddingMode.ZERO on fp8 arrays reach tl.load as 0.0 (an int constant
    does not cast to fp8 in Triton: TileGym's unsloth fp8 dequant failed to compile), and the
    interpreter reads the same values as torch."""
    (tmp_path / "mods").mkdir()
    _convert(HERE / "cases" / "fp8_dequant.py", tmp_path / "mods" / "fp8_dequant.py")
    text = (tmp_path / "mods" / "fp8_dequant.py").read_text()
    assert "other=0.0" in text and "other=0," not in text
    proc = _check_folder(tmp_path / "mods", FP8_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 failed" in proc.stdout
    same, output = _run_interpreted(tmp_path / "mods" / "fp8_dequant.py",
                                    "x = torch.randn(100, 200).to(torch.float8_e4m3fn)\n"
                                    "s = torch.rand(2, 4)\n"
                                    "y = torch.empty(100, 200).bfloat16()\n"
                                    "m.launch_fp8_dequant_kernel(0, (2, 4), (x, s, y, 64))\n"
                                    "ref = (2 * x.float() * s.repeat_interleave(64, 0).repeat_interleave(64, 1)[:100, :200])\n"
                                    "assert torch.allclose(y.float(), ref, rtol=1e-2, atol=1e-2), (y, ref)\n")
    assert same, output


TILE_FN_DOT_CALLS = """
import torch
def gemm(m):
    a, b, c = torch.randn(256, 256).half(), torch.randn(256, 256).half(), torch.empty(256, 256).half()
    m.launch_tile_fn_gemm(0, (2, 2, 1), (a, b, c, 128, 128, 64))
def attention(m):
    q, k, v = (torch.randn(2, 4, 256, 64).half() for _ in range(3))
    m.launch_attention_kernel(0, (2, 8, 1), (q, k, v, torch.empty_like(q), 4, 128, 64, 64))
CALLS = {"tile_fn_dot": [gemm, attention]}
"""


def test_descriptors_in_a_tile_function_become_tma_for_wgmma(tmp_path):
    """Loads and stores in a tile function (as attention kernels keep their main loop) take
    descriptors given the kernel's flags: for sm_90 the products in its loop (a GEMM; an
    attention over 4-D arrays, keys transposed) are wgmma fed by
    cp.async.bulk.tensor loads, within the H200's shared memory; the interpreter computes
    both as torch does."""
    (tmp_path / "mods").mkdir()
    module = tmp_path / "mods" / "tile_fn_dot.py"
    _convert(HERE / "cases" / "tile_fn_dot.py", module)
    out = tmp_path / "results.json"
    proc = _check_folder(tmp_path / "mods", TILE_FN_DOT_CALLS, tmp_path, "--targets", "90", "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads(out.read_text())
    assert len(results) == 2  # the GEMM and the attention kernel
    for r in results:
        assert r["tma_launch"] and r["ptx_wgmma"] > 0 and r["ptx_tma_loads"] > 0, r
        assert r["shared"] <= 232448 and not r["problems"], r
    same, output = _run_interpreted(module, (
        "a, b, c = torch.randn(70, 96), torch.randn(96, 40), torch.empty(70, 40)\n"
        "m.launch_tile_fn_gemm(0, (3, 3, 1), (a, b, c, 32, 16, 32))\n"
        "assert torch.allclose(c, a @ b, atol=1e-3, rtol=1e-3), (c - a @ b).abs().max()\n"
        "q, k, v = (torch.randn(1, 2, 32, 16) for _ in range(3))\n"
        "o = torch.empty_like(q)\n"
        "m.launch_attention_kernel(0, (2, 2, 1), (q, k, v, o, 2, 16, 16, 16))\n"
        "ref = torch.softmax(q @ k.transpose(-1, -2), -1) @ v\n"
        "assert torch.allclose(o, ref, atol=1e-3, rtol=1e-3), (o - ref).abs().max()\n"))
    assert same, output


CONVERSION_CALLS = """
import torch
def f16(m):
    m.launch_k(0, (3,), (torch.randn(37).half(), torch.zeros(37).half(), 16, 2.75, 3))
CALLS = {"constexpr_conversions": [f16]}
"""


def test_python_conversions_of_constant_parameters_compile_for_sm90(tmp_path):
    """float(TILE), int(SCALE) and bool(FLIP) of Constant parameters: Triton's compiler applies
    int() and float() to constexprs (bool() is no builtin of Triton's: `FLIP != 0`)."""
    (tmp_path / "mods").mkdir()
    _convert(HERE / "cases" / "constexpr_conversions.py", tmp_path / "mods" / "constexpr_conversions.py")
    text = (tmp_path / "mods" / "constexpr_conversions.py").read_text()
    assert "float(TILE)" in text and "int(SCALE)" in text and "FLIP != 0" in text
    proc = _check_folder(tmp_path / "mods", CONVERSION_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 failed" in proc.stdout


DIVISION_CALLS = """
import torch
def rn(m):
    m.launch_k(0, (2,), (torch.randn(32), torch.rand(32) + 1, torch.empty(32), 16, 0))
def full(m):
    m.launch_k(0, (2,), (torch.randn(32), torch.rand(32) + 1, torch.empty(32), 16, 1))
CALLS = {"division_modes": [rn, full]}
"""


def test_full_division_compiles_to_div_full_and_rn_to_div_rn(tmp_path):
    """RoundingMode.FULL is the full-range division (div.full.f32), as in cuTile; the default
    RN the IEEE one (div.rn.f32)."""
    (tmp_path / "mods").mkdir()
    _convert(HERE / "cases" / "division_modes.py", tmp_path / "mods" / "division_modes.py")
    out = tmp_path / "results.json"
    proc = _check_folder(tmp_path / "mods", DIVISION_CALLS, tmp_path, "--targets", "90", "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    by_mode = {r["constexprs"]["MODE"]: r["ptx_div_f32"] for r in json.loads(out.read_text())}
    assert by_mode["0"]["rn"] > 0 and by_mode["0"]["full"] == 0, by_mode
    assert by_mode["1"]["full"] > 0 and by_mode["1"]["rn"] == 0, by_mode


SUBNORMAL_CALLS = """
import torch
def f32(m):
    m.launch_k(0, (2,), (torch.rand(32) + 0.5, torch.empty(32), 16))
CALLS = {"subnormal_math": [f32]}
"""


def test_math_functions_keep_subnormals_as_cutile_does(tmp_path):
    """Triton's default flushes float32 subnormals in its math functions (sin.approx.ftz,
    cvt.rpi.ftz, rsqrt.approx.ftz, ex2.approx.ftz: libdevice and Triton's lowering read
    __CUDA_FTZ); cuTile keeps them unless flush_to_zero=True (measured on the H200: sin(1e-39)
    and exp2(-144.7) were 0 converted, 1e-39 and 2.8e-44 with cuTile). Every launch compiles
    with enable_reflect_ftz=False: no .ftz form in the PTX."""
    (tmp_path / "mods").mkdir()
    _convert(HERE / "cases" / "subnormal_math.py", tmp_path / "mods" / "subnormal_math.py")
    out = tmp_path / "results.json"
    proc = _check_folder(tmp_path / "mods", SUBNORMAL_CALLS, tmp_path, "--targets", "90", "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads(out.read_text())
    assert results and all(r["ptx_ftz_f32"] == 0 for r in results), results
    assert all(r["enable_reflect_ftz"] is False for r in results), results


EXP2_FLUSHED_CALLS = """
import torch
def f32(m):
    m.launch_k(0, (2,), (torch.randn(32), torch.empty(32), 16))
CALLS = {"exp2_flushed": [f32]}
"""


def test_exp2_with_flush_to_zero_is_the_ftz_instruction(tmp_path):
    """exp2(flush_to_zero=True) is PTX's ex2.approx.ftz.f32 (one instruction, as cuTile's:
    TileGym's attention kernels take it in their inner loops), the plain exp2 beside it the
    form that keeps subnormals: one .ftz instruction in the PTX."""
    (tmp_path / "mods").mkdir()
    _convert(HERE / "cases" / "exp2_flushed.py", tmp_path / "mods" / "exp2_flushed.py")
    text = (tmp_path / "mods" / "exp2_flushed.py").read_text()
    assert "ct_exp2_ftz(a) + ct_exp2(a)" in text
    out = tmp_path / "results.json"
    proc = _check_folder(tmp_path / "mods", EXP2_FLUSHED_CALLS, tmp_path, "--targets", "90", "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (result,) = json.loads(out.read_text())
    assert result["ptx_ftz_f32"] == 1 and not result["problems"], result


MXFP8_CALLS = """
import torch
def bits(m):  # uint8 arrays of the fp8 bits and of the e8m0 scale bytes
    a = torch.randint(0, 120, (512, 512), dtype=torch.uint8)
    s = torch.randint(120, 130, (512, 16), dtype=torch.uint8)
    m.launch_mxfp8_gemm_kernel(0, (4, 4, 1), (a, s, a, s.T.contiguous(), torch.empty(512, 512), 128, 128, 128))
def typed(m):  # arrays of torch.float8_e4m3fn and torch.float8_e8m0fnu (a uint8 view in the kernel)
    a = torch.randn(512, 512).to(torch.float8_e4m3fn)
    s = torch.full((512, 16), 2.0).to(torch.float8_e8m0fnu)
    m.launch_mxfp8_gemm_kernel(0, (4, 4, 1), (a, s, a, s.T.contiguous(), torch.empty(512, 512), 128, 128, 128))
CALLS = {"mxfp8_gemm": [bits, typed]}
"""
MXFP8_RUN = """
a = torch.randint(0, 256, (64, 128), dtype=torch.uint8)
a[(a & 0x7F) == 0x7F] = 0  # no NaN codes
b = torch.randn(128, 64).to(torch.float8_e4m3fn)
sa = torch.randint(118, 136, (64, 4), dtype=torch.uint8)
sb = torch.randint(118, 136, (4, 64), dtype=torch.uint8).view(torch.float8_e8m0fnu)
c = torch.zeros(64, 64)
m.launch_mxfp8_gemm_kernel(0, (2, 2, 1), (a, sa, b, sb, c, 32, 32, 64))
x = a.view(torch.float8_e4m3fn).double() * 2.0 ** (sa.double() - 127).repeat_interleave(32, 1)
y = b.double() * 2.0 ** (sb.view(torch.uint8).double() - 127).repeat_interleave(32, 0)
bound = 2.0 ** -18 * (x.abs() @ y.abs())  # float32 sums of exact products
assert ((c.double() - x @ y).abs() <= bound).all(), (c.double() - x @ y).abs().max()
"""


def test_block_scaled_gemm_compiles_for_hopper_and_blackwell_and_runs(tmp_path):
    """ct.mma_scaled, Blackwell-only in cuTile, becomes ct_mma_scaled (operands scaled, then
    tl.dot) that compiles for sm_90 (to wgmma) and sm_100 at 128x128x128 tiles, within the
    H200's shared memory, for arrays of uint8 bits and of the fp8/e8m0 dtypes; under the
    interpreter it computes the dequantized product."""
    (tmp_path / "mods").mkdir()
    module = tmp_path / "mods" / "mxfp8_gemm.py"
    _convert(HERE / "cases" / "mxfp8_gemm.py", module)
    assert "ct_mma_scaled(a, a_scale, b, b_scale, acc, fp4=False)" in module.read_text()
    out = tmp_path / "results.json"
    proc = _check_folder(tmp_path / "mods", MXFP8_CALLS, tmp_path, "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads(out.read_text())
    assert sorted(r["target"] for r in results) == ["sm_100", "sm_100", "sm_90", "sm_90"], results
    for r in results:
        assert not r["problems"] and r["shared"] <= 232448, r
        assert r["target"] != "sm_90" or r["ptx_wgmma"] > 0, r
    same, output = _run_interpreted(module, MXFP8_RUN)
    assert same, output


RANK_CALLS = """
import torch
def ranks(m):
    for a, mode in ((torch.randn(8), 0), (torch.randn(2, 8), 0), (torch.randn(2, 8), 1)):
        m.launch_rank_conditions_kernel(0, (1,), (a, torch.zeros(16), 8, mode))
CALLS = {"rank_conditions": [ranks]}
"""


def test_rank_conditions_joined_with_constexprs_compile_per_launch(tmp_path):
    """`if A.ndim == 1 and MODE == 0:` is decided when Triton compiles (an and of constexprs is
    one): the 1-D launch does not compile the 2-D branches, and the 2-D launches run them."""
    (tmp_path / "mods").mkdir()
    module = tmp_path / "mods" / "rank_conditions.py"
    _convert(HERE / "cases" / "rank_conditions.py", module)
    proc = _check_folder(tmp_path / "mods", RANK_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 launches, 6 compiles, 0 failed" in proc.stdout, proc.stdout
    same, output = _run_interpreted(module,
                                    "a = torch.randn(2, 8)\n"
                                    "c = torch.zeros(16)\n"
                                    "m.launch_rank_conditions_kernel(0, (1,), (a, c, 8, 0))\n"
                                    "torch.testing.assert_close(c, torch.cat([a[0] + 2, a[1] * 3]))\n")
    assert same, output


CHOICE_CALLS = """
import torch
def choices(m):
    m.launch_run_time_choices_kernel(0, (1,), (torch.randn(2, 16), torch.zeros(1, 16), torch.tensor([1.0]), 16))
CALLS = {"run_time_choices": [choices]}
"""


def test_values_chosen_at_run_time_compile_and_run(tmp_path):
    """A tuple chosen by a run-time condition becomes a tuple of scalar choices (Triton 3.6
    compiles no tuple-valued conditional on a run-time value); both choices run."""
    (tmp_path / "mods").mkdir()
    module = tmp_path / "mods" / "run_time_choices.py"
    _convert(HERE / "cases" / "run_time_choices.py", module)
    proc = _check_folder(tmp_path / "mods", CHOICE_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 launches, 2 compiles, 0 failed" in proc.stdout, proc.stdout
    same, output = _run_interpreted(module,
                                    "a = torch.randn(2, 16)\n"
                                    "for sign, row, added in ((1.0, 0, 1.0), (-1.0, 1, 0.0)):\n"
                                    "    b = torch.zeros(1, 16)\n"
                                    "    m.launch_run_time_choices_kernel(0, (1,), (a, b, torch.tensor([sign]), 16))\n"
                                    "    torch.testing.assert_close(b[0], a[row] + added)\n")
    assert same, output


CONSTEXPR_CALLS = """
import torch
def cats(m):
    for axis in (0, 1, -1):
        m.launch_cat_kernel(0, (1,), (torch.randn(2, 4), torch.zeros(16), axis))
def sizes(m):
    for flag in (0, 1):
        m.launch_sized_kernel(0, (2,), (torch.randn(64), torch.zeros(64), flag, 16, 32))
def chosen(m):
    for mode in (0, 1, 2):
        m.launch_chosen_kernel(0, (1,), (torch.randn(64), torch.zeros(64), mode, 16, 32))
def tuples(m):
    for trans in (True, False):
        m.launch_tuple_shape_kernel(0, (1,), (torch.randn(64, 64), torch.zeros(64, 64), 16, 8, trans))
def arguments(m):
    m.launch_tuple_argument_kernel(0, (4,), (torch.randn(64, 8), torch.zeros(64, 8), 16, 8))
def minmax(m):
    m.launch_minmax_kernel(0, (4,), (torch.randn(64), torch.zeros(64), 16, 8))
def unpacked(m):
    m.launch_unpack_kernel(0, (2,), (torch.randn(2, 8, 4), torch.zeros(16, 4), 8, 4))
CALLS = {"constexpr_choices": [cats, sizes, chosen, tuples, arguments, minmax, unpacked]}
"""


def test_choices_of_constexprs_compile_for_sm90_and_run(tmp_path):
    """ct.cat along a ct.Constant axis (ct_cat_2d picks the axis's helper when Triton
    compiles), a tile whose size a constexpr chooses (neither name's size after the
    choice), a size an if/elif/else on a constexpr assigns (a constexpr local in each
    branch), tile shapes kept in local tuples (constexpr locals, read item by item) and
    passed to a tile function (a constexpr parameter), sizes computed with min()/max() and
    unpacked from a tile's shape beside `_`: each launch compiles and gives what cuTile
    gives."""
    (tmp_path / "mods").mkdir()
    module = tmp_path / "mods" / "constexpr_choices.py"
    _convert(HERE / "cases" / "constexpr_choices.py", module)
    proc = _check_folder(tmp_path / "mods", CONSTEXPR_CALLS, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "13 launches, 26 compiles, 0 failed" in proc.stdout, proc.stdout
    same, output = _run_interpreted(module,
                                    "x = torch.randn(2, 4)\n"
                                    "for axis in (0, 1, -1, -2):\n"
                                    "    out = torch.zeros(16)\n"
                                    "    m.launch_cat_kernel(0, (1,), (x, out, axis))\n"
                                    "    torch.testing.assert_close(out, torch.cat((x, x * 10), axis).reshape(16))\n"
                                    "v = torch.randn(64)\n"
                                    "for flag, tiles in ((1, 4), (0, 2)):\n"
                                    "    y = torch.zeros(64)\n"
                                    "    m.launch_sized_kernel(0, (tiles,), (v, y, flag, 16, 32))\n"
                                    "    torch.testing.assert_close(y, v + 3.0)\n"
                                    "for mode, tiles in ((0, 4), (1, 2), (2, 1)):\n"
                                    "    y = torch.zeros(64)\n"
                                    "    m.launch_chosen_kernel(0, (tiles,), (v, y, mode, 16, 32))\n"
                                    "    torch.testing.assert_close(y, v + 1.0)\n"
                                    "x = torch.randn(64, 64)\n"
                                    "for trans, (r, c) in ((True, (16, 8)), (False, (8, 16))):\n"
                                    "    y = torch.zeros(64, 64)\n"
                                    "    m.launch_tuple_shape_kernel(0, (1,), (x, y, 16, 8, trans))\n"
                                    "    want = sum(x[i * r:(i + 1) * r, :c] for i in range(4))\n"
                                    "    torch.testing.assert_close(y[:r, :c], want)\n"
                                    "x = torch.randn(64, 8)\n"
                                    "y = torch.zeros(64, 8)\n"
                                    "m.launch_tuple_argument_kernel(0, (4,), (x, y, 16, 8))\n"
                                    "torch.testing.assert_close(y, 2 * x)\n"
                                    "v = torch.randn(64)\n"
                                    "y = torch.zeros(64)\n"
                                    "m.launch_minmax_kernel(0, (4,), (v, y, 16, 8))\n"
                                    "torch.testing.assert_close(y, v)\n"
                                    "x = torch.randn(2, 8, 4)\n"
                                    "y = torch.zeros(16, 4)\n"
                                    "m.launch_unpack_kernel(0, (2,), (x, y, 8, 4))\n"
                                    "torch.testing.assert_close(y, x.reshape(16, 4))\n")
    assert same, output


BOOL_MASK_CALLS = """
import torch
def store(m):
    x = torch.randn(64, 128)
    m.launch_bool_mask_store_kernel(0, (2,), (x, torch.empty(64, 128, dtype=torch.bool), 32, 128))
CALLS = {"bool_mask_store": [store]}
"""


def test_a_bool_tile_store_through_pointers_is_not_a_missed_descriptor(tmp_path):
    """The checker asks a descriptor of every 2-D tile a TMA launch could give one, except of bool
    arrays, which Triton gives none: the float load is a TMA load, the bool store a plain one."""
    results = _compile_case(tmp_path, "bool_mask_store", BOOL_MASK_CALLS)
    assert len(results) == 1 and results[0]["tma_launch"] and results[0]["problems"] == [], results
    r = results[0]
    assert r["descriptor_loads"] == 1 and r["ptx_tma_loads"] >= 1, r
    assert r["descriptor_stores"] == 0 and r["pointer_tiles"] == 1, r


NARROW_CALLS = """
import torch
def launch(m):
    a, b = torch.randn(128, 64).half(), torch.randn(64, 128).half()
    s, c = torch.randn(2, 128, 8).half(), torch.empty(128, 128).half()
    m.launch_narrow_column_kernel(0, (2, 2), (a, b, s, c, 64, 64, 32))
def every_descriptor(m):  # a launcher that made a descriptor of each array whose flag is set
    from triton.tools.tensor_descriptor import TensorDescriptor
    def made(tensor, block_shape, padding="zero"):
        d = TensorDescriptor.__new__(TensorDescriptor)
        d.base, d.shape, d.strides, d.block_shape, d.padding = tensor, tensor.shape, tensor.stride(), block_shape, padding
        return d
    m._host_descriptor = made
    launch(m)
CALLS = {"narrow_column": [%s]}
"""


def test_a_host_descriptor_the_driver_refuses_is_found(tmp_path):
    """Triton encodes a host-made descriptor at every launch, so a box the driver refuses (the
    last dimension under 16 bytes: TileGym's chunk_gated_delta_rule on an H100, 'Failed to
    create tensor map descriptor') fails only on a GPU. compile_check reads the compiled
    kernel's descriptor boxes and reports it; the converter's launcher gives None for it."""
    (tmp_path / "mods").mkdir()
    _convert(HERE / "cases" / "narrow_column.py", tmp_path / "mods" / "narrow_column.py")
    proc = _check_folder(tmp_path / "mods", NARROW_CALLS % "launch", tmp_path, "--targets", "90")
    assert proc.returncode == 0 and "1 compiles, 0 failed" in proc.stdout, proc.stdout + proc.stderr
    proc = _check_folder(tmp_path / "mods", NARROW_CALLS % "every_descriptor", tmp_path, "--targets", "90")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "descriptor s_desc_3: a box [1, 64, 1] of 2-byte elements" in proc.stdout
    same, output = _run_interpreted(tmp_path / "mods" / "narrow_column.py",
                                    "a, b = torch.randn(128, 64).half(), torch.randn(64, 128).half()\n"
                                    "s, c = torch.randn(2, 128, 8).half(), torch.empty(128, 128).half()\n"
                                    "m.launch_narrow_column_kernel(0, (2, 2), (a, b, s, c, 64, 64, 32))\n"
                                    "want = (a.float() @ b.float()) * s[0, :, 1:2].float()\n"
                                    "torch.testing.assert_close(c.float(), want, rtol=1e-2, atol=1e-2)\n")
    assert same, output


LATENT_CALLS = """
import torch
def one_array(m):  # the latent cache as both K and V: V's tile taken from K's
    q, kv = torch.randn(1, 256, 16).half(), torch.randn(1, 512, 256).half()
    m.launch_latent_decode_kernel(0, (1, 1, 1), (q, kv, kv, torch.empty(1, 256, 16), 64, 256, 16, 512))
def two_arrays(m):
    q, k, v = torch.randn(1, 256, 16).half(), torch.randn(1, 512, 256).half(), torch.randn(1, 512, 256).half()
    m.launch_latent_decode_kernel(0, (1, 1, 1), (q, k, v, torch.empty(1, 256, 16), 64, 256, 16, 512))
CALLS = {"latent_decode": [one_array, two_arrays]}
"""


def test_a_tile_taken_from_another_load_is_read_once_by_tma_for_both_products(tmp_path, monkeypatch):
    """MLA decoding's pattern (one array as K and V, its rows loaded as both): with one array
    the converted kernel copies each step's 64 x 256 tile once by TMA (two copies with two
    arrays) and both products read it from shared memory (wgmma, and ldmatrix for the
    transposed product; not the register round trip Triton makes of a tile two products read
    in two orientations); the interpreter computes the same as with two arrays."""
    asm = tmp_path / "asm"
    asm.mkdir()
    monkeypatch.setenv("C2T_DUMP_ASM", str(asm))
    results = _compile_case(tmp_path, "latent_decode", LATENT_CALLS)
    one, two = sorted(results, key=lambda r: r["constexprs"]["V_is_K"] != "True")
    assert one["constexprs"]["V_is_K"] == "True" and two["constexprs"]["V_is_K"] == "False"
    for r in (one, two):
        assert r["tma_launch"] and r["ptx_wgmma"] > 0 and not r["problems"], r
    assert one["descriptor_loads"] == 2 and two["descriptor_loads"] == 3, (one, two)
    for ttgir in asm.glob("*.ttgir"):  # no tile read back from shared memory into plain registers
        assert not re.search(r"ttg\.local_load .* -> tensor<[^>]*#(linear|blocked)", ttgir.read_text()), ttgir.name
    ok, log = _run_interpreted(tmp_path / "mods" / "latent_decode.py", (
        "torch.manual_seed(0)\n"
        "q, kv = torch.randn(2, 32, 16).half(), torch.randn(2, 64, 32).half()\n"
        "one, two = torch.zeros(2, 32, 16), torch.zeros(2, 32, 16)\n"
        "m.launch_latent_decode_kernel(0, (2, 1, 1), (q, kv, kv, one, 16, 32, 16, 64))\n"
        "m.launch_latent_decode_kernel(0, (2, 1, 1), (q, kv, kv.clone(), two, 16, 32, 16, 64))\n"
        "assert torch.allclose(one, two, atol=1e-3, rtol=1e-4), (one - two).abs().max()\n"))
    assert ok, log


FP8_ATTENTION_CALLS = """
import torch
def launch(m, staged):
    if not staged:
        m._kmajor_stage = lambda array, *others: array
    q, k, v = (torch.randn(2, 1024, 128).to(torch.float8_e5m2) for _ in range(3))
    m.launch_attention(0, (8, 2, 1), (q, k, v, torch.empty(2, 1024, 128), 128, 64, 128, 1024))
CALLS = {"fp8_attention": [lambda m: launch(m, True), lambda m: launch(m, False)]}
"""


def _k_major_trips(tmp_path, monkeypatch, case, calls):
    """Compile `case`'s attention kernel staged and unstaged for sm_90: per TTGIR file, whether
    V's float8 tile is read from shared memory back into plain registers (the transpose trip)."""
    asm = tmp_path / "asm"
    asm.mkdir()
    monkeypatch.setenv("C2T_DUMP_ASM", str(asm))
    results = _compile_case(tmp_path, case, calls)
    kernels = {r["constexprs"]["V_kmajor_staged"]: r for r in results if r["kernel"] == "attention"}
    assert set(kernels) == {"True", "False"}, results
    for r in kernels.values():
        assert r["tma_launch"] and r["ptx_wgmma"] > 0 and not r["problems"], r
    return {ttgir.name: bool(re.search(r"ttg\.local_load .* -> tensor<64x128xf8E5M2, #blocked", ttgir.read_text()))
            for ttgir in asm.glob(f"{case}.attention.*.ttgir")}


def test_a_float8_right_hand_operand_is_read_from_the_k_major_copy(tmp_path, monkeypatch):
    """p @ v in float8 with V stored N-major: float8 wgmma reads its right-hand operand K-major
    only, so from V itself Triton reads each tile into registers and back transposed; from the
    launcher's K-major copy (staged) the tile goes from TMA to wgmma with no such trip."""
    trips = _k_major_trips(tmp_path, monkeypatch, "fp8_attention", FP8_ATTENTION_CALLS)
    assert sorted(trips.values()) == [False, True], trips  # the unstaged kernel's V tile, only


FP8_GEMM_CALLS = """
import torch
def launch(m, trans_b, staged=True):
    if not staged:
        m._kmajor_stage = lambda array, *others: array
    a = torch.randn(1024, 512).to(torch.float8_e4m3fn)
    b = torch.randn(512, 1024).to(torch.float8_e4m3fn)
    m.launch_gemm(0, (8, 8, 1), (a, b.T.contiguous() if trans_b else b, torch.empty(1024, 1024), 128, 128, 64,
                                 trans_b, 0))
CALLS = {"fp8_gemm_branches": [lambda m: launch(m, False), lambda m: launch(m, False, False),
                               lambda m: launch(m, True)]}
"""


def test_a_float8_operand_bound_in_a_launch_time_branch_is_read_from_the_copy(tmp_path, monkeypatch):
    """B's (K, N) tiles, bound in one branch of an `if` on a constexpr, reach the product after
    it: read from the K-major copy where the launch takes that branch (no trip through
    registers), as loaded where it does not (K-major already), where no copy is made."""
    asm = tmp_path / "asm"
    asm.mkdir()
    monkeypatch.setenv("C2T_DUMP_ASM", str(asm))
    results = _compile_case(tmp_path, "fp8_gemm_branches", FP8_GEMM_CALLS)
    kernels = {(r["constexprs"]["TRANS_B"], r["constexprs"]["B_kmajor_staged"]): r
               for r in results if r["kernel"] == "gemm"}
    assert set(kernels) == {("False", "True"), ("False", "False"), ("True", "False")}, results
    for r in kernels.values():
        assert r["tma_launch"] and r["ptx_wgmma"] > 0 and not r["problems"], r
    trips = []
    for ttgir in asm.glob("fp8_gemm_branches.gemm.*.ttgir"):
        trips.append(bool(re.search(r"ttg\.local_load .* -> tensor<64x128xf8E4M3FN, #blocked", ttgir.read_text())))
    assert sorted(trips) == [False, False, True], trips  # the unstaged kernel's N-major B tile, only


FP8_ATTENTION_FUNCTION_CALLS = FP8_ATTENTION_CALLS.replace('CALLS = {"fp8_attention"', 'CALLS = {"fp8_attention_function"')


def test_a_tile_function_reads_the_k_major_copy_its_kernel_gives(tmp_path, monkeypatch):
    """The same product in a tile function the kernel calls: staged, V's tile goes from TMA to
    wgmma in the function as in the kernel; unstaged it is read back into registers."""
    trips = _k_major_trips(tmp_path, monkeypatch, "fp8_attention_function", FP8_ATTENTION_FUNCTION_CALLS)
    assert sorted(trips.values()) == [False, True], trips


RANK_SEVEN_CALLS = """
import torch
def launch(m):
    E, X, N = 4, 16, 3
    m.launch_rank_seven_kernel(0, (N,), (torch.randn(E, N, 2, 1, 1, X, X), torch.empty(E, N, 2, 1, X, X),
                                          torch.randn(E, N, 2, 1, 1, X), torch.zeros(E, 1, 1, 1, 1, X),
                                          torch.empty(E, N, 2 * X, X), E, X))
CALLS = {"rank_seven_tiles": [launch]}
"""


def test_tiles_of_more_than_five_dimensions(tmp_path):
    """A 7-D load and 6-D store, gather, scatter and atomic add compile for sm_90 through pointers
    (a descriptor has at most five dimensions; the 4-D store keeps one) and compute under the
    interpreter what torch does."""
    results = _compile_case(tmp_path, "rank_seven_tiles", RANK_SEVEN_CALLS)
    assert len(results) == 1 and results[0]["problems"] == [], results
    text = (tmp_path / "mods" / "rank_seven_tiles.py").read_text()
    assert text.count("tl.make_tensor_descriptor(") == 1 and "ct_load_7d(" in text, text
    same, output = _run_interpreted(tmp_path / "mods" / "rank_seven_tiles.py", """
E, X, N = 4, 8, 3
A, B = torch.randn(E, N, 2, 1, 1, X, X), torch.zeros(E, N, 2, 1, X, X)
C, D, S = torch.randn(E, N, 2, 1, 1, X), torch.zeros(E, 1, 1, 1, 1, X), torch.zeros(E, N, 2 * X, X)
C0 = C.clone()
m.launch_rank_seven_kernel(0, (N,), (A, B, C, D, S, E, X))
assert torch.equal(B, A.reshape(E, N, 2, 1, X, X)) and torch.equal(S, A.reshape(E, N, 2 * X, X))
want = C0.clone()
want[:, :, 1, 0, 0, :] = C0[:, :, 0, 0, 0, :] * 2
assert torch.equal(C, want)
torch.testing.assert_close(D, C0[:, :, 0, 0, 0, :].sum(1).reshape(E, 1, 1, 1, 1, X))
""")
    assert same, output


STATIC_COUNTER_CALLS = """
import torch
def launch(m):
    m.launch_static_counter_kernel(0, (2,), (torch.randn(32), torch.empty(32), 16))
CALLS = {"static_counter_numbers": [launch]}
"""


def test_the_counter_of_a_static_loop_as_a_number(tmp_path):
    """float(i), int(i), astype and ** of a ct.static_iter counter compile for sm_90 (Triton
    refused i.to(...): under tl.static_range the counter is a Python int) and compute what
    cuTile does, each step adding 4 * i + 2 ** i + i ** 2."""
    results = _compile_case(tmp_path, "static_counter_numbers", STATIC_COUNTER_CALLS)
    assert len(results) == 1 and results[0]["problems"] == [], results
    same, output = _run_interpreted(tmp_path / "mods" / "static_counter_numbers.py", """
x, o = torch.randn(32), torch.empty(32)
m.launch_static_counter_kernel(0, (2,), (x, o, 16))
torch.testing.assert_close(o, x + sum(4 * i + 2 ** i + i ** 2 for i in range(1, 4)))
""")
    assert same, output


CONSTANT_TUPLE_CALLS = """
import torch
def launch(m):
    m.launch_constant_tuple_loop_kernel(0, (2,), (torch.randn(32, 8), torch.empty(32), (1, 4, 6), 16))
CALLS = {"constant_tuple_loop": [launch]}
"""


def test_a_static_loop_over_a_constant_tuple_parameter(tmp_path):
    """ct.static_iter over a `ct.Constant[tuple]` parameter, plain and enumerated (real cuTile
    compiles it under its calling convention v2; it was refused as 'not a constant'), compiles
    for sm_90 and sums the columns it names."""
    results = _compile_case(tmp_path, "constant_tuple_loop", CONSTANT_TUPLE_CALLS)
    assert len(results) == 1 and results[0]["problems"] == [], results
    same, output = _run_interpreted(tmp_path / "mods" / "constant_tuple_loop.py", """
x, out = torch.randn(32, 8), torch.empty(32)
m.launch_constant_tuple_loop_kernel(0, (2,), (x, out, (1, 4, 6), 16))
torch.testing.assert_close(out, x[:, [1, 4, 6]].sum(1) + x[:, 1] + 2 * x[:, 4] + 3 * x[:, 6])
""")
    assert same, output



INT64_INDEX_CALLS = """
import torch
def launch(m):
    a, b = torch.randn(64, 32).half(), torch.randn(32, 32).half()
    m.launch_int64_index_kernel(0, (3,), (torch.tensor([16, 48, 0]), a, b, torch.empty(48, 32).half(), 16, 32, 32))
CALLS = {"int64_tile_index": [launch]}
"""


def test_a_tile_index_computed_from_int64_values_takes_descriptors(tmp_path):
    """A tile index computed from an int64 value (an element of a torch.long array, as varlen
    kernels read cu_seqlens) gave a descriptor load a 64-bit offset, which Triton refuses ("Block
    pointers only support 32 bit offsets"), on the GPU and under the interpreter alike, for the
    launch that takes descriptors (the hand pick of a kernel with a matrix product). Such an
    offset now goes through ct_descriptor_coordinate: the TMA path compiles for sm_90 and the
    product is computed from the rows the offsets name."""
    results = _compile_case(tmp_path, "int64_tile_index", INT64_INDEX_CALLS)
    assert len(results) == 1 and results[0]["problems"] == [], results
    assert results[0]["tma_launch"] and results[0]["ptx_tma_loads"] > 0, results
    text = (tmp_path / "mods" / "int64_tile_index.py").read_text()
    assert "a_desc_1.load([ct_descriptor_coordinate(ct_floordiv(s, BM) * BM), 0])" in text, text
    same, output = _run_interpreted(tmp_path / "mods" / "int64_tile_index.py", """
starts = torch.tensor([16, 48, 0])
a, b = torch.randn(64, 32).half(), torch.randn(32, 32).half()
out = torch.empty(48, 32).half()
m.launch_int64_index_kernel(0, (3,), (starts, a, b, out, 16, 32, 32))
rows = torch.cat([a[16:32], a[48:64], a[0:16]])
torch.testing.assert_close(out.float(), rows.float() @ b.float(), atol=2e-2, rtol=2e-2)
""")
    assert same, output


LOOSE_INTEGER_CALLS = """
import torch
def int8(m):
    m.launch_loose_integer_kernel(0, (2,), (torch.full((32,), 100, dtype=torch.int8), torch.zeros(32, dtype=torch.int32), 20, 16))
def float16(m):
    m.launch_loose_integer_kernel(0, (2,), (torch.ones(32).half(), torch.zeros(32, dtype=torch.int32), 20, 16))
CALLS = {"loose_integer": [int8, float16]}
"""


def test_a_loose_integer_takes_the_dtype_of_a_tile_known_at_launch(tmp_path):
    """`int8_tile + t`, t a run-time Python int and the tile's dtype the launch's: Triton promoted
    the sum to int32 (161 where cuTile wraps to -95). ct_loose_integer casts t to an 8- or 16-bit
    integer dtype while Triton compiles, which compiles for sm_90 for each dtype."""
    results = _compile_case(tmp_path, "loose_integer", LOOSE_INTEGER_CALLS)
    assert len(results) == 2 and all(r["problems"] == [] for r in results), results
    text = (tmp_path / "mods" / "loose_integer.py").read_text()
    assert "a + ct_loose_integer(t, a.dtype)" in text, text
    same, output = _run_interpreted(tmp_path / "mods" / "loose_integer.py", """
for dtype, want in ((torch.int8, -95), (torch.uint8, 161), (torch.int16, 161), (torch.float16, 161)):
    out = torch.zeros(32, dtype=torch.int32)
    m.launch_loose_integer_kernel(0, (2,), (torch.full((32,), 100, dtype=dtype), out, 20, 16))
    assert out.tolist() == [want] * 32, (dtype, out)
""")
    assert same, output


BRANCH_LOCAL_CALLS = """
import torch
def run(m):
    m.launch_branch_local_kernel(0, (2,), (torch.randn(32), torch.zeros(32), -5, 16))
CALLS = {"branch_local_types": [run]}
"""


def test_a_name_of_another_type_in_each_branch_compiles(tmp_path):
    """`tmp = 3` in one branch of a run-time `if`, `tmp = ct.full(...)` in the other, read only
    there: Triton joined both into one name of the scf.if ("Mismatched type for tmp between then
    block (int32) and else block"), so the converted kernel did not compile. The else branch's
    is now its own name. abs() of constants was written `abs(...)`, which a @triton.jit
    function cannot call."""
    results = _compile_case(tmp_path, "branch_local_types", BRANCH_LOCAL_CALLS)
    assert len(results) == 1 and results[0]["problems"] == [], results
    text = (tmp_path / "mods" / "branch_local_types.py").read_text()
    assert "tmp_1 = tl.full(" in text and "abs(" not in text.split("def branch_local_kernel(")[1].split("def launch_")[0]
    same, output = _run_interpreted(tmp_path / "mods" / "branch_local_types.py", """
x = torch.randn(32)
y = torch.zeros(32)
m.launch_branch_local_kernel(0, (2,), (x, y, -5, 16))
want = torch.cat([x[:16] + 3, x[16:] * 2]) + 12
torch.testing.assert_close(y, want)
""")
    assert same, output


BRANCH_ONLY_SHAPE_CALLS = """
import torch
def run(m):
    m.launch_branch_only_shape_kernel(0, (2,), (torch.randn(32, 16), torch.zeros(32, 16), torch.zeros(32, 1), 0, 16))
CALLS = {"branch_only_shape": [run]}
"""


def test_a_tile_of_another_shape_read_only_in_its_branch_compiles(tmp_path):
    """`w = u + 1.0; u = ct.sum(w, axis=1, keepdims=True)` in a run-time `if`, u (TILE, TILE)
    before it and read only inside it: valid cuTile, but Triton refused the `if` ("initial value
    for `u` is of type fp32[16, 16], but the then block redefines it as fp32[16, 1]"). The
    branch's u is now a name of its own from its assignment on (the read before it reads the tile
    before); a read of u after such an `if` is refused (cuTile: "Type of `u` depends on path
    taken")."""
    results = _compile_case(tmp_path, "branch_only_shape", BRANCH_ONLY_SHAPE_CALLS)
    assert len(results) == 1 and results[0]["problems"] == [], results
    text = (tmp_path / "mods" / "branch_only_shape.py").read_text()
    assert "w = u + 1.0" in text and "u_1 = ct_sum(w, 1, True)" in text, text
    same, output = _run_interpreted(tmp_path / "mods" / "branch_only_shape.py", """
x = torch.randn(32, 16)
y = torch.zeros(32, 16)
rows = torch.zeros(32, 1)
m.launch_branch_only_shape_kernel(0, (2,), (x, y, rows, 0, 16))
torch.testing.assert_close(y, 2 * x)
torch.testing.assert_close(rows, torch.cat([torch.zeros(16, 1), (x[16:] + 1).sum(1, keepdim=True)]))
""")
    assert same, output


BRANCH_DEAD_TYPES_CALLS = """
import torch
def run(m):
    x, y, rows = torch.randn(32, 16), torch.zeros(32, 16), torch.zeros(32, 1)
    for name in ("rebound_by_a_later_if", "swapped_tuple", "elif_chain", "number_then_tile",
                 "read_only_when_debugging", "returning_branch", "read_then_rebound_in_a_loop",
                 "bound_where_it_goes_on", "returning_branch_of_another_shape", "rebound_where_it_goes_on",
                 "through_a_tile_function"):
        getattr(m, "launch_" + name)(0, (2,), (x, y, 1, 16))
    m.launch_branch_in_a_loop(0, (2,), (x, y, rows, 3, 16))
CALLS = {"branch_dead_types": [run]}
"""


def test_a_value_of_another_type_on_each_path_unread_after_the_if_compiles(tmp_path):
    """Valid cuTile that Triton refused when compiling for the GPU ("Mismatched type for u between
    then block and else block"; "initial value for `u` is of type fp32[16, 16], but the then block
    redefines it as fp32[16, 1]"): a later `if` rebinding the name, a branch in a loop's body,
    unpacked targets, an elif chain, a number before and a tile in the branch, a read only under a
    False module constant, a branch that returns, a read in a loop of the branch before it
    rebinds. Each branch that binds another type binds it under a name of its own. And where one
    branch returns and what follows reads what the other binds (Triton: "u is not defined" after
    the `if`), what follows moves into that other branch."""
    results = _compile_case(tmp_path, "branch_dead_types", BRANCH_DEAD_TYPES_CALLS)
    assert len(results) == 12 and all(r["problems"] == [] for r in results), results
    text = (tmp_path / "mods" / "branch_dead_types.py").read_text()
    assert "u_1 = ct_sum(t, 1, True)" in text and "w_1, u_1 = t, s" in text, text
    assert "u_1 = u\n" in text and "u_1 = u_1 + 1.0" in text, text  # the value before, read in a loop
    # what follows an `if` one branch of which returns moves into the other, which binds u
    assert "        u = t * 3.0\n        # what follows reads u\n" in text, text
    assert "        s = t * 2.0\n        return s + 1.0\n" in text, text
    same, output = _run_interpreted(tmp_path / "mods" / "branch_dead_types.py", """
x = torch.randn(32, 16)
rows_of = lambda t: t.sum(1, keepdim=True)
def launched(name, c, *extra):
    y = torch.zeros(32, 16)
    getattr(m, "launch_" + name)(0, (2,), (x, y, *extra, c, 16))
    return y
torch.testing.assert_close(launched("rebound_by_a_later_if", 1), x - 1)
torch.testing.assert_close(launched("rebound_by_a_later_if", 9), x + 1)
torch.testing.assert_close(launched("swapped_tuple", 1), x - rows_of(x))
torch.testing.assert_close(launched("swapped_tuple", 0), 2 * x + rows_of(x))
torch.testing.assert_close(launched("elif_chain", 0), rows_of(x).expand(32, 16))
torch.testing.assert_close(launched("elif_chain", 1), torch.cat([x[:16].sum(0, keepdim=True).expand(16, 16),
                                                                 x[16:].sum(0, keepdim=True).expand(16, 16)]))
torch.testing.assert_close(launched("elif_chain", 2), torch.full((32, 16), 5.0))
torch.testing.assert_close(launched("elif_chain", 3), x)
torch.testing.assert_close(launched("number_then_tile", 1), 2 * x)
torch.testing.assert_close(launched("number_then_tile", 0), x + 2)
torch.testing.assert_close(launched("read_only_when_debugging", 0), 3 * x)
torch.testing.assert_close(launched("returning_branch", 1), rows_of(x).expand(32, 16))
torch.testing.assert_close(launched("returning_branch", 0), 2 * x)
torch.testing.assert_close(launched("read_then_rebound_in_a_loop", 0), x)
torch.testing.assert_close(launched("read_then_rebound_in_a_loop", 3), rows_of(x + 3).expand(32, 16))
torch.testing.assert_close(launched("bound_where_it_goes_on", 1), 3 * x)
torch.testing.assert_close(launched("bound_where_it_goes_on", 0), x)
torch.testing.assert_close(launched("returning_branch_of_another_shape", 1), rows_of(x).expand(32, 16))
torch.testing.assert_close(launched("returning_branch_of_another_shape", 0), 4 * x)
torch.testing.assert_close(launched("rebound_where_it_goes_on", 1), x)
torch.testing.assert_close(launched("rebound_where_it_goes_on", 0), rows_of(x).expand(32, 16))
torch.testing.assert_close(launched("through_a_tile_function", 1), x)
torch.testing.assert_close(launched("through_a_tile_function", 0), 2 * x + 1)
y, rows = torch.zeros(32, 16), torch.zeros(32, 1)
m.launch_branch_in_a_loop(0, (2,), (x, y, rows, 5, 16))
torch.testing.assert_close(y, x * (0 + 2 + 4))
torch.testing.assert_close(rows, rows_of(x) * (1 + 3))
""")
    assert same, output


BRANCH_JOINED_TYPES_CALLS = """
import torch
def run(m):
    x, y = torch.randn(32, 16), torch.zeros(32, 16)
    for name in ("joined_after_the_if", "rebound_in_both_inner_branches", "joined_in_a_loop", "elif_that_returns",
                 "else_that_returns", "continue_then_rebound", "break_then_rebound"):
        getattr(m, "launch_" + name)(0, (2,), (x, y, 1, 16))
CALLS = {"branch_joined_types": [run]}
"""


def test_a_value_of_a_new_type_on_every_path_that_goes_on_compiles(tmp_path):
    """Valid cuTile that Triton refused when compiling for the GPU: both branches rebind u to a
    type other than the one it held before the `if` ("initial value for `u` is of type fp32[16, 1],
    but the then block redefines it as fp32[16, 16]"), at the top level, in an inner `if` and in a
    loop; and an `if` whose one branch returns while the other binds u, read after an enclosing
    `if` ("u is not defined"); u rebound after `if ...: continue` or `break` (the statements were
    run under `if keep_iterating_1:`, where Triton refuses the new type). The branches bind one
    name of their own, set to u after the `if`; the branch that goes on runs after an `if` that
    keeps only the one that returns; what follows a jump moves into the `if`'s other branch."""
    results = _compile_case(tmp_path, "branch_joined_types", BRANCH_JOINED_TYPES_CALLS)
    assert len(results) == 7 and all(r["problems"] == [] for r in results), results
    text = (tmp_path / "mods" / "branch_joined_types.py").read_text()
    assert "        u_1 = u + t\n    else:\n        u_1 = t - u\n    u = u_1\n" in text, text
    assert "            u_1 = t * 2.0\n        u = u_1\n" in text, text
    assert "            return\n        u = t * 4.0\n" in text, text  # the elif's else, after it
    assert "        if not c > 0:\n" in text, text  # the branch that returns, alone
    # the continue moved last, dropped: no flag
    assert "        if not i == c:\n            u_1 = ct_sum(u, 1, True)\n" in text, text
    assert "keep_iterating" not in text, text
    assert "            keep_looping_1 = False\n        else:\n            u_1 = ct_sum(u, 1, True)\n" in text, text
    same, output = _run_interpreted(tmp_path / "mods" / "branch_joined_types.py", """
x = torch.randn(32, 16)
rows = x.sum(1, keepdim=True)
def launched(name, c):
    y = torch.zeros(32, 16)
    getattr(m, "launch_" + name)(0, (2,), (x, y, c, 16))
    return y
torch.testing.assert_close(launched("joined_after_the_if", 1), rows + x)
torch.testing.assert_close(launched("joined_after_the_if", 0), x - rows)
torch.testing.assert_close(launched("rebound_in_both_inner_branches", 0), x)
torch.testing.assert_close(launched("rebound_in_both_inner_branches", 2), 2 * x)
torch.testing.assert_close(launched("rebound_in_both_inner_branches", 3), rows + x)
torch.testing.assert_close(launched("joined_in_a_loop", 4), (rows * 0 + x) + (x - rows) + (rows * 2 + x) + (x - rows * 3))
torch.testing.assert_close(launched("elif_that_returns", 0), x)
torch.testing.assert_close(launched("elif_that_returns", 1), rows.expand(32, 16))
torch.testing.assert_close(launched("elif_that_returns", 2), 4 * x)
torch.testing.assert_close(launched("else_that_returns", 6), x + 1)
torch.testing.assert_close(launched("else_that_returns", 3), 3 * x)
torch.testing.assert_close(launched("else_that_returns", 0), rows.expand(32, 16))
for c in (0, 2, 5):
    skipped = c if c < 4 else 0
    torch.testing.assert_close(launched("continue_then_rebound", c), (rows * (6 - skipped)).expand(32, 16))
    torch.testing.assert_close(launched("break_then_rebound", c), (rows * sum(range(min(c, 4)))).expand(32, 16))
""")
    assert same, output


TUPLE_ITEM_SHAPE_CALLS = """
import torch
def run(m):
    m.launch_tuple_item_kernel(0, (2,), (torch.randn(32, 40), torch.zeros(32), (16, 32)))
CALLS = {"constant_tuple_item_shape": [run]}
"""


def test_an_item_of_a_constant_tuple_in_a_shape_compiles(tmp_path):
    """`ct.zeros((TS[0],), ...)`, TS a ct.Constant tuple: written `(TS[0],)` the kernel did not
    compile for the GPU ("'int' object has no attribute 'type'"), though the interpreter ran it."""
    results = _compile_case(tmp_path, "constant_tuple_item_shape", TUPLE_ITEM_SHAPE_CALLS)
    assert len(results) == 1 and results[0]["problems"] == [], results
    text = (tmp_path / "mods" / "constant_tuple_item_shape.py").read_text()
    assert "tl.zeros((tl.constexpr(TS[0]),), tl.float32)" in text, text
    # ct.num_tiles(x, 1, shape=TS): TS's item along the axis (it was "axis 1 is out of range")
    same, output = _run_interpreted(tmp_path / "mods" / "constant_tuple_item_shape.py", """
x = torch.randn(32, 40)
y = torch.zeros(32)
m.launch_tuple_item_kernel(0, (2,), (x, y, (16, 32)))
torch.testing.assert_close(y, x.sum(1), atol=1e-4, rtol=1e-4)
""")
    assert same, output


TUPLE_LEN_CALLS = """
import torch
def run(m):
    m.launch_tuple_len_kernel(0, (1,), (tuple(torch.randn(8) for _ in range(3)), torch.zeros(8)))
def items(m):
    m.launch_tuple_items_kernel(0, (1,), (tuple(torch.randn(8) for _ in range(3)), torch.zeros(8)))
CALLS = {"static_iter_tuple_len": [run, items]}
"""


def test_static_iter_over_the_length_of_a_tuple_of_arrays_compiles(tmp_path):
    """`ct.static_iter(range(len(xs)))`: xs was taken for a list of arrays (its length a run-time
    int32), which tl.static_range refuses on the GPU ("not a constexpr"). Its len() is now
    Triton's len() of the tuple, known when it compiles."""
    results = _compile_case(tmp_path, "static_iter_tuple_len", TUPLE_LEN_CALLS)
    assert len(results) == 2 and all(r["problems"] == [] for r in results), results
    text = (tmp_path / "mods" / "static_iter_tuple_len.py").read_text()
    assert "tl.static_range(len(xs))" in text, text
    # `for a in ct.static_iter(xs)` over a tuple given at launch: by index, as cuTile unrolls it
    assert "for item_1 in tl.static_range(len(xs)):" in text, text
    same, output = _run_interpreted(tmp_path / "mods" / "static_iter_tuple_len.py", """
xs = tuple(torch.randn(8) for _ in range(3))
y = torch.zeros(8)
m.launch_tuple_len_kernel(0, (1,), (xs, y))
torch.testing.assert_close(y, xs[0] * 1 + 0 + xs[1] * -2 + 1 + xs[2] * 0.5 + 2)
m.launch_tuple_items_kernel(0, (1,), (xs, y))
torch.testing.assert_close(y, xs[0] + xs[1] + xs[2])
""")
    assert same, output


STATIC_LOOP_CONSTANTS_CALLS = """
import torch
def run(m):
    m.launch_static_loop_constants_kernel(0, (2,), (torch.randn(32), torch.randn(32), torch.zeros(32), 16))
CALLS = {"static_loop_constants": [run]}
"""


def test_static_loop_constants_and_tuples_of_arrays_compile(tmp_path):
    """A static loop's constant indexing a tuple (in a tile function too), given to a tile
    function, enumerate()'s counter, a tuple of arrays indexed by a counter and an array chosen
    while the kernel runs: each compiles for the GPU and computes as cuTile does."""
    results = _compile_case(tmp_path, "static_loop_constants", STATIC_LOOP_CONSTANTS_CALLS)
    assert len(results) == 1 and results[0]["problems"] == [], results
    text = (tmp_path / "mods" / "static_loop_constants.py").read_text()
    assert "ret += (vals[index[i_k_1]],)" in text and "def scale(t, w: tl.constexpr):" in text, text
    same, output = _run_interpreted(tmp_path / "mods" / "static_loop_constants.py", """
x, z, y = torch.randn(32), torch.randn(32), torch.zeros(32)
m.launch_static_loop_constants_kernel(0, (2,), (x, z, y, 16))
want = x * 6 + x * 0.25 + x + z + x + torch.cat([z[:16], x[16:]])
torch.testing.assert_close(y, want, atol=1e-5, rtol=1e-5)
""")
    assert same, output


TUPLE_INDEX_CALLS = """
import torch
def half(m):
    m.launch_constexpr_tuple_index_kernel(0, (2,), (torch.randn(32), torch.zeros(32), 0))
def single(m):
    m.launch_constexpr_tuple_index_kernel(0, (2,), (torch.randn(32), torch.zeros(32), 1))
CALLS = {"constexpr_tuple_index": [half, single]}
"""


def test_a_tuple_indexed_by_a_constant_parameter_compiles(tmp_path):
    """`(ct.float16, ct.float32)[MODE]` and `(8, 16)[MODE]`, MODE a ct.Constant: Triton indexes the
    tuples while it compiles (they were refused: "a tuple index in tile code must be a
    constant"); n, assigned once so, is a tl.constexpr local and sizes the tile."""
    results = _compile_case(tmp_path, "constexpr_tuple_index", TUPLE_INDEX_CALLS)
    assert len(results) == 2 and all(r["problems"] == [] for r in results), results
    text = (tmp_path / "mods" / "constexpr_tuple_index.py").read_text()
    assert "dt = (tl.float16, tl.float32)[MODE]" in text and "n: tl.constexpr = (8, 16)[MODE]" in text, text
    same, output = _run_interpreted(tmp_path / "mods" / "constexpr_tuple_index.py", """
x = torch.randn(32)
for mode, size, rounded in ((0, 8, x.half().float()), (1, 16, x)):
    y = torch.zeros(32)
    m.launch_constexpr_tuple_index_kernel(0, (2,), (x, y, mode))
    want = torch.zeros(32)
    want[:2 * size] = rounded[:2 * size]
    assert torch.equal(y, want), (mode, y)
""")
    assert same, output


STRING_CONSTANT_CALLS = """
import torch
def relu(m):
    m.launch_string_constant_kernel(0, (2,), (torch.randn(32), torch.zeros(32), "relu", 16))
def neg(m):
    m.launch_string_constant_kernel(0, (2,), (torch.randn(32), torch.zeros(32), "neg", 16))
CALLS = {"string_constant": [relu, neg]}
"""


def test_a_string_constant_compared_in_an_if_compiles(tmp_path):
    """`if ACT == "relu":` with ACT a ct.Constant[str] (it was refused: "a comparison on a string
    cannot be converted"): Triton compares the constexpr string while it compiles and keeps
    one branch, for each string."""
    results = _compile_case(tmp_path, "string_constant", STRING_CONSTANT_CALLS)
    assert len(results) == 2 and all(r["problems"] == [] for r in results), results
    text = (tmp_path / "mods" / "string_constant.py").read_text()
    assert 'if ACT == "relu":' in text and 'elif ACT != "none":' in text, text
    same, output = _run_interpreted(tmp_path / "mods" / "string_constant.py", """
x = torch.randn(32)
for act, want in (("relu", x.clamp(min=0)), ("neg", -x), ("none", x)):
    y = torch.zeros(32)
    m.launch_string_constant_kernel(0, (2,), (x, y, act, 16))
    assert torch.equal(y, want), act
""")
    assert same, output


PURE_CONDITION_CALLS = """
import torch
def run(m):
    m.launch_pure_condition_kernel(0, (1,), (torch.randn(128), torch.zeros(16), 8))
CALLS = {"pure_call_in_condition": [run]}
"""


def test_a_pure_tile_function_in_a_while_condition_compiles(tmp_path):
    """`while i < n and f(x, i)`, f a tile function that only loads and computes (itself calling
    another): it stays in the condition, and Triton's code generator takes the loop."""
    results = _compile_case(tmp_path, "pure_call_in_condition", PURE_CONDITION_CALLS)
    assert len(results) == 1 and results[0]["problems"] == [], results
    text = (tmp_path / "mods" / "pure_call_in_condition.py").read_text()
    assert "while i < n and row_positive(" in text, text
    same, output = _run_interpreted(tmp_path / "mods" / "pure_call_in_condition.py", """
x = torch.randn(128)
y = torch.zeros(16)
m.launch_pure_condition_kernel(0, (1,), (x, y, 8))
torch.testing.assert_close(y, x[:96].reshape(6, 16).sum(0))
""")
    assert same, output


RECURSIVE_SUM_CALLS = """
import torch
def run(m):
    m.launch_recursive_sum_kernel(0, (2,), (torch.randn(128), torch.zeros(2)))
CALLS = {"recursive_sum": [run]}
"""


def test_a_recursion_unrolled_at_conversion_compiles(tmp_path):
    """tree_sum(t, 64) -> tree_sum(a + b, 32) -> ... -> tree_sum(., 1): seven specializations,
    each calling the next, which Triton's code generator compiles for sm_90."""
    results = _compile_case(tmp_path, "recursive_sum", RECURSIVE_SUM_CALLS)
    assert len(results) == 1 and results[0]["problems"] == [], results
    text = (tmp_path / "mods" / "recursive_sum.py").read_text()
    assert "def tree_sum_7(t, n: tl.constexpr):" in text and "tree_sum_8" not in text


SPLIT_DECODE_CALLS = """
import torch
def launch(m, split):
    q, k, v = torch.randn(2, 16, 64).half(), torch.randn(2, 256, 64).half(), torch.randn(2, 256, 64).half()
    m.launch_split_decode_kernel(0, (2, 256 // split), (q, k, v, torch.empty(2, 256 // split, 16, 64), 64, 64, split))
CALLS = {"split_decode": [lambda m: launch(m, 64), lambda m: launch(m, 128)]}
"""


def test_a_loop_of_products_that_runs_once_issues_its_loads_together(tmp_path, monkeypatch):
    """A loop over range(SPLIT // TN) of constexprs that runs once stays a loop (it starts at
    ct_run_time_zero()): Triton's pipeliner issues the K and V copies of the iteration before
    the first wait for either (straight-line code waited for K, multiplied, then copied V: on an
    H100, TileGym's flash decode kernel took 3.66 us so against 3.24). A loop that runs twice is
    the constexpr loop it was. Both compute what the loop computes (the interpreter, against
    torch)."""
    asm = tmp_path / "asm"
    asm.mkdir()
    monkeypatch.setenv("C2T_DUMP_ASM", str(asm))
    results = _compile_case(tmp_path, "split_decode", SPLIT_DECODE_CALLS)
    assert sorted(r["constexprs"]["SPLIT"] for r in results) == ["128", "64"], results
    for r in results:
        assert r["tma_launch"] and r["ptx_tma_loads"] > 0 and not r["problems"], r
    text = (tmp_path / "mods" / "split_decode.py").read_text()
    assert "for j in range(0 if SPLIT // TN > 1 else ct_run_time_zero(), SPLIT // TN):" in text
    starts = []
    for ttgir in asm.glob("split_decode.split_decode_kernel.*.ttgir"):
        ir = ttgir.read_text()
        starts.append(re.search(r"scf\.for %\S+ = (%\S+) to", ir).group(1))  # the loop is kept in both
        waits = [m.start() for m in re.finditer(r"ttng\.wait_barrier", ir)]
        # after Q's wait, the copies of K and V come before the next wait
        assert ir[waits[0]:waits[1]].count("async_tma_copy_global_to_local") >= 2, ttgir.name
    assert len(starts) == 2 and starts.count("%c0_i32") == 1, starts  # once: from ct_run_time_zero()
    ok, log = _run_interpreted(tmp_path / "mods" / "split_decode.py", (
        "torch.manual_seed(0)\n"
        "q, k, v = torch.randn(2, 16, 64).half(), torch.randn(2, 256, 64).half(), torch.randn(2, 256, 64).half()\n"
        "for split in (64, 128, 256):\n"
        "    out = torch.zeros(2, 256 // split, 16, 64)\n"
        "    m.launch_split_decode_kernel(0, (2, 256 // split), (q, k, v, out, 64, 64, split))\n"
        "    for s in range(256 // split):\n"
        "        kk, vv = k[:, s * split:(s + 1) * split].float(), v[:, s * split:(s + 1) * split].float()\n"
        "        p = torch.softmax(q.float() @ kk.transpose(1, 2), -1)\n"
        "        torch.testing.assert_close(out[:, s], p @ vv, atol=2e-2, rtol=2e-2)\n"))
    assert ok, log


BOOL_NEGATION_CALLS = """
import torch
def launch(m, dtype, out):
    m.launch_negate_kernel(0, (2,), (torch.zeros(32, dtype=dtype), torch.zeros(32, dtype=out)))
CALLS = {"bool_negation": [lambda m: launch(m, torch.bool, torch.int32), lambda m: launch(m, torch.float16, torch.float16),
                           lambda m: launch(m, torch.int8, torch.int8)]}
"""


def test_negation_of_a_launch_dtype_tile_compiles_for_bools_and_others(tmp_path):
    """ct_negative returns from one branch of its constexpr `if` (a return after the `if` too
    made Triton refuse "Inconsistent return types" for a bool tile: int32 and int1); the
    interpreter, which runs Python's `if`, did not show it."""
    results = _compile_case(tmp_path, "bool_negation", BOOL_NEGATION_CALLS)
    assert len(results) == 3 and all(not r["problems"] for r in results), results
    ok, log = _run_interpreted(tmp_path / "mods" / "bool_negation.py", (
        "x = torch.tensor([True, False] * 16)\n"
        "y = torch.zeros(32, dtype=torch.int32)\n"
        "m.launch_negate_kernel(0, (2,), (x, y))\n"
        "assert y.tolist() == [-1, 0] * 16, y\n"))
    assert ok, log


def test_a_loop_that_writes_memory_is_not_kept_for_its_single_trip(tmp_path):
    """A loop of products that also stores stays as written where it runs once: kept as a loop,
    Triton's pipeliner would issue its loads before the iteration's stores (a loop over
    range(N) with N > 1 is pipelined by Triton as it was)."""
    source = (HERE / "cases" / "split_decode.py").read_text().replace(
        "        m = m_new\n", "        m = m_new\n        ct.store(Out, index=(b, split, 0, 0), tile=ct.reshape(acc, (1, 1, 16, D)))\n")
    assert source.count("ct.store(") == 2
    src = tmp_path / "writes.py"
    src.write_text(source)
    _convert(src, tmp_path / "writes_triton.py")
    text = (tmp_path / "writes_triton.py").read_text()
    assert "ct_run_time_zero()," not in text and "for j in range(SPLIT // TN):" in text


CAUSAL_SPLIT_CALLS = """
import torch
def launch(m):
    q, kv = torch.randn(1, 2, 512, 64).half(), torch.randn(1, 1, 512, 64).half()
    m.launch_attention_causal_kernel(0, (4, 2, 1), (q, kv, kv, torch.empty_like(q), 0.125, 2, 128, 64, 64))
CALLS = {"attention_causal": [launch]}
"""


def test_a_causal_loop_split_in_two_masks_in_its_second_loop_only(tmp_path, monkeypatch):
    """The corpus's causal attention (corpus/cutile/attention_causal.py) tests `if j >= diagonal:`
    in its loop of products; converted (src/lower/lower_split.c), for sm_90 the kernel has two
    loops, the first with no branch and no select (the unmasked key tiles), the second with the
    `if`; both multiply with wgmma and copy by TMA. tests/ops/test_attention_causal.py checks
    its results under the interpreter."""
    asm = tmp_path / "asm"
    asm.mkdir()
    monkeypatch.setenv("C2T_DUMP_ASM", str(asm))
    (tmp_path / "mods").mkdir()
    _convert(REPO / "corpus" / "cutile" / "attention_causal.py", tmp_path / "mods" / "attention_causal.py")
    out = tmp_path / "results.json"
    proc = _check_folder(tmp_path / "mods", CAUSAL_SPLIT_CALLS, tmp_path, "--targets", "90", "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads(out.read_text())
    assert len(results) == 1 and results[0]["tma_launch"] and not results[0]["problems"], results
    assert results[0]["ptx_wgmma"] > 0 and results[0]["ptx_tma_loads"] > 0, results
    (ttgir,) = asm.glob("attention_causal.attention_causal_kernel.*.ttgir")
    ir = ttgir.read_text()
    loops = [m.start() for m in re.finditer(r"\bscf\.for\b", ir)]
    assert len(loops) == 2, ir
    # the mask: a comparison of int32 tensors (keys <= queries), in the second loop only
    mask = re.compile(r"arith\.cmpi sle, [^\n]*: tensor<")
    assert not mask.search(ir[loops[0]:loops[1]]) and mask.search(ir[loops[1]:]), ir
