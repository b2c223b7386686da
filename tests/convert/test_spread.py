"""Persistent kernels whose programs share one grid-stride loop (src/lower/lower_spread.c):
where the program count cannot change what the kernel computes, the launch's grid is a
_SpreadGrid and the autotuner may launch more programs than the host asked for; anywhere
else the host's grid stands."""

import subprocess

import ops_common
import pytest
import torch

ROWS = '''
import torch
import cuda.tile as ct


@ct.kernel
def scale_rows(x, y, n_rows: int, TILE: ct.Constant[int]):
    """y[r] = 2 x[r] + 1, a row a step of a persistent loop"""
    bid = ct.bid(0)
    programs = ct.num_blocks(0)
    offsets = ct.arange(TILE, dtype=ct.int32)
    for row in range(bid, n_rows, programs):
        t = ct.gather(x, (row, offsets), padding_value=0)
        u = t * 2
        ct.scatter(y, (row, offsets), u + 1)


@ct.kernel
def tile_rows(x, y, n_rows: int, TILE: ct.Constant[int]):
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        t = ct.load(x, index=(row, 0), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
        if TILE > 8:
            t = t * 2
        else:
            t = t + t
        ct.store(y, index=(row, 0), tile=t + 1)


def run(kernel, x, programs):
    y = torch.zeros_like(x)
    ct.launch(torch.cuda.current_stream(), (programs, 1, 1), kernel, (x, y, x.shape[0], x.shape[1]))
    return y
'''


def test_a_grid_stride_loop_may_spread_its_grid(convert_text):
    text = convert_text(ROWS)
    assert text.count("_grid_spread: tl.constexpr = 1,") == 2
    assert text.count("spread=True") == 2
    assert "_SpreadGrid(grid, n_rows, (y,), (x,))" in text
    assert '"_grid_spread"' not in text[:text.index("def scale_rows")]  # a candidate's choice, not the key


def test_fixed_launch_options_leave_the_spread_out(tmp_path, device):
    """With --no-autotune no candidate spreads the grid: the kernels take no _grid_spread and
    the launch no _SpreadGrid, and the fixed module still computes what cuTile does."""
    src, dst = tmp_path / "rows.py", tmp_path / "rows_fixed.py"
    src.write_text(ROWS)
    proc = subprocess.run([str(ops_common.CONVERTER), "--no-autotune", str(src), "-o", str(dst)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    text = dst.read_text()
    assert "_grid_spread" not in text and "_SpreadGrid" not in text and "@triton.autotune" not in text
    mod = ops_common.import_file(dst, "c2t_case_rows_fixed")
    x = torch.randn(13, 16, device=device)
    for name in ("scale_rows", "tile_rows"):
        torch.testing.assert_close(mod.run(getattr(mod, name), x, 5), x * 2 + 1)


@pytest.mark.parametrize("name", ["scale_rows", "tile_rows"])
def test_any_program_count_computes_what_cutile_does(convert, device, name):
    """The rule's claim: the grid's first axis may be any count. The kernel run on 1, 3, 7
    and one program a row, and through the launcher (its autotuner trying the spread
    candidates), against torch."""
    mod = convert(ROWS)
    x = torch.randn(13, 16, device=device)
    want = x * 2 + 1
    kernel = getattr(mod, name).fn
    flags = {k: v for k, v in (("x_tma", True), ("y_tma", True), ("_use_tma", False)) if k in kernel.arg_names}
    for programs in (1, 3, 7, 13, 40):
        y = torch.zeros_like(x)
        kernel[(programs, 1, 1)](x, tuple(x.shape), tuple(x.stride()), y, tuple(y.shape), tuple(y.stride()), 13, 16,
                                 **flags)
        torch.testing.assert_close(y, want)
    torch.testing.assert_close(mod.run(getattr(mod, name), x, 2), want)


def test_the_spread_grid_is_capped_and_kept_off_aliased_arrays(convert, device):
    mod = convert(ROWS)
    x, y = torch.randn(13, 16, device=device), torch.zeros(13, 16, device=device)
    spread = mod._SpreadGrid((4, 1, 1), 100, (y,), (x,))
    assert spread({"_grid_spread": 1}) == (4, 1, 1)
    assert spread({"_grid_spread": 8}) == (32, 1, 1)
    assert mod._SpreadGrid((4, 1, 1), 13, (y,), (x,))({"_grid_spread": 8}) == (13, 1, 1)  # at most the rows
    assert mod._SpreadGrid((20, 1, 1), 13, (y,), (x,))({"_grid_spread": 8}) == (20, 1, 1)  # at least the host's
    assert mod._SpreadGrid((4, 2, 1), None, (y,), (x,))({"_grid_spread": 8}) == (32, 2, 1)  # no stop known
    assert mod._SpreadGrid((2**30, 1, 1), None, (y,), (x,))({"_grid_spread": 8}) == (2**31 - 1, 1, 1)  # CUDA's limit
    # one tensor given as both arrays (in place), or a view of it: the host's grid
    assert mod._SpreadGrid((4, 1, 1), 100, (x,), (x,))({"_grid_spread": 8}) == (4, 1, 1)
    assert mod._SpreadGrid((4, 1, 1), 100, (x[1:],), (x,))({"_grid_spread": 8}) == (4, 1, 1)


def test_in_place_launches_compute_what_cutile_does(convert, device):
    mod = convert(ROWS)
    x = torch.randn(13, 16, device=device)
    want = x * 2 + 1
    for name in ("scale_rows", "tile_rows"):
        z = x.clone()
        getattr(mod, "launch_" + name)(0, (2, 1, 1), (z, z, 13, 16))
        torch.testing.assert_close(z, want)


KEPT_OFF = {
    "a value carried from one iteration to the next": '''
    acc = ct.zeros((1, TILE), dtype=ct.float32)
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        acc = acc + ct.load(x, index=(row, 0), shape=(1, TILE))
        ct.store(y, index=(row, 0), tile=acc)
''',
    "a store after the loop": '''
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        ct.store(y, index=(row, 0), tile=ct.load(x, index=(row, 0), shape=(1, TILE)))
    ct.store(y, index=(0, 0), tile=ct.zeros((1, TILE), dtype=ct.float32))
''',
    "an index that is not the loop's variable": '''
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        ct.store(y, index=(row // 2, 0), tile=ct.load(x, index=(row, 0), shape=(1, TILE)))
''',
    "a written array read": '''
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        t = ct.load(y, index=(row + 1, 0), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(row, 0), tile=t + ct.load(x, index=(row, 0), shape=(1, TILE)))
''',
    "a tile function called": '''
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        ct.store(y, index=(row, 0), tile=twice(ct.load(x, index=(row, 0), shape=(1, TILE))))
''',
    "an atomic operation": '''
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        ct.atomic_add(y, (row, 0), 1.0)
''',
    "the block index read elsewhere": '''
    bid = ct.bid(0)
    for row in range(bid, n_rows, ct.num_blocks(0)):
        ct.store(y, index=(row, 0), tile=ct.load(x, index=(row, 0), shape=(1, TILE)) + bid)
''',
    "a loop that does not start at the block index": '''
    for row in range(0, n_rows, ct.num_blocks(0)):
        ct.store(y, index=(row, 0), tile=ct.load(x, index=(row, 0), shape=(1, TILE)))
''',
    "one array written at two positions": '''
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        t = ct.load(x, index=(row, 0), shape=(1, TILE))
        ct.scatter(y, (row, 0), 1.0)
        ct.scatter(y, (0, row), 2.0)
''',
    "two stores of one array": '''
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        ct.store(y, index=(row, 0), tile=ct.load(x, index=(row, 0), shape=(1, TILE)))
        ct.store(y, index=(row, 0), tile=ct.load(x, index=(row, 0), shape=(2, TILE)))
''',
    "the program count read elsewhere": '''
    programs = ct.num_blocks(0)
    for row in range(ct.bid(0), n_rows - programs + programs, programs):
        ct.store(y, index=(row, 0), tile=ct.load(x, index=(row, 0), shape=(1, TILE)))
''',
    "a row of the written array read at another row": '''
    offsets = ct.arange(TILE, dtype=ct.int32)
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        t = ct.gather(y, (row + 1, offsets), padding_value=0)
        ct.scatter(y, (row, offsets), t * 2)
''',
    "a stored array gathered at its row": '''
    offsets = ct.arange(TILE, dtype=ct.int32)
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        t = ct.gather(y, (row, offsets), padding_value=0)
        ct.store(y, index=(row, 0), tile=ct.reshape(t, (1, TILE)))
''',
    "a write before the loop": '''
    ct.store(y, index=(0, 0), tile=ct.zeros((1, TILE), dtype=ct.float32))
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        ct.store(y, index=(row, 0), tile=ct.load(x, index=(row, 0), shape=(1, TILE)))
''',
    "a break": '''
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        if row > 4:
            break
        ct.store(y, index=(row, 0), tile=ct.load(x, index=(row, 0), shape=(1, TILE)))
''',
    "the loop's variable rebound": '''
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        t = ct.load(x, index=(row, 0), shape=(1, TILE))
        row = row + 1
        ct.store(y, index=(row, 0), tile=t)
''',
}


@pytest.mark.parametrize("why", sorted(KEPT_OFF))
def test_the_host_grid_stands_where_the_program_count_may_matter(convert_text, why):
    source = '''
import cuda.tile as ct


@ct.function
def twice(t):
    return t * 2


@ct.kernel
def k(x, y, n_rows: int, TILE: ct.Constant[int]):
''' + KEPT_OFF[why]
    text = convert_text(source)
    assert "_grid_spread: tl.constexpr" not in text and "_SpreadGrid(grid" not in text and "spread=True" not in text, why


IN_PLACE = '''
import cuda.tile as ct


@ct.kernel
def double_rows(x, n_rows: int, TILE: ct.Constant[int]):
    """x[r] = 2 x[r] in place: each iteration reads and writes its own row only"""
    offsets = ct.arange(TILE, dtype=ct.int32)
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        t = ct.gather(x, (row, offsets), padding_value=0)
        ct.scatter(x, (row, offsets), t * 2)
'''


def test_a_row_gathered_and_scattered_in_place_may_spread(convert_text, convert, device):
    """TileGym's online cross-entropy writes its probabilities over the logits it read, row by
    row: a gather of the scattered array at the loop's own row reads only what that iteration
    writes. Any program count computes what cuTile does."""
    assert "_SpreadGrid(grid, n_rows, (x,), ())" in convert_text(IN_PLACE)
    mod = convert(IN_PLACE)
    kernel = mod.double_rows.fn
    start = torch.arange(13 * 16, dtype=torch.float32, device=device).reshape(13, 16)
    for programs in (1, 3, 13, 40):
        x = start.clone()
        kernel[(programs, 1, 1)](x, tuple(x.shape), tuple(x.stride()), 13, 16)
        torch.testing.assert_close(x, start * 2)
    x = start.clone()
    mod.launch_double_rows(0, (2, 1, 1), (x, 13, 16))
    torch.testing.assert_close(x, start * 2)


FLATTENED = '''
import torch
import cuda.tile as ct


@ct.kernel
def scale_blocks(x, y, TILE: ct.Constant[int]):
    """y = 3 x + 1 over (batch, head, block of TILE) flattened into one grid-stride loop"""
    heads = x.shape[1]
    blocks = ct.cdiv(x.shape[2], TILE)
    total = x.shape[0] * heads * blocks
    for idx in range(ct.bid(0), total, ct.num_blocks(0)):
        bh = idx // blocks
        v = idx % blocks
        b = bh // heads
        h = bh % heads
        t = ct.load(x, index=(b, h, v), shape=(1, 1, TILE), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(b, h, v), tile=t * 3 + 1)


@ct.kernel
def scale_pairs(x, y, TILE: ct.Constant[int]):
    """the same over (row, block) with the quotient and remainder spelt in the index"""
    blocks = ct.cdiv(x.shape[1], TILE)
    for idx in range(ct.bid(0), x.shape[0] * blocks, ct.num_blocks(0)):
        t = ct.load(x, index=(idx // blocks, idx % blocks), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(idx // blocks, idx % blocks), tile=t * 3 + 1)
'''


def test_a_store_at_the_loop_variable_s_quotient_and_remainder_may_spread(convert_text, convert, device):
    """i -> (i // n, i % n) is one to one, so a kernel that walks (batch, head, block) flattened
    and stores at the parts writes one tile an iteration, as at the loop variable itself. Any
    program count computes what cuTile does."""
    text = convert_text(FLATTENED)
    assert text.count("_grid_spread: tl.constexpr = 1,") == 2 and text.count("spread=True") == 2
    mod = convert(FLATTENED)

    def run(kernel, x, programs):
        kernel = kernel.fn
        flags = {k: v for k, v in (("x_tma", True), ("y_tma", True), ("_use_tma", False)) if k in kernel.arg_names}
        y = torch.zeros_like(x)
        kernel[(programs, 1, 1)](x, tuple(x.shape), tuple(x.stride()), y, tuple(y.shape), tuple(y.stride()), 16,
                                 **flags)
        return y

    x = torch.randn(2, 3, 40, device=device)  # 18 blocks of 16 (the last one short)
    for programs in (1, 5, 18, 40):
        torch.testing.assert_close(run(mod.scale_blocks, x, programs), x * 3 + 1)
        torch.testing.assert_close(run(mod.scale_pairs, x.reshape(6, 40), programs), x.reshape(6, 40) * 3 + 1)
    y = torch.zeros_like(x)
    mod.launch_scale_blocks(0, (2, 1, 1), (x, y, 16))
    torch.testing.assert_close(y, x * 3 + 1)


FLATTENED_KEPT_OFF = {
    "a quotient and a remainder by two divisors": '''
    blocks = ct.cdiv(x.shape[1], TILE)
    for idx in range(ct.bid(0), x.shape[0] * blocks, ct.num_blocks(0)):
        t = ct.load(x, index=(idx // blocks, idx % TILE), shape=(1, TILE))
        ct.store(y, index=(idx // blocks, idx % TILE), tile=t)
''',
    "a quotient alone": '''
    blocks = ct.cdiv(x.shape[1], TILE)
    for idx in range(ct.bid(0), x.shape[0] * blocks, ct.num_blocks(0)):
        r = idx // blocks
        ct.store(y, index=(r, 0), tile=ct.load(x, index=(r, 0), shape=(1, TILE)))
''',
    "a part bound twice": '''
    blocks = ct.cdiv(x.shape[1], TILE)
    for idx in range(ct.bid(0), x.shape[0] * blocks, ct.num_blocks(0)):
        r = idx // blocks
        c = idx % blocks
        if TILE > 8:
            r = 0
        ct.store(y, index=(r, c), tile=ct.load(x, index=(r, c), shape=(1, TILE)))
''',
    "a divisor the loop computes": '''
    for idx in range(ct.bid(0), x.shape[0] * 4, ct.num_blocks(0)):
        blocks = 4
        ct.store(y, index=(idx // blocks, idx % blocks), tile=ct.load(x, index=(0, 0), shape=(1, TILE)))
''',
    "the parts scattered": '''
    blocks = ct.cdiv(x.shape[1], TILE)
    for idx in range(ct.bid(0), x.shape[0] * blocks, ct.num_blocks(0)):
        ct.scatter(y, (idx // blocks, idx % blocks), 1.0)
''',
    "a product of matrices (a persistent GEMM)": '''
    blocks = ct.cdiv(x.shape[1], TILE)
    for idx in range(ct.bid(0), ct.cdiv(x.shape[0], TILE) * blocks, ct.num_blocks(0)):
        a = ct.load(x, index=(idx // blocks, 0), shape=(TILE, TILE), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, a, ct.zeros((TILE, TILE), dtype=ct.float32))
        ct.store(y, index=(idx // blocks, idx % blocks), tile=acc)
''',
    "the parts stored twice": '''
    blocks = ct.cdiv(x.shape[1], TILE)
    for idx in range(ct.bid(0), x.shape[0] * blocks, ct.num_blocks(0)):
        t = ct.load(x, index=(idx // blocks, idx % blocks), shape=(1, TILE))
        ct.store(y, index=(idx // blocks, idx % blocks), tile=t)
        ct.store(y, index=(idx // blocks, idx % blocks), tile=t + 1)
''',
}


@pytest.mark.parametrize("why", sorted(FLATTENED_KEPT_OFF))
def test_the_host_grid_stands_where_the_parts_may_not_give_the_variable_back(convert_text, why):
    source = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
''' + FLATTENED_KEPT_OFF[why]
    text = convert_text(source)
    assert "_grid_spread: tl.constexpr" not in text and "_SpreadGrid(grid" not in text, why


SEARCHED = '''
import torch
import cuda.tile as ct
from cuda.tile.tune import exhaustive_search


@ct.kernel
def scale_rows(x, y, n_rows: int, TILE: ct.Constant[int]):
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        t = ct.load(x, index=(row, 0), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(row, 0), tile=t * 2 + 1)


def tune(x, y):
    return exhaustive_search([16], 0, lambda t: (2,), scale_rows, lambda t: (x, y, x.shape[0], t), quiet=True)
'''


def test_a_module_that_tunes_itself_may_spread_the_grid_too(convert_text, convert, device):
    """A kernel of a module that times its kernels (exhaustive_search) has fixed launch options,
    which the search may replace (_searched_launch): its candidates spread the grid as the
    autotuner's do. Made the only candidates, the spread ones compute what cuTile does."""
    text = convert_text(SEARCHED)
    assert "_SpreadGrid(grid, n_rows, (y,), (x,))" in text and "spread=True" in text
    fixed = subprocess.run([str(ops_common.CONVERTER), "--no-autotune", "-o", "-", "-"], input=SEARCHED,
                           capture_output=True, text=True, timeout=60)
    assert fixed.returncode == 0 and "_SpreadGrid(" not in fixed.stdout  # fixed options: the host's grid
    assert "_grid_spread" not in fixed.stdout
    mod = convert(SEARCHED)
    x = torch.randn(13, 16, device=device)
    y = torch.zeros_like(x)
    mod.tune(x, y)  # under the interpreter the search times nothing: the fixed options
    torch.testing.assert_close(y, x * 2 + 1)
    grids = []
    spread_grid = mod._SpreadGrid.__call__
    mod._SpreadGrid.__call__ = lambda self, meta: grids.append(spread_grid(self, meta)) or grids[-1]
    made = mod._launch_candidates
    mod._launch_candidates = lambda configs, *args, **options: [None] + [
        c for c in made(configs, *args, **options) if c.kwargs.get("_grid_spread", 1) > 1]
    trial = mod._OptionTrial()  # as the search's second round launches each candidate
    mod._OptionTrial.current = trial
    try:
        for index in (1, 2, 3, 4):
            trial.index = index
            y.zero_()
            mod.launch_scale_rows(0, (2, 1, 1), (x, y, 13, 16))
            torch.testing.assert_close(y, x * 2 + 1)
    finally:
        mod._OptionTrial.current = None
    assert trial.count == 5 and grids[-4:] == [(13, 1, 1)] * 4  # 2 x 16 programs, at most a row each


STEPPED = '''
import torch
import cuda.tile as ct


@ct.kernel
def center_rows(x, y, mean, n_rows: int, TILE: ct.Constant[int], COMPUTE: ct.Constant[int],
                NUM_SMS: ct.Constant[int]):
    """y[r] = x[r] - mean[r], the mean computed and stored, or read (TileGym's persistent
    layer norm), in a loop that steps by the host's program count"""
    pid = ct.bid(0)
    for r in range(pid, n_rows, NUM_SMS):
        t = ct.load(x, index=(r, 0), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
        if COMPUTE:
            m = ct.sum(t, axis=1) / TILE
            ct.store(mean, index=(r,), tile=m)
        else:
            m = ct.gather(mean, r + ct.arange(1, dtype=ct.int32))
        ct.store(y, index=(r, 0), tile=t - m[:, None])
'''


def _only_spread_candidates(mod):
    """The launch candidates that spread the grid, where the launch allows any."""
    made = mod._launch_candidates

    def spread_only(configs, *args, **options):
        found = made(configs, *args, **options)
        return [c for c in found if c.kwargs.get("_grid_spread", 1) > 1] or found

    mod._launch_candidates = spread_only


def test_a_loop_stepping_by_the_host_s_program_count_may_spread(convert_text, convert, device):
    """TileGym's persistent layer norm steps by NUM_SMS, the grid's size its host passes. Where
    the launch's grid is that count (_grid_steps), the kernel steps by the program count and
    may be spread; elsewhere it steps by the parameter on the host's grid, as cuTile does:
    3 programs stepping by 5 leave rows 3, 4, 8 and 9. Mean is stored under one constant and
    gathered under the other, never both in one specialization."""
    text = convert_text(STEPPED)
    assert "tl.num_programs(0) if _step_is_grid else NUM_SMS" in text
    assert "_step_is_grid: tl.constexpr = False," in text
    assert "_SpreadGrid(grid, n_rows, (y, mean), (x,), _grid_steps(grid, n_rows, NUM_SMS))" in text
    assert "_step_is_grid=_grid_steps(grid, n_rows, NUM_SMS)," in text
    assert 'spread=launch.get("_step_is_grid", False)' in text
    mod = convert(STEPPED)
    _only_spread_candidates(mod)
    x = torch.randn(13, 16, device=device)
    given = torch.randn(13, device=device)
    for grid, step in ((4, 4), (13, 13), (3, 5), (5, 3), (20, 16)):
        covered = torch.zeros(13, dtype=torch.bool)
        for p in range(grid):
            covered[p::step] = True
        for compute in (1, 0):
            y = torch.zeros_like(x)
            mean = torch.zeros(13, device=device) if compute else given.clone()
            mod.launch_center_rows(0, (grid, 1, 1), (x, y, mean, 13, 16, compute, step))
            want_mean = x.mean(dim=1) if compute else given
            want = torch.where(covered[:, None].to(device), x - want_mean[:, None], torch.zeros_like(x))
            torch.testing.assert_close(y, want, msg=f"grid {grid}, step {step}, compute {compute}")
            if compute:
                torch.testing.assert_close(mean, torch.where(covered.to(device), want_mean, torch.zeros_like(given)))


def test_grid_steps_holds_where_the_step_is_the_program_count(convert):
    mod = convert(STEPPED)
    assert mod._grid_steps((4, 1, 1), None, 4) and mod._grid_steps(4, 100, 4)
    assert not mod._grid_steps((3, 1, 1), None, 5) and not mod._grid_steps((5, 1, 1), 100, 3)
    assert mod._grid_steps((20, 1, 1), 13, 16)  # no program reaches a second row either way
    assert not mod._grid_steps((20, 1, 1), None, 16) and not mod._grid_steps((20, 1, 1), 13, 8)
    assert not mod._grid_steps((4, 1, 1), None, 4.0)
    assert not mod._grid_steps((3, 1, 1), -5, -1)  # a step down walks rows 3, 2, 1, ... from each program
    x = torch.zeros(4)
    assert mod._SpreadGrid((4, 1, 1), None, (x,), (), True)({"_grid_spread": 8}) == (32, 1, 1)
    assert mod._SpreadGrid((3, 1, 1), None, (x,), (), False)({"_grid_spread": 8}) == (3, 1, 1)


COMPUTED_STOP = '''
import torch
import cuda.tile as ct


@ct.kernel
def scale_tiles(x, y, TILE: ct.Constant[int], NUM_SMS: ct.Constant[int]):
    """y = 2 x + 1, a tile a step of a loop whose stop the kernel computes"""
    n_tiles = ct.cdiv(x.shape[0], TILE)
    last = n_tiles
    for t in range(ct.bid(0), last, NUM_SMS):
        v = ct.load(x, index=(t,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(t,), tile=v * 2 + 1)


@ct.kernel
def scale_doubled(x, y, n_rows: int, TILE: ct.Constant[int], NUM_SMS: ct.Constant[int]):
    """the stop a parameter the kernel rebinds: the host's value is not the loop's"""
    n_rows = n_rows * 2
    for r in range(ct.bid(0), n_rows, NUM_SMS):
        v = ct.load(x, index=(r, 0), shape=(1, TILE))
        ct.store(y, index=(r, 0), tile=v * 2 + 1)
'''


def test_a_stop_the_kernel_computes_caps_the_spread_grid(convert_text, convert, device):
    """A stop bound before the loop to an expression of the parameters is computed on the
    host too (cuTile's exact ceiling for ct.cdiv): the spread grid holds no program past it,
    and a host grid of at least the stop lets the loop step by the program count. A parameter
    the kernel rebinds is not the loop's stop: the host knows none there (5 programs stepping
    by 6 over 2 x 4 rows: cuTile leaves row 5, where 4 taken for the stop would walk them all)."""
    text = convert_text(COMPUTED_STOP)
    stop = "lambda: -(-x.shape[0] // TILE)"
    assert f"_SpreadGrid(\n                grid,\n                {stop},\n" in text
    assert f"_step_is_grid=_grid_steps(grid, {stop}, NUM_SMS)," in text
    assert "_SpreadGrid(grid, None, (y,), (x,), _grid_steps(grid, None, NUM_SMS))" in text
    mod = convert(COMPUTED_STOP)
    _only_spread_candidates(mod)
    grids = []
    spread_grid = mod._SpreadGrid.__call__
    mod._SpreadGrid.__call__ = lambda self, meta: grids.append(spread_grid(self, meta)) or grids[-1]
    x = torch.randn(50, device=device)
    # 2 by 2: spread, at most the 7 tiles; 9 by 16: one tile a program either way, the loop
    # steps by the program count (never fewer than the host's programs); 3 by 5: the host's
    for grid, step, programs in ((2, 2, 7), (9, 16, 9), (3, 5, 3)):
        y = torch.zeros_like(x)
        grids.clear()
        mod.launch_scale_tiles(0, (grid, 1, 1), (x, y, 8, step))
        covered = torch.zeros(7, dtype=torch.bool)
        for p in range(grid):
            covered[p::step] = True
        want = torch.where(covered.repeat_interleave(8)[:50].to(device), x * 2 + 1, torch.zeros_like(x))
        torch.testing.assert_close(y, want, msg=f"grid {grid}, step {step}")
        assert grids and all(g[0] == programs for g in grids), (grid, step, grids)
    assert mod._grid_steps((9, 1, 1), lambda: -(-50 // 8), 16) and not mod._grid_steps((9, 1, 1), None, 16)
    x = torch.randn(8, 16, device=device)
    y = torch.zeros_like(x)
    mod.launch_scale_doubled(0, (5, 1, 1), (x, y, 4, 16, 6))
    want = (x * 2 + 1).index_fill(0, torch.tensor([5], device=device), 0.0)
    torch.testing.assert_close(y, want)


def test_the_host_computes_a_stop_or_knows_none(convert):
    mod = convert(COMPUTED_STOP)
    assert mod._loop_stop(7) == 7 and mod._loop_stop(lambda: 3 * 4) == 12 and mod._loop_stop(None) is None
    assert mod._loop_stop(lambda: 2.5) is None and mod._loop_stop(lambda: (3).shape[0]) is None
    assert mod._loop_stop(lambda: 1 // 0) is None and mod._loop_stop(torch.tensor(3)) is None
    x = torch.zeros(4)
    assert mod._SpreadGrid((4, 1, 1), lambda: 10, (x,), ())({"_grid_spread": 8}) == (10, 1, 1)
    assert mod._SpreadGrid((4, 1, 1), lambda: 1 // 0, (x,), ())({"_grid_spread": 8}) == (32, 1, 1)
    assert mod._grid_steps((20, 1, 1), lambda: 13, 16) and not mod._grid_steps((20, 1, 1), lambda: 1 // 0, 16)


STEPPED_KEPT_OFF = {
    "the step read in the body": '''
    for r in range(ct.bid(0), n_rows, NUM_SMS):
        ct.store(y, index=(r, 0), tile=ct.load(x, index=(r, 0), shape=(1, TILE)) + NUM_SMS)
''',
    "the step rebound before the loop": '''
    NUM_SMS = NUM_SMS * 2
    for r in range(ct.bid(0), n_rows, NUM_SMS):
        ct.store(y, index=(r, 0), tile=ct.load(x, index=(r, 0), shape=(1, TILE)))
''',
    "a written array read under a test the launch decides": '''
    offsets = ct.arange(TILE, dtype=ct.int32)
    for r in range(ct.bid(0), n_rows, NUM_SMS):
        if flag > 0:
            ct.scatter(y, (r, offsets), 1.0)
        else:
            t = ct.gather(y, (r + 1, offsets), padding_value=0)
            ct.scatter(x, (r, offsets), t)
''',
    "a written array read at another row under the same constant": '''
    offsets = ct.arange(TILE, dtype=ct.int32)
    for r in range(ct.bid(0), n_rows, NUM_SMS):
        if TILE > 8:
            t = ct.gather(y, (r + 1, offsets), padding_value=0)
            ct.scatter(y, (r, offsets), t)
''',
}


@pytest.mark.parametrize("why", sorted(STEPPED_KEPT_OFF))
def test_the_host_grid_stands_where_a_stepped_loop_may_see_it(convert_text, why):
    source = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, n_rows: int, flag: int, TILE: ct.Constant[int], NUM_SMS: ct.Constant[int]):
''' + STEPPED_KEPT_OFF[why]
    text = convert_text(source)
    assert "_grid_spread: tl.constexpr" not in text and "_SpreadGrid(grid" not in text, why
    assert "_step_is_grid" not in text, why


def test_only_the_kernel_s_own_loop_steps_by_the_program_count(convert_text):
    """A tile function's loop over the same names keeps its step: _step_is_grid is the
    spread kernel's parameter alone."""
    text = convert_text('''
import cuda.tile as ct


@ct.kernel
def k(x, y, n_rows: int, TILE: ct.Constant[int], NUM_SMS: ct.Constant[int]):
    for r in range(ct.bid(0), n_rows, NUM_SMS):
        ct.store(y, index=(r, 0), tile=ct.load(x, index=(r, 0), shape=(1, TILE)))


@ct.function
def total(x, TILE: ct.Constant[int], NUM_SMS: ct.Constant[int]):
    acc = ct.zeros((1, TILE), dtype=ct.float32)
    for r in range(0, 8, NUM_SMS):
        acc = acc + ct.load(x, index=(r, 0), shape=(1, TILE))
    return acc


@ct.kernel
def k2(x, y, TILE: ct.Constant[int], NUM_SMS: ct.Constant[int]):
    ct.store(y, index=(0, 0), tile=total(x, TILE, NUM_SMS))
''')
    assert text.count("tl.num_programs(0) if _step_is_grid else NUM_SMS") == 1
    assert "for r in range(0, 8, NUM_SMS):" in text[text.index("def total("):]
