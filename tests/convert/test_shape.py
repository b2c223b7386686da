"""Creation and shape operations: arange, full, zeros, ones, astile, reshape, item, permute,
transpose, expand_dims, broadcast_to, cat, extract, insert.

Traps (CUTILE-SEMANTICS.md §3.1/§3.2/§10): arange casts start/step to the dtype first; ct.cat is
not tl.cat (1-D only, may reorder); ct.transpose swaps two axes of an N-D tile (tl.trans needs a
full permutation); extract/insert index a grid of sub-tiles, not elements.
"""
import ops_common
import pytest
import torch


def kernel(body, in_shape, out_rank, extra=""):
    zeros = ", ".join("0" for _ in in_shape)
    shape = ", ".join(str(s) for s in in_shape)
    index = ", ".join("0" for _ in range(out_rank))
    return f"""
import cuda.tile as ct

@ct.kernel
def k(x, y, v{extra}):
    t = ct.load(x, index=({zeros},), shape=({shape},))
    r = {body}
    ct.store(y, index=({index},), tile=r)
"""


def run(convert, body, x, out_shape, out_dtype=None, v=3):
    """Run the kernel on the test device (the GPU when there is one); the result comes back
    to the CPU, where the references are computed."""
    mod = convert(kernel(body, tuple(x.shape), len(out_shape)))
    y = torch.zeros(out_shape, dtype=out_dtype or x.dtype, device=ops_common.DEVICE)
    mod.launch_k(0, (1,), (x.to(ops_common.DEVICE), y, v))
    return y.cpu()


def ramp(*shape, dtype=torch.int32):
    n = 1
    for s in shape:
        n *= s
    return torch.arange(n, dtype=dtype).reshape(shape)


# ---------------------------------------------------------------- creation

def test_arange(convert):
    x = ramp(8)
    assert torch.equal(run(convert, "ct.arange(8, dtype=ct.int32)", x, (8,)), ramp(8))
    assert torch.equal(run(convert, "ct.arange(8, dtype=ct.int32, start=7, step=-1)", x, (8,)),
                       torch.arange(7, -1, -1, dtype=torch.int32))
    assert torch.equal(run(convert, "ct.arange(8, dtype=ct.float32, start=1, step=0.5)", x, (8,), torch.float32),
                       torch.arange(8, dtype=torch.float32) * 0.5 + 1)
    assert torch.equal(run(convert, "ct.arange(8, dtype=ct.int32, start=v, step=2)", x, (8,)),
                       torch.arange(8, dtype=torch.int32) * 2 + 3)


def test_arange_casts_start_and_step_first(convert):
    x = ramp(8)
    # step 1.7 becomes int 1 before the multiply; start 0.9 becomes 0
    assert torch.equal(run(convert, "ct.arange(8, dtype=ct.int32, start=0.9, step=1.7)", x, (8,)), ramp(8))
    # int8 arithmetic wraps: 100 + 10 * i
    want = (torch.arange(8) * 10 + 100).to(torch.int8).to(torch.int32)
    assert torch.equal(run(convert, "ct.arange(8, dtype=ct.int8, start=100, step=10)", x, (8,)), want)
    # float16: the step is rounded to float16 first
    want = (torch.arange(8).half() * torch.tensor(0.1).half()).float()
    assert torch.equal(run(convert, "ct.arange(8, dtype=ct.float16, step=0.1)", x, (8,), torch.float32), want)


def test_full_zeros_ones(convert):
    x = ramp(2, 4)
    assert torch.equal(run(convert, "ct.full((2, 4), 7, ct.int32)", x, (2, 4)), torch.full((2, 4), 7, dtype=torch.int32))
    assert torch.equal(run(convert, "ct.full((2, 4), v, dtype=ct.int32) + t", x, (2, 4)), x + 3)
    assert torch.equal(run(convert, "ct.full(8, v * 0.5, ct.float16)", ramp(8), (8,), torch.float32),
                       torch.full((8,), 1.5))
    assert torch.equal(run(convert, "ct.zeros((2, 4), ct.int32) + t", x, (2, 4)), x)
    assert torch.equal(run(convert, "ct.ones((2, 4), dtype=ct.float32)", x, (2, 4), torch.float32), torch.ones(2, 4))


def test_astile(convert):
    x = ramp(2, 2)
    assert torch.equal(run(convert, "ct.astile(((1, 2), (3, v)), dtype=ct.int32)", x, (2, 2)),
                       torch.tensor([[1, 2], [3, 3]], dtype=torch.int32))
    assert torch.equal(run(convert, "ct.astile((1.5, 2.5), dtype=ct.float32)", ramp(2), (2,), torch.float32),
                       torch.tensor([1.5, 2.5]))


def test_astile_of_a_tuple_held_in_a_name(convert):
    """ct.astile of a tuple kept in a local, a module-level constant or a tuple expression:
    the tuple's items, as for one written in the call (it was refused: "the value must be
    a scalar or a nested tuple of scalars")."""
    mod = convert("""
import torch
import cuda.tile as ct

GRID = ((0, 1), (0, 4))

@ct.kernel
def k(y, z, w, v):
    pair = (1.5, v)
    ct.store(y, (0, 0), ct.astile(GRID, dtype=ct.int32))
    ct.store(z, (0,), ct.astile(pair, dtype=ct.float32))
    ct.store(w, (0,), ct.astile((pair[1], v + 1) if v > 0 else (7, 8), dtype=ct.int32))
""")
    y = torch.zeros(2, 2, dtype=torch.int32, device=ops_common.DEVICE)
    z = torch.zeros(2, device=ops_common.DEVICE)
    w = torch.zeros(2, dtype=torch.int32, device=ops_common.DEVICE)
    mod.launch_k(0, (1,), (y, z, w, 3))
    assert torch.equal(y.cpu(), torch.tensor([[0, 1], [0, 4]], dtype=torch.int32))
    assert torch.equal(z.cpu(), torch.tensor([1.5, 3.0]))
    assert torch.equal(w.cpu(), torch.tensor([3, 4], dtype=torch.int32))


def test_a_tuple_a_host_function_binds_once_is_the_nested_kernels_own(convert, convert_text):
    """A kernel defined in a host function that reads a tuple of numbers the function binds
    once (cuTile's test of ct.astile of a closure value): the tuple is the kernel's local.
    As a constexpr parameter it was typed a number: exit 0, then the kernel failed to
    compile. A tuple bound twice stays a value read at each launch."""
    source = """
import torch
import cuda.tile as ct

def run(x, n):
    value = (0, -1, 0, 4)
    scale = (2, 3)
    if n:
        scale = (n, n)

    @ct.kernel
    def kernel(X):
        ct.store(X, (0,), ct.astile(value, dtype=ct.int32) * scale[0])

    ct.launch(torch.cuda.current_stream(), (1,), kernel, (x,))
    return x
"""
    text = convert_text(source)
    assert "    value = (0, -1, 0, 4)\n" in text.split("def kernel(")[1]
    assert "_nested_kernel(launch_kernel, lambda: (scale,))" in text
    mod = convert(source)
    x = torch.zeros(4, dtype=torch.int32, device=ops_common.DEVICE)
    assert torch.equal(mod.run(x, 0).cpu(), torch.tensor([0, -2, 0, 8], dtype=torch.int32))
    assert torch.equal(mod.run(x, 5).cpu(), torch.tensor([0, -5, 0, 20], dtype=torch.int32))


# ------------------------------------------------------------------ shape

def test_reshape(convert):
    x = ramp(4, 8)
    assert torch.equal(run(convert, "ct.reshape(t, (8, -1))", x, (8, 4)), x.reshape(8, 4))
    assert torch.equal(run(convert, "t.reshape((32,))", x, (32,)), x.reshape(32))
    assert torch.equal(run(convert, "t.reshape((2, 2, -1)).reshape((4, 8))", x, (4, 8)), x)


def test_item(convert):
    x = ramp(4)
    assert torch.equal(run(convert, "ct.arange(4, dtype=ct.int32) * ct.reshape(ct.sum(t, 0, keepdims=True), (1,)).item()",
                           x, (4,)), torch.arange(4, dtype=torch.int32) * 6)


IDENTITY_OF_A_LOCAL = """
import cuda.tile as ct

@ct.kernel
def k(x, y):
    total = ct.sum(ct.load(x, index=(0,), shape=(16,)))
    same = ct.reshape(total, ())
    scalar = total.item()
    reduced = ct.max(total)
    ct.store(y, index=(0,), tile=ct.full((4,), 0, ct.int32) + same + scalar + reduced)
"""


def test_operations_that_give_back_a_local_unchanged(convert, convert_text):
    # a 0-d local reshaped to (), .item() and reduced: each is the local itself, and the statement
    # is written from the tree (it was copied from the source, ct.reshape and all)
    body = convert_text(IDENTITY_OF_A_LOCAL).split("def k(")[1].split("def launch_k")[0]
    assert "ct." not in body and "same = total\n" in body and "scalar = total\n" in body
    mod = convert(IDENTITY_OF_A_LOCAL)
    y = torch.zeros(4, dtype=torch.int32, device=ops_common.DEVICE)
    mod.launch_k(0, (1,), (torch.arange(16, dtype=torch.int32, device=ops_common.DEVICE), y))
    assert torch.equal(y.cpu(), torch.full((4,), 3 * 120, dtype=torch.int32))


def test_permute_and_transpose(convert):
    x = ramp(2, 4, 8)
    assert torch.equal(run(convert, "ct.permute(t, (2, 0, 1))", x, (8, 2, 4)), x.permute(2, 0, 1))
    assert torch.equal(run(convert, "ct.transpose(t, 0, 2)", x, (8, 4, 2)), x.transpose(0, 2))
    assert torch.equal(run(convert, "t.transpose(-1, 1)", x, (2, 8, 4)), x.transpose(1, 2))
    y = ramp(4, 8)
    assert torch.equal(run(convert, "ct.transpose(t)", y, (8, 4)), y.t())
    assert torch.equal(run(convert, "t.permute((1, 0))", y, (8, 4)), y.t())


@pytest.mark.parametrize("shape, axes", [
    ((1, 4, 8), (0, 2, 1)),        # a batched GEMM's transposed operand: (1, TN, TK) -> (1, TK, TN)
    ((1, 4, 8), (2, 0, 1)),
    ((4, 1, 8), (2, 1, 0)),
    ((1, 4, 8), (1, 0, 2)),        # the two long axes kept in order: a reshape
    ((1, 4, 1, 8), (3, 2, 0, 1)),
    ((2, 1, 1), (2, 0, 1)),        # one long axis
    ((1, 1, 1), (2, 1, 0)),
])
def test_permute_of_a_tile_with_unit_axes(convert, convert_text, shape, axes):
    # all axes of extent 1 but two: the two swapped as a 2-D tl.trans between reshapes, which
    # Triton keeps in shared memory for ct.mma (tl.permute of the 3-D tile went through registers)
    x = ramp(*shape)
    expected = x.permute(*axes)
    assert torch.equal(run(convert, f"ct.permute(t, {axes})", x, tuple(expected.shape)), expected)
    body = convert_text(kernel(f"ct.permute(t, {axes})", shape, len(shape))).split("def launch_k")[0]
    assert "tl.permute" not in body
    long_axes = [d for d in range(len(shape)) if shape[d] != 1]
    swapped = len(long_axes) == 2 and [a for a in axes if a in long_axes] != long_axes
    assert ("tl.trans(" in body) == swapped


def test_permute_of_three_long_axes_stays_tl_permute(convert_text):
    body = convert_text(kernel("ct.permute(t, (2, 0, 1))", (2, 4, 8), 3)).split("def launch_k")[0]
    assert "tl.permute(t, (2, 0, 1))" in body


def test_expand_dims_and_broadcast_to(convert):
    x = ramp(8)
    assert torch.equal(run(convert, "ct.expand_dims(t, 0)", x, (1, 8)), x[None])
    assert torch.equal(run(convert, "ct.expand_dims(t, -1)", x, (8, 1)), x[:, None])
    assert torch.equal(run(convert, "ct.broadcast_to(t, (4, 8))", x, (4, 8)), x.expand(4, 8))
    y = ramp(4, 1)
    assert torch.equal(run(convert, "ct.broadcast_to(t, (2, 4, 8))", y, (2, 4, 8)), y.expand(2, 4, 8))


def test_cat(convert):
    x = ramp(2, 4)
    assert torch.equal(run(convert, "ct.cat((t, t + 100), 0)", x, (4, 4)), torch.cat((x, x + 100), 0))
    assert torch.equal(run(convert, "ct.cat((t, t + 100), axis=1)", x, (2, 8)), torch.cat((x, x + 100), 1))
    assert torch.equal(run(convert, "ct.cat((t, t + 100), -1)", x, (2, 8)), torch.cat((x, x + 100), 1))
    y = ramp(4)
    assert torch.equal(run(convert, "ct.cat((t + 100, t), 0)", y, (8,)), torch.cat((y + 100, y)))
    assert torch.equal(run(convert, "ct.cat((t,), 1)", x, (2, 4)), x)  # one tile: itself


CAT_AXIS_AT_LAUNCH = '''
import cuda.tile as ct


@ct.kernel
def k(x, out, AXIS: ct.Constant[int]):
    t = ct.load(x, index=(0, 0), shape=(2, 4))
    both = ct.cat((t, t * 10), AXIS)
    ct.store(out, (0,), tile=both.reshape((16,)))
'''


def test_cat_along_an_axis_given_at_launch(convert, convert_text):
    """A ct.Constant axis: ct_cat_2d picks the helper of that axis when Triton compiles, and
    each dimension of the result doubles where it is the axis."""
    assert "ct_cat_2d(t, t * 10, AXIS)" in convert_text(CAT_AXIS_AT_LAUNCH)
    mod = convert(CAT_AXIS_AT_LAUNCH)
    x = ramp(2, 4)
    for axis in (0, 1, -1, -2):
        out = torch.zeros(16, dtype=x.dtype)
        mod.launch_k(0, (1,), (x, out, axis))
        assert torch.equal(out, torch.cat((x, x * 10), axis).reshape(16)), axis


def test_extract_constant_index(convert):
    x = ramp(8)
    assert torch.equal(run(convert, "ct.extract(t, (1,), shape=(4,))", x, (4,)), x[4:])
    assert torch.equal(run(convert, "ct.extract(t, 5, (1,))", x, (1,)), x[5:6])
    y = ramp(4, 8)
    assert torch.equal(run(convert, "ct.extract(t, (0, 1), shape=(2, 2))", y, (2, 2)), y[0:2, 2:4])
    assert torch.equal(run(convert, "ct.extract(t, (3, 2), shape=(1, 2))", y, (1, 2)), y[3:4, 4:6])
    assert torch.equal(run(convert, "ct.extract(t, (1, 0), shape=(2, 8))", y, (2, 8)), y[2:4])
    z = ramp(2, 2, 4)
    assert torch.equal(run(convert, "ct.extract(t, (1, 0, 1), shape=(1, 2, 2))", z, (1, 2, 2)), z[1:2, :, 2:4])


def test_extract_runtime_index(convert):
    y = ramp(4, 8)
    for v in (0, 3):
        got = run(convert, "ct.extract(t, (v // 2, v), shape=(2, 2))", y, (2, 2), v=v)
        assert torch.equal(got, y[v // 2 * 2:v // 2 * 2 + 2, 2 * v:2 * v + 2])


def test_extract_element(convert):
    y = ramp(4, 8)
    body = "ct.full((2,), ct.extract(t, (2, 5), shape=()), ct.int32) + ct.extract(t, (v, 1), shape=())"
    assert torch.equal(run(convert, body, y, (2,)), torch.full((2,), int(y[2, 5] + y[3, 1]), dtype=torch.int32))


def test_extract_keeps_float_bits(convert):
    x = torch.tensor([-0.0, float("nan"), float("inf"), 1.0, -0.0, 2.0, -3.0, 4.0])
    got = run(convert, "ct.extract(t, (v,), shape=(4,))", x, (4,), v=1)
    assert torch.equal(got.view(torch.int32), x[4:].view(torch.int32))
    got = run(convert, "ct.extract(t, (0,), shape=(4,))", x, (4,), v=0)
    assert torch.equal(got.view(torch.int32), x[:4].view(torch.int32))


def test_insert(convert):
    x = ramp(8)
    want = x.clone()
    want[4:] = 99
    assert torch.equal(run(convert, "ct.insert(t, (1,), ct.full((4,), 99, ct.int32))", x, (8,)), want)
    y = ramp(4, 8)
    want = y.clone()
    want[2:4, 6:8] = -1
    assert torch.equal(run(convert, "t.insert((v - 2, v), ct.full((2, 2), -1, ct.int32))", y, (4, 8)), want)
    want = y.clone()
    want[3, 5] = 7
    assert torch.equal(run(convert, "ct.insert(t, (3, 5), ct.astile(7, dtype=ct.int32))", y, (4, 8)), want)


@pytest.mark.parametrize("body, message", [
    ("ct.reshape(t, (3, -1))", "power of two"),
    ("ct.reshape(t, (4, 4))", "cannot be reshaped"),
    ("ct.transpose(t.reshape((2, 2, 2)))", "both axes"),
    ("ct.transpose(t.reshape((2, 4)), 0)", "both axes or neither"),
    ("ct.permute(t.reshape((2, 4)), (0,))", "each of the"),
    ("ct.extract(t, (2,), shape=(4,))", "out of range"),
    ("ct.extract(t, (0,), shape=(3,))", "power of two"),
    ("ct.cat((t.astype(ct.int32), t.astype(ct.float32)), 0)", "different dtypes"),
    ("ct.cat((t, t, t), 0)", "one or two tiles"),
    ("ct.cat((t,), 1)", "out of range"),
    ("ct.broadcast_to(t, (4, 4))", "cannot be broadcast"),
    ("ct.full((2, 2), t, ct.int32)", "scalar"),
])
def test_errors(convert_error, body, message):
    assert message in convert_error(kernel(body, (8,), 1))


ELLIPSIS_INDEX = """
import cuda.tile as ct


@ct.kernel
def k(x, y, z, w, T0: ct.Constant[int], T1: ct.Constant[int]):
    tx = ct.load(x, index=(0, 0), shape=(T0, T1))
    ct.store(y, index=(0, 0, 0), tile=tx[..., None])
    ct.store(z, index=(0, 0, 0), tile=tx[None, ...])
    ct.store(w, index=(0, 0, 0, 0), tile=tx[:, None, ..., None])
"""


def test_ellipsis_indexing_a_tile_is_spelled_out(convert, convert_text):
    """`tx[..., None]` (cuTile's test_new_axis_indexing): Triton indexes tensors with None and
    ':' only ("unsupported tensor index: Ellipsis"), so the '...' becomes the ':'s it stands
    for. It was kept as written: exit 0, then the kernel failed to compile."""
    text = convert_text(ELLIPSIS_INDEX)
    assert "tx[:, :, None]" in text and "tx[None, :, :]" in text and "tx[:, None, :, None]" in text
    mod = convert(ELLIPSIS_INDEX)
    x = torch.randn(4, 8, device=ops_common.DEVICE)
    y, z, w = (torch.zeros(s, device=ops_common.DEVICE) for s in ((4, 8, 1), (1, 4, 8), (4, 1, 8, 1)))
    mod.launch_k(0, (1,), (x, y, z, w, 4, 8))
    assert torch.equal(y, x[..., None]) and torch.equal(z, x[None]) and torch.equal(w, x[:, None, :, None])


def test_numpy_newaxis_indexing_a_tile_is_none(convert_text):
    """`tx[:, :, np.newaxis]` (cuTile's test_new_axis_indexing): np.newaxis is None; Triton reads
    no numpy global in a kernel, so it is written None (it was refused)."""
    text = convert_text("""
import numpy as np
import cuda.tile as ct


@ct.kernel
def k(x, y, T0: ct.Constant[int], T1: ct.Constant[int]):
    tx = ct.load(x, index=(0, 0), shape=(T0, T1))
    ct.store(y, index=(0, 0, 0), tile=tx[:, :, np.newaxis])
""")
    assert "tx[:, :, None]" in text and "np.newaxis" not in text.split("def k(")[1].split("def launch_k")[0]


SAME_CONSTANT_BOTH_BRANCHES = """
import cuda.tile as ct


@ct.kernel
def k(x, y):
    if ct.bid(0) == 1:
        a = 16
    else:
        a = 16
    t = ct.arange(a, dtype=ct.float32) + ct.load(x, (0,), (a,))
    ct.store(y, (0,), t.reshape((a, 1)).reshape((a,)) + ct.full((a,), 2.0, ct.float32))
"""


def test_a_size_known_here_but_bound_in_both_branches_of_a_run_time_if_is_written_as_the_number(convert,
                                                                                                   convert_text):
    """`a = 16` in both branches of an `if` on a run-time value (cuTile's test_control_flow): the
    converter knows a is 16, but to Triton it is a tensor, which no tile shape takes ("Shape
    element 0 must have type constexpr[int]"): exit 0, then no compile. Such sizes are written as
    the number (a load's shape was refused: "'a' sizes a tile here")."""
    text = convert_text(SAME_CONSTANT_BOTH_BRANCHES)
    assert "tl.arange(0, 16)" in text and "tl.full((16,), 2.0, tl.float32)" in text, text
    assert "ct_load_1d(x, x_shape, x_strides, 0, 16, None)" in text, text
    mod = convert(SAME_CONSTANT_BOTH_BRANCHES)
    y = torch.zeros(16, device=ops_common.DEVICE)
    mod.launch_k(0, (1,), (torch.ones(16, device=ops_common.DEVICE), y))
    torch.testing.assert_close(y, torch.arange(16.0, device=ops_common.DEVICE) + 3)


def test_a_closure_tuple_a_helper_rebinds_through_nonlocal_is_not_taken_as_known(convert_error):
    """A tuple the host function binds once but a nested helper may rebind (`nonlocal value`)
    is read at each launch, not copied into the kernel; as a ct.Constant tuple, whose shape
    comes with the launch, ct.astile of it is a located error (it exited 0, then the kernel
    did not compile)."""
    message = convert_error("""
import torch
import cuda.tile as ct


def run(x, n):
    value = (1, 2)

    def bump():
        nonlocal value
        value = (n, n)

    @ct.kernel
    def kernel(X):
        ct.store(X, (0,), ct.astile(value, dtype=ct.int32))

    if n:
        bump()
    ct.launch(torch.cuda.current_stream(), (1,), kernel, (x,))
""")
    assert message.startswith("C2T402: ct.astile() of a ct.Constant tuple"), message


SAME_AXES = """
import cuda.tile as ct

@ct.kernel
def k(x, y):
    tx = ct.load(x, index=(0, 0), shape=(16, 8))
    same = ct.transpose(tx, 0, 0)
    kept = ct.permute(same, (0, 1))
    ct.store(y, index=(0, 0), tile=kept.transpose(1, 1))
"""


def test_a_transpose_of_one_axis_with_itself_is_the_tile(convert, convert_text):
    # cuTile's transpose(t, 0, 0) and permute(t, (0, 1)) give the tile back: the statements are
    # written from the tree (they were copied from the source, ct.transpose and all: "name 'ct' is
    # not defined" at run time)
    body = convert_text(SAME_AXES).split("def k(")[1].split("def launch_k")[0]
    assert "ct." not in body and "same = tx\n" in body and "kept = same\n" in body
    x = ramp(16, 8)
    y = torch.zeros(16, 8, dtype=x.dtype, device=x.device)
    convert(SAME_AXES).launch_k(0, (1,), (x, y))
    assert torch.equal(y, x)
