"""Array.tiled_view (cuda-tile 1.7): a view of an array as its grid of tiles of one shape,
whose load, store and num_tiles are ct.load, ct.store and ct.num_tiles of the array with that
tile shape and padding mode (real cuTile compiles these kernels: checked with export_kernel)."""
import pytest
import torch

VIEWS = '''
import cuda.tile as ct


@ct.kernel
def scale(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    tv = x.tiled_view((BM, BN), padding_mode=ct.PaddingMode.ZERO)
    out = y.tiled_view((BM, BN))
    i = ct.bid(0)
    for j in range(tv.num_tiles(1)):
        t = tv.load((i, j))
        out.store((i, j), t * 2 + tv.tile_shape[1])


@ct.kernel
def chained(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    y.tiled_view((B,)).store((i,), x.tiled_view((B,), padding_mode=ct.PaddingMode.ZERO).load((i,)) + 1)
'''


def test_a_tiled_views_methods_are_the_arrays_memory_operations(convert, convert_text, device):
    text = convert_text(VIEWS)
    assert "tiled_view" not in text  # nothing of the view is left: its pieces are the array's
    mod = convert(VIEWS)
    x = torch.randn(40, 70, device=device)  # neither side a multiple of the tiles: padded, clipped
    y = torch.empty_like(x)
    mod.launch_scale(0, (3,), (x, y, 16, 32))
    torch.testing.assert_close(y, x * 2 + 32)
    x1 = torch.randn(50, device=device)
    y1 = torch.empty_like(x1)
    mod.launch_chained(0, (4,), (x1, y1, 16))
    torch.testing.assert_close(y1, x1 + 1)


def _kernel(body):
    return f'''
import cuda.tile as ct


@ct.kernel
def k(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    {body}
'''


def test_what_a_tiled_view_cannot_do_is_a_located_error(convert_error):
    wider = _kernel("y.tiled_view((16, 16)).store((i, 0), ct.zeros((32,), dtype=ct.float32))")
    assert "does not broadcast to the view's tile shape" in convert_error(wider)
    plain = _kernel("t = x.load((i,))")
    assert "works on a tiled view" in convert_error(plain)
    zero = _kernel("t = x.tiled_view((B, B), traversal_steps=(0, B)).load((i, 0))")
    assert "step 0 of traversal_steps is not positive" in convert_error(zero)
    short = _kernel("t = x.tiled_view((B, B), traversal_steps=(B,)).load((i, 0))")
    assert "traversal_steps needs one entry per array dimension" in convert_error(short)
    # a name bound to two views by a run-time condition: each use would read one view's shape
    chosen = _kernel("if i > 8:\n"
                     "        tv = x.tiled_view((B, 2 * B))\n"
                     "    else:\n"
                     "        tv = x.tiled_view((2 * B, B))\n"
                     "    ct.store(y, (i, 0), tv.load((i, 0)))")
    assert "a tiled view in one branch and another view" in convert_error(chosen)


def test_two_views_chosen_by_a_constexpr_are_a_version_each(convert, device):
    """The same two views chosen by `B > 8`, a constexpr: one version of the kernel per
    outcome, each with its own view (it was refused as for a run-time condition)."""
    mod = convert(_kernel("if B > 8:\n"
                          "        tv = x.tiled_view((B, 2 * B))\n"
                          "    else:\n"
                          "        tv = x.tiled_view((2 * B, B))\n"
                          "    ct.store(y, (i, 0), tv.load((i, 0)))"))
    x = torch.randn(32, 32, device=device)
    for b, rows, cols in ((16, 16, 32), (4, 8, 4)):
        y = torch.zeros(32, 32, device=device)
        mod.launch_k(0, (1,), (x, y, b))
        want = torch.zeros(32, 32, device=device)
        want[:rows, :cols] = x[:rows, :cols]
        torch.testing.assert_close(y, want)


STEPS = """
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def window(x, out, TILE: ConstInt, STEP: ConstInt):
    src = x.tiled_view(TILE, traversal_steps=STEP)
    dst = out.tiled_view(TILE, traversal_steps=STEP)
    for i in range(src.num_tiles(0)):
        dst.store(i, src.load(i))


@ct.kernel
def box_sums(x, out, KH: ConstInt, KW: ConstInt, SH: ConstInt, SW: ConstInt, OW: ConstInt):
    patches = x.tiled_view((KH, KW), padding_mode=ct.PaddingMode.ZERO, traversal_steps=(SH, SW))
    sums = out.tiled_view(())
    i = ct.bid(0)
    for j in range(OW):
        sums.store(i * OW + j, ct.sum(patches.load((i, j))))


@ct.kernel
def counted(x, out, TILE: ConstInt, STEP: ConstInt):
    tv = x.tiled_view(TILE, traversal_steps=STEP)
    out.tiled_view(1).store(0, tv.num_tiles(0) * 100 + tv.traversal_steps[0])


@ct.kernel
def every_other(x, out, SH: ConstInt, SW: ConstInt, NW: ConstInt):
    picks = x.tiled_view((), traversal_steps=(SH, SW))
    i = ct.bid(0)
    for j in range(NW):
        out.tiled_view(()).store(i * NW + j, picks.load((i, j)))


@ct.kernel
def padded_windows(x, out, TILE: ConstInt, STEP: ConstInt):
    src = x.tiled_view((TILE, TILE), padding_mode=ct.PaddingMode.NEG_INF, traversal_steps=(STEP, STEP))
    i = ct.bid(0)
    j = ct.bid(1)
    ct.store(out, (i, j), ct.max(src.load((i, j))))
"""


def test_traversal_steps_overlap_gap_and_count_tiles_as_cutile(convert, device):
    mod = convert(STEPS)
    for tile, step, n in ((4, 2, 8), (4, 8, 16), (4, 3, 12), (8, 3, 13)):
        for dtype in (torch.float32, torch.int32):
            x = torch.arange(1, n + 1, device=device).to(dtype)
            out = torch.zeros(n, dtype=dtype, device=device)
            mod.launch_window(0, (1,), (x, out, tile, step))
            expected = torch.zeros_like(out)
            for start in range(0, n, step):  # each tile's origin: its index times the step
                expected[start:start + tile] = x[start:start + tile]
            torch.testing.assert_close(out, expected)
    counts = torch.zeros(1, dtype=torch.int32, device=device)
    mod.launch_counted(0, (1,), (torch.zeros(16, device=device), counts, 4, 3))
    assert counts.item() == 6 * 100 + 3  # cdiv(16, 3) tile origins; the steps as given


def test_overlapping_2d_windows_and_0d_tiles_with_steps(convert, device):
    mod = convert(STEPS)
    x = torch.randint(0, 10, (7, 9), dtype=torch.int32, device=device)
    kh, kw, sh, sw = 3, 2, 2, 3
    oh, ow = (7 - kh) // sh + 1, (9 - kw) // sw + 1
    out = torch.zeros(oh * ow, dtype=torch.int32, device=device)
    mod.launch_box_sums(0, (oh,), (x, out, 4, 2, sh, sw, ow))  # 4x2 windows: the last rows padded
    padded = torch.nn.functional.pad(x, (0, 2, 0, 4))
    expected = padded.unfold(0, 4, sh).unfold(1, 2, sw)[:oh, :ow].sum(dim=(-2, -1)).flatten()
    torch.testing.assert_close(out, expected.to(torch.int32))
    picks = torch.zeros(2 * 3, device=device)
    y = torch.arange(24.0, device=device).reshape(4, 6)
    mod.launch_every_other(0, (2,), (y, picks, 2, 2, 3))
    torch.testing.assert_close(picks, y[::2, ::2].flatten())


def test_a_strided_view_pads_as_its_padding_mode_says(convert, device):
    mod = convert(STEPS)
    x = torch.randn(10, 10, device=device)
    out = torch.empty(4, 4, device=device)
    mod.launch_padded_windows(0, (4, 4), (x, out, 4, 3))
    expected = torch.empty(4, 4, device=device)
    for i in range(4):
        for j in range(4):
            expected[i, j] = x[3 * i:3 * i + 4, 3 * j:3 * j + 4].max()  # -inf padding: the real maximum
    torch.testing.assert_close(out, expected)


ATOMICS = """
import cuda.tile as ct


@ct.kernel
def combine(x, y, BM: ct.Constant[int], BN: ct.Constant[int], SM: ct.Constant[int], SN: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    update = y.tiled_view((BM, BN), traversal_steps=(SM, SN)).load((i, j))
    x.tiled_view((BM, BN), traversal_steps=(SM, SN)).atomic_store_OP((i, j), update)


@ct.kernel
def broadcast(x, y, B: ct.Constant[int]):
    tv = x.tiled_view((B, B))
    tv.atomic_store_add((ct.bid(0), 0), y.tiled_view((1, B)).load((0, 0)))
    tv.atomic_store_add((ct.bid(0), 0), 1)
"""

TORCH_OPS = {"add": torch.add, "max": torch.maximum, "min": torch.minimum,
             "and": torch.bitwise_and, "or": torch.bitwise_or, "xor": torch.bitwise_xor}


def test_tiled_view_atomics_with_and_without_steps(convert, device):
    for op, torch_op in TORCH_OPS.items():
        mod = convert(ATOMICS.replace("atomic_store_OP", f"atomic_store_{op}"))
        dtype = torch.float32 if op == "add" else torch.int32
        for steps in ((8, 8), (5, 6), (11, 12)):  # side by side, overlapping, gapped
            x = torch.randint(-50, 50, (20, 26), device=device).to(dtype)
            y = torch.randint(-50, 50, (20, 26), device=device).to(dtype)
            expected = x.clone()
            grid = (-(-20 // steps[0]), -(-26 // steps[1]))
            for r in range(0, 20, steps[0]):
                for c in range(0, 26, steps[1]):
                    window = (slice(r, r + 8), slice(c, c + 8))
                    expected[window] = torch_op(expected[window], y[window])
            mod.launch_combine(0, grid, (x, y, 8, 8, *steps))
            torch.testing.assert_close(x, expected)
    mod = convert(ATOMICS.replace("atomic_store_OP", "atomic_store_add"))
    x = torch.zeros(16, 8, device=device)
    y = torch.randn(1, 8, device=device)
    mod.launch_broadcast(0, (2,), (x, y, 8))
    torch.testing.assert_close(x, (y + 1).expand(16, 8))


def test_what_a_tiled_view_atomic_takes(convert_error):
    def kernel(body, dtype="ct.float32"):
        return _kernel(f"t = ct.full((B,), 1, dtype={dtype})\n    {body}")
    wide = kernel("x.tiled_view((16,)).atomic_store_add((i,), ct.full((32,), 1.0, dtype=ct.float32))")
    assert "does not broadcast to the view's tile shape" in convert_error(wide)
    assert "takes an index and an update" in convert_error(kernel("x.tiled_view((B,)).atomic_store_add((i,))"))
    # a float number: never a bitwise update; an arithmetic one needs a float array
    assert "the update must have the array's integer dtype" in convert_error(
        kernel("x.tiled_view((B,)).atomic_store_xor((i,), 1.5)"))


def test_a_float_number_added_through_a_view_needs_a_float_array(convert, convert_text, device):
    source = _kernel("x.tiled_view((B,)).atomic_store_add((i,), 1.5)")
    assert "atomic_store_add() of a float number (x) needs a float array" in convert_text(source)
    mod = convert(source)
    x = torch.zeros(8, device=device)
    mod.launch_k(0, (1,), (x, x, 8))
    torch.testing.assert_close(x, torch.full((8,), 1.5, device=device))
    with pytest.raises(Exception, match="needs a float array"):
        mod.launch_k(0, (1,), (torch.zeros(8, dtype=torch.int32, device=device), x, 8))


def test_the_strided_view_kernels_here_are_valid_cutile(cutile_export):
    """Real cuTile 1.7 compiles the kernels above for sm_100 (where cuda.tile and tileiras are
    importable)."""
    ct, array = cutile_export.ct, cutile_export.array

    def named_k(source, name):
        return source.replace(f"def {name}(", "def k(")

    f32, i32 = array(ct.float32, 1), array(ct.int32, 1)
    assert cutile_export.cubin_size(named_k(STEPS, "window"), [f32, array(ct.float32, 1), 4, 3]) > 0
    assert cutile_export.cubin_size(named_k(STEPS, "box_sums"), [array(ct.int32, 2), i32, 4, 2, 2, 3, 3]) > 0
    assert cutile_export.cubin_size(named_k(STEPS, "counted"), [f32, i32, 4, 3]) > 0
    assert cutile_export.cubin_size(named_k(STEPS, "every_other"), [array(ct.float32, 2), f32, 2, 2, 3]) > 0
    assert cutile_export.cubin_size(named_k(STEPS, "padded_windows"), [array(ct.float32, 2), array(ct.float32, 2),
                                                                       4, 3]) > 0
    for op in TORCH_OPS:
        dtype = ct.float32 if op == "add" else ct.int32
        source = named_k(ATOMICS.replace("atomic_store_OP", f"atomic_store_{op}"), "combine")
        assert cutile_export.cubin_size(source, [array(dtype, 2), array(dtype, 2), 8, 8, 5, 6]) > 0
    source = named_k(ATOMICS.replace("atomic_store_OP", "atomic_store_add"), "broadcast")
    assert cutile_export.cubin_size(source, [array(ct.float32, 2), array(ct.float32, 2), 8]) > 0
    f32_2d = array(ct.float32, 2)
    assert cutile_export.cubin_size(VIEW_ARGUMENTS, [f32_2d, array(ct.float32, 2), array(ct.float32, 2), 8, 4]) > 0


VIEW_ARGUMENTS = """
import cuda.tile as ct


def scaled_tile(tv, i, s):
    return tv.load((i, 0)) * s + tv.tile_shape[1]


def through(tv, out, i):
    out.store((i, 0), scaled_tile(tv, i, 2.0))


@ct.kernel
def k(x, y, z, BM: ct.Constant[int], BN: ct.Constant[int]):
    i = ct.bid(0)
    through(x.tiled_view((BM, BN), padding_mode=ct.PaddingMode.ZERO), y.tiled_view((BM, BN)), i)
    windows = x.tiled_view((BM, 2 * BN), padding_mode=ct.PaddingMode.ZERO, traversal_steps=(BM // 2, BN))
    z.tiled_view((BM, 2 * BN), traversal_steps=(BM // 2, BN)).store((i, 0), scaled_tile(windows, i, 1.0))
"""


def test_a_tiled_view_passed_to_tile_functions_keeps_its_shape_padding_and_steps(convert, convert_text, device):
    """A view is the array with its tile shape and steps as constexpr parameters of the tile
    function (one lowering per kind of view: these two views take two), passed on as given."""
    text = convert_text(VIEW_ARGUMENTS)
    assert "tv_tile_0: tl.constexpr," in text and "tv_tile_1: tl.constexpr," in text
    assert "def scaled_tile_2(" in text and "tv_step_1: tl.constexpr," in text  # the strided view's own lowering
    mod = convert(VIEW_ARGUMENTS)
    x = torch.randn(20, 12, device=device)
    y = torch.zeros(20, 12, device=device)
    z = torch.zeros(20, 12, device=device)
    mod.launch_k(0, (5,), (x, y, z, 8, 4))
    want_y = torch.zeros(20, 12, device=device)
    want_y[:, :4] = x[:, :4] * 2.0 + 4
    torch.testing.assert_close(y, want_y)
    want_z = torch.zeros(20, 12, device=device)
    for i in range(5):  # windows of 8 rows every 4 rows: later windows overwrite the overlap
        want_z[4 * i:4 * i + 8, :8] = x[4 * i:4 * i + 8, :8] + 8
    torch.testing.assert_close(z, want_z)


def test_a_constexpr_choice_of_two_arrays_views_is_a_version_each(convert, device):
    """`x.tiled_view(T) if USE_X else y.tiled_view(T)` (cuTile's own tiled-view tests): an array
    is three parameters in the converted kernel, not a value an expression can choose, so the
    kernel is lowered once per outcome of the constexpr, each version reading its own array.
    The conversion had kept x's view for both outcomes (exit 0, y never read), then refused it."""
    mod = convert('''
import cuda.tile as ct


@ct.kernel
def k(x, y, z, TILE: ct.Constant[int], USE_X: ct.Constant[bool]):
    tv = x.tiled_view(TILE) if USE_X else y.tiled_view(TILE)
    z.tiled_view(TILE).store(0, tv.load(0))
''')
    x, y = torch.arange(8.0, device=device), -torch.arange(8.0, device=device)
    for use_x, want in ((True, x), (False, y)):
        z = torch.zeros(8, device=device)
        mod.launch_k(0, (1,), (x, y, z, 8, use_x))
        torch.testing.assert_close(z, want)


def test_a_run_time_choice_of_two_arrays_views_is_refused(convert_error):
    """The same choice by a value known only when the kernel runs has no version to take."""
    message = convert_error('''
import cuda.tile as ct


@ct.kernel
def k(x, y, z, TILE: ct.Constant[int], use_x: int):
    tv = x.tiled_view(TILE) if use_x > 0 else y.tiled_view(TILE)
    z.tiled_view(TILE).store(0, tv.load(0))
''')
    assert message.startswith("C2T402: this conditional expression chooses between two arrays (or views of them)"), message


def test_a_tile_function_returning_a_view_is_a_located_error(convert_error):
    """cuTile's test_tiled_view_helper_func: a helper that returns `arr.tiled_view(tile_size)`.
    The view's shape was read again in the caller, where the helper's parameter is not
    defined ("name 'tile_size' is not defined"); the error now says what cannot be done."""
    message = convert_error('''
import cuda.tile as ct


def get_view(arr, tile_size):
    return arr.tiled_view(tile_size)


@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    tv = get_view(x, TILE)
    ct.store(y, (0,), tv.load(0))
''')
    assert message.startswith("C2T402: a tile function returning an array (or a view of one) cannot be converted"), message
