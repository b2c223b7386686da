"""The runtime helpers of src/lower/helpers/ (the Python the generated modules carry).

- src/lower/helper_text.h is what tools/gen_helpers.py makes of them now (not stale);
- every helper parses with CPython on its own, as the converter emits it;
- the self-contained ones run under Triton's interpreter (TRITON_INTERPRET=1)
  from a tiny kernel against a torch reference: the arithmetic helpers (floor
  division, Python modulo, IEEE true division, exact ceiling division), a
  reduction helper (ct_sum keeps the dtype, ct_argmax ties and NaN), the
  NaN-propagating max, and ct_atomic_cas's mask emulation;
- the rank-parameterized templates (*_templates.py): filled in for every rank
  the converter asks for (gen_helpers.fill, the twin of runtime.c's
  fill_template) each parses; what the converter itself emits for ranks 0..5
  (small cuTile modules converted by build/cutile2triton) is, helper for
  helper, the twin's text (same AST); and ct_load_2d (mask, padding),
  ct_store_2d, ct_tile_mask_3d, ct_store_element_1d and ct_element_*_2d run
  under the interpreter against torch.
"""
import ast
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported

import pytest  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import gen_helpers  # noqa: E402

HELPERS = gen_helpers.all_helpers()


def test_header_is_not_stale():
    header = (REPO / "src" / "lower" / "helper_text.h").read_text()
    assert header == gen_helpers.generate(), "run: python3 tools/gen_helpers.py > src/lower/helper_text.h"


def test_generator_runs_as_a_script():
    out = subprocess.run([sys.executable, str(REPO / "tools" / "gen_helpers.py")], capture_output=True, text=True,
                         check=True).stdout
    assert out == gen_helpers.generate()


@pytest.mark.parametrize("file,name,needs,text", HELPERS, ids=[h[1] for h in HELPERS])
def test_helper_parses_alone(file, name, needs, text):
    module = ast.parse(text)
    defined = {node.name for node in module.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    defined |= {t.id for node in module.body if isinstance(node, ast.Assign) for t in node.targets}
    assert name in defined, f"{file}: helper {name} does not define {name}"
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_every_helper_is_used_by_the_converter():
    sources = "".join(p.read_text() for p in (REPO / "src" / "lower").glob("*.c"))
    unused = [name for _, name, _, _ in HELPERS if f"HELPER_{name}" not in sources and
              not any(name in needs for _, _, needs, _ in HELPERS)]
    assert unused == []


def test_marker_needs_are_checked(tmp_path, monkeypatch):
    bad = tmp_path / "bad.py"
    bad.write_text("# helper: a\ndef a():\n    return b()\n\n\n# helper: b\ndef b():\n    return 1\n")
    monkeypatch.setattr(gen_helpers, "FOLDER", tmp_path)
    with pytest.raises(SystemExit, match="a says it needs"):
        gen_helpers.all_helpers()


def load(file):
    """The helper file as a module (its preamble imports triton and defines INTERPRETED)."""
    path = REPO / "src" / "lower" / "helpers" / file
    spec = importlib.util.spec_from_file_location(f"c2t_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


M = load("math_helpers.py")
R = load("reduce_helpers.py")
MEM = load("memory_helpers.py")


@triton.jit
def binary_kernel(x, y, out, N: tl.constexpr, OP: tl.constexpr):
    i = tl.arange(0, N)
    a = tl.load(x + i)
    b = tl.load(y + i)
    if OP == "floordiv":
        r = M.ct_floordiv(a, b)
    elif OP == "mod":
        r = M.ct_mod(a, b)
    elif OP == "truediv":
        r = M.ct_truediv(a, b)
    else:
        r = M.ct_cdiv(a, b)
    tl.store(out + i, r)


def run_binary(op, a, b, out_dtype):
    out = torch.empty(a.shape, dtype=out_dtype)
    binary_kernel[(1,)](a, b, out, a.numel(), op)
    return out


INTS = torch.tensor([7, -7, 7, -7, 0, 5, -1, 9], dtype=torch.int32)
DIVS = torch.tensor([2, 2, -2, -2, 3, 5, 4, -4], dtype=torch.int32)


def test_floordiv_rounds_toward_negative_infinity():
    assert run_binary("floordiv", INTS, DIVS, torch.int32).tolist() == [a // b for a, b in zip(INTS.tolist(), DIVS.tolist())]
    x = torch.tensor([7.5, -7.5, 1.0, -1.0], dtype=torch.float32)
    y = torch.tensor([2.0, 2.0, -0.3, 0.3], dtype=torch.float32)
    assert torch.equal(run_binary("floordiv", x, y, torch.float32), torch.floor(x / y))


def test_mod_has_the_sign_of_the_divisor():
    assert run_binary("mod", INTS, DIVS, torch.int32).tolist() == [a % b for a, b in zip(INTS.tolist(), DIVS.tolist())]
    x = torch.tensor([7.5, -7.5, 7.5, -7.5], dtype=torch.float32)
    y = torch.tensor([2.0, 2.0, -2.0, -2.0], dtype=torch.float32)
    assert run_binary("mod", x, y, torch.float32).tolist() == [1.5, 0.5, -0.5, -1.5]


def test_truediv_is_ieee_and_integers_give_float32():
    x = torch.randn(64, dtype=torch.float32)
    y = torch.randn(64, dtype=torch.float32)
    assert torch.equal(run_binary("truediv", x, y, torch.float32), x / y)
    assert torch.equal(run_binary("truediv", INTS, DIVS, torch.float32), INTS.float() / DIVS.float())


def test_cdiv_is_the_exact_ceiling_for_any_sign():
    expected = [-((-a) // b) for a, b in zip(INTS.tolist(), DIVS.tolist())]
    assert run_binary("cdiv", INTS, DIVS, torch.int32).tolist() == expected


@triton.jit
def reduce_kernel(x, out, index_out, M: tl.constexpr, N: tl.constexpr):
    t = tl.load(x + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(out + tl.arange(0, M), R.ct_sum(t, 1, False))
    tl.store(index_out + tl.arange(0, M), R.ct_argmax(t, tl.arange(0, N)[None, :], 1, False))


def test_sum_keeps_int8_and_argmax_takes_the_first_largest():
    x = torch.tensor([[100, 100, 1, 100], [-5, 3, 3, 0]], dtype=torch.int8)
    out = torch.empty(2, dtype=torch.int8)
    index = torch.empty(2, dtype=torch.int32)
    reduce_kernel[(1,)](x, out, index, 2, 4)
    assert out.tolist() == [(301 + 128) % 256 - 128, 1]  # wraps in int8, as cuTile's int8 sum
    assert index.tolist() == [0, 1]


@triton.jit
def float_reduce_kernel(x, out, index_out, N: tl.constexpr):
    t = tl.load(x + tl.arange(0, N))
    tl.store(out, R.ct_max_propagate_nan(t, 0, False))
    tl.store(index_out, R.ct_argmax(t, tl.arange(0, N), 0, False))


def test_max_propagates_nan_and_argmax_ranks_nan_last():
    x = torch.tensor([1.0, float("nan"), 3.0, 3.0], dtype=torch.float32)
    out = torch.empty(1, dtype=torch.float32)
    index = torch.empty(1, dtype=torch.int32)
    float_reduce_kernel[(1,)](x, out, index, 4)
    assert torch.isnan(out).item()
    assert index.item() == 2


@triton.jit
def cas_kernel(base, old_out, N: tl.constexpr):
    i = tl.arange(0, N)
    inside = i < 3
    old = MEM.ct_atomic_cas(base, i.to(tl.int64), inside, 0, 7, "acq_rel", "gpu")
    tl.store(old_out + i, old)


def test_atomic_cas_masks_lanes_outside():
    base = torch.tensor([0, 1, 0, 0], dtype=torch.int32)
    old = torch.empty(4, dtype=torch.int32)
    cas_kernel[(1,)](base, old, 4)
    assert base.tolist() == [7, 1, 7, 0]  # lane 3 is outside: not written
    assert old.tolist() == [0, 1, 0, 0]  # and returns `expected`


# ------------------------------------------------------------ the templates

TEMPLATES = gen_helpers.all_templates()
MEMORY_H = (REPO / "src" / "lower" / "lower_memory.h").read_text()
MAX_TILE_RANK = int(re.search(r"#define MAX_TILE_RANK (\d+)", MEMORY_H).group(1))
TMA_MAX_RANK = int(re.search(r"#define TMA_MAX_RANK (\d+)", MEMORY_H).group(1))
FILLED = [(name, rank) for _, name, low, _ in TEMPLATES for rank in range(low, MAX_TILE_RANK + 1)]


def filled(name, rank):
    text = next(text for _, n, _, text in TEMPLATES if n == name)
    return gen_helpers.fill(text, rank)


@pytest.mark.parametrize("name,rank", FILLED, ids=[f"{n}-{r}" for n, r in FILLED])
def test_template_parses_for_each_rank(name, rank):
    module = ast.parse(filled(name, rank))
    assert [node.name for node in module.body] == [name.replace("RANK", str(rank))]
    assert not re.search(r"[{}$]|\[\^\]|RANK", filled(name, rank))


def test_every_template_is_used_by_the_converter():
    sources = "".join(p.read_text() for p in (REPO / "src" / "lower").glob("*.c"))
    assert [name for _, name, _, _ in TEMPLATES if f"TEMPLATE_{name}" not in sources] == []


def test_template_words_are_checked(tmp_path, monkeypatch):
    bad = tmp_path / "bad_templates.py"
    bad.write_text("# template: f_RANKd from rank 1\n#   INDEX = {i$|, }\n#   SIZE = {S$|, }\ndef f_RANKd(INDEX):\n    pass\n")
    monkeypatch.setattr(gen_helpers, "FOLDER", tmp_path)
    with pytest.raises(SystemExit, match="unused words"):
        gen_helpers.all_templates()
    bad.write_text("# template: f_RANKd from rank 1\n#   INDEX = i$\ndef f_RANKd(INDEX):\n    pass\n")
    with pytest.raises(SystemExit, match="only inside"):
        gen_helpers.all_templates()


def probe_module(rank):
    """A cuTile kernel that makes the converter emit every template at `rank`."""
    index = "(" + "i, " * rank + ")"
    shape = "(" + "".join(f"{2 ** (d + 1)}, " for d in range(rank)) + ")"
    lines = ["import cuda.tile as ct", "", "", "@ct.kernel", "def probe(x, y, i, g):",
             f"    e = ct.load(x, {index}, shape=())", f"    ct.store(y, {index}, e + 1)"]
    if rank:
        gather = "(" + "g, " * rank + ")" if rank > 1 else "g"
        lines += [f"    t = ct.load(x, {index}, shape={shape}, padding_mode=ct.PaddingMode.NEG_ZERO)",
                  f"    ct.store(y, {index}, t)", f"    ct.scatter(y, {gather}, ct.gather(x, {gather}))"]
        steps = "(" + "1, " * rank + ")"  # tiles that overlap: the strided view helpers
        lines += [f"    v = x.tiled_view({shape}, traversal_steps={steps})",
                  f"    w = y.tiled_view({shape}, traversal_steps={steps})",
                  f"    w.store({index}, v.load({index}))", f"    w.atomic_store_add({index}, v.load({index}))"]
    if rank >= 2:  # advanced indexing: an index tile on axis 0, ct.Slice on the others
        entries = "(ct.arange(2, dtype=ct.int32), " + "ct.Slice(i, 2), " * (rank - 1) + ")"
        lines += [f"    a = ct.load_advanced_indexing(x, {entries})", f"    ct.store_advanced_indexing(y, {entries}, a)"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("rank", range(MAX_TILE_RANK + 1))
def test_converter_fills_templates_as_the_twin_does(rank, tmp_path):
    source = tmp_path / "probe.py"
    source.write_text(probe_module(rank))
    out = subprocess.run([str(REPO / "build" / "cutile2triton"), str(source)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    emitted = {node.name: node for node in ast.parse(out.stdout).body if isinstance(node, ast.FunctionDef)}
    names = {name for name, low in ((n, low) for _, n, low, _ in TEMPLATES) if rank >= low}
    # at rank 1 a descriptor is never used, nor past TMA_MAX_RANK (a tensor map's most), so there
    # is no ct_tile_mask_1d or _6d; rank 0 has only element helpers
    names -= {"ct_tile_mask_RANKd"} if rank < 2 or rank > TMA_MAX_RANK else set()
    assert names or rank == 0, "the probe should use templates"
    for name in names:
        made = name.replace("RANK", str(rank))
        assert made in emitted, f"the converter did not emit {made}"
        assert ast.dump(emitted[made]) == ast.dump(ast.parse(filled(name, rank)).body[0]), made
    if rank == 0:  # the 0-d element helpers are plain helpers (no mask)
        assert {"ct_load_element_0d", "ct_store_element_0d"} <= set(emitted)


def template_module():
    """The templates the interpreter tests run, filled in, as an importable module."""
    folder = Path(tempfile.mkdtemp(prefix="c2t_templates_"))
    texts = [filled("ct_load_RANKd", 2), filled("ct_store_RANKd", 2), filled("ct_tile_mask_RANKd", 3),
             filled("ct_store_element_RANKd", 1), filled("ct_element_offsets_RANKd", 2),
             filled("ct_element_inside_RANKd", 2)]
    path = folder / "c2t_filled_templates.py"
    path.write_text("import triton\nimport triton.language as tl\n\n\n" + "\n\n".join(texts))
    spec = importlib.util.spec_from_file_location("c2t_filled_templates", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TM = template_module()


@triton.jit
def load_store_2d_kernel(x, out, y, shape0, shape1, stride0, stride1, i0, i1, S0: tl.constexpr, S1: tl.constexpr):
    tile = TM.ct_load_2d(x, (shape0, shape1), (stride0, stride1), i0, i1, S0, S1, -1.0)
    tl.store(out + tl.arange(0, S0)[:, None] * S1 + tl.arange(0, S1)[None, :], tile)
    TM.ct_store_2d(y, (shape0, shape1), (stride0, stride1), i0, i1, tile + 1)


def test_load_2d_pads_outside_and_store_2d_writes_only_inside():
    x = torch.arange(30, dtype=torch.float32).reshape(5, 6)
    y = torch.zeros(5, 6, dtype=torch.float32)
    out = torch.empty(4, 4, dtype=torch.float32)
    load_store_2d_kernel[(1,)](x, out, y, 5, 6, 6, 1, 1, 1, 4, 4)  # rows 4..7, columns 4..7
    expected = torch.full((4, 4), -1.0)
    expected[:1, :2] = x[4:5, 4:6]
    assert torch.equal(out, expected)
    written = torch.zeros(5, 6)
    written[4:5, 4:6] = x[4:5, 4:6] + 1
    assert torch.equal(y, written)  # nothing outside the 5x6 array (it would land in other rows)


@triton.jit
def tile_mask_3d_kernel(out, shape0, shape1, shape2, i0, i1, i2, S0: tl.constexpr, S1: tl.constexpr,
                        S2: tl.constexpr):
    mask = TM.ct_tile_mask_3d((shape0, shape1, shape2), i0, i1, i2, S0, S1, S2)
    o = tl.arange(0, S0)[:, None, None] * (S1 * S2) + tl.arange(0, S1)[None, :, None] * S2 + tl.arange(0, S2)[None, None, :]
    tl.store(out + o, mask.to(tl.int8))


def test_tile_mask_3d_marks_the_elements_inside():
    out = torch.empty(2, 4, 2, dtype=torch.int8)
    tile_mask_3d_kernel[(1,)](out, 3, 5, 2, 1, 1, 0, 2, 4, 2)
    expected = torch.zeros(2, 4, 2, dtype=torch.int8)
    for a in range(2):
        for b in range(4):
            for c in range(2):
                expected[a, b, c] = 2 + a < 3 and 4 + b < 5 and c < 2
    assert torch.equal(out, expected)


@triton.jit
def store_element_1d_kernel(y, n, index, value):
    TM.ct_store_element_1d(y, (n,), (1,), index, value)


def test_store_element_1d_does_not_write_outside():
    y = torch.zeros(8, dtype=torch.int32)
    for index in (2, 4, 5, -1):  # 5 and -1 are outside an array of 5 (of the 8 allocated)
        store_element_1d_kernel[(1,)](y, 5, index, 10 + index)
    assert y.tolist() == [0, 0, 12, 0, 14, 0, 0, 0]


@triton.jit
def gather_2d_kernel(x, out, shape0, shape1, stride0, stride1, N: tl.constexpr):
    rows = tl.arange(0, N) - 1
    cols = 2
    offsets = TM.ct_element_offsets_2d((stride0, stride1), rows, cols)
    inside = TM.ct_element_inside_2d((shape0, shape1), rows, cols)
    tl.store(out + tl.arange(0, N), tl.load(x + offsets, mask=inside, other=-7))


def test_element_offsets_and_inside_2d_gather_a_column():
    x = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    out = torch.empty(8, dtype=torch.int32)
    gather_2d_kernel[(1,)](x, out, 3, 4, 4, 1, 8)
    assert out.tolist() == [-7, 2, 6, 10, -7, -7, -7, -7]  # row -1 and rows 3.. are outside


def _tune_helpers():
    sys.path.insert(0, str(REPO / "src" / "lower" / "helpers"))
    try:
        return load("tune_helpers.py")
    finally:
        sys.path.pop(0)


def test_fitting_stages_compiles_unpipelined_when_the_pipeliner_fails():
    """Triton 3.6's pipeliner stops some kernels with "PassManager::run failed" (a descriptor
    load in a loop that addresses pipelined gathers: TileGym's sparse MLA) that compile with
    1 stage: the launch is retried with 1 stage and that is remembered; other errors pass."""
    T = _tune_helpers()

    class Kernel:
        pass

    tried = []

    def launch(num_stages):
        tried.append(num_stages)
        if num_stages > 1:
            raise RuntimeError("PassManager::run failed")
        return "ran"

    kernel = Kernel()
    assert T._fitting_stages(kernel, "key", launch) == "ran"
    assert tried == [3, 1]
    assert T._fitting_stages(kernel, "key", launch) == "ran"
    assert tried == [3, 1, 1]

    def broken(num_stages):
        raise RuntimeError("something else")

    with pytest.raises(RuntimeError, match="something else"):
        T._fitting_stages(Kernel(), "key", broken)


def test_fitting_stages_takes_the_pointer_path_where_descriptors_do_not_fit():
    """A fixed launch whose descriptor tiles (up to 128 KiB each) do not fit shared memory at
    1 stage is launched with _use_tma=False, again from 3 stages down; remembered per key. A
    kernel without descriptor paths, or one whose pointer path does not fit either, raises."""
    T = _tune_helpers()
    out_of_resources = T.triton.runtime.errors.OutOfResources

    class Kernel:
        arg_names = ["x", "x_shape", "x_strides", "x_tma", "_use_tma"]

    tried = []

    def launch(num_stages, **choice):
        tried.append((num_stages, choice))
        if choice.get("_use_tma", True) or num_stages > 2:
            raise out_of_resources(262152, 232448, "shared memory")
        return "ran"

    kernel = Kernel()
    assert T._fitting_stages(kernel, "key", launch) == "ran"
    pointers = {"_use_tma": False}
    assert tried == [(3, {}), (2, {}), (1, {}), (3, pointers), (2, pointers)]
    assert T._fitting_stages(kernel, "key", launch) == "ran"
    assert tried[-1] == (2, pointers)

    class Plain:
        arg_names = ["x", "x_shape", "x_strides"]

    with pytest.raises(out_of_resources):
        T._fitting_stages(Plain(), "key", launch)

    def never(num_stages, **choice):
        raise out_of_resources(262152, 232448, "shared memory")

    with pytest.raises(out_of_resources):
        T._fitting_stages(Kernel(), "key", never)


def test_time_launch_gives_a_candidate_the_pipeliner_refuses_no_time(monkeypatch):
    T = _tune_helpers()
    monkeypatch.setattr(T, "INTERPRETED", False)

    def refuse():  # the first launch compiles the candidate
        raise RuntimeError("PassManager::run failed")

    assert T._time_launch(refuse, (0.5, 0.2)) == [float("inf"), float("inf")]

    def other():
        raise RuntimeError("out of cheese")

    with pytest.raises(RuntimeError, match="cheese"):
        T._time_launch(other, (0.5,))


def test_time_launch_times_a_cuda_graph_and_falls_back_to_do_bench(monkeypatch):
    """Candidates are timed as replays of a CUDA graph (no host time per launch); where the
    capture fails, one launch at a time."""
    T = _tune_helpers()
    monkeypatch.setattr(T, "INTERPRETED", False)
    monkeypatch.setattr(T.torch.cuda, "is_current_stream_capturing", lambda: False)
    monkeypatch.setattr(T.torch.cuda, "synchronize", lambda: None)
    monkeypatch.setattr(T.triton.testing, "do_bench", lambda fn, quantiles: [2.0 for _ in quantiles])
    launches = []
    monkeypatch.setattr(T.triton.testing, "do_bench_cudagraph",
                        lambda fn, rep, quantiles: [1.0 for _ in quantiles])
    assert T._time_launch(lambda: launches.append(1), (0.5, 0.2)) == [1.0, 1.0]
    assert launches == [1]  # compiled (and run once) before the graph is made

    def no_capture(fn, rep, quantiles):
        raise RuntimeError("operation not permitted when stream is capturing")

    monkeypatch.setattr(T.triton.testing, "do_bench_cudagraph", no_capture)
    assert T._time_launch(lambda: None, (0.5,)) == [2.0]
    monkeypatch.setattr(T.torch.cuda, "is_current_stream_capturing", lambda: True)
    monkeypatch.setattr(T.triton.testing, "do_bench_cudagraph", lambda *a, **k: pytest.fail("nested capture"))
    assert T._time_launch(lambda: None, (0.5,)) == [2.0]  # inside a capture: no graph of its own


def test_launch_time_keeps_the_gpu_waiting_while_the_host_makes_the_launch(monkeypatch):
    """exhaustive_search times a configuration with CUDA events around one launch; the
    launcher's Python (100-200 us on an H100) is longer than many kernels, so the GPU is kept
    waiting before each launch after the first (which compiles) for twice the host time the
    previous launch took. A simulated GPU stream: a 3 us kernel whose launch takes the host
    0.2 ms is timed 3 us, where without the wait the host's time would show."""
    T = _tune_helpers()
    clock = {"host": 0.0}  # seconds, advanced by the simulated launches
    stream = {"gpu": 0.0, "queued": []}  # the GPU's time when it runs what is queued

    def run_queued():
        for kind, value in stream["queued"]:
            if kind == "sleep":  # cycles, at the helper's assumed clock
                stream["gpu"] += value / T._GPU_CYCLES_PER_S
            elif kind == "kernel":  # enqueued at host time value[0], runs value[1] s
                stream["gpu"] = max(stream["gpu"], value[0]) + value[1]
            else:
                value.at = stream["gpu"] = max(stream["gpu"], value.enqueued)
        stream["queued"].clear()

    class Event:
        def __init__(self, enable_timing):
            self.at = None

        def record(self):
            self.enqueued = clock["host"]
            stream["queued"].append(("event", self))

        def synchronize(self):
            run_queued()
            clock["host"] = max(clock["host"], stream["gpu"])

        def elapsed_time(self, end):
            return (end.at - self.at) * 1000.0

    sleeps = []
    monkeypatch.setattr(T.torch.cuda, "Event", Event)
    monkeypatch.setattr(T.torch.cuda, "_sleep", lambda cycles: (sleeps.append(cycles),
                                                                stream["queued"].append(("sleep", cycles))))
    monkeypatch.setattr(time, "perf_counter", lambda: clock["host"])  # the helper imports it

    def ct_launch(stream_arg, grid, kernel, args):
        clock["host"] += 2e-4  # the launcher's Python
        stream["queued"].append(("kernel", (clock["host"], 3e-6)))

    monkeypatch.setattr(T, "ct_launch", ct_launch)
    mean_us = T._launch_time_us(0, (1,), None, lambda: (), False, warmup=2, repeats=5)
    assert mean_us == pytest.approx(3.0)
    assert len(sleeps) == 6  # every launch but the first
    assert all(cycles == pytest.approx(2 * 2e-4 * T._GPU_CYCLES_PER_S, abs=1) for cycles in sleeps)

    monkeypatch.setattr(T.torch.cuda, "_sleep", lambda cycles: None)  # no wait: the host shows
    assert T._launch_time_us(0, (1,), None, lambda: (), False, warmup=2, repeats=5) > 150.0
