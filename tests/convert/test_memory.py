"""Memory operations: ct.load / ct.store (both paths: TMA descriptors and pointers),
padding modes, orders, shape=() and scalar stores, check_bounds=False, int64-indexed
arrays, Array.slice, ct.num_tiles, ct.gather / ct.scatter, the atomics and the
block-ordering barriers (CUTILE-SEMANTICS §2, traps 1, 11, 12, 14).

Copies are compared bit for bit. Under Triton's interpreter the descriptor path runs
too and refuses misaligned descriptors, so a wrong TMA flag fails loudly: the cases
below use tensors that take the descriptor path (contiguous, 16-byte rows) and tensors
that must not (100x70 float32: 280-byte rows; offset and transposed views).
"""

import math
import re
import subprocess
from pathlib import Path

import pytest
import torch

import ops_common


@pytest.fixture(autouse=True)
def _on_device(device):
    """Tensors are made where the kernels run: CPU under the interpreter, else the GPU."""
    torch.set_default_device(device)
    yield
    torch.set_default_device("cpu")


def cdiv(a, b):
    return -(-a // b)


def bits(t):
    """A tensor's bits, so that -0.0 != 0.0 and NaN == NaN compare as wanted."""
    view = {torch.float32: torch.int32, torch.float16: torch.int16, torch.float64: torch.int64}
    return t.view(view[t.dtype]) if t.dtype in view else t


def assert_same(actual, expected):
    """Bit-equal, except that any NaN matches any NaN (a descriptor's NaN padding has its own
    payload on the GPU; cuTile's, made by the same hardware, too)."""
    assert actual.shape == expected.shape
    actual, expected = actual.contiguous(), expected.contiguous()
    if actual.is_floating_point():
        assert torch.equal(actual.isnan(), expected.isnan()), (actual, expected)
        actual = torch.where(actual.isnan(), torch.zeros_like(actual), actual)
        expected = torch.where(expected.isnan(), torch.zeros_like(expected), expected)
    assert torch.equal(bits(actual), bits(expected)), (actual, expected)


# ------------------------------------------------------------ load / store

COPY_2D = """
import cuda.tile as ct

@ct.kernel
def copy(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), ct.bid(1)), shape=(BM, BN){load_options})
    ct.store(y, index=(ct.bid(0), ct.bid(1)), tile=t{store_options})
"""


def copy_2d(convert, x, y, bm, bn, load_options="", store_options=""):
    mod = convert(COPY_2D.format(load_options=load_options, store_options=store_options))
    mod.launch_copy(0, (cdiv(y.shape[0], bm), cdiv(y.shape[1], bn)), (x, y, bm, bn))
    return y


@pytest.mark.parametrize("shape", [(64, 48), (100, 70), (37, 20)])
def test_copy_2d_both_paths(convert, shape):
    # (64, 48) float32 takes descriptors; (100, 70) has 280-byte rows (no TMA); (37, 20) is odd
    x = torch.randn(shape)
    y = torch.zeros(shape)
    assert_same(copy_2d(convert, x, y, 16, 32), x)


def test_copy_2d_generated_code_is_readable(convert_text):
    text = convert_text(COPY_2D.format(load_options="", store_options=""))
    assert ("    x_desc_1_ok: tl.constexpr = (\n        _use_tma\n        and x_tma\n"
            "        and BN * (x.dtype.element_ty.primitive_bitwidth // 8) >= 16\n") in text
    assert "    if x_desc_1_ok:\n        t = x_desc_1.load([tl.program_id(0) * BM, tl.program_id(1) * BN])\n" in text
    assert "    else:\n        t = ct_load_2d(x, x_shape, x_strides, tl.program_id(0), tl.program_id(1), BM, BN, None)" in text
    assert "y_desc_2.store([tl.program_id(0) * BM, tl.program_id(1) * BN], t)" in text
    assert ".to(" not in text.split("def copy(")[1].split("def launch_copy")[0]  # tl.store casts


INDEX_IN_LOCALS = """
import cuda.tile as ct

@ct.kernel
def k(x, y, v, w, BM: ct.Constant[int], BN: ct.Constant[int]):
    at = (ct.bid(0), 1)  # a tile index kept in a local, a constant entry among run-time ones
    shape = (16, 16)
    ct.store(y, index=at, tile=ct.load(x, index=at, shape=shape) + 1.0)
    one = (ct.bid(0),)  # a 1-tuple: the 1-D array's only index
    ct.store(w, index=one, tile=ct.load(v, index=one, shape=(BM,)) * 2.0)
"""


@pytest.mark.parametrize("shape", [(64, 48), (100, 70)])
def test_tile_indices_kept_in_local_tuples(convert, shape):
    # (64, 48) float32 takes descriptors, (100, 70) the pointer path; column block 1 of each row block
    mod = convert(INDEX_IN_LOCALS)
    x, v = torch.randn(shape), torch.randn(shape[0])
    y, w = torch.zeros(shape), torch.zeros(shape[0])
    mod.launch_k(0, (cdiv(shape[0], 16),), (x, y, v, w, 16, 16))
    want = torch.zeros(shape)
    want[:, 16:32] = x[:, 16:32] + 1.0
    assert_same(y, want)
    assert_same(w, v * 2.0)


@pytest.mark.parametrize("shape", [(64, 48), (100, 70)])
def test_a_tile_shape_of_constexprs_kept_in_a_local(convert, convert_text, shape):
    """Read back from a plain local tuple, BM is no constexpr to Triton when it compiles for a
    GPU: the local becomes `shape: tl.constexpr = (BM, BN)`, read item by item."""
    source = INDEX_IN_LOCALS.replace("shape = (16, 16)", "shape = (BM, BN)")
    assert "shape: tl.constexpr = (BM, BN)" in convert_text(source)
    mod = convert(source)
    x, v = torch.randn(shape), torch.randn(shape[0])
    y, w = torch.zeros(shape), torch.zeros(shape[0])
    mod.launch_k(0, (cdiv(shape[0], 16),), (x, y, v, w, 16, 16))
    want = torch.zeros(shape)
    want[:, 16:32] = x[:, 16:32] + 1.0
    assert_same(y, want)
    assert_same(w, v * 2.0)


@pytest.mark.parametrize("assigned", [
    "shape = (BM, BN)\n    shape = (BN, BM)",  # twice: no constexpr local
    "shape = (BM, BN)\n    for _ in range(2):\n        shape = (BN, BM)",
])
def test_a_tile_shape_of_constexprs_assigned_more_than_once_is_refused(convert_error, assigned):
    message = convert_error(INDEX_IN_LOCALS.replace("shape = (16, 16)", assigned))
    assert "'shape' sizes a tile here" in message or "must hold constants, assigned once" in message


ORDER_BY_FLAG = """
import cuda.tile as ct

@ct.kernel
def k(x, y, B: ct.Constant[int], T_IN: ct.Constant[bool], T_OUT: ct.Constant[bool]):
    t = ct.load(x, index=(ct.bid(0), ct.bid(1)), shape=(B, B), order="F" if T_IN else "C")
    # the tile rows of the view read: in the order of the load (a guard that is always true)
    rows = ct.num_tiles(x, 0, shape=(B, B), order="F" if T_IN else "C")
    if ct.bid(0) < rows:
        ct.store(y, index=(ct.bid(0), ct.bid(1)), tile=t + 1.0, order=(1, 0) if T_OUT else (0, 1))
"""


@pytest.mark.parametrize("shape", [(64, 64), (48, 80)])
@pytest.mark.parametrize("t_in,t_out", [(False, False), (True, False), (False, True), (True, True)])
def test_order_chosen_by_a_constexpr(convert, convert_text, shape, t_in, t_out):
    # one load (store) per order, the flag picking one when Triton compiles; (64, 64) float32
    # takes descriptors, (48, 80) (a 320-byte row) too, its transpose (a 192-byte row) as well
    text = convert_text(ORDER_BY_FLAG)
    assert "    if T_IN:\n" in text and "    if T_OUT:\n" in text
    x = torch.randn(shape)
    src = x.t() if t_in else x  # the tile (i, j) of the view the kernel reads
    m, n = src.shape
    y = torch.zeros((n, m) if t_out else (m, n))
    convert(ORDER_BY_FLAG).launch_k(0, (m // 16, n // 16), (x, y, 16, t_in, t_out))
    assert_same(y, (src + 1.0).t() if t_out else src + 1.0)


STREAM_ROWS = """
import cuda.tile as ct

@ct.kernel
def k(x, y, R: ct.Constant[int], W: ct.Constant[int]):
    for r in range(ct.num_tiles(x, 0, shape=(R, W))):
        t = ct.load(x, index=(r, ct.bid(0)), shape=(R, W))
        ct.store(y, index=(r, ct.bid(0)), tile=t * 2.0)
"""


def test_a_descriptor_tile_is_a_multiple_of_128_bytes(convert, convert_text):
    # Triton 3.6's pipeliner rings a loop's descriptor loads in shared memory, and a
    # (1, 16) float32 tile (64 bytes) leaves every other entry off TMA's 128-byte
    # alignment: "misaligned address" on the H200. Such tiles take the pointer path.
    text = convert_text(STREAM_ROWS)
    assert "and R * W * (x.dtype.element_ty.primitive_bitwidth // 8) % 128 == 0" in text, text
    assert "primitive_bitwidth // 8) % 128" not in convert_text(STREAM_ROWS.replace("shape=(R, W)", "shape=(4, 32)"))
    mod = convert(STREAM_ROWS)
    for r, w in [(1, 16), (2, 32)]:
        x = torch.randn(6 * r, 4 * w)
        y = torch.zeros_like(x)
        mod.launch_k(0, (4,), (x, y, r, w))
        assert_same(y, x * 2)


def test_allow_tma_given_by_a_constexpr(convert, convert_text):
    # allow_tma=USE_TMA of a ct.Constant[bool]: the descriptor path's condition takes it (a
    # literal False takes pointers at conversion); a store's flag is its own descriptor's
    source = COPY_2D.format(load_options=", allow_tma=USE_TMA", store_options=", allow_tma=not USE_TMA").replace(
        "BN: ct.Constant[int]):", "BN: ct.Constant[int], USE_TMA: ct.Constant[bool]):")
    text = convert_text(source)
    load_ok = text.split("x_desc_1_ok: tl.constexpr = (")[1].split(")\n")[0]
    store_ok = text.split("y_desc_2_ok: tl.constexpr = (")[1].split(")\n")[0]
    assert "and USE_TMA\n" in load_ok and "USE_TMA" not in store_ok.replace("not USE_TMA", ""), text
    assert "and not USE_TMA" in store_ok, store_ok
    mod = convert(source)
    x = torch.randn(64, 48)
    for use in (True, False):
        y = torch.zeros_like(x)
        mod.launch_copy(0, (4, 3), (x, y, 16, 16, use))
        assert_same(y, x)


RANK_AT_LAUNCH = """
import cuda.tile as ct

@ct.kernel
def k(A, y, T: ct.Constant[int]):
    if {test}:
        a = ct.load(A, index=(0, 0), shape=(T, T))
        ct.store(y, index=(0, 0), tile=a)
    else:
        a = ct.load(A, index=(0,), shape=(T,))
        ct.store(y, index=(0, 0), tile=ct.reshape(a, (1, T)))
"""


@pytest.mark.parametrize("test", ["len(A.shape) == 2", "A.ndim == 2"])
def test_an_array_rank_known_at_launch_picks_a_branch(convert, convert_text, test):
    # len(A.shape) of an array whose rank the kernel does not fix: Triton's len() of the
    # shape tuple, a constexpr, so the `if` picks the branch at compile time (cuTile's too)
    source = RANK_AT_LAUNCH.format(test=test)
    assert "    if len(A_shape) == 2:" in convert_text(source)
    mod = convert(source)
    a2, y = torch.randn(16, 16), torch.zeros(16, 16)
    mod.launch_k(0, (1,), (a2, y, 16))
    assert_same(y, a2)
    a1, y = torch.randn(16), torch.zeros(16, 16)
    mod.launch_k(0, (1,), (a1, y, 16))
    assert_same(y[0], a1)


RANK_PINNED = """
import cuda.tile as ct


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    {read}
    ct.store(y, index=(0,), tile=t)
"""

RANK_READS = {
    "load": "t = ct.load(x, index=(0,), shape=(T,))",
    "gather": "t = ct.gather(x, ct.arange(T, dtype=ct.int32))",
}


@pytest.mark.parametrize("read", list(RANK_READS))
def test_an_array_of_another_rank_than_the_kernel_indexes_is_refused_at_launch(convert, convert_text, read):
    """A kernel that indexes x with one entry takes a 1-d x: cuTile refuses a 2-d one when the
    launch compiles ("Index size 1 does not match the array rank 2"; for ct.gather "indices
    must be a tuple of length 2"). The converted kernel read it as if it were 1-d, along its
    first axis with that axis's stride (column 0 of each row, zeros elsewhere), and the
    launch returned that; now the launcher refuses it."""
    source = RANK_PINNED.format(read=RANK_READS[read])
    text = convert_text(source)
    assert '_tensor(x, "x", rank=1)' in text and '_tensor(y, "y", rank=1)' in text, text
    mod = convert(source)
    x, y = torch.randn(16), torch.zeros(16)
    mod.launch_k(0, (1,), (x, y, 16))
    assert_same(y, x)
    with pytest.raises(TypeError, match=r"'x' is a 2-d array where the kernel indexes a 1-d one"):
        mod.launch_k(0, (1,), (torch.randn(4, 4), y, 16))


@pytest.mark.parametrize("read", list(RANK_READS))
def test_cutile_refuses_an_array_of_another_rank_than_the_kernel_indexes(cutile_export, read):
    """The refusal above is cuTile's own, for ct.load and ct.gather alike."""
    c = cutile_export
    source = RANK_PINNED.format(read=RANK_READS[read])
    assert c.cubin_size(source, [c.array(c.ct.float32, 1), c.array(c.ct.float32, 1), 16]) > 0
    with pytest.raises(Exception, match="rank 2|length 2"):
        c.cubin_size(source, [c.array(c.ct.float32, 2), c.array(c.ct.float32, 1), 16])


FLOAT_INDEX = """
import cuda.tile as ct


@ct.kernel
def k(logits, out, TILE_V: ct.Constant[int]):
    pid = ct.bid(0)
    column = pid / 2
    ct.store(out, index=(pid, 0), tile=ct.load(logits, index=(pid, column), shape=(1, TILE_V)))
"""


def test_a_float_index_entry_is_refused_where_it_is(convert_error):
    """pid / 2 is a float (true division): cuTile refuses it as an index entry ("Expected a
    tuple of signed integers"); the conversion passed it on as a tile index (a public SimPO
    kernel's `target / TILE_V`), which the interpreter truncated."""
    message = convert_error(FLOAT_INDEX)
    assert message.startswith("C2T402: the entries of a memory operation's index, shape or order must be "
                              "integers, not a scalar of float32"), message


def test_a_true_division_of_launch_dtypes_is_no_index_entry(convert_error):
    """target / TILE_V with target loaded from an array whose dtype comes with the launch: a
    float whatever that dtype is (cuTile's `/` is true division), so it is refused as an index
    entry too; the conversion passed it on (Triton's GPU compiler refused the float offset)."""
    message = convert_error(FLOAT_INDEX.replace("pid / 2", "ct.load(targets, index=(pid,), shape=(1,)) / TILE_V")
                            .replace("def k(logits, out,", "def k(logits, targets, out,"))
    assert message.startswith("C2T402: the entries of a memory operation's index, shape or order must be "
                              "integers, not a 1-d tile of a float dtype (a true division's)"), message


def test_cutile_refuses_a_float_index_entry(cutile_export):
    c = cutile_export
    with pytest.raises(Exception, match="signed integer"):
        c.cubin_size(FLOAT_INDEX, [c.array(c.ct.float32, 2), c.array(c.ct.float32, 2), 16])


def test_an_array_whose_rank_picks_a_branch_is_not_pinned(convert_text):
    # its rank is learnt inside a constexpr `if` of unknown rank: another launch may give another
    # (y too: it is stored to only in the branches)
    text = convert_text(RANK_AT_LAUNCH.format(test="A.ndim == 2"))
    launch = next(line for line in text.splitlines() if "_kernel_stream(stream" in line)
    assert '_tensor(A, "A")' in launch and "rank=" not in launch, launch


@pytest.mark.parametrize("view", ["offset_columns", "transposed", "offset_buffer"])
def test_copy_2d_views(convert, view):
    base = torch.randn(40, 33)
    if view == "offset_columns":
        x = base[:, 1:]  # base moves by 4 bytes: no TMA
    elif view == "transposed":
        x = base.t()  # last stride is not 1: no TMA
    else:
        buf = torch.randn(5 + 32 * 16)
        x = buf[5:].view(32, 16)  # base 20 bytes in
    y = torch.zeros(x.shape)
    assert_same(copy_2d(convert, x, y, 16, 16), x)
    # and writing into a view
    out_base = torch.zeros(40, 34)
    out = out_base[:, 1:]
    src = torch.randn(out.shape)
    assert_same(copy_2d(convert, src, out, 8, 16), src)
    assert torch.all(out_base[:, 0] == 0)


PADDINGS = {
    "ZERO": 0.0,
    "NEG_ZERO": -0.0,
    "NAN": math.nan,
    "POS_INF": math.inf,
    "NEG_INF": -math.inf,
}


@pytest.mark.parametrize("mode", list(PADDINGS))
@pytest.mark.parametrize("shape", [(40, 24), (100, 70)])
def test_padding_modes(convert, mode, shape):
    # (40, 24) takes descriptors (zero/NaN by TMA, others masked); (100, 70) pointers
    x = torch.randn(shape)
    bm, bn = 32, 32
    y = torch.full((cdiv(shape[0], bm) * bm, cdiv(shape[1], bn) * bn), 7.0)
    copy_2d(convert, x, y, bm, bn, load_options=f", padding_mode=ct.PaddingMode.{mode}")
    expected = torch.full(y.shape, PADDINGS[mode])
    expected[: shape[0], : shape[1]] = x
    assert_same(y, expected)


def test_padding_undetermined_keeps_the_inside(convert):
    x = torch.randn(37, 20)
    y = torch.zeros(64, 32)
    copy_2d(convert, x, y, 32, 32)
    assert_same(y[:37, :20], x)


def test_padding_float_mode_on_int_array_is_refused_by_triton(convert):
    mod = convert(COPY_2D.format(load_options=", padding_mode=ct.PaddingMode.NEG_INF", store_options=""))
    x = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    y = torch.zeros(4, 4, dtype=torch.int32)
    with pytest.raises(Exception, match="padding needs a float array"):
        mod.launch_copy(0, (1, 1), (x, y, 4, 4))


def test_check_bounds_false(convert):
    x = torch.randn(64, 32)
    y = torch.zeros(64, 32)
    copy_2d(convert, x, y, 16, 32, load_options=", check_bounds=False, latency=2, allow_tma=True",
            store_options=", check_bounds=False, allow_tma=False")
    assert_same(y, x)


def test_store_widens_to_the_array_dtype(convert):
    x = torch.randn(16, 24, dtype=torch.float16)
    y = torch.zeros(16, 24, dtype=torch.float32)
    copy_2d(convert, x, y, 8, 8)
    assert_same(y, x.float())


ORDER_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), ct.bid(1)), shape=(BM, BN), order={order}, padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(ct.bid(0), ct.bid(1)), tile=t)
"""


@pytest.mark.parametrize("order", ['"F"', "(1, 0)", "(-1, 0)"])
@pytest.mark.parametrize("shape", [(32, 64), (20, 30)])
def test_load_order_transposes(convert, order, shape):
    # tile axis 0 walks array axis 1: y = x.T (tile (i, j) of shape (BM, BN) covers x[j*BN.., i*BM..])
    mod = convert(ORDER_KERNEL.format(order=order))
    x = torch.randn(shape)
    y = torch.zeros(shape[1], shape[0])
    mod.launch_k(0, (cdiv(shape[1], 16), cdiv(shape[0], 16)), (x, y, 16, 16))
    assert_same(y, x.t())


STORE_ORDER_3D = """
import cuda.tile as ct

@ct.kernel
def k(x, y, A: ct.Constant[int], B: ct.Constant[int], C: ct.Constant[int]):
    t = ct.load(x, index=(0, 0, 0), shape=(A, B, C))
    ct.store(y, index=(0, 0, 0), tile=t, order=(2, 0, 1))
"""


def test_store_order_3d(convert):
    # tile axis d is written along array axis order[d]: y[k2, k0, k1]... y.permute(1, 2, 0) == x
    mod = convert(STORE_ORDER_3D)
    x = torch.randn(2, 4, 8)
    y = torch.zeros(4, 8, 2)
    mod.launch_k(0, (1,), (x, y, 2, 4, 8))
    assert_same(y.permute(2, 0, 1), x)


RANK_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x, y):
    t = ct.load(x, index=({zeros}), shape={shape}, padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=({zeros}), tile=t)
"""


@pytest.mark.parametrize("shape", [(8,), (2, 8), (2, 2, 8), (2, 2, 2, 8), (2, 1, 2, 2, 8)])
@pytest.mark.parametrize("odd", [False, True])
def test_ranks_1_to_5(convert, shape, odd):
    zeros = ", ".join("0" for _ in shape) + ("," if len(shape) == 1 else "")
    mod = convert(RANK_KERNEL.format(zeros=zeros, shape=shape if len(shape) > 1 else f"({shape[0]},)"))
    real = tuple(s - 1 if odd and s > 1 else s for s in shape)  # odd: partial tiles (and no TMA)
    x = torch.randn(real)
    y = torch.zeros(real)
    mod.launch_k(0, (1,), (x, y))
    assert_same(y, x)


ELEMENT_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x, y, out):
    v = ct.load(x, index=(ct.bid(0), 2), shape=(), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(y, index=(ct.bid(0),), tile=v)
    ct.store(out, index=(ct.bid(0), 1), tile=ct.bid(0) * 10)
    ct.store(out, (ct.bid(0), 5), 3)
"""


def test_shape_empty_load_and_scalar_store(convert):
    mod = convert(ELEMENT_KERNEL)
    x = torch.randn(5, 3)
    y = torch.zeros(6)
    out = torch.zeros(6, 3, dtype=torch.int32)
    mod.launch_k(0, (6,), (x, y, out))  # block 5 reads row 5: outside, -inf; its stores fall outside `out`... except column 1
    assert_same(y[:5], x[:, 2])
    assert y[5] == -math.inf
    assert torch.equal(out[:, 1], torch.arange(6, dtype=torch.int32) * 10)
    assert torch.all(out[:, 0] == 0) and torch.all(out[:, 2] == 0)  # (b, 5) is outside: not written


INT64_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x: ct.IndexedWithInt64, y: ct.IndexedWithInt64, B: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(B, B))
    ct.store(y, index=(ct.bid(0), 0), tile=t)
"""


def test_int64_indexed_arrays(convert, convert_text):
    text = convert_text(INT64_KERNEL)
    assert "make_tensor_descriptor" not in text  # descriptor shapes are int32 in Triton
    mod = convert(INT64_KERNEL)
    x = torch.randn(40, 16)
    y = torch.zeros(40, 16)
    mod.launch_k(0, (3,), (x, y, 16))
    assert_same(y, x)


WIDE_NUMBERS = """
import cuda.tile as ct
from typing import Annotated


@ct.kernel
def k(x: ct.IndexedWithInt64, y: Annotated[ct.Array, ct.ArrayAnnotation(index_dtype=ct.int64)], out,
      m: ct.ScalarInt64, n: ct.ScalarInt64[int]):
    # int64 numbers in cuTile: none of these products wraps at 2**31
    rows, cols = x.shape
    ct.store(out, (0,), rows * 1000000000 + cols)
    ct.store(out, (1,), y.shape[0] * y.strides[0] * 1000000000)
    ct.store(out, (2,), m * 100000)
    ct.store(out, (3,), n * 100000)
"""


def test_int64_arrays_and_scalars_compute_in_64_bits(convert, convert_text):
    text = convert_text(WIDE_NUMBERS)
    assert "m = tl.cast(m, tl.int64)" in text and "n = tl.cast(n, tl.int64)" in text, text
    mod = convert(WIDE_NUMBERS)
    out = torch.zeros(4, dtype=torch.int64)
    mod.launch_k(0, (1,), (torch.zeros(3, 5), torch.zeros(4, 6), out, 100000, 70000))
    assert out.tolist() == [3 * 10**9 + 5, 4 * 6 * 10**9, 10**10, 7 * 10**9]


def test_the_wide_numbers_kernel_is_valid_cutile(cutile_export):
    ct, array = cutile_export.ct, cutile_export.array
    compilation = cutile_export.compilation
    wide = compilation.ArrayConstraint(ct.float32, 2, index_dtype=ct.int64, stride_lower_bound_incl=0, alias_groups=[],
                                       may_alias_internally=False, stride_constant=[None, 1],
                                       stride_divisible_by=[16, 1], shape_divisible_by=[1, 1],
                                       base_addr_divisible_by=16)
    wide_1d = compilation.ArrayConstraint(ct.float32, 1, index_dtype=ct.int64, stride_lower_bound_incl=0,
                                          alias_groups=[], may_alias_internally=False, stride_constant=[1],
                                          stride_divisible_by=[1], shape_divisible_by=[1], base_addr_divisible_by=16)
    i64 = compilation.ScalarConstraint(ct.int64)
    assert cutile_export.cubin_size(WIDE_NUMBERS, [wide, wide, array(ct.int64, 1), i64, i64]) > 0


# the compile test's case (tests/compile/cases/static_dims.py), its kernel named k
STATIC_DIMS = (Path(__file__).parents[1] / "compile" / "cases" / "static_dims.py").read_text().replace(
    "def static_dims_kernel(", "def k(")


def test_static_dimensions_of_an_array_annotation_are_constants(convert, convert_text):
    text = convert_text(STATIC_DIMS)
    assert "x_shape: tl.constexpr," in text and "n: tl.constexpr = x_shape[-1]" in text, text
    mod = convert(STATIC_DIMS)
    for cols in (16, 32):  # another shape: another compile, as with cuTile
        x = torch.randn(3, cols)
        y = torch.empty(3)
        mod.launch_k(0, (3,), (x, y))
        torch.testing.assert_close(y, 2 * x.sum(1))


def test_the_static_dimensions_kernel_is_valid_cutile(cutile_export):
    ct, compilation = cutile_export.ct, cutile_export.compilation
    rows = compilation.ArrayConstraint(ct.float32, 2, index_dtype=ct.int32, stride_lower_bound_incl=0,
                                       alias_groups=[], may_alias_internally=False, stride_constant=[None, 1],
                                       shape_constant=[None, 16], stride_divisible_by=[16, 1],
                                       shape_divisible_by=[1, 16], base_addr_divisible_by=16)
    assert cutile_export.cubin_size(STATIC_DIMS, [rows, cutile_export.array(ct.float32, 1)],
                                    convention="cutile_python_v2") > 0


NUM_TILES_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x, out):
    ct.store(out, (0,), ct.num_tiles(x, 0, (16, 32)))
    ct.store(out, (1,), ct.num_tiles(x, 1, (16, 32)))
    ct.store(out, (2,), ct.num_tiles(x, 0, (16, 32), order="F"))
"""


def test_num_tiles(convert):
    mod = convert(NUM_TILES_KERNEL)
    x = torch.zeros(100, 70)
    out = torch.zeros(3, dtype=torch.int32)
    mod.launch_k(0, (1,), (x, out))
    assert out.tolist() == [cdiv(100, 16), cdiv(70, 32), cdiv(70, 16)]


NUM_TILES_0D_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x, out):
    t = ct.load(x, index=(0, 0), shape=(2, 2))  # the array's rank, for the negative axis
    ct.store(out, (0,), ct.num_tiles(x, axis=0, shape=()))
    ct.store(out, (1,), ct.num_tiles(x, axis=-1, shape=()))
    ct.store(out, (2,), ct.num_tiles(x, axis=1, shape=(), order=(1, 0)))

@ct.kernel
def k1(x, out):
    ct.store(out, (0,), ct.num_tiles(x, axis=0, shape=()))
"""


def test_num_tiles_of_a_0d_shape_counts_elements(convert):
    """shape=() is a tile of one element along each of the array's axes (cuTile broadcasts a
    0-d shape to (1,) * rank): the count is the array's extent on the axis the order gives."""
    mod = convert(NUM_TILES_0D_KERNEL)
    x = torch.zeros(5, 7)
    out = torch.zeros(3, dtype=torch.int32)
    mod.launch_k(0, (1,), (x, out))
    assert out.tolist() == [5, 7, 5]
    mod.launch_k1(0, (1,), (torch.zeros(9), out))
    assert out[0] == 9


def test_the_0d_num_tiles_kernel_is_valid_cutile(cutile_export):
    ct = cutile_export.ct
    source = NUM_TILES_0D_KERNEL.replace("def k1(", "def unused_k1(")
    assert cutile_export.cubin_size(source, [cutile_export.array(ct.float32, 2), cutile_export.array(ct.int32, 1)]) > 0


SLICE_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x, y, start, stop, B: ct.Constant[int]):
    v = x.slice({axis}, start, stop)
    t = ct.load(v, (ct.bid(0), ct.bid(1)), (B, B), padding_mode=ct.PaddingMode.NEG_ZERO)
    ct.store(y, (ct.bid(0), ct.bid(1)), t)
"""


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("shape", [(48, 32), (30, 21)])
def test_array_slice_pads_at_the_sliced_extent(convert, axis, shape):
    mod = convert(SLICE_KERNEL.format(axis=axis))
    x = torch.randn(shape)
    start, stop = 3, 3 + 13
    sliced = x[start:stop] if axis == 0 else x[:, start:stop]
    y = torch.full((32, 32), 5.0)
    mod.launch_k(0, (2, 2), (x, y, start, stop, 16))
    expected = torch.full((32, 32), -0.0)
    expected[: sliced.shape[0], : sliced.shape[1]] = sliced[:32, :32]
    assert_same(y, expected)


def test_slice_on_the_last_axis_takes_no_descriptor(convert_text):
    text = convert_text(SLICE_KERNEL.format(axis=1))
    assert not re.search(r"make_tensor_descriptor\(\s*x_slice", text)
    text = convert_text(SLICE_KERNEL.format(axis=0))
    assert re.search(r"make_tensor_descriptor\(\s*x_slice_1", text)


# A view bound under each branch of a constexpr `if`, of an array whose rank is
# learnt inside the `if` (ct.num_tiles): the later loads read the view of the taken
# branch, and the descriptor condition of a view (which reads its shape) stands
# next to the view, not at the top of the kernel where the view does not exist.
BRANCH_SLICE_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x, y, start, stop, AXIS: ct.Constant[int], B: ct.Constant[int]):
    if AXIS == 1:
        n = ct.num_tiles(x, axis=0, shape=(B, B))
    else:
        n = ct.num_tiles(x, axis=1, shape=(B, B))
    if ct.bid(0) < n + 100:
        if AXIS == 1:
            v = x.slice(axis=1, start=start, stop=stop)
        else:
            v = x.slice(axis=0, start=start, stop=stop)
        t = ct.load(v, (ct.bid(0), ct.bid(1)), (B, B), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, (ct.bid(0), ct.bid(1)), t)
"""


@pytest.mark.parametrize("axis", [0, 1])
def test_view_chosen_by_a_constexpr_branch(convert, axis):
    mod = convert(BRANCH_SLICE_KERNEL)
    x = torch.randn(48, 48)
    start, stop = 16, 40
    y = torch.full((32, 32), 5.0)
    mod.launch_k(0, (2, 2), (x, y, start, stop, axis, 16))
    sliced = x[start:stop] if axis == 0 else x[:, start:stop]
    expected = torch.zeros(32, 32)
    expected[: sliced.shape[0], : sliced.shape[1]] = sliced[:32, :32]
    assert_same(y, expected)


def test_view_chosen_by_a_constexpr_branch_keeps_tma_where_it_can(convert_text):
    """The axis-0 view suits TMA, the axis-1 one (the contiguous axis) does not: each
    branch says so in a constexpr that the descriptor condition reads."""
    text = convert_text(BRANCH_SLICE_KERNEL)
    assert re.search(r"x_slice_3_tma_ok: tl.constexpr = len\(x_slice_1_shape\) != 2", text), text
    assert re.search(r"x_slice_3_tma_ok: tl.constexpr = len\(x_slice_2_shape\) != 1", text), text
    assert re.search(r"make_tensor_descriptor\(\s*x_slice_3", text), text
    prologue = text.split("if AXIS == 1:")[0]
    assert "x_slice" not in prologue, prologue


ARRAYS_CHOSEN_AT_RUN_TIME = """
import cuda.tile as ct

@ct.kernel
def by_if(x, z, y, flag: int, B: ct.Constant[int]):
    if flag == 1:
        v = x
    else:
        v = z
    ct.store(y, (ct.bid(0),), ct.load(v, (ct.bid(0),), (B,)))


@ct.kernel
def by_expression(x, z, flag: int, B: ct.Constant[int]):
    dst = x if flag > 0 else z
    ct.store(dst, (ct.bid(0), 0), ct.load(dst, (ct.bid(0), 0), (2, B)) * 2)


@ct.kernel
def in_a_loop(x, z, y, n: int, B: ct.Constant[int]):
    acc = ct.zeros((B,), dtype=ct.float32)
    for i in range(n):
        if i % 2 == 0:
            src = x
        else:
            src = z
        acc += ct.load(src, (ct.bid(0),), (B,))
    ct.store(y, (ct.bid(0),), acc)
"""


def test_an_array_chosen_while_the_kernel_runs_is_either_array(convert, convert_text, device):
    """cuTile takes an array chosen by a value known only when the kernel runs (`if flag: v = x`
    / `else: v = z`, `x if flag > 0 else z`; tileiras 13.4 compiles these): each branch sets the
    pointer, shape and strides of one view, read through pointers (they were refused). By a
    constexpr it is a version each (test_versioning.py)."""
    text = convert_text(ARRAYS_CHOSEN_AT_RUN_TIME)
    assert "v_1, v_1_shape, v_1_strides = x, x_shape, x_strides" in text, text
    assert "chosen_1, chosen_1_shape, chosen_1_strides = z, z_shape, z_strides" in text, text
    mod = convert(ARRAYS_CHOSEN_AT_RUN_TIME)
    x, z = torch.randn(64, device=device), torch.randn(64, device=device)
    for flag, want in ((1, x), (0, z)):
        y = torch.zeros(64, device=device)
        mod.launch_by_if(0, (4,), (x, z, y, flag, 16))
        torch.testing.assert_close(y, want)
    y = torch.zeros(64, device=device)
    mod.launch_in_a_loop(0, (4,), (x, z, y, 3, 16))
    torch.testing.assert_close(y, 2 * x + z)
    x2, z2 = torch.randn(4, 16, device=device), torch.randn(4, 16, device=device)
    x0, z0 = x2.clone(), z2.clone()
    mod.launch_by_expression(0, (2,), (x2, z2, 1, 16))  # written in place: z untouched
    torch.testing.assert_close(x2, x0 * 2)
    torch.testing.assert_close(z2, z0)
    mod.launch_by_expression(0, (2,), (x2, z2, 0, 16))
    torch.testing.assert_close(z2, z0 * 2)


def test_the_run_time_choice_kernels_are_valid_cutile(cutile_export):
    ct, compilation = cutile_export.ct, cutile_export.compilation
    f32 = cutile_export.array(ct.float32, 1)
    f32_2d = cutile_export.array(ct.float32, 2)
    scalar, tile = compilation.ScalarConstraint(ct.int32), compilation.ConstantConstraint(16)
    assert cutile_export.cubin_size(ARRAYS_CHOSEN_AT_RUN_TIME, [f32, f32, f32, scalar, tile], kernel="by_if") > 0
    assert cutile_export.cubin_size(ARRAYS_CHOSEN_AT_RUN_TIME, [f32_2d, f32_2d, scalar, tile],
                                    kernel="by_expression") > 0
    assert cutile_export.cubin_size(ARRAYS_CHOSEN_AT_RUN_TIME, [f32, f32, f32, scalar, tile], kernel="in_a_loop") > 0


def test_an_array_rebound_in_a_loop_to_another_is_a_located_error(convert_error):
    """Which array `src` is after an iteration would be carried by the loop: not converted yet."""
    message = convert_error("""
import cuda.tile as ct

@ct.kernel
def k(x, z, y, n: int, B: ct.Constant[int]):
    src = x
    for i in range(n):
        if i == 1:
            src = z
        ct.store(y, (ct.bid(0),), ct.load(src, (ct.bid(0),), (B,)))
""")
    assert "`src` is bound to another array in this loop than before it" in message, message


UNBOUND_AFTER_IF = {
    "one branch": """
    if flag > 0:
        v = x
    ct.store(y, index=(0,), tile=ct.load(v, index=(0,), shape=(B,)))
""",
    "an inner if": """
    if flag > 0:
        if flag > 1:
            v = x
    else:
        v = x
    ct.store(y, index=(0,), tile=ct.load(v, index=(0,), shape=(B,)))
""",
    "a tile": """
    if flag > 0:
        v = ct.load(x, index=(0,), shape=(B,))
    ct.store(y, index=(0,), tile=v)
""",
    "the else branch": """
    if flag > 0:
        v = x
    else:
        ct.store(y, index=(0,), tile=ct.load(v, index=(0,), shape=(B,)))
""",
}


@pytest.mark.parametrize("case", sorted(UNBOUND_AFTER_IF))
def test_an_array_bound_on_one_path_of_a_run_time_if_is_an_error_where_used(convert_error, case):
    """An array bound in one branch of a run-time `if` only: cuTile refuses a use where it may
    be unbound ("Use of potentially undefined variable", tileiras 13.4's front end); the
    converted kernel used the branch's array on every path, and a tile's conversion did not
    compile (Triton: "t is not defined", at exit 0)."""
    message = convert_error("import cuda.tile as ct\n\n@ct.kernel\n"
                            "def k(x, y, flag: int, B: ct.Constant[int]):" + UNBOUND_AFTER_IF[case])
    assert "'v' may be unbound here: it is bound in only one branch of a run-time `if` above" in message, message


UNBOUND_AFTER_LOOP = {
    "an array": """
    for i in range(n):
        v = x
    ct.store(y, index=(0,), tile=ct.load(v, index=(0,), shape=(B,)))
""",
    "a tile": """
    i = 0
    while i < n:
        v = ct.load(x, index=(0,), shape=(B,))
        i += 1
    ct.store(y, index=(0,), tile=v)
""",
}


@pytest.mark.parametrize("case", sorted(UNBOUND_AFTER_LOOP))
def test_a_name_first_bound_in_a_loop_is_an_error_where_used_after_it(convert_error, case):
    """The loop may run no iteration: cuTile refuses the use after it ("Use of potentially
    undefined variable"); the converted kernel had used the loop's array on every path. A
    ct.static_iter loop is unrolled and binds its names for what follows (the next test)."""
    message = convert_error("import cuda.tile as ct\n\n@ct.kernel\n"
                            "def k(x, y, n: int, B: ct.Constant[int]):" + UNBOUND_AFTER_LOOP[case])
    assert "'v' may be unbound here" in message and "first in a loop that may run no iteration" in message, message


UNBOUND_IN_A_CONSTEXPR_BRANCH = """
import cuda.tile as ct


@ct.kernel
def k(x, y, T: ct.Constant[int], V: ct.Constant[bool], G: ct.Constant[bool]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    for i in range(2):
        if not V:
            t = t + 1.0
        else:
            m = t * 2.0
            t = t + m
    if G:
        if not V:
            t = t * 3.0
        else:
            t = t + m
    ct.store(y, index=(ct.bid(0),), tile=t)
"""


def test_a_name_that_may_be_unbound_read_in_a_constexpr_branch_is_refused_where_compiled(convert, device):
    """`m` is bound first in a loop (when V) and read in a branch of constexpr `if`s: cuTile
    refuses the read only where it compiles that branch (V and G; tileiras 13.4 compiles the
    other launches), so the converted kernel runs for those and Triton's static assertion
    refuses it where cuTile does (it was refused at conversion for every launch)."""
    mod = convert(UNBOUND_IN_A_CONSTEXPR_BRANCH)
    x = torch.arange(16, dtype=torch.float32, device=device)
    y = torch.zeros(16, device=device)
    mod.launch_k(0, (1,), (x, y, 16, False, True))
    torch.testing.assert_close(y, (x + 2) * 3)
    mod.launch_k(0, (1,), (x, y, 16, True, False))
    torch.testing.assert_close(y, x * 9)
    with pytest.raises(Exception, match="'m' may be unbound here"):
        mod.launch_k(0, (1,), (x, y, 16, True, True))


def test_the_constexpr_branch_kernel_is_valid_cutile_where_its_read_is_not_compiled(cutile_export):
    ct, compilation = cutile_export.ct, cutile_export.compilation
    f32 = cutile_export.array(ct.float32, 1)
    const = compilation.ConstantConstraint
    for v, g in ((False, True), (True, False)):
        args = [f32, f32, const(16), const(v), const(g)]
        assert cutile_export.cubin_size(UNBOUND_IN_A_CONSTEXPR_BRANCH, args) > 0
    with pytest.raises(Exception):
        cutile_export.cubin_size(UNBOUND_IN_A_CONSTEXPR_BRANCH, [f32, f32, const(16), const(True), const(True)])


def test_loops_of_both_branches_of_a_constexpr_if_bind_a_name_afresh(convert, convert_text):
    """Each branch of a constexpr `if` binds `v` first in its own loop (an array in one, another
    in the other; a tile read under another constexpr `if` in each, as TileGym's paged decode
    attention does): what the first loop leaves behind is no binding for the second, which
    converts as one kernel (it was refused as an array bound anew in the loop, and the tile's
    use made the converter split the kernel in two versions)."""
    source = """
import cuda.tile as ct

@ct.kernel
def k(x, y, z, n: int, T: ct.Constant[int], P: ct.Constant[int], B: ct.Constant[int]):
    if T:
        for i in range(n):
            v = x
            if P == 1:
                t = ct.load(v, index=(i,), shape=(B,))
            if P == 1:
                ct.store(z, index=(i,), tile=t)
    else:
        for i in range(n):
            v = y
            if P == 1:
                t = ct.load(v, index=(i,), shape=(B,)) * 2
            if P == 1:
                ct.store(z, index=(i,), tile=t)
"""
    text = convert_text(source)
    assert text.count("if P == 1:") == 4, text  # one kernel, not two versions of it
    mod = convert(source)
    x, y, z = torch.arange(8.0), torch.arange(8.0) + 10, torch.zeros(8)
    mod.launch_k(0, (1,), (x, y, z, 2, 0, 1, 4))
    assert torch.equal(z, y * 2)
    mod.launch_k(0, (1,), (x, y, z, 2, 1, 1, 4))
    assert torch.equal(z, x)


def test_a_name_a_static_loop_binds_is_bound_after_it(convert):
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, y, B: ct.Constant[int]):
    for i in ct.static_iter(range(2)):
        v = ct.load(x, index=(i,), shape=(B,))
    ct.store(y, index=(0,), tile=v)
""")
    x, y = torch.arange(8.0), torch.zeros(4)
    mod.launch_k(0, (1,), (x, y, 4))
    assert torch.equal(y, x[4:])


def test_an_array_bound_where_the_other_branch_leaves_or_by_a_constexpr_if_converts(convert):
    """Bound on every path that goes on (the other branch returns), or under a constexpr `if`
    and used under the same one: valid cuTile (exported with tileiras), converted."""
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, y, flag: int, HAS: ct.Constant[int], B: ct.Constant[int]):
    if HAS:
        w = x
    if flag > 0:
        v = x
        ct.store(y, index=(0,), tile=ct.load(v, index=(0,), shape=(B,)))
    if flag > 1:
        return
    else:
        u = x
    ct.store(y, index=(1,), tile=ct.load(u, index=(0,), shape=(B,)) * 2)
    if HAS:
        ct.store(y, index=(2,), tile=ct.load(w, index=(0,), shape=(B,)) * 3)
""")
    x = torch.arange(4.0)
    y = torch.zeros(12)
    mod.launch_k(0, (1,), (x, y, 1, 1, 4))
    assert torch.equal(y, torch.cat([x, x * 2, x * 3]))
    y.zero_()
    mod.launch_k(0, (1,), (x, y, 2, 1, 4))
    assert torch.equal(y, torch.cat([x, torch.zeros(8)]))


LOOP_REBINDS = {
    "store after a loop": """
    dst = x
    for i in range(n):
        dst = y
    ct.store(dst, index=(0,), tile=ct.full((B,), 1.0, dtype=x.dtype))
""",
    "while": """
    dst = x
    i = 0
    while i < n:
        ct.store(dst, index=(i,), tile=ct.full((B,), 1.0, dtype=x.dtype))
        dst = y
        i += 1
""",
    "static": """
    dst = x
    for j in ct.static_iter((1, 2)):
        ct.store(dst, index=(0,), tile=ct.full((B,), j, dtype=x.dtype))
        dst = y
""",
    "swap": """
    src = x
    dst = y
    for i in range(n):
        ct.store(dst, index=(0,), tile=ct.load(src, index=(0,), shape=(B,)) + 1)
        src, dst = dst, src
""",
}


@pytest.mark.parametrize("case", sorted(LOOP_REBINDS))
def test_a_name_bound_to_another_array_in_a_loop_is_an_error(tmp_path, case):
    """In cuTile an array is a value a loop may carry: after `dst = y` in a loop, dst is y
    from the next iteration on and after the loop, x where the loop ran no iteration. The
    converted kernel names an array's pieces where it is used, so it took the last
    assignment's array everywhere (exit 0, the store to y even with n = 0; a public cuTile
    test suite's aliasing test). Refused, located at the assignment in the loop."""
    source = ("import cuda.tile as ct\n\n@ct.kernel\n"
              "def k(x, y, n: int, B: ct.Constant[int]):" + LOOP_REBINDS[case])
    path = tmp_path / "loop_rebinds.py"
    path.write_text(source)
    proc = subprocess.run([str(ops_common.CONVERTER), str(path), "-o", str(tmp_path / "out.py")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and not (tmp_path / "out.py").exists(), proc.stderr
    found = re.match(r"[^\n]*loop_rebinds\.py:(\d+):\d+: error: C2T402: `(\w+)` is bound to another array in "
                     r"this loop than before it", proc.stderr)
    assert found, proc.stderr
    assigned = source.splitlines()[int(found.group(1)) - 1].strip()
    assert assigned.startswith(found.group(2)) and assigned.endswith(("= y", "= dst, src")), proc.stderr


def test_names_unpacked_from_a_tuple_of_arrays_are_those_arrays(convert, convert_text):
    """`dst, src = y, x` gives each name its array, as `dst = y` does (it was refused: the
    parameters, used only through the names, were typed scalars); a swap outside a loop
    swaps the names; an array beside a number in the tuple works too. Nothing is left of
    the assignments of arrays alone, nor of their comments' place."""
    source = """
import cuda.tile as ct

@ct.kernel
def k(x, y, z, B: ct.Constant[int]):
    a, b = x, y  # the two inputs
    a, b = b, a
    t = ct.load(a, index=(ct.bid(0),), shape=(B,))
    u = ct.load(b, index=(ct.bid(0),), shape=(B,))
    c, s = z, 2.0
    ct.store(c, index=(ct.bid(0),), tile=t * s + u)
"""
    text = convert_text(source)
    body = text.split("def k(")[1].split("def launch_k(")[0]
    assert "a, b =" not in body and "    # the two inputs\n" in body, body
    mod = convert(source)
    x, y, z = torch.arange(8.0), torch.arange(8.0) * 10, torch.zeros(8)
    mod.launch_k(0, (2,), (x, y, z, 4))
    assert torch.equal(z, y * 2 + x)


def test_an_array_returned_by_a_tile_function_is_a_located_error_that_says_so(convert_error):
    """A kernel parameter reached only through a tile function's result is typed a scalar:
    the message says what the converter follows (it was only "not a scalar of ?")."""
    message = convert_error("""
import cuda.tile as ct

def swap(a, b):
    return b, a

@ct.kernel
def k(x, y, B: ct.Constant[int]):
    dst, src = swap(x, y)
    ct.store(dst, index=(0,), tile=ct.load(src, index=(0,), shape=(B,)))
""")
    assert "could not follow this value to an array" in message and "tile function's result" in message, message


LOOP_CHOICES = {
    "mode": ("pad = ct.PaddingMode.ZERO", "pad = ct.PaddingMode.NEG_ZERO",
             "ct.load(x, index=(1,), shape=(B,), padding_mode=pad)", "mode"),
    "dtype": ("dt = ct.float32", "dt = ct.float16", "ct.load(x, index=(i,), shape=(B,)).astype(dt)", "dtype"),
}


@pytest.mark.parametrize("case", sorted(LOOP_CHOICES))
def test_a_mode_or_dtype_a_loop_changes_is_an_error(convert_error, case):
    """A padding mode or a dtype is a compile-time value: a loop that gives the name another
    one is invalid cuTile ("not constant", "type depends on path taken", tileiras 13.4's
    front end); the converted kernel used the first one in every iteration."""
    first, again, use, what = LOOP_CHOICES[case]
    message = convert_error(f"""
import cuda.tile as ct

@ct.kernel
def k(x, y, n: int, B: ct.Constant[int]):
    {first}
    for i in range(n):
        t = {use}
        ct.store(y, index=(i,), tile=t.astype(y.dtype))
        {again}
""")
    assert f"is given another {what} in this loop than before it" in message, message


def test_arrays_a_loop_binds_again_alike_or_afresh_convert(convert):
    """A name given the same array again in the loop, or first bound in the loop (each
    iteration binds it before its uses), is no loop-carried array: it converts."""
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, y, z, n: int, B: ct.Constant[int]):
    src = x
    for i in range(n):
        src = x
        dst = z
        t = ct.load(src, index=(i,), shape=(B,))
        out = y
        ct.store(out, index=(i,), tile=t * 2)
        ct.store(dst, index=(i,), tile=t + 1)
""")
    x = torch.arange(8, dtype=torch.float32)
    y, z = torch.zeros(8), torch.zeros(8)
    mod.launch_k(0, (1,), (x, y, z, 2, 4))
    assert torch.equal(y, x * 2) and torch.equal(z, x + 1)


# A tile shape made of a local constant (`total = N * N`, a constexpr local in
# Triton): the parameter's descriptor reads it, so it cannot be made at the top of
# the kernel, before the local is set.
LOCAL_SHAPE_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x, y, N: ct.Constant[int]):
    row = ct.bid(0)
    total = N * N
    t = ct.load(x, index=(row, 0), shape=(1, total))
    t = ct.reshape(t, (N, N))
    t = t / ct.sum(t, axis=1, keepdims=True)
    ct.store(y, index=(row, 0), tile=ct.reshape(t, (1, total)))
"""


def test_descriptor_whose_shape_reads_a_local_constant(convert, convert_text):
    text = convert_text(LOCAL_SHAPE_KERNEL)
    assert text.index("total: tl.constexpr = N * N") < text.index("x_desc_1_ok"), text
    mod = convert(LOCAL_SHAPE_KERNEL)
    x = torch.rand(3, 16) + 0.5
    y = torch.zeros(3, 16)
    mod.launch_k(0, (3,), (x, y, 4))
    r = x.view(3, 4, 4)
    assert_same(y, (r / r.sum(2, keepdim=True)).view(3, 16))


LOOP_SHAPES_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x, y, N: ct.Constant[int], STEPS: ct.Constant[int]):
    width = N * 2
    acc = ct.zeros((N, width), dtype=ct.float32)
    for i in range(STEPS):
        acc += ct.load(x, index=(i, 0), shape=(N, width))
        part = x.slice(axis=0, start=i * N, stop=i * N + N)
        acc += ct.load(part, index=(0, 0), shape=(N, width))
    ct.store(y, index=(0, 0), tile=acc)
"""


def test_a_descriptor_made_at_its_use_in_a_loop_is_made_before_the_loop(convert, convert_text):
    """A block shape reading a local (`width`) makes its descriptor next to its use; in a loop
    that is once per iteration, so the descriptor moves before the loop when it reads nothing
    the loop assigns. A view made in the loop (`part`) keeps its descriptor there."""
    text = convert_text(LOOP_SHAPES_KERNEL)
    body = text[text.index("def k("):text.index("def launch_k")]
    loop = body.index("for i in")
    assert body.index("x_desc_1 = tl.make_tensor_descriptor") < loop, body
    assert body.index("x_desc_2 = tl.make_tensor_descriptor(\n                x_slice_1") > loop, body
    mod = convert(LOOP_SHAPES_KERNEL)
    x = torch.randn(12, 8)
    y = torch.zeros(4, 8)
    mod.launch_k(0, (1,), (x, y, 4, 3))
    want = 2 * sum(x[i * 4:(i + 1) * 4] for i in range(3))
    torch.testing.assert_close(y, want)


# ------------------------------------------------------- gather / scatter

GATHER_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(x, idx, out, B: ct.Constant[int]):
    i = ct.load(idx, (0,), (B,))
    row = ct.bid(0)
    m = (i % 2) == 0
    a = ct.gather(x, (row, i), padding_value=-1.5)
    b = ct.gather(x, (row, i), mask=m, padding_value=9)
    c = ct.gather(x, (i, 1), check_bounds=False, mask=(i >= 0) & (i < 4))
    ct.store(out, (row, 0), a.reshape((1, B)))
    ct.store(out, (row, 1), b.reshape((1, B)))
"""


def test_gather_bounds_mask_padding(convert):
    mod = convert(GATHER_KERNEL)
    x = torch.randn(4, 10)
    idx = torch.tensor([0, 3, -1, 9, 10, 2, -7, 5], dtype=torch.int32)
    out = torch.zeros(4, 16)
    mod.launch_k(0, (4,), (x, idx, out, 8))
    for row in range(4):
        inside = (idx >= 0) & (idx < 10)
        safe = idx.clamp(0, 9).long()
        a = torch.where(inside, x[row, safe], torch.tensor(-1.5))
        b = torch.where(inside & (idx % 2 == 0), x[row, safe], torch.tensor(9.0))
        assert_same(out[row, :8], a)
        assert_same(out[row, 8:], b)


SCATTER_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(src, idx, out, B: ct.Constant[int]):
    i = ct.load(idx, (0,), (B,))
    v = ct.load(src, (0,), (B,))
    ct.scatter(out, i, v, mask=v > 0)
    ct.scatter(out, (i + 20,), 7)
"""


def test_scatter_mask_and_negative_indices(convert):
    mod = convert(SCATTER_KERNEL)
    idx = torch.tensor([0, 3, -1, 19, 25, 2, -20, 5], dtype=torch.int32)
    src = torch.tensor([1.0, -2.0, 3.0, 4.0, 5.0, 6.0, 7.0, -8.0])
    out = torch.zeros(24)
    mod.launch_k(0, (1,), (src, idx, out, 8))
    expected = torch.zeros(24)
    for i, v in zip(idx.tolist(), src.tolist()):
        if 0 <= i < 24 and v > 0:
            expected[i] = v
    for i in idx.tolist():
        if 0 <= i + 20 < 24:
            expected[i + 20] = 7
    assert_same(out, expected)


# -------------------------------------------------------------- atomics

ATOMIC_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(hist, idx, upd, old, B: ct.Constant[int]):
    i = ct.load(idx, (ct.bid(0),), (B,))
    u = ct.load(upd, (ct.bid(0),), (B,))
    o = ct.{op}(hist, i, u{options})
    ct.store(old, (ct.bid(0),), o)
"""

REDUCERS = {
    "atomic_add": lambda a, b: a + b,
    "atomic_max": max,
    "atomic_min": min,
    "atomic_and": lambda a, b: a & b,
    "atomic_or": lambda a, b: a | b,
    "atomic_xor": lambda a, b: a ^ b,
}


@pytest.mark.parametrize("op", list(REDUCERS))
@pytest.mark.parametrize("options", ["", ", memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.BLOCK"])
def test_atomic_histograms(convert, op, options):
    mod = convert(ATOMIC_KERNEL.format(op=op, options=options))
    n, bins = 40, 5
    idx = torch.randint(-2, bins + 2, (n,), dtype=torch.int32)  # duplicates and outside lanes
    upd = torch.randint(-50, 50, (n,), dtype=torch.int32)
    hist = torch.randint(-9, 9, (bins,), dtype=torch.int32)
    start = hist.clone()
    old = torch.zeros(n, dtype=torch.int32)
    mod.launch_k(0, (cdiv(n, 8),), (hist, idx, upd, old, 8))
    expected = start.clone()
    for i, u in zip(idx.tolist(), upd.tolist()):
        if 0 <= i < bins:
            expected[i] = REDUCERS[op](int(expected[i]), u)
    assert torch.equal(hist, expected)
    # each inside lane saw some intermediate value: for add, old values are distinct partial sums
    if op == "atomic_add":
        for b in range(bins):
            lanes = [j for j in range(n) if idx[j] == b]
            olds = sorted(int(old[j]) for j in lanes)
            assert len(set(olds)) == len(olds) or any(int(upd[j]) == 0 for j in lanes)


def test_atomic_add_float(convert):
    mod = convert(ATOMIC_KERNEL.format(op="atomic_add", options=""))
    idx = torch.tensor([0, 1, 1, 2, 2, 2, 9, -1], dtype=torch.int32)
    upd = torch.tensor([0.5, 1.0, 2.0, 0.25, 0.25, 0.5, 4.0, 8.0])
    hist = torch.zeros(3)
    old = torch.zeros(8)
    mod.launch_k(0, (1,), (hist, idx, upd, old, 8))
    assert hist.tolist() == [0.5, 3.0, 1.0]


def test_atomic_xchg_duplicates(convert):
    mod = convert(ATOMIC_KERNEL.format(op="atomic_xchg", options=""))
    idx = torch.tensor([0, 1, 1, 2, 2, 2, 7, -3], dtype=torch.int32)
    upd = torch.tensor([10, 11, 12, 13, 14, 15, 16, 17], dtype=torch.int32)
    hist = torch.tensor([-1, -2, -3], dtype=torch.int32)
    old = torch.zeros(8, dtype=torch.int32)
    mod.launch_k(0, (1,), (hist, idx, upd, old, 8))
    assert hist[0] == 10 and int(hist[1]) in (11, 12) and int(hist[2]) in (13, 14, 15)
    # per slot, the old values and the final value are the initial value and the updates, each once
    for b, first in enumerate([-1, -2, -3]):
        lanes = [j for j in range(8) if 0 <= idx[j] < 3 and idx[j] == b]
        seen = sorted([int(old[j]) for j in lanes] + [int(hist[b])])
        assert seen == sorted([first] + [int(upd[j]) for j in lanes])


CAS_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(arr, idx, exp, out, B: ct.Constant[int]):
    i = ct.load(idx, (0,), (B,))
    e = ct.load(exp, (0,), (B,))
    o = ct.atomic_cas(arr, i, e, 100 + i)
    ct.store(out, (0,), o)
"""


def test_atomic_cas_outside_lanes_return_expected(convert):
    mod = convert(CAS_KERNEL)
    arr = torch.tensor([5, 6, 7, 8], dtype=torch.int32)
    idx = torch.tensor([0, 1, -1, 4, 3, 2, -100, 7], dtype=torch.int32)
    exp = torch.tensor([5, 0, 41, 42, 8, 0, 43, 44], dtype=torch.int32)
    out = torch.zeros(8, dtype=torch.int32)
    mod.launch_k(0, (1,), (arr, idx, exp, out, 8))
    assert arr.tolist() == [100, 6, 7, 103]  # lanes 0 and 4 matched; the others changed nothing
    assert out.tolist() == [5, 6, 41, 42, 8, 7, 43, 44]


# ------------------------------------------------------------- ordering

ORDER_RAW = """
import cuda.tile as ct

@ct.kernel
def k(buf, out, B: ct.Constant[int]):
    t = ct.load(buf, (0,), (B,))
    ct.store(buf, (0,), t * 2)
    u = ct.load(buf, (0,), (B,), order="C")
    ct.store(out, (0,), u + 1)
"""


def test_store_then_load_of_the_same_array_gets_a_barrier(convert, convert_text):
    text = convert_text(ORDER_RAW)
    body = text.split("def k(")[1].split("def launch_k")[0]
    lines = [line.strip() for line in body.splitlines() if not line.strip().startswith("#")]  # code lines
    store = lines.index("ct_store_1d(buf, buf_shape, buf_strides, 0, t * 2)")
    assert lines[store + 1].startswith("tl.debug_barrier()")
    assert body.count("tl.debug_barrier()") == 1  # not before the first load, nor for `out`
    mod = convert(ORDER_RAW)
    buf = torch.arange(16, dtype=torch.float32)
    out = torch.zeros(16)
    mod.launch_k(0, (1,), (buf, out, 16))
    assert_same(out, torch.arange(16, dtype=torch.float32) * 2 + 1)


ORDER_LOOP = """
import cuda.tile as ct

@ct.kernel
def k(acc, n, B: ct.Constant[int]):
    for step in range(n):
        t = ct.load(acc, (0,), (B,))
        ct.store(acc, (0,), t + 1)
"""


def test_loop_carried_store_then_load_gets_a_barrier(convert, convert_text):
    text = convert_text(ORDER_LOOP)
    loop = text.split("for step in range(n):")[1].split("def launch_k")[0]
    code = [line.strip() for line in loop.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert code[0] == "tl.debug_barrier()"  # the store of the previous iteration
    mod = convert(ORDER_LOOP)
    acc = torch.zeros(16)
    mod.launch_k(0, (1,), (acc, 5, 16))
    assert_same(acc, torch.full((16,), 5.0))


LOCK_KERNEL = """
import cuda.tile as ct

@ct.kernel
def k(lock, total, x, B: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0),), (B,))
    while ct.atomic_cas(lock, 0, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass
    s = ct.load(total, (0,), (B,))
    ct.store(total, (0,), s + t)
    ct.atomic_xchg(lock, 0, 0, memory_order=ct.MemoryOrder.RELEASE)
"""


def test_lock_acquire_release_barriers(convert, convert_text):
    text = convert_text(LOCK_KERNEL)
    body = [line.strip() for line in text.split("def k(")[1].split("def launch_k")[0].splitlines()]
    release = next(i for i, line in enumerate(body) if "tl.atomic_xchg" in line)
    assert body[release - 1].startswith("tl.debug_barrier()")
    acquire_end = next(i for i, line in enumerate(body) if line.startswith("s = "))
    assert any(line.startswith("tl.debug_barrier()") for line in body[acquire_end - 2:acquire_end])
    mod = convert(LOCK_KERNEL)
    lock = torch.zeros(1, dtype=torch.int32)
    total = torch.zeros(8)
    x = torch.arange(32, dtype=torch.float32)
    mod.launch_k(0, (4,), (lock, total, x, 8))
    assert_same(total, x.view(4, 8).sum(0))
    assert lock.item() == 0


# ------------------------------------------------------------- refusals


def test_memory_order_on_load_is_refused(convert_error):
    message = convert_error("""
import cuda.tile as ct

@ct.kernel
def k(x, B: ct.Constant[int]):
    t = ct.load(x, (0,), (B,), memory_order=ct.MemoryOrder.ACQUIRE, memory_scope=ct.MemoryScope.DEVICE)
""")
    assert "memory_order" in message


def test_non_power_of_two_tile_is_refused(convert_error):
    message = convert_error("""
import cuda.tile as ct

@ct.kernel
def k(x):
    t = ct.load(x, (0,), (24,))
""")
    assert "powers of two" in message


def test_bad_latency_is_refused(convert_error):
    message = convert_error("""
import cuda.tile as ct

@ct.kernel
def k(x):
    t = ct.load(x, (0,), (16,), latency=11)
""")
    assert "latency" in message


ALIASED = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, TILE: ct.Constant[int]):
    src = x
    dst = y
    out = dst
    t = ct.load(src, index=(ct.bid(0),), shape=(TILE,))
    ct.store(out, index=(ct.bid(0),), tile=t * 2)
'''


def test_an_array_parameter_given_another_name_is_that_array(convert, device):
    """`src = x` then ct.load(src, ...): x is an array (it was taken for a scalar, and the load
    of `src` refused), through a chain of names too."""
    mod = convert(ALIASED)
    x = torch.randn(64, device=device)
    y = torch.empty_like(x)
    mod.launch_k(0, (4,), (x, y, 16))
    torch.testing.assert_close(y, x * 2)


UNPACKED_VIEW_SHAPE = '''
import cuda.tile as ct


@ct.kernel
def k(x, y, start, stop, TM: ct.Constant[int], TN: ct.Constant[int]):
    sub_x = x.slice(axis=1, start=start, stop=stop)
    sub_y = y.slice(axis=1, start=start, stop=stop)
    m, n = sub_x.shape
    for i in range(ct.cdiv(m, TM)):
        for j in range(ct.cdiv(n, TN)):
            ct.store(sub_y, index=(i, j), tile=ct.load(sub_x, index=(i, j), shape=(TM, TN)) + 1)
'''


def test_the_shape_of_a_view_of_unknown_rank_unpacks(convert, device):
    """`m, n = view.shape` before any load tells the view's rank: Triton unpacks the shape
    tuple when it compiles (cuTile's test of 2-D slices does so)."""
    mod = convert(UNPACKED_VIEW_SHAPE)
    x = torch.randn(20, 50, device=device)
    y = torch.zeros_like(x)
    mod.launch_k(0, (1,), (x, y, 5, 37, 8, 16))
    want = torch.zeros_like(x)
    want[:, 5:37] = x[:, 5:37] + 1
    torch.testing.assert_close(y, want)


NUM_TILES_BY_CONDITION = """
import cuda.tile as ct


@ct.kernel
def k(B, out, TN: ct.Constant[int], TK: ct.Constant[int], TRANS: ct.Constant[bool]):
    n = ct.num_tiles(B, 0 if TRANS else 1, (TN, TK) if TRANS else (TK, TN))
    ct.store(out, (0,), ct.full((1,), n, dtype=ct.int32))
"""


def test_num_tiles_along_an_axis_a_constant_chooses(convert):
    """ct.num_tiles(B, 0 if TRANS else 1, ...) with TRANS a Constant (a public MoE grouped GEMM):
    the count of each outcome, chosen as Triton compiles; it was refused ('axis must be a
    constant')."""
    mod = convert(NUM_TILES_BY_CONDITION)
    b = torch.zeros(64, 40)
    for trans, want in ((True, 4), (False, 3)):
        out = torch.zeros(1, dtype=torch.int32)
        mod.launch_k(0, (1,), (b, out, 16, 8, trans))
        assert out.item() == want, (trans, out)


def test_cutile_compiles_num_tiles_along_a_chosen_axis(cutile_export):
    c = cutile_export
    assert c.cubin_size(NUM_TILES_BY_CONDITION, [c.array(c.ct.float32, 2), c.array(c.ct.int32, 1), 16, 8, True]) > 0


RANGE_COUNTER_INDEX = """
import cuda.tile as ct

@ct.kernel
def k(a, out, NT: ct.Constant[int], T: ct.Constant[int]):
    acc = ct.zeros((16, T), dtype=ct.float32)
    for j in range(NT):
        for i in range(2):
            acc = acc + ct.load(a, index=(0, i * NT + j), shape=(16, T), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(0, 0), tile=acc)
"""


def test_a_descriptor_coordinate_from_range_counters_only(convert, device):
    """A tile index made of range() counters alone (an LLM-written int8 GEMM's `i * NT + j`):
    Triton's interpreter runs them as Python ints, which the descriptor's coordinate helper took
    for a tensor ('int' object has no attribute 'dtype')."""
    mod = convert(RANGE_COUNTER_INDEX)
    a = torch.randn(16, 64, device=device)
    out = torch.empty(16, 16, device=device)
    mod.launch_k(0, (1,), (a, out, 2, 16))
    torch.testing.assert_close(out, a[:, 0:16] + a[:, 16:32] + a[:, 32:48] + a[:, 48:64])


CHOSEN_THEN_READ = """
import cuda.tile as ct

@ct.kernel
def by_choice(x, w, y, out, flag):
    b = ct.bid(0)
    dst = x if flag > 0 else w
    ct.store(dst, (b,), ct.load(y, (b,), shape=(1024,)))
    ct.store(out, (b,), ct.load(x, (b * 4 + 3,), shape=(256,)))

@ct.kernel
def read_chosen(x, w, y, out, flag):
    b = ct.bid(0)
    ct.store(x, (b,), ct.load(y, (b,), shape=(1024,)))
    if flag > 0:
        src = x
    else:
        src = w
    ct.store(out, (b,), ct.load(src, (b * 4 + 3,), shape=(256,)))

@ct.kernel
def through_item(x, w, y, out, flag):
    b = ct.bid(0)
    arrs = (x, w)
    for i in ct.static_iter(range(1)):
        ct.store(arrs[i], (b,), ct.load(y, (b,), shape=(1024,)))
    ct.store(out, (b,), ct.load(x, (b * 4 + 3,), shape=(256,)))
"""


def test_a_read_after_a_write_through_a_chosen_array_waits_for_the_block(convert_text):
    """cuTile orders a block's memory operations; the converted kernel puts tl.debug_barrier()
    before a read of an array the block wrote. An array reached through no parameter of its own
    (chosen while the kernel runs, an item of a tuple picked by a counter) may be any of them: a
    barrier is due after a write through one, and before a read through one (there was none)."""
    text = convert_text(CHOSEN_THEN_READ)
    for name in ("by_choice", "read_chosen", "through_item"):
        body = text[text.index(f"def {name}("):text.index(f"def launch_{name}(")]
        assert "tl.debug_barrier()" in body, body


def test_a_tuple_of_other_arrays_in_each_branch_of_a_run_time_if_is_a_located_error(convert_error):
    """Its uses took the last branch's arrays on every path (x read where z was chosen)."""
    message = convert_error("""
import cuda.tile as ct

@ct.kernel
def k(x, z, y, flag):
    if flag > 0:
        arrs = (x, z)
    else:
        arrs = (z, x)
    ct.store(y, (0,), ct.load(arrs[0], (0,), shape=(16,)))
""")
    assert "`arrs` is a tuple of other arrays in each branch of this `if`" in message, message


def test_a_float_padding_of_a_chosen_array_is_checked_where_it_is_chosen(convert, device):
    """A NEG_INF padding needs a float array; of an array chosen while the kernel runs the static
    check stood at the top of the kernel, before the `if` that sets the view's pointer (a
    NameError when Triton compiled it)."""
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, z, y, flag):
    src = x if flag > 0 else z
    ct.store(y, (ct.bid(0),), ct.load(src, (ct.bid(0),), shape=(16,), padding_mode=ct.PaddingMode.NEG_INF))
""")
    x, z = torch.randn(20, device=device), torch.randn(20, device=device)
    y = torch.zeros(32, device=device)
    mod.launch_k(0, (2,), (x, z, y, 0))
    torch.testing.assert_close(y[:20], z)
    assert bool((y[20:] == float("-inf")).all())
