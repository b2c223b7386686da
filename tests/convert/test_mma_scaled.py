"""ct.mma_scaled and the dtype float8_e8m0fnu (CUTILE-SEMANTICS, mma_scaled row).

cuTile's block-scaled product is, with B = K // K_s,

    result[i, j] = acc[i, j] + sum_k x[i, k] * x_scale[i, k // B] * y[k, j] * y_scale[k // B, j]

on Blackwell's block-scaled MMA. The converter computes it the same way on any GPU and under
the interpreter (ct_mma_scaled): each operand times its scales in float32, exact, then tl.dot
in float32. The references here are that formula in float64 from the operands' own bits, so
the tolerance only has room for float32 sums of exact products.

float8_e8m0fnu has no Triton dtype: a tile of it is its uint8 bits b (the value 2**(b-127),
255 NaN), and an array of torch.float8_e8m0fnu reaches the kernel as a uint8 view.
"""
import math
import re
from pathlib import Path

import pytest
import torch

E8M0 = torch.float8_e8m0fnu
FP8 = {"float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2}
FP4 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def scale_values(bits):
    """float8_e8m0fnu bits (a uint8 tensor) as float64: 2**(b-127), NaN at 255."""
    values = torch.pow(2.0, bits.double() - 127)
    return torch.where(bits == 255, torch.full_like(values, math.nan), values)


def fp8_bits(dtype, shape):
    """Random bits of an fp8 dtype, no NaN or infinity among them."""
    bits = torch.randint(0, 256, shape, dtype=torch.uint8)
    special = (bits & 0x7F) == 0x7F if dtype == torch.float8_e4m3fn else (bits & 0x7C) == 0x7C
    return torch.where(special, torch.zeros_like(bits), bits)


def scaled(values, scales, block, k_axis):
    """Each scale repeated over its block of `block` elements along K."""
    return values.double() * scales.repeat_interleave(block, dim=k_axis)


def launch(mod, grid, args, device):
    """mod.launch_k on `device` (the interpreter's CPU, or a GPU): tensor arguments copied there
    and back (the kernels write their outputs in place)."""
    moved = [a.to(device) if isinstance(a, torch.Tensor) else a for a in args]
    mod.launch_k(0, grid, tuple(moved))
    for a, m in zip(args, moved):
        if isinstance(a, torch.Tensor) and m is not a:
            a.copy_(m.cpu())


def check_product(out, x, y, acc=None):
    """out is x @ y (+ acc), x and y the scaled operands in float64: a float32 sum of exact
    products is within 2**-18 of the sum of their magnitudes (K <= 256 here)."""
    want = x @ y + (0 if acc is None else acc.double())
    bound = 2.0 ** -18 * (x.abs() @ y.abs() + (0 if acc is None else acc.double().abs()))
    assert out.dtype == torch.float32
    err = (out.double() - want).abs()
    assert (err <= bound).all(), f"largest error {err.max().item()} (bound {bound.max().item()})"


BITS_KERNEL = """
import cuda.tile as ct


@ct.kernel
def k(a, a_scale, b, b_scale, c, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    m = ct.bid(0)
    n = ct.bid(1)
    acc = ct.zeros((TM, TN), ct.float32)
    for kk in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        ta = ct.bitcast(ct.load(a, index=(m, kk), shape=(TM, TK)), ct.{dtype})
        tas = ct.bitcast(ct.load(a_scale, index=(m, kk), shape=(TM, TK // 32)), ct.float8_e8m0fnu)
        tb = ct.bitcast(ct.load(b, index=(kk, n), shape=(TK, TN)), ct.{dtype})
        tbs = ct.bitcast(ct.load(b_scale, index=(kk, n), shape=(TK // 32, TN)), ct.float8_e8m0fnu)
        acc = ct.mma_scaled(ta, tas, tb, tbs, acc)
    ct.store(c, index=(m, n), tile=acc)
"""


@pytest.mark.parametrize("dtype", sorted(FP8))
def test_uint8_bits_bitcast_to_fp8_and_e8m0(convert, convert_text, dtype, device):
    # the kernel of MXFP8 GEMMs that keep their operands and scales as bytes
    assert "ct_mma_scaled(ta, tas, tb, tbs, acc, fp4=False)" in convert_text(BITS_KERNEL.format(dtype=dtype))
    mod = convert(BITS_KERNEL.format(dtype=dtype))
    M, N, K = 64, 32, 128
    a, b = fp8_bits(FP8[dtype], (M, K)), fp8_bits(FP8[dtype], (K, N))
    sa = torch.randint(112, 140, (M, K // 32), dtype=torch.uint8)
    sb = torch.randint(112, 140, (K // 32, N), dtype=torch.uint8)
    c = torch.zeros(M, N)
    launch(mod, (2, 1, 1), (a, sa, b, sb, c, 32, 32, 64), device)
    x = scaled(a.view(FP8[dtype]), scale_values(sa), 32, 1)
    y = scaled(b.view(FP8[dtype]), scale_values(sb), 32, 0)
    check_product(c, x, y)
    # the scales matter: with all of them 1.0 the result differs
    assert not torch.allclose(c.double(), a.view(FP8[dtype]).double() @ b.view(FP8[dtype]).double())


DIRECT_KERNEL = """
import cuda.tile as ct


@ct.kernel
def k(x, xs, y, ys, acc_in, out, M: ct.Constant[int], N: ct.Constant[int], K: ct.Constant[int],
      KS: ct.Constant[int]):
    a = ct.load(x, index=(0, 0), shape=(M, K))
    sa = ct.load(xs, index=(0, 0), shape=(M, KS))
    b = ct.load(y, index=(0, 0), shape=(K, N))
    sb = ct.load(ys, index=(0, 0), shape=(KS, N))
    acc = ct.load(acc_in, index=(0, 0), shape=(M, N))
    ct.store(out, index=(0, 0), tile=ct.mma_scaled(a, sa, b, sb, acc))
"""


@pytest.mark.parametrize("dtype", sorted(FP8))
def test_arrays_of_fp8_and_e8m0_dtypes(convert, dtype, device):
    # cuTile's own test kernel: tiles loaded straight from torch.float8_* arrays; the e8m0
    # arrays reach the kernel as uint8 views (Triton takes no e8m0 tensor) and stay unchanged
    mod = convert(DIRECT_KERNEL)
    M, N, K = 32, 64, 64
    a = fp8_bits(FP8[dtype], (M, K)).view(FP8[dtype])
    b = fp8_bits(FP8[dtype], (K, N)).view(FP8[dtype])
    sa = torch.randint(118, 136, (M, K // 32), dtype=torch.uint8).view(E8M0)
    sb = torch.randint(118, 136, (K // 32, N), dtype=torch.uint8).view(E8M0)
    kept = sa.view(torch.uint8).clone()
    acc = torch.randn(M, N)
    out = torch.zeros(M, N)
    launch(mod, (1,), (a, sa, b, sb, acc, out, M, N, K, K // 32), device)
    assert sa.dtype == E8M0 and torch.equal(sa.view(torch.uint8), kept)
    x = scaled(a, scale_values(sa.view(torch.uint8)), 32, 1)
    y = scaled(b, scale_values(sb.view(torch.uint8)), 32, 0)
    check_product(out, x, y, acc)
    # torch's own dequantization (float8_e8m0fnu to float32) agrees with 2**(b-127)
    assert torch.equal(sa.float().double(), scale_values(sa.view(torch.uint8)))


def test_dtypes_and_block_sizes_known_only_at_launch_are_checked_when_triton_compiles(convert, device):
    mod = convert(DIRECT_KERNEL)
    a = torch.randn(16, 64).to(torch.float8_e4m3fn)
    b = torch.randn(64, 16).to(torch.float8_e4m3fn)
    s = torch.full((16, 2), 1.0).to(E8M0)
    t = torch.full((2, 16), 1.0).to(E8M0)
    acc, out = torch.zeros(16, 16), torch.zeros(16, 16)
    cases = [((a.half(), s, b.half(), t, acc), "unsupported input dtype"),
             ((a, s.float(), b, t.float(), acc), "unsupported scale dtype float32"),
             ((a, s, b, t, acc.half()), "unsupported acc dtype"),
             ((a, s, b.view(torch.float8_e4m3fn).to(torch.float8_e5m2), t, acc), "x and y must have the same dtype")]
    s4, t4 = torch.ones(16, 4).to(E8M0), torch.ones(4, 16).to(E8M0)  # B = 16: not for fp8 operands
    cases.append(((a, s4, b, t4, acc), r"block size B = K // K_s must divide K exactly and be one of \(32,\)"))
    for args, message in cases:
        ks = 4 if args[1] is s4 else 2
        with pytest.raises(Exception) as raised:
            launch(mod, (1,), (*args, out, 16, 16, 64, ks), device)
        # the interpreter raises the static_assert's error itself; a GPU compile wraps it in a
        # CompilationError whose text is the source line, with the assert's error as its cause
        chain, error = [], raised.value
        while error is not None:
            chain.append(str(error))
            error = error.__cause__ or error.__context__
        assert re.search(message, "\n".join(chain)), chain


FP4_KERNEL = """
import cuda.tile as ct


@ct.kernel
def k(x, xs, y, ys, out, M: ct.Constant[int], N: ct.Constant[int], K: ct.Constant[int], KS: ct.Constant[int]):
    a = ct.astype(ct.load(x, index=(0, 0), shape=(M, K)), ct.float4_e2m1fn)
    b = ct.astype(ct.load(y, index=(0, 0), shape=(K, N)), ct.float4_e2m1fn)
    sa = {sa}
    sb = {sb}
    ct.store(out, index=(0, 0), tile=ct.mma_scaled(a, sa, b, sb, ct.zeros((M, N), ct.float32)))
"""
E8M0_SCALES = dict(sa="ct.bitcast(ct.load(xs, index=(0, 0), shape=(M, KS)), ct.float8_e8m0fnu)",
                   sb="ct.bitcast(ct.load(ys, index=(0, 0), shape=(KS, N)), ct.float8_e8m0fnu)")
E4M3_SCALES = dict(sa="ct.load(xs, index=(0, 0), shape=(M, KS))", sb="ct.load(ys, index=(0, 0), shape=(KS, N))")


def fp4_values(shape):
    """Random float4_e2m1fn values (both signs) as float32."""
    table = torch.tensor(FP4 + [-v for v in FP4])
    return table[torch.randint(0, 16, shape)]


@pytest.mark.parametrize("block", [16, 32])
def test_float4_operands_with_e8m0_scales(convert, block, device):
    mod = convert(FP4_KERNEL.format(**E8M0_SCALES))  # the scales' bytes in uint8 arrays
    M, N, K = 32, 32, 64
    x, y = fp4_values((M, K)), fp4_values((K, N))
    sx = torch.randint(120, 134, (M, K // block), dtype=torch.uint8)
    sy = torch.randint(120, 134, (K // block, N), dtype=torch.uint8)
    out = torch.zeros(M, N)
    launch(mod, (1,), (x, sx, y, sy, out, M, N, K, K // block), device)
    check_product(out, scaled(x, scale_values(sx), block, 1), scaled(y, scale_values(sy), block, 0))


def test_float4_operands_with_e4m3_scales(convert, device):
    mod = convert(FP4_KERNEL.format(**E4M3_SCALES))  # the scales loaded from float8_e4m3fn arrays
    M, N, K = 16, 32, 64
    x, y = fp4_values((M, K)), fp4_values((K, N))
    sx = torch.randn(M, K // 16).to(torch.float8_e4m3fn)
    sy = torch.randn(K // 16, N).to(torch.float8_e4m3fn)
    out = torch.zeros(M, N)
    launch(mod, (1,), (x, sx, y, sy, out, M, N, K, K // 16), device)
    check_product(out, scaled(x, sx.double(), 16, 1), scaled(y, sy.double(), 16, 0))


BATCHED_KERNEL = """
import cuda.tile as ct


@ct.kernel
def k(x, xs, y, ys, acc_in, out, BX: ct.Constant[int], BY: ct.Constant[int], M: ct.Constant[int],
      N: ct.Constant[int], K: ct.Constant[int]):
    a = ct.load(x, index=(0, 0, 0), shape=(BX, M, K)){squeeze_x}
    sa = ct.load(xs, index=(0, 0, 0), shape=(BX, M, K // 32)){squeeze_x}
    b = ct.load(y, index=(0, 0, 0), shape=(BY, K, N))
    sb = ct.load(ys, index=(0, 0, 0), shape=(BY, K // 32, N))
    acc = ct.load(acc_in, index=(0, 0, 0), shape=(max(BX, BY), M, N))
    ct.store(out, index=(0, 0, 0), tile=ct.mma_scaled(a, sa, b, sb, acc))
"""


@pytest.mark.parametrize("bx,by,two_d_x", [(2, 2, False), (1, 4, False), (1, 2, True)])
def test_batched_operands_broadcast_as_mma_does(convert, bx, by, two_d_x, device):
    # cuTile's batch test: a 2-D x (and its 2-D scales) against a 3-D y; also a batch of one
    squeeze = ".reshape((M, K))" if two_d_x else ""
    source = BATCHED_KERNEL.format(squeeze_x=squeeze)
    if two_d_x:
        source = source.replace("shape=(BX, M, K // 32)).reshape((M, K))",
                                "shape=(BX, M, K // 32)).reshape((M, K // 32))")
    mod = convert(source)
    M, N, K = 16, 16, 128
    a = fp8_bits(torch.float8_e4m3fn, (bx, M, K)).view(torch.float8_e4m3fn)
    b = fp8_bits(torch.float8_e4m3fn, (by, K, N)).view(torch.float8_e4m3fn)
    sa = torch.randint(120, 134, (bx, M, K // 32), dtype=torch.uint8)
    sb = torch.randint(120, 134, (by, K // 32, N), dtype=torch.uint8)
    batch = max(bx, by)
    acc = torch.randn(batch, M, N)
    out = torch.zeros(batch, M, N)
    launch(mod, (1,), (a, sa.view(E8M0), b, sb.view(E8M0), acc, out, bx, by, M, N, K), device)
    x = scaled(a, scale_values(sa), 32, 2)
    y = scaled(b, scale_values(sb), 32, 1)
    check_product(out, x.expand(batch, M, K), y.expand(batch, K, N), acc)


DOCSTRING_KERNEL = """
import cuda.tile as ct


@ct.kernel
def k(out):
    tx = ct.ones((2, 64), ct.float8_e4m3fn)
    sx = ct.full((2, 2), {sx}, ct.float8_e8m0fnu)
    ty = ct.ones((64, 2), ct.float8_e4m3fn)
    sy = ct.full((2, 2), {sy}, ct.float8_e8m0fnu)
    acc = ct.zeros((2, 2), ct.float32)
    tz = ct.mma_scaled(tx, sx, ty, sy, acc)
    ct.store(out, index=(0, 0), tile=tz)
"""


def test_cutile_docstring_example_with_full_scales(convert, device):
    # cuda.tile's own example: ones times scales 2.0 on both sides, K = 64 -> 256.0; and the
    # folding of ct.full's constant: 3.0 is 2**2 in float8_e8m0fnu (from 1.5 * 2**e up it is
    # the next power), 1.4 is 1.0
    for sx, sy, want in [(2.0, 2.0, 256.0), (3.0, 1.4, 256.0), (1, 0.5, 32.0)]:
        out = torch.zeros(2, 2)
        launch(convert(DOCSTRING_KERNEL.format(sx=sx, sy=sy)), (1,), (out,), device)
        assert out.tolist() == [[want, want], [want, want]], (sx, sy, out)


def test_edge_scale_bits_are_exact(convert, device):
    # x = y = 1.0 and K = 32 (one block): each result is 32 * 2**(bx - 127) * 2**(by - 127) in
    # float32 exactly (rounded only past float32's range), from the smallest scale 2**-127
    # (bits 0, a float32 subnormal) to the largest 2**127 (bits 254); bits 255 are NaN
    mod = convert(DIRECT_KERNEL)
    rows = torch.tensor([0, 1, 127, 254], dtype=torch.uint8)
    cols = torch.tensor([127, 254, 1, 0, 255, 128, 126, 200], dtype=torch.uint8)
    ones_x = torch.ones(4, 32).to(torch.float8_e4m3fn)
    ones_y = torch.ones(32, 8).to(torch.float8_e4m3fn)
    out = torch.zeros(4, 8)
    launch(mod, (1,), (ones_x, rows[:, None].contiguous(), ones_y, cols[None, :].contiguous(), torch.zeros(4, 8),
                           out, 4, 8, 32, 1), device)
    want = (32 * scale_values(rows)[:, None] * scale_values(cols)[None, :]).float()
    assert torch.equal(out.isnan(), want.isnan()) and out.isnan()[:, 4].all()
    assert torch.equal(out.nan_to_num(), want.nan_to_num()), (out, want)
    assert out[0, 1].item() == 32.0 and out[3, 3].item() == 32.0 and out[0, 0].item() == 2.0 ** -122
    assert out[3, 0].item() == math.inf and out[0, 3].item() == 0.0


def test_e8m0_constants_astype_bitcast_and_stores(convert, device):
    # ct.full folds a constant to its bits as cuTile does; astype gives 2**(b-127) exactly in
    # any float dtype; bitcast keeps the bits both ways; a store writes the bits into a
    # float8_e8m0fnu array; a tile loaded from one is its bits, bitcast to float8_e8m0fnu
    mod = convert("""
import cuda.tile as ct


@ct.kernel
def k(bits, values, halves, doubles, fp8, stored, src, loaded):
    consts = (ct.full((1,), 0.0, ct.float8_e8m0fnu), ct.full((1,), 1e-40, ct.float8_e8m0fnu),
              ct.full((1,), 2.0 ** -127, ct.float8_e8m0fnu), ct.full((1,), 1.4, ct.float8_e8m0fnu),
              ct.full((1,), 1.5, ct.float8_e8m0fnu), ct.full((1,), 3.0, ct.float8_e8m0fnu),
              ct.full((1,), 2.0 ** 127, ct.float8_e8m0fnu), ct.full((1,), 1.5 * 2.0 ** 127, ct.float8_e8m0fnu),
              ct.full((1,), float("inf"), ct.float8_e8m0fnu), ct.full((1,), 1, ct.float8_e8m0fnu),
              ct.zeros((1,), ct.float8_e8m0fnu), ct.ones((1,), ct.float8_e8m0fnu),
              ct.float8_e8m0fnu(8.0).reshape((1,)), ct.full((1,), 2.0 ** -100, ct.float8_e8m0fnu),
              ct.full((1,), 1e38, ct.float8_e8m0fnu), ct.full((1,), 0.75, ct.float8_e8m0fnu))
    t = ct.cat((ct.cat((ct.cat((ct.cat((consts[0], consts[1]), 0), ct.cat((consts[2], consts[3]), 0)), 0),
                        ct.cat((ct.cat((consts[4], consts[5]), 0), ct.cat((consts[6], consts[7]), 0)), 0)), 0),
                ct.cat((ct.cat((ct.cat((consts[8], consts[9]), 0), ct.cat((consts[10], consts[11]), 0)), 0),
                        ct.cat((ct.cat((consts[12], consts[13]), 0), ct.cat((consts[14], consts[15]), 0)), 0)), 0)),
               0)
    ct.store(bits, index=(0,), tile=ct.bitcast(t, ct.uint8))
    ct.store(values, index=(0,), tile=t.astype(ct.float32))
    ct.store(halves, index=(0,), tile=ct.astype(t, ct.float16))
    ct.store(doubles, index=(0,), tile=ct.astype(t, ct.float64))
    ct.store(fp8, index=(0,), tile=ct.astype(t, ct.float8_e4m3fn))
    ct.store(stored, index=(0,), tile=t)
    u = ct.bitcast(ct.load(src, index=(0,), shape=(16,)), ct.float8_e8m0fnu)
    ct.store(loaded, index=(0,), tile=ct.astype(u, ct.float32))
""")
    bits, values, doubles = torch.zeros(16, dtype=torch.uint8), torch.zeros(16), torch.zeros(16, dtype=torch.float64)
    halves, fp8 = torch.zeros(16, dtype=torch.float16), torch.zeros(16).to(torch.float8_e4m3fn)
    stored = torch.zeros(16, dtype=torch.uint8).view(E8M0)
    src_bits = torch.tensor([0, 1, 100, 120, 126, 127, 128, 130, 134, 135, 140, 143, 144, 150, 254, 255],
                            dtype=torch.uint8)
    loaded = torch.zeros(16)
    launch(mod, (1,), (bits, values, halves, doubles, fp8, stored, src_bits.view(E8M0), loaded), device)
    # cuTile's folding (cuda/tile/_bytecode/float.py): 0 and anything below 2**-127 -> bits 0;
    # [2**e, 1.5 * 2**e) -> e + 127, [1.5 * 2**e, 2**(e+1)) -> e + 128; from 1.5 * 2**127 and inf -> NaN
    want = [0, 0, 0, 127, 128, 129, 254, 255, 255, 127, 0, 127, 130, 27, 253, 127]
    assert bits.tolist() == want
    assert torch.equal(stored.view(torch.uint8), bits)
    exact = scale_values(torch.tensor(want, dtype=torch.uint8))
    assert torch.equal(doubles.isnan(), exact.isnan()) and torch.equal(doubles.nan_to_num(), exact.nan_to_num())
    assert torch.equal(values.double().nan_to_num(), exact.float().double().nan_to_num())
    assert values[0].item() == 2.0 ** -127 and values.isnan()[[7, 8]].all()
    # float16 and fp8: the exact value rounded once (the tiny ones to 0, the huge ones to inf / NaN)
    assert torch.equal(halves.nan_to_num(), exact.half().nan_to_num())
    in_range = exact <= 448  # (past float8_e4m3fn's largest, conversions saturate or give NaN)
    assert torch.equal(fp8.float()[in_range], exact.float().to(torch.float8_e4m3fn).float()[in_range])
    assert torch.equal(loaded.double().nan_to_num(), scale_values(src_bits).float().double().nan_to_num())
    assert loaded.isnan()[15] and loaded[0].item() == 2.0 ** -127


def test_an_e8m0_array_read_as_numbers_is_refused_at_launch(convert, device):
    # the kernel gets an e8m0 array as its uint8 bits, and a tile loaded from it has the array's
    # dtype, known only at launch: astype (or arithmetic, a math function) of that tile would read
    # the bits as numbers, so the launcher refuses such an array there (a uint8 one is fine); a tile
    # bitcast to float8_e8m0fnu first converts exactly
    mod = convert("""
import cuda.tile as ct


@ct.kernel
def k(s, out, scaled):
    t = ct.load(s, index=(0,), shape=(16,))
    ct.store(out, index=(0,), tile=t.astype(ct.float32))
    u = ct.bitcast(ct.load(scaled, index=(0,), shape=(16,)), ct.float8_e8m0fnu)
    ct.store(out, index=(1,), tile=u.astype(ct.float32))
""")
    bits = torch.arange(120, 136, dtype=torch.uint8)
    out = torch.zeros(32)
    launch(mod, (1,), (bits, out, bits.view(E8M0)), device)
    assert out[:16].tolist() == list(range(120, 136))  # a uint8 array: its values
    assert torch.equal(out[16:].double(), scale_values(bits))  # e8m0 bitcast first: 2**(b-127)
    with pytest.raises(TypeError, match="float8_e8m0fnu array, whose elements the converted kernel holds as their "
                                        "uint8 bits; it reads them as numbers at line 8"):
        launch(mod, (1,), (bits.view(E8M0), out, bits.view(E8M0)), device)


def error_kernel(body, fp4=False):
    operands = ("    a = ct.astype(ct.load(x, index=(0, 0), shape=(32, 64)), ct.float4_e2m1fn)\n"
                "    b = ct.astype(ct.load(y, index=(0, 0), shape=(64, 16)), ct.float4_e2m1fn)\n") if fp4 else (
                "    a = ct.bitcast(ct.load(x, index=(0, 0), shape=(32, 64)), ct.float8_e4m3fn)\n"
                "    b = ct.bitcast(ct.load(y, index=(0, 0), shape=(64, 16)), ct.float8_e4m3fn)\n")
    return ("import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x, y, xs, ys, z):\n" + operands +
            "    s2 = ct.bitcast(ct.load(xs, index=(0, 0), shape=(32, 2)), ct.float8_e8m0fnu)\n"
            "    t2 = ct.bitcast(ct.load(ys, index=(0, 0), shape=(2, 16)), ct.float8_e8m0fnu)\n"
            "    acc = ct.zeros((32, 16), ct.float32)\n"
            f"    r = {body}\n"
            "    ct.store(z, index=(0, 0), tile=acc)\n")


ERRORS = {
    # cuTile's dtype checks (_resolve_mma_scaled_supported_dtype)
    "scale dtype": ("ct.mma_scaled(a, s2.astype(ct.float16), b, t2.astype(ct.float16), acc)",
                    "unsupported scale dtype float16 for input dtype float8_e4m3fn, supported scale dtypes are "
                    "float8_e8m0fnu"),
    "uint8 scale": ("ct.mma_scaled(a, ct.bitcast(s2, ct.uint8), b, ct.bitcast(t2, ct.uint8), acc)",
                    "unsupported scale dtype uint8"),
    "e4m3 scale of fp8": ("ct.mma_scaled(a, ct.bitcast(s2, ct.float8_e4m3fn), b, ct.bitcast(t2, ct.float8_e4m3fn), "
                          "acc)",
                          "unsupported scale dtype float8_e4m3fn for input dtype float8_e4m3fn"),
    "scale dtypes differ": ("ct.mma_scaled(a, s2, b, ct.bitcast(t2, ct.float8_e4m3fn), acc)",
                            "x_scale and y_scale must have the same dtype, got float8_e8m0fnu and float8_e4m3fn"),
    "operand dtypes differ": ("ct.mma_scaled(a, s2, ct.bitcast(b, ct.float8_e5m2), t2, acc)",
                              "x and y must have the same dtype, got float8_e4m3fn and float8_e5m2"),
    "input dtype": ("ct.mma_scaled(a.astype(ct.float16), s2, b.astype(ct.float16), t2, acc)",
                    "unsupported input dtype float16 for mma_scaled"),
    "uint8 input": ("ct.mma_scaled(ct.bitcast(a, ct.uint8), s2, ct.bitcast(b, ct.uint8), t2, acc)",
                    "supported input dtypes are float8_e4m3fn, float8_e5m2, float4_e2m1fn (ct.bitcast"),
    "acc": ("ct.mma_scaled(a, s2, b, t2, acc.astype(ct.float16))", "unsupported acc dtype float16 for mma_scaled, "
            "expected float32"),
    # the block size and the scales' shapes (_verify_scaling_block_size), then the product's
    "block size": ("ct.mma_scaled(a, ct.reshape(s2, (16, 4)), b, t2, acc)", "x_scale shape (16, 4) is not compatible"),
    "B not 32": ("ct.mma_scaled(a, ct.full((32, 4), 1.0, ct.float8_e8m0fnu), b, "
                 "ct.full((4, 16), 1.0, ct.float8_e8m0fnu), acc)",
                 "with scaling block size B = K // K_s in {32}, got x.shape[1] = 64 and x_scale.shape[1] = 4"),
    "K_s above K": ("ct.mma_scaled(a, ct.full((32, 128), 1.0, ct.float8_e8m0fnu), b, t2, acc)",
                    "x.shape[1] must be an exact multiple of x_scale.shape[1]"),
    "y_scale N": ("ct.mma_scaled(a, s2, b, ct.full((2, 8), 1.0, ct.float8_e8m0fnu), acc)",
                  "y_scale shape (2, 8) is not compatible with y shape (64, 16). All dimensions except K axis 0"),
    "scale rank": ("ct.mma_scaled(a, ct.reshape(s2, (1, 32, 2)), b, t2, acc)", "x_scale must have the rank of x"),
    "acc shape": ("ct.mma_scaled(a, s2, b, t2, ct.zeros((32, 32), ct.float32))", "acc's dimension 1 is 32"),
    "K differs": ("ct.mma_scaled(a, s2, ct.full((32, 16), 1.0, ct.float8_e4m3fn), ct.full((1, 16), 1.0, "
                  "ct.float8_e8m0fnu), acc)", "the shapes do not multiply (x has K = 64, y has K = 32)"),
    "rank 1": ("ct.mma_scaled(ct.reshape(a, (2048,)), s2, b, t2, acc)", "x must be a 2-d to 3-d tile"),
    # arithmetic and the other uses of a float8_e8m0fnu tile
    "add": ("s2 + s2", "cuTile does no arithmetic on float8_e8m0fnu"),
    "multiply": ("s2 * 2", "cuTile does no arithmetic on float8_e8m0fnu"),
    "compare": ("s2 > s2", "of a float8_e8m0fnu tile cannot be converted: the converter holds it as its uint8 bits"),
    "negate": ("-s2", "of a float8_e8m0fnu tile cannot be converted"),
    "exp": ("ct.exp(s2)", "ct.exp() of a float8_e8m0fnu tile cannot be converted"),
    "sum": ("ct.sum(s2)", "of a float8_e8m0fnu tile cannot be converted"),
    "where": ("ct.where(ct.full((32, 2), True, ct.bool_), s2, s2)",
              "ct.where() of a float8_e8m0fnu tile cannot be converted"),
    "print": ("print(s2)", "print() of a float8_e8m0fnu tile"),
    "arange": ("ct.arange(16, dtype=ct.float8_e8m0fnu)", "with dtype float8_e8m0fnu cannot be converted"),
    # conversions to float8_e8m0fnu: cuTile has RZ and RP only, done on the GPU
    "astype RN": ("acc.astype(ct.float8_e8m0fnu)",
                  "cuTile converts float32 to float8_e8m0fnu only with rounding_mode=RoundingMode.RZ or "
                  "RoundingMode.RP"),
    "astype RZ": ("ct.astype(acc, ct.float8_e8m0fnu, rounding_mode=ct.RoundingMode.RZ)",
                  "a conversion of a float32 tile to float8_e8m0fnu with rounding_mode=RoundingMode.RZ cannot be "
                  "converted"),
    "astype int": ("ct.astype(ct.astype(acc, ct.int32), ct.float8_e8m0fnu)",
                   "a conversion of a int32 tile to float8_e8m0fnu cannot be converted"),
    "negative": ("ct.full((4,), -2.0, ct.float8_e8m0fnu)", "negative values cannot be represented in float8_e8m0fnu"),
    "negative zero": ("ct.float8_e8m0fnu(-0.0)", "negative values cannot be represented in float8_e8m0fnu"),
    "run-time fill": ("ct.full((4,), ct.sum(acc), ct.float8_e8m0fnu)", "ct.full(): a run-time value made "
                      "float8_e8m0fnu cannot be converted"),
    "run-time constructor": ("ct.float8_e8m0fnu(ct.sum(acc))",
                             "a run-time value made float8_e8m0fnu cannot be converted"),
}

FP4_ERRORS = {
    "fp4 with e4m3 at B 32": ("ct.mma_scaled(a, ct.bitcast(s2, ct.float8_e4m3fn), b, "
                              "ct.bitcast(t2, ct.float8_e4m3fn), acc)",
                              "with scaling block size B = K // K_s in {16}, got x.shape[1] = 64"),
    "fp4 with two block sizes": ("ct.mma_scaled(a, ct.full((32, 4), 1.0, ct.float8_e8m0fnu), b, t2, acc)",
                                 "x_scale and y_scale must have the same K_s (one scaling block size; tileiras "
                                 "refuses two), got 4 and 2"),
    "fp4 with fp8": ("ct.mma_scaled(a, s2, ct.load(y, index=(0, 0), shape=(64, 16)).astype(ct.float8_e4m3fn), "
                     "t2, acc)", "x and y must have the same dtype, got float4_e2m1fn and float8_e4m3fn"),
    "fp4 with an array's dtype": ("ct.mma_scaled(a, s2, ct.load(y, index=(0, 0), shape=(64, 16)), t2, acc)",
                                  "(arrays have no float4_e2m1fn dtype)"),
}


def test_each_misuse_is_a_located_error_as_cutile_refuses_it(convert_error):
    for name, (body, message) in ERRORS.items():
        assert message in convert_error(error_kernel(body)), name
    for name, (body, message) in FP4_ERRORS.items():
        assert message in convert_error(error_kernel(body, fp4=True)), name


def test_the_e8m0_dtype_on_the_host_is_torchs(convert_text):
    text = convert_text("""
import torch
import cuda.tile as ct


@ct.kernel
def k(x):
    ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(8,)))


def scales(n):
    return torch.empty(n, dtype=ct.float8_e8m0fnu)
""")
    assert "torch.empty(n, dtype=torch.float8_e8m0fnu)" in text
    assert "if tensor.dtype is torch.float8_e8m0fnu:" in text and "return tensor.view(torch.uint8)" in text


def test_kernels_here_are_valid_cutile(cutile_export):
    """The kernels above compile with cuda.tile for sm_100 (mma_scaled is Blackwell-only
    there). Runs only where cuda.tile and tileiras are importable (PYTHONPATH=/path/to/cuda-tile)."""
    ct, array, cubin_size = cutile_export.ct, cutile_export.array, cutile_export.cubin_size
    u8, f32, e4m3, e8m0 = ct.uint8, ct.float32, ct.float8_e4m3fn, ct.float8_e8m0fnu
    cases = [(BITS_KERNEL.format(dtype="float8_e4m3fn"), [array(u8, 2)] * 4 + [array(f32, 2), 32, 32, 64]),
             (BITS_KERNEL.format(dtype="float8_e5m2"), [array(u8, 2)] * 4 + [array(f32, 2), 32, 32, 64]),
             (DIRECT_KERNEL, [array(e4m3, 2), array(e8m0, 2), array(e4m3, 2), array(e8m0, 2), array(f32, 2),
                              array(f32, 2), 32, 64, 64, 2]),
             (FP4_KERNEL.format(**E8M0_SCALES), [array(f32, 2), array(u8, 2)] * 2 + [array(f32, 2), 32, 32, 64, 4]),
             (FP4_KERNEL.format(**E4M3_SCALES), [array(f32, 2), array(e4m3, 2)] * 2 + [array(f32, 2), 16, 32, 64, 4]),
             (BATCHED_KERNEL.format(squeeze_x=""), [array(e4m3, 3), array(e8m0, 3)] * 2 + [array(f32, 3)] * 2 +
              [1, 4, 16, 16, 128]),
             (DOCSTRING_KERNEL.format(sx=3.0, sy=1.4), [array(f32, 2)])]
    for source, args in cases:
        assert cubin_size(source, args) > 0, source
