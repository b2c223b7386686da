"""Launch configuration: @triton.autotune over (num_warps, num_stages) candidates.

A kernel with no tuning of its own gets @triton.autotune above its @triton.jit:
candidates ordered by its largest tile (the first is the pick by hand), keyed on
the arrays' shapes and strides and the constexpr parameters, and restore_value
naming every array it reads and writes, so the timed runs leave the caller's data
as one launch would. Arrays it only writes are copied around the timed runs only
when they share memory with another argument (_tuning_copies: each run writes them
the same, and copying them made the timing the copy's). Under TRITON_INTERPRET=1 nothing is timed and the first candidate
runs; the timing path is simulated here by replacing the module's _time_launch
with one that runs each candidate several times.
--no-autotune (and a module that tunes with exhaustive_search) writes fixed
options into the launch instead.
"""

import re
import subprocess

import torch
import triton

import ops_common

INPLACE = '''
import cuda.tile as ct


@ct.kernel
def bump(x, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(x, index=(ct.bid(0),), tile=t + 1)
'''

WIDE_ROWS = '''
import cuda.tile as ct


@ct.kernel
def double_rows(x, y, N: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, N))
    ct.store(y, index=(ct.bid(0), 0), tile=t * 2)
'''


def _convert_with(tmp_path, source, *flags):
    src = tmp_path / "cutile_tuned.py"
    src.write_text(source)
    proc = subprocess.run([str(ops_common.CONVERTER), *flags, str(src), "-o", "-"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _kernel_decorators(text, name):
    """The text from the first decorator above `def name(` to that line."""
    end = text.index(f"def {name}(")
    start = text.rfind("\n\n\n", 0, end)
    return text[start:end]


def test_untuned_kernel_gets_autotune_with_candidates_and_restore_value(convert_text):
    text = convert_text(INPLACE)
    head = _kernel_decorators(text, "bump")
    assert "@triton.autotune(" in head and head.rstrip().endswith("@triton.jit")
    assert "configs=[triton.Config({}, num_warps=w, num_ctas=None) for w in (4, 8, 16)]" in head
    assert 'key=["x_shape", "x_strides", "TILE"]' in head
    assert 'restore_value=["x"]' in head  # bump stores into the array it reads
    assert '_launch_candidates(' in head and 'nargs["TILE"]' in head
    assert "do_bench=lambda launch, quantiles: _time_launch(launch, quantiles)" in head


def test_read_only_arrays_are_not_restored(convert_text):
    head = _kernel_decorators(convert_text(WIDE_ROWS), "double_rows")
    assert "restore_value" not in head and '"x"' not in head
    assert re.search(r'_tuning_copies\(\s*nargs,\s*reset_only,\s*kept=\[\],\s*written=\["y"\],?\s*\)', head)
    assert "post_hook=lambda nargs, exception: _restore_copies(nargs)" in head


def test_a_written_only_array_is_not_copied_unless_it_shares_memory(convert):
    mod = convert(WIDE_ROWS)
    timed = _timing_every_candidate(mod)
    clones = []
    real_clone = torch.Tensor.clone

    def counted(tensor, *args, **kwargs):
        clones.append(tensor.shape)
        return real_clone(tensor, *args, **kwargs)

    x = torch.randn(2, 16)
    y = torch.zeros(2, 16)
    torch.Tensor.clone = counted
    try:
        mod.launch_double_rows(0, (2,), (x, y, 16))
    finally:
        torch.Tensor.clone = real_clone
    assert len(timed) >= 5 and clones == []  # every candidate timed, no copy of y
    assert torch.equal(y, x * 2)


def test_an_in_place_launch_of_a_written_only_array_is_right_when_timed(convert):
    # x and y the same tensor: y is read through x, so the timed runs must put it back
    mod = convert(WIDE_ROWS)
    timed = _timing_every_candidate(mod)
    x = torch.randn(2, 16)
    expected = x * 2
    mod.launch_double_rows(0, (2,), (x, x, 16))
    assert len(timed) >= 5
    assert torch.equal(x, expected)  # doubled once, not once per timed run


def test_tuning_copies_hooks(convert):
    mod = convert(WIDE_ROWS)
    base = torch.zeros(8)
    nargs = {"a": torch.zeros(4), "b": torch.zeros(4), "c": base[:4], "d": base[4:], "n": 3}
    mod._tuning_copies(nargs, True, kept=["a"], written=["b", "c"])  # after tuning: no copies
    assert "_copies_made" not in nargs
    mod._tuning_copies(nargs, False, kept=["a"], written=["b", "c"])
    for name in "abc":
        nargs[name] += 1
    mod._restore_copies(nargs)
    assert "_copies_made" not in nargs
    assert nargs["a"].sum() == 0  # read and written: put back
    assert nargs["b"].sum() == 4  # written only, its own memory: left as the run wrote it
    assert base.sum() == 0  # written only, but shares memory with d: put back


def test_no_autotune_writes_fixed_options(tmp_path):
    text = _convert_with(tmp_path, INPLACE, "--no-autotune")
    assert "triton.autotune" not in text
    assert "num_warps=num_worker_warps or _launch_warps(TILE)," in text and "num_stages=num_stages," in text


def test_no_autotune_with_a_known_tile_writes_the_number(tmp_path):
    source = INPLACE.replace("TILE: ct.Constant[int]", "unused: int").replace("shape=(TILE,)", "shape=(4096,)")
    text = _convert_with(tmp_path, source, "--no-autotune")
    assert "num_warps=num_worker_warps or 8," in text and "_launch_warps" not in text


def test_tuned_module_runs_the_first_candidate_under_the_interpreter(convert):
    mod = convert(WIDE_ROWS)
    x = torch.randn(3, 8192)
    y = torch.zeros(3, 8192)
    mod.launch_double_rows(0, (3,), (x, y, 8192))
    assert torch.equal(y, x * 2)
    best = mod.double_rows.best_config
    assert (best.num_warps, best.num_stages) == (16, 3)  # 8192 elements: the hand pick


def test_candidates_follow_the_tile_size(convert):
    mod = convert(INPLACE)
    configs = mod.bump.configs
    assert len(configs) == 3  # the warp counts; _launch_candidates adds the stages
    small = [(c.num_warps, c.num_stages) for c in mod._launch_candidates(configs, 256)]
    assert small == [(4, 3), (8, 3), (16, 3), (4, 2), (4, 1)]  # 1 stage last: its shared memory fits
    middle = [(c.num_warps, c.num_stages) for c in mod._launch_candidates(configs, 4096)]
    assert middle[0] == (8, 3) and len(middle) == 5
    assert mod._launch_candidates(configs, 1 << 20)[0].num_warps == 16


def test_a_kernel_with_descriptors_also_tries_the_pointer_path(convert, convert_text):
    """With tma=True the two warp counts nearest the hand pick are timed with and without
    descriptors (_use_tma=False takes every pointer branch); the hand pick with them comes first,
    so the interpreter still runs the descriptor path."""
    mod = convert(INPLACE)
    picks = [(c.num_warps, c.num_stages, c.kwargs.get("_use_tma", True))
             for c in mod._launch_candidates(mod.bump.configs, 256, tma=True)]
    assert picks == [(4, 3, True), (4, 3, False), (8, 3, True), (8, 3, False), (4, 2, True), (4, 1, True)]
    relu = convert_text(RELU_2D)
    assert "_use_tma: tl.constexpr" in relu and "tma=True" in relu
    assert re.search(r"_use_tma\s+and\s+x_tma", relu)


def test_the_default_path_takes_descriptors_only_where_they_are_reused(convert, convert_text):
    """Each program makes its descriptors: one used once (a tile per program) costs more than
    it saves, so such a kernel's default (what fixed launchers run) is the pointer path; a
    descriptor read in a loop keeps the descriptor path by default."""
    relu = convert_text(RELU_2D)
    assert "_use_tma: tl.constexpr = False" in relu
    rows = convert_text(ROW_SUM_2D)
    assert "_use_tma: tl.constexpr = True" in rows
    mod = convert(ROW_SUM_2D)
    x = torch.randn(16, 96)
    y = torch.zeros(16, 32)
    mod.launch_row_sum(0, (2,), (x, y, 8, 32))
    assert torch.allclose(y, x[:, :32] + x[:, 32:64] + x[:, 64:96], atol=1e-5)


ROW_SUM_2D = '''
import cuda.tile as ct


@ct.kernel
def row_sum(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for j in range(ct.num_tiles(x, axis=1, shape=(BM, BN))):
        acc += ct.load(x, index=(ct.bid(0), j), shape=(BM, BN))
    ct.store(y, index=(ct.bid(0), 0), tile=acc)
'''


def test_the_pointer_path_candidate_computes_the_same(convert):
    mod = convert(RELU_2D)
    x = torch.randn(37, 72)  # rows of 288 bytes: descriptors can address them
    y = torch.zeros(37, 72)
    kernel = mod.relu2d.fn  # the jit function under the autotuner
    for use_tma in (True, False):
        y.zero_()
        kernel[(3, 3)](x, tuple(x.shape), tuple(x.stride()), y, tuple(y.shape), tuple(y.stride()), 16, 32,
                       x_tma=True, y_tma=True, _use_tma=use_tma)
        assert torch.equal(y, torch.relu(x))


RELU_2D = '''
import cuda.tile as ct


@ct.kernel
def relu2d(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), ct.bid(1)), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(ct.bid(0), ct.bid(1)), tile=ct.where(t > 0, t, 0))
'''


def _timing_every_candidate(mod, runs_per_candidate=3):
    """Make the module's autotuner time every candidate as on the GPU (running it several
    times), with the last candidate the fastest; returns the list of timed candidates."""
    timed = []

    def time_launch(launch, quantiles):
        for _ in range(runs_per_candidate):
            launch()
        timed.append(len(timed))
        return [100.0 - len(timed)] * len(quantiles)

    mod._time_launch = time_launch
    return timed


def test_in_place_update_is_right_when_every_candidate_is_timed(convert):
    mod = convert(INPLACE)
    timed = _timing_every_candidate(mod)
    x = torch.arange(32, dtype=torch.float32)
    expected = x + 1
    mod.launch_bump(0, (4,), (x, 8))
    assert len(timed) == 5  # every candidate ran 3 times on x ...
    assert torch.equal(x, expected)  # ... and x was put back before the launch that counts
    best = mod.bump.best_config
    assert (best.num_warps, best.num_stages) == (4, 1)  # the last candidate, timed fastest


def test_in_place_update_without_restore_value_would_be_wrong(convert):
    # what restore_value prevents: the same simulated timing, with the restore switched off
    mod = convert(INPLACE)
    _timing_every_candidate(mod)
    mod.bump.restore_value = []
    x = torch.zeros(8)
    mod.launch_bump(0, (1,), (x, 8))
    assert not torch.equal(x, torch.ones(8))


ATOMIC = '''
import cuda.tile as ct


@ct.kernel
def count(hist, idx, TILE: ct.Constant[int]):
    i = ct.load(idx, index=(ct.bid(0),), shape=(TILE,))
    ct.atomic_add(hist, (i,), 1)
'''


def test_atomics_target_is_restored(convert_text, convert):
    head = _kernel_decorators(convert_text(ATOMIC), "count")
    assert 'restore_value=["hist"]' in head
    mod = convert(ATOMIC)
    _timing_every_candidate(mod)
    hist = torch.zeros(4, dtype=torch.int32)
    idx = torch.tensor([0, 1, 1, 3, 3, 3, 2, 0], dtype=torch.int32)
    mod.launch_count(0, (1,), (hist, idx, 8))
    assert hist.tolist() == [2, 2, 1, 3]


TILE_FUNCTION_STORE = '''
import cuda.tile as ct


@ct.function
def put(out, t):
    ct.store(out, index=(ct.bid(0),), tile=t)


@ct.kernel
def inc(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    put(x, t + 1)
    put(y, t)
'''


def test_arrays_written_by_a_tile_function_are_restored(convert_text, convert):
    head = _kernel_decorators(convert_text(TILE_FUNCTION_STORE), "inc")
    found = re.search(r"restore_value=\[([^\]]*)\]", head)
    assert found and set(found.group(1).replace('"', "").split(", ")) == {"x", "y"}
    mod = convert(TILE_FUNCTION_STORE)
    _timing_every_candidate(mod)
    x = torch.arange(8, dtype=torch.float32)
    y = torch.zeros(8)
    mod.launch_inc(0, (1,), (x, y, 8))
    assert torch.equal(x, torch.arange(8) + 1.0) and torch.equal(y, torch.arange(8.0))


TUPLE_STORE = '''
import cuda.tile as ct


@ct.kernel
def fill(outs, TILE: ct.Constant[int]):
    ct.store(outs[0], index=(ct.bid(0),), tile=ct.full((TILE,), 1.0, dtype=ct.float32))
'''


def test_a_kernel_writing_a_tuple_of_arrays_keeps_fixed_options(convert_text, convert):
    text = convert_text(TUPLE_STORE)
    assert "triton.autotune" not in text
    assert "# fixed launch options, not autotuned: it writes a tuple of arrays" in text
    assert "num_warps=num_worker_warps or _launch_warps(TILE)," in text
    mod = convert(TUPLE_STORE)
    out = torch.zeros(8)
    mod.launch_fill(0, (1,), ((out,), 8))
    assert torch.equal(out, torch.ones(8))


EXHAUSTIVE = INPLACE + '''

from cuda.tile.tune import exhaustive_search


def tune(x):
    return exhaustive_search([8, 16], 0, lambda t: (ct.cdiv(x.shape[0], t),), bump,
                             lambda t: (x.clone(), t), quiet=True)
'''


def test_a_module_that_tunes_itself_keeps_fixed_options(convert_text):
    text = convert_text(EXHAUSTIVE)
    assert "@triton.autotune(" not in text
    assert "fixed launch options, not autotuned: the module times its kernels" in text
    # ... which its search may replace (_searched_launch), unless --no-autotune
    assert "_searched_launch(" in text and "candidates=lambda configs: _launch_candidates(" in text
    # and its launchers are not replayed: a trial of the search launches other options under one key
    assert "_replayed(" not in text
    text = convert_text(INPLACE)
    assert '\nlaunch_bump = _replayed(launch_bump)\n_host_kernel(bump, launch_bump, ("x", "TILE"))\n' in text


SEARCHED_TILES = '''
import cuda.tile as ct
from cuda.tile.tune import exhaustive_search


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * 2)


def run(x, y):
    result = exhaustive_search([16, 32], 0, lambda t: (ct.cdiv(x.shape[0], t),), scale,
                               lambda t: (x, y, t), quiet=True)
    best = result.best.config
    ct.launch(0, (ct.cdiv(x.shape[0], best),), scale, (x, y, best))
    return result
'''


def test_the_search_also_times_launch_options_and_keeps_the_fastest(convert, monkeypatch, capsys):
    """On the GPU exhaustive_search times each configuration with the kernel's fixed options,
    then those within 25% of the fastest with the kernel's other launch candidates; the launch
    after it takes the options that won, for the same shapes only. The GPU's timing is
    simulated: candidates with 1 stage run fastest, TILE=32 is slow whatever its options."""
    mod = convert(SEARCHED_TILES)
    spy = _LaunchSpy(mod.scale)
    mod.scale = spy
    mod.INTERPRETED = False
    timed = []

    def launch_time_us(stream, grid, kernel, get_args, flush_l2):
        args = get_args()
        mod.ct_launch(stream, grid, kernel, args)
        options = spy.options[-1]
        timed.append((args[2], options["num_warps"], options["num_stages"]))
        return 100.0 if args[2] == 32 else 5.0 if options["num_stages"] == 1 else 10.0

    mod._launch_time_us = launch_time_us
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    x = torch.randn(64)
    y = torch.zeros(64)
    result = mod.run(x, y)
    assert "exhaustive_search: 16 5.0 us with " in capsys.readouterr().out  # the winner of TILE=16
    assert torch.equal(y, x * 2)
    candidates = mod._launch_candidates([triton.Config({}, num_warps=w) for w in (4, 8, 16)], 16)
    assert len(candidates) > 2
    # TILE=16 with its fixed options, TILE=32 (slow: no other options), then TILE=16's other candidates
    assert timed[:2] == [(16, 4, 3), (32, 4, 3)]
    assert timed[2:] == [(16, c.num_warps, c.num_stages) for c in candidates[1:]]
    assert result.best.config == 16 and result.best.mean_us == 5.0
    assert spy.options[-1] == {"num_warps": candidates[-1].num_warps, "num_stages": 1}  # the launch after it
    x2 = torch.randn(128)
    y2 = torch.zeros(128)
    mod.launch_scale(0, (8,), (x2, y2, 16))  # other shapes: the fixed options
    assert spy.options[-1] == {"num_warps": 4, "num_stages": 3} and torch.equal(y2, x2 * 2)


WORKER_WARPS = '''
import cuda.tile as ct


@ct.kernel(num_worker_warps={warps})
def copy(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)))
'''


def test_num_worker_warps_is_num_warps(convert_text, tmp_path, convert):
    text = convert_text(WORKER_WARPS.format(warps=8))
    assert "num_warps=8, num_stages=s, num_ctas=None) for s in (2, 3, 4)]" in text
    assert "# C2T101" not in text
    fixed = _convert_with(tmp_path, WORKER_WARPS.format(warps=2), "--no-autotune")
    assert "num_warps=num_worker_warps or 2," in fixed
    mod = convert(WORKER_WARPS.format(warps=8))
    x = torch.randn(16)
    y = torch.zeros(16)
    assert [(c.num_warps, c.num_stages) for c in mod._launch_candidates(mod.copy.configs, 1 << 20)] == [
        (8, 3), (8, 2), (8, 1)]
    mod.launch_copy(0, (2,), (x, y, 8))
    assert torch.equal(x, y) and mod.copy.best_config.num_warps == 8


def test_num_worker_warps_out_of_range_is_a_located_error(convert_error):
    message = convert_error(WORKER_WARPS.format(warps=3))
    assert "num_worker_warps should be a power of 2 in [1, 32], got 3" in message


SEARCHED_WARPS = '''
import cuda.tile as ct
import torch
import triton
from cuda.tile.tune import exhaustive_search


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(TILE,)) * 2)


def run(x, y):
    result = exhaustive_search([2, 8], 0, lambda w: (ct.cdiv(x.shape[0], 16),), scale,
                               lambda w: (x, y, 16), lambda w: {"num_worker_warps": w}, quiet=True)
    best = result.best.config
    ct.launch(0, (ct.cdiv(x.shape[0], 16),), scale.replace_hints(num_worker_warps=best), (x, y, 16))
    return best
'''


class _LaunchSpy:
    """Stands for a generated kernel: records the launch options of each launch."""

    def __init__(self, kernel):
        self.kernel, self.options = kernel, []
        self.launch_tile_kernel, self.replace_hints = kernel.launch_tile_kernel, kernel.replace_hints

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self.options.append({k: v for k, v in kwargs.items() if k.startswith("num_")})
            return self.kernel[grid](*args, **kwargs)
        return launch


def test_a_searched_num_worker_warps_is_the_launchs_num_warps(convert_text, convert):
    text = convert_text(SEARCHED_WARPS)
    assert "def launch_scale(stream, grid, args, num_worker_warps=None):" in text
    assert "# C2T101" not in text  # used: the launcher's num_warps
    mod = convert(SEARCHED_WARPS)
    spy = _LaunchSpy(mod.scale)
    mod.scale = spy
    x = torch.randn(32)
    y = torch.zeros(32)
    assert mod.run(x, y) == 2  # the interpreter times nothing: the first one
    assert torch.equal(y, x * 2)
    assert [o["num_warps"] for o in spy.options] == [2, 2]
    mod.launch_scale(0, (2,), (x, y, 16))  # no hint: the hand pick for 16 elements
    assert spy.options[-1] == {"num_warps": 4, "num_stages": 3}


def _fixed_module(tmp_path, source):
    """The module converted with --no-autotune, imported."""
    import importlib.util
    path = tmp_path / "fixed_options.py"
    path.write_text(_convert_with(tmp_path, source, "--no-autotune"))
    spec = importlib.util.spec_from_file_location("fixed_options", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_fixed_options_take_fewer_stages_where_shared_memory_does_not_fit(tmp_path):
    """A fixed-option launch starts at 3 stages; when Triton reports the shared memory too
    large (OutOfResources, e.g. 256x256 matrix tiles that cuTile fits) it retries with
    fewer, and remembers per key the count that fit, so 3 is compiled once per key."""
    import triton
    mod = _fixed_module(tmp_path, INPLACE)
    text = (tmp_path / "fixed_options.py").read_text()
    assert "_fitting_stages(" in text and "num_stages=num_stages," in text
    tried = []

    def launch(num_stages):
        tried.append(num_stages)
        if num_stages > 1:
            raise triton.runtime.errors.OutOfResources(300000, 232448, "shared memory")
        return "launched"

    class Kernel:
        pass

    kernel = Kernel()
    assert mod._fitting_stages(kernel, (16,), launch) == "launched" and tried == [3, 2, 1]
    tried.clear()
    assert mod._fitting_stages(kernel, (16,), launch) == "launched" and tried == [1]  # remembered
    tried.clear()
    mod._fitting_stages(kernel, (32,), launch)
    assert tried == [3, 2, 1]  # another key starts again at 3

    def never_fits(num_stages):
        raise triton.runtime.errors.OutOfResources(300000, 232448, "shared memory")

    try:
        mod._fitting_stages(kernel, (64,), never_fits)
    except triton.runtime.errors.OutOfResources:
        pass
    else:
        raise AssertionError("a launch that fits at no stage count must raise")


def test_fixed_option_launch_runs(tmp_path):
    mod = _fixed_module(tmp_path, INPLACE)
    x = torch.arange(32, dtype=torch.float32)
    mod.launch_bump(0, (4,), (x, 8))
    assert torch.equal(x, torch.arange(32, dtype=torch.float32) + 1)


def test_a_kernel_that_multiplies_matrices_tunes_as_a_gemm(convert):
    """tl.dot kernels keep their descriptors and try 8 and 4 warps (8 from a 128x128
    accumulator up) at 3, 4 and 2 stages, then 1 stage; the wide-row pick (16 warps for
    16384 elements) is for reductions, not for products."""
    mod = convert(INPLACE)
    picks = [(c.num_warps, c.num_stages, c.kwargs.get("_use_tma", True))
             for c in mod._launch_candidates(mod.bump.configs, 128 * 128, dot=True)]
    assert picks == [(8, 3, True), (4, 3, True), (8, 4, True), (4, 4, True), (8, 2, True), (8, 1, True)]
    small = [(c.num_warps, c.num_stages) for c in mod._launch_candidates(mod.bump.configs, 64 * 64, dot=True)]
    assert small == [(4, 3), (8, 3), (4, 4), (4, 6), (4, 2), (4, 1)]  # small stages: a deep pipeline too
    stores = [(c.num_warps, c.num_stages, c.kwargs.get("_store_tma", True))
              for c in mod._launch_candidates(mod.bump.configs, 128 * 128, dot=True, stores=True)]
    assert stores == [(8, 3, True), (4, 3, True), (8, 4, True), (8, 3, False), (4, 4, False), (8, 2, False),
                      (8, 2, True), (8, 1, True)]
    hinted = [triton.Config({}, num_warps=8, num_stages=s) for s in (2, 3, 4)]  # num_worker_warps=8
    assert [(c.num_warps, c.num_stages) for c in mod._launch_candidates(hinted, 64 * 64, dot=True)] == [
        (8, 3), (8, 4), (8, 6), (8, 2), (8, 1)]  # one warp count: no repeats
    gemm = (ops_common.CORPUS / "gemm.py").read_text()
    assert "dot=True" in _convert_text_of(gemm)


def test_a_product_kernel_with_descriptors_also_tries_pointers(convert):
    """Each program makes its descriptors, which a short program pays in full: a kernel that
    multiplies matrices and has descriptor paths also times the hand pick through pointers
    (_use_tma=False) at 3 stages and, last, at 1; the descriptor candidates come first."""
    mod = convert(INPLACE)
    picks = [(c.num_warps, c.num_stages, c.kwargs.get("_use_tma", True))
             for c in mod._launch_candidates(mod.bump.configs, 128 * 128, dot=True, tma=True)]
    assert picks == [(8, 3, True), (4, 3, True), (8, 4, True), (4, 4, True), (8, 3, False), (8, 2, True),
                     (8, 1, True), (8, 1, False)]
    text = _convert_text_of((ops_common.CORPUS / "attention_decode.py").read_text())
    assert re.search(r"dot=True,\s+tma=True", text), text


def _convert_text_of(source):
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        return _convert_with(Path(tmp), source)


GEMM_TILES = """
import cuda.tile as ct

@ct.kernel
def k(a, b, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for kk in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        acc = ct.mma(ct.load(a, index=(i, kk), shape=(TM, TK)), ct.load(b, index=(kk, j), shape=(TK, TN)), acc)
    ct.store(c, index=(i, j), tile=acc)
"""


def test_a_matrix_kernel_may_store_its_product_through_pointers(convert, convert_text):
    """In a kernel that multiplies matrices the stores after the product take their
    descriptor only with _store_tma (default True), an autotune candidate's choice, not part of
    the autotuner's key; both paths store the same. A kernel without a product has no such
    parameter; nor do loads."""
    text = convert_text(GEMM_TILES)
    assert "_store_tma: tl.constexpr = True" in text and "stores=True" in text
    conditions = dict(re.findall(r"(\w)_desc_\d+_ok: tl.constexpr = \((.*?)\n    \)", text, re.S))
    assert "_store_tma" in conditions["c"] and "_store_tma" not in conditions["a"] + conditions["b"]
    assert '"_store_tma"' not in text.split("key=[")[1].split("]")[0]
    assert "_store_tma: tl.constexpr" not in convert_text(RELU_2D)
    mod = convert(GEMM_TILES)
    a, b = torch.randn(64, 32), torch.randn(32, 48)
    for store_tma in (True, False):
        c = torch.zeros(64, 48)
        descriptors = {"a_desc_1": mod._host_descriptor(a, [32, 16]), "b_desc_2": mod._host_descriptor(b, [16, 16]),
                       "c_desc_3": mod._host_descriptor(c, [32, 16])}  # as the launcher makes them
        mod.k.fn[(2, 3, 1)](a, tuple(a.shape), tuple(a.stride()), b, tuple(b.shape), tuple(b.stride()),
                            c, tuple(c.shape), tuple(c.stride()), 32, 16, 16,
                            a_tma=True, b_tma=True, c_tma=True, **descriptors,
                            b_kmajor=b, b_kmajor_staged=False,  # float8 only (lower_memory_kmajor.c)
                            _store_tma=store_tma)
        assert torch.allclose(c, a @ b, atol=1e-4), store_tma


def test_a_fixed_option_matrix_kernel_takes_warps_as_gemms_are_tuned(tmp_path):
    """A fixed-option launch of a kernel that multiplies matrices takes 8 warps from a 128x128
    tile up, else 4 (measured on the H200, TileGym's float32 matmul with 128x128x32 tiles:
    760 us with 8 warps, 1018 with 16, 1050 with 4); other kernels keep 4/8/16 by tile size."""
    mod = _fixed_module(tmp_path, GEMM_TILES)
    text = (tmp_path / "fixed_options.py").read_text()
    assert "dot=True" in text.split("def launch_k(")[1]
    assert [mod._launch_warps(n, dot=True) for n in (64 * 64, 128 * 64, 128 * 128, 256 * 256)] == [4, 4, 8, 8]
    assert [mod._launch_warps(n) for n in (1024, 4096, 16384)] == [4, 8, 16]
    a, b = torch.randn(64, 32), torch.randn(32, 48)
    c = torch.zeros(64, 48)
    mod.launch_k(0, (4, 3, 1), (a, b, c, 16, 16, 16))
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)


def test_a_product_kernels_pointer_candidate_computes_the_product(convert):
    """The pointer candidate of a kernel that multiplies matrices (_use_tma=False), made the
    only candidate, gives the product (the interpreter otherwise runs the first one, the
    descriptor path)."""
    mod = convert((ops_common.CORPUS / "gemm.py").read_text())
    made = mod._launch_candidates
    mod._launch_candidates = lambda configs, *args, **options: [
        c for c in made(configs, *args, **options) if c.kwargs.get("_use_tma") is False]
    a = torch.randn(64, 48, dtype=torch.float16)
    b = torch.randn(48, 80, dtype=torch.float16)
    c = mod.gemm(a, b, tile_m=32, tile_n=32, tile_k=16)
    assert mod.gemm_kernel.best_config.kwargs["_use_tma"] is False
    torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=2e-2, rtol=2e-2)


MAYBE_NUMBER = '''
import cuda.tile as ct


@ct.kernel
def accumulate(x, state, USE_STATE: ct.Constant[int], B: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(B,))
    if USE_STATE:  # `state` an array only here: a launch without it may pass a number
        s = ct.load(state, index=(ct.bid(0),), shape=(B,))
        ct.store(state, index=(ct.bid(0),), tile=s + t)
    ct.store(x, index=(ct.bid(0),), tile=t * 2)
'''


def test_arrays_that_may_be_numbers_and_none_written_only(convert_text, convert):
    """Every array it writes it also reads, and one may be a number (an array only under a
    constexpr branch): the pre-hook's written list is empty. It was written `[(null)]`
    (TileGym's chunk_gated_delta_rule: NameError at its first launch on the GPU)."""
    text = convert_text(MAYBE_NUMBER)
    assert re.search(r'kept=\["x", "state"\],\s+written=\[\],', text), text
    mod = convert(MAYBE_NUMBER)
    timed = _timing_every_candidate(mod)
    x, state = torch.arange(16, dtype=torch.float32), torch.ones(16)
    mod.launch_accumulate(0, (2,), (x, state, 1, 8))
    assert torch.equal(x, torch.arange(16, dtype=torch.float32) * 2)  # once, though timed
    assert torch.equal(state, torch.arange(16, dtype=torch.float32) + 1)
    assert len(timed) >= 5
    y = torch.arange(16, dtype=torch.float32)
    mod.launch_accumulate(0, (2,), (y, 0, 0, 8))  # no state: a number in its place
    assert torch.equal(y, torch.arange(16, dtype=torch.float32) * 2)
