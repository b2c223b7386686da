"""ct.load_advanced_indexing / ct.store_advanced_indexing with ct.Slice entries, and the
fp8 dtype constructors (ct.float8_e4m3fn(0.0)) as values.

The indices hold one 1-D integer tile (the sparse dimension) and ct.Slice(start, length)
for every other dimension; the tile is (len_0, ..., len_n-1). Elements outside the array
on any axis (negative sparse indices too) read the padding value. Kernels are this
project's own; the references are torch indexing.
"""

import pytest
import torch


@pytest.fixture(autouse=True)
def _on_device(device):
    torch.set_default_device(device)
    yield
    torch.set_default_device("cpu")


def padded_gather(x, axes, pad):
    """x read at the cartesian product of the per-axis element indices `axes` (1-D long
    tensors); elements outside x (any axis, negative too) read `pad`."""
    grids = torch.meshgrid(*axes, indexing="ij")
    inside = torch.ones(grids[0].shape, dtype=torch.bool)
    safe = []
    for g, n in zip(grids, x.shape):
        inside &= (g >= 0) & (g < n)
        safe.append(g.clamp(0, n - 1))
    return torch.where(inside, x[tuple(safe)], torch.tensor(pad, dtype=x.dtype))


SPARSE_FIRST = """
import cuda.tile as ct

@ct.kernel
def k(x, idx, y, col0, B: ct.Constant[int], C: ct.Constant[int]):
    rows = ct.load(idx, index=(0,), shape=(B,))
    t = ct.load_advanced_indexing(x, (rows, ct.Slice(col0 + ct.bid(0) * C, C)),
                                  padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(0, ct.bid(0)), tile=t)
"""


def test_sparse_first_2d_pads_out_of_bounds(convert):
    mod = convert(SPARSE_FIRST)
    x = torch.randn(10, 21)
    idx = torch.tensor([0, 9, 3, -1, 10, 4, 4, 7], dtype=torch.int32)
    y = torch.full((8, 24), -5.0)
    mod.launch_k(0, (3,), (x, idx, y, 2, 8, 8))
    cols = torch.arange(2, 26)
    assert torch.equal(y, padded_gather(x, [idx.long(), cols], 0.0))


SPARSE_LAST = """
import cuda.tile as ct

@ct.kernel
def k(x, idx, y, R: ct.Constant[int], B: ct.Constant[int]):
    cols = ct.load(idx, index=(0,), shape=(B,))
    r = ct.bid(0) * R - 1
    t = ct.load_advanced_indexing(x, (ct.Slice(r, R), cols), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(y, index=(ct.bid(0), 0), tile=t)
"""


def test_sparse_last_2d_negative_start_and_inf_padding(convert):
    mod = convert(SPARSE_LAST)
    x = torch.randn(7, 12, dtype=torch.float16)
    idx = torch.tensor([11, 0, 5, 12, -3, 6, 1, 2], dtype=torch.int64)
    y = torch.zeros(8, 8, dtype=torch.float16)
    mod.launch_k(0, (2,), (x, idx, y, 4, 8))
    rows = torch.arange(-1, 7)
    assert torch.equal(y, padded_gather(x, [rows, idx], float("-inf")))


PAGED_3D = """
import cuda.tile as ct

@ct.kernel
def k(cache, pages, out, token, BP: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    p = ct.load(pages, index=(ct.bid(0),), shape=(BP,))
    kv = ct.load_advanced_indexing(cache, (p, ct.Slice(token, BN), ct.Slice(0, D)),
                                   padding_mode=ct.PaddingMode.ZERO, latency=2, allow_tma=False)
    ct.store(out, index=(ct.bid(0), 0, 0), tile=kv.astype(ct.float32) * 2.0)
"""


def test_paged_3d_with_the_sparse_dim_first(convert):
    mod = convert(PAGED_3D)
    cache = torch.randn(6, 16, 32).to(torch.bfloat16)
    pages = torch.tensor([5, 0, 2, 2, 7, 1, 3, 4], dtype=torch.int32)  # 7: a page past the end
    out = torch.zeros(8, 4, 32)
    mod.launch_k(0, (2,), (cache, pages, out, 14, 4, 4, 32))
    ref = padded_gather(cache, [pages.long(), torch.arange(14, 18), torch.arange(32)], 0.0)
    assert torch.equal(out, ref.float() * 2.0)


HEADS_4D = """
import cuda.tile as ct

@ct.kernel
def k(cache, pages, out, token, head, BN: ct.Constant[int], D: ct.Constant[int]):
    p = ct.load(pages, index=(0,), shape=(4,))
    kv = ct.load_advanced_indexing(cache, (ct.Slice(token, BN), p, ct.Slice(head, 1), ct.Slice(0, D)))
    ct.store(out, index=(0, 0, 0, 0), tile=kv)
"""


def test_4d_sparse_second_undetermined_padding_in_bounds(convert):
    mod = convert(HEADS_4D)
    cache = torch.randn(8, 5, 3, 16)
    pages = torch.tensor([4, 1, 0, 3], dtype=torch.int32)
    out = torch.zeros(4, 4, 1, 16)
    mod.launch_k(0, (1,), (cache, pages, out, 2, 2, 4, 16))
    assert torch.equal(out, cache[2:6][:, pages.long()][:, :, 2:3])


def test_strided_view_reads_through_strides(convert):
    mod = convert(SPARSE_FIRST)
    base = torch.randn(21, 30)
    x = base.t()[:, 3:]  # (30, 18), non-contiguous
    idx = torch.tensor([29, 0, 15, 30, 1, 2, 3, 28], dtype=torch.int32)
    y = torch.zeros(8, 16)
    mod.launch_k(0, (2,), (x, idx, y, 5, 8, 8))
    assert torch.equal(y, padded_gather(x, [idx.long(), torch.arange(5, 21)], 0.0))


STORE = """
import cuda.tile as ct

@ct.kernel
def k(src, idx, dst, B: ct.Constant[int], C: ct.Constant[int]):
    rows = ct.load(idx, index=(0,), shape=(B,))
    t = ct.load(src, index=(0, ct.bid(0)), shape=(B, C))
    ct.store_advanced_indexing(dst, (rows, ct.Slice(ct.bid(0) * C - 2, C)), t)
"""


def test_store_advanced_indexing_skips_out_of_bounds(convert):
    mod = convert(STORE)
    src = torch.arange(8 * 8, dtype=torch.float32).reshape(8, 8)
    idx = torch.tensor([3, 0, -1, 6, 9, 1, 4, 2], dtype=torch.int32)
    dst = torch.full((7, 5), -1.0)
    mod.launch_k(0, (1,), (src, idx, dst, 8, 8))
    ref = torch.full((7, 5), -1.0)
    for i, r in enumerate(idx.tolist()):
        for j in range(8):
            c = j - 2
            if 0 <= r < 7 and 0 <= c < 5:
                ref[r, c] = src[i, j]
    assert torch.equal(dst, ref)


# ----------------------------------------------------------- fp8 constructors

FP8_GATHER = """
import cuda.tile as ct

@ct.kernel
def k(x, y, n, B: ct.Constant[int]):
    i = ct.arange(B, dtype=ct.int32)
    t = ct.gather(x, i, mask=i < n, padding_value=ct.float8_e4m3fn(1.5))
    ct.store(y, index=(0,), tile=t.astype(ct.float32))
"""


def test_fp8_constructor_as_gather_padding(convert):
    mod = convert(FP8_GATHER)
    x = torch.tensor([0.5, -2.0, 3.0, 0.25, 8.0, 1.0, 2.0, 4.0]).to(torch.float8_e4m3fn)
    y = torch.zeros(8)
    mod.launch_k(0, (1,), (x, y, 5, 8))
    ref = torch.cat([x[:5].float(), torch.full((3,), 1.5)])
    assert torch.equal(y, ref)


FP8_SCALAR = """
import cuda.tile as ct

@ct.kernel
def k(y, src, B: ct.Constant[int]):
    s = ct.load(src, index=(0,), shape=())
    a = ct.float8_e5m2(s)
    b = ct.float8_e4m3fn(0.3)
    t = ct.full((B,), 0.0, dtype=ct.float32) + a.astype(ct.float32) + b.astype(ct.float32)
    ct.store(y, index=(0,), tile=t)
"""


def test_fp8_constructor_of_a_scalar_and_a_constant(convert):
    mod = convert(FP8_SCALAR)
    y = torch.zeros(4)
    mod.launch_k(0, (1,), (y, torch.tensor([2.7]), 4))
    a = torch.tensor(2.7).to(torch.float8_e5m2).float()
    b = torch.tensor(0.3).to(torch.float8_e4m3fn).float()
    assert torch.equal(y, torch.full((4,), float(a + b)))


# ------------------------------------------------------------ located errors

def _kernel(body, params="x, idx, y, B: ct.Constant[int]"):
    return f"""
import cuda.tile as ct

@ct.kernel
def k({params}):
    j = ct.load(idx, index=(0,), shape=(B,))
{body}
"""


@pytest.mark.parametrize("body, message", [
    ("    t = ct.load_advanced_indexing(x, (j, j))\n    ct.store(y, (0, 0), t)", "exactly one index"),
    ("    t = ct.load_advanced_indexing(x, (ct.Slice(0, B), ct.Slice(0, B)))\n    ct.store(y, (0, 0), t)",
     "exactly one index"),
    ("    t = ct.load_advanced_indexing(x, (j, ct.Slice(0, 6)))\n    ct.store(y, (0, 0), t)", "power of two"),
    ("    s = ct.Slice(0, B)\n    t = ct.load_advanced_indexing(x, (j, s))\n    ct.store(y, (0, 0), t)",
     "inside the indices tuple"),
    ("    n = ct.bid(0)\n    t = ct.load_advanced_indexing(x, (j, ct.Slice(0, n)))\n    ct.store(y, (0, 0), t)",
     "compile-time constant"),
    ("    u = ct.load(x, (0, 0), (B, B))\n"
     "    t = ct.load_advanced_indexing(x, (j, ct.Slice(0, B), ct.Slice(0, B)))\n    ct.store(y, (0, 0, 0), t)",
     "the array has 2 dimensions"),
    ("    t = ct.load_advanced_indexing(x, (j, 3))\n    ct.store(y, (0, 0), t)", "ct.Slice(start"),
    ("    t = ct.load_advanced_indexing(x, (j.astype(ct.float32), ct.Slice(0, B)))\n    ct.store(y, (0, 0), t)",
     "integer tile"),
    ("    ct.store_advanced_indexing(y, (j, ct.Slice(0, 4)), ct.zeros((B, 8), dtype=ct.float32))",
     "the indices give"),
])
def test_refused_forms_are_located_errors(convert_error, body, message):
    assert message in convert_error(_kernel(body))


def test_nine_indices_are_past_the_limit(convert_error):
    # MAX_TILE_RANK is 8, a tile's most dimensions (tests/compile converts 6 and 7)
    slices = ", ".join(["ct.Slice(0, 2)"] * 8)
    source = _kernel(f"    t = ct.load_advanced_indexing(x, (j, {slices}))\n    ct.store(y, ({'0, ' * 9}), t)")
    assert "too many entries in the indices of an advanced-indexing load or store" in convert_error(source)


def test_one_dimensional_array_is_refused(convert_error):
    source = _kernel("    t = ct.load_advanced_indexing(y, (j,))\n    ct.store(y, (0,), t)")
    assert "ct.gather()" in convert_error(source)


FP8_VALUES = [0.3, 17.0, 19.0, -2.75, 0.001, 0.0009765625 * 1.5, 450.0, 1e-9, 3]
E5M2_VALUES = [0.3, 57000.0, -1e-5, 7.0, 1.5e-7]


def test_fp8_constants_round_as_torch_does(convert):
    stores = "".join(f"    ct.store(y, index=({i},), tile=ct.float8_e4m3fn({v!r}).astype(ct.float32))\n"
                     for i, v in enumerate(FP8_VALUES))
    stores += "".join(f"    ct.store(z, index=({i},), tile=ct.float8_e5m2({v!r}).astype(ct.float32))\n"
                      for i, v in enumerate(E5M2_VALUES))
    mod = convert("import cuda.tile as ct\n\n@ct.kernel\ndef k(y, z):\n" + stores)
    y, z = torch.zeros(len(FP8_VALUES)), torch.zeros(len(E5M2_VALUES))
    mod.launch_k(0, (1,), (y, z))
    ref_y = torch.tensor(FP8_VALUES, dtype=torch.float64).to(torch.float8_e4m3fn).float()
    ref_z = torch.tensor(E5M2_VALUES, dtype=torch.float64).to(torch.float8_e5m2).float()
    assert torch.equal(y, ref_y) and torch.equal(z, ref_z), (y, ref_y, z, ref_z)


def test_fp8_constants_fold_through_float32(convert):
    """cuTile folds a Python number to float8 through float32 (read in the Tile IR its front
    end makes: ct.float8_e4m3fn(1.0625 + 2**-29) is 1.0, where a direct rounding, torch's from
    float64, gives 1.125: 1.0625 is a tie, and float32 does not hold the 2**-29)."""
    values = {"float8_e4m3fn": [1.0625 + 2.0**-29, -(1.1875 + 2.0**-30), 464.0],
              "float8_e5m2": [1.125 + 2.0**-29, 0.875 + 2.0**-40, 57344.0]}
    stores = "".join(f"    ct.store({name}, index=({i},), tile=ct.{name}({v!r}).astype(ct.float32))\n"
                     for name, vs in values.items() for i, v in enumerate(vs))
    mod = convert("import cuda.tile as ct\n\n@ct.kernel\ndef k(float8_e4m3fn, float8_e5m2):\n" + stores)
    got = {name: torch.zeros(3) for name in values}
    mod.launch_k(0, (1,), tuple(got.values()))
    for name, vs in values.items():
        want = torch.tensor(vs, dtype=torch.float64).float().to(getattr(torch, name)).float()
        assert torch.equal(got[name], want), (name, got[name], want)
    assert got["float8_e4m3fn"].tolist() == [1.0, -1.25, 448.0]


@pytest.mark.parametrize("dtype, value, code", [
    ("float8_e4m3fn", "500.0", 0x7F), ("float8_e4m3fn", "-1e6", 0xFF), ("float8_e4m3fn", "float('inf')", 0x7F),
    ("float8_e4m3fn", "float('nan')", 0x7F), ("float8_e5m2", "61440.0", 0x7C), ("float8_e5m2", "-1e300", 0xFC),
    ("float8_e5m2", "float('nan')", 0x7E),
])
def test_fp8_constants_past_the_range(convert, convert_text, dtype, value, code):
    """Past the largest finite value cuTile's fold gives float8_e4m3fn's NaN (it has no
    infinity) and float8_e5m2's infinity, signed (its Tile IR: `constant <f8E4M3FN: 0x7F>`);
    the converted kernel makes those bits (a float32 cast would saturate them)."""
    source = (f"import cuda.tile as ct\n\n@ct.kernel\ndef k(y):\n"
              f"    ct.store(y, index=(0,), tile=ct.full((2,), {value}, dtype=ct.{dtype}))\n")
    triton_dtype = {"float8_e4m3fn": "tl.float8e4nv", "float8_e5m2": "tl.float8e5"}[dtype]
    assert f"tl.full((2,), {code}, tl.uint8).to({triton_dtype}, bitcast=True)" in convert_text(source)
    y = torch.zeros(2, dtype=getattr(torch, dtype))
    convert(source).launch_k(0, (1,), (y,))
    assert y.view(torch.uint8).tolist() == [code, code]


# ------------------------------------- what the paged-attention modules need besides

UNKNOWN_DIMS = """
import cuda.tile as ct

def inner(x, i, NP, LB, D, LAT=3):
    if NP == 1:
        t = ct.reshape(ct.load(x, index=(i, 0, 0), shape=(1, LB, D), latency=LAT), (LB, D))
    else:
        t = ct.reshape(ct.load(x, index=(i, 0, 0), shape=(NP, LB, D), latency=LAT), (NP * LB, D))
    return t

def outer(x, i, BN, LB, D):
    NP = BN // LB
    return inner(x, i, NP, LB, D)

@ct.kernel
def k(x, y, w, BN: ct.Constant[int], LB: ct.Constant[int], D: ct.Constant[int]):
    t = outer(x, ct.bid(0), BN, LB, D)
    ct.store(y, index=(0, ct.bid(0)), tile=ct.transpose(t))
    ct.store(w, index=(0, 0, ct.bid(0)), tile=ct.expand_dims(ct.permute(t, (1, 0)), 1) * 2)
"""


@pytest.mark.parametrize("bn", [4, 8])
def test_transpose_permute_expand_dims_of_dims_known_only_at_launch(convert, bn):
    """A tile function's result whose dimensions differ by branch (NP == 1 or not): the axis
    moves keep them unknown instead of refusing (Triton knows the real shape)."""
    mod = convert(UNKNOWN_DIMS)
    x = torch.randn(8, 4, 16)
    groups = 8 * 4 // bn
    y, w = torch.zeros(16, groups * bn), torch.zeros(16, 1, groups * bn)
    mod.launch_k(0, (groups,), (x, y, w, bn, 4, 16))
    rows = x.reshape(-1, 16)
    assert torch.equal(y, rows.t())
    assert torch.equal(w, 2 * rows.t()[:, None, :])


TUPLE_INDICES = """
import cuda.tile as ct

@ct.kernel
def k(x, y, B: ct.Constant[int]):
    r = ct.arange(B, dtype=ct.int32)
    ij = (r, ct.full((B,), 2, dtype=ct.int32) - r)
    v = ct.gather(x, ij, padding_value=-1.0)
    ct.scatter(y, ij, v * 10)
"""


def test_gather_scatter_indices_kept_in_a_tuple_local(convert):
    mod = convert(TUPLE_INDICES)
    x = torch.randn(4, 3)
    y = torch.zeros(4, 3)
    mod.launch_k(0, (1,), (x, y, 4))
    ref = torch.zeros(4, 3)
    for i in range(3):
        ref[i, 2 - i] = 10 * x[i, 2 - i]
    assert torch.equal(y, ref)
