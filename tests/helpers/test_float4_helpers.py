"""The float4_e2m1fn runtime helpers under Triton's interpreter, against a reference
written here from cuTile's definition of the dtype.

cuTile (cuda-tile 1.7) defines float4_e2m1fn in cuda/tile/_bytecode/float.py: S1E2M1,
exponent bias 1, subnormals, no infinity or NaN ("FiniteOnly": a value past the
largest finite one, infinities included, is clamped to it with its sign); its
conversions round to nearest, ties to even (RN is the only rounding
cuda/tile/_ir/ops_utils.py allows to f4e2m1fn; float.py's own encoder rounds so).
The codes are its bits: 0..7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6 and 8..15 their
negatives (cuTile's test of mma_scaled decodes them with that table).
pack_to_bytes puts element 2i in the low nibble (that test reads `packed & 0x0F`
first) and wider elements' bytes least significant first (its test of
pack_to_bytes compares with torch's x.view(torch.uint8)). NaN has no code and
cuTile defines none at run time; the converter gives 7 (6.0), note C2T206.

The reference picks the nearest of the eight magnitudes by distance (the helper
counts midpoints), the even code on a tie, 7 past 6 or for NaN, and the sign bit
of the input. The fp32 inputs are every bit pattern of [2**-3, 8), where every
rounding boundary lies, both signs of every pattern within 4096 ulps of each
boundary and FP4 value, the smallest subnormals, infinities, NaNs of several
payloads and random patterns; bfloat16 and float16 inputs are all 65536 patterns;
float64 inputs are checked with exact fractions next to every boundary (where a
detour through float32 would round twice).
"""
import importlib.util
import os
from fractions import Fraction
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def load(file):
    path = REPO / "src" / "lower" / "helpers" / file
    spec = importlib.util.spec_from_file_location(f"c2t_fp4_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


M = load("math_helpers.py")
S = load("shape_helpers.py")

MAGNITUDES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
BLOCK = 1 << 20  # the interpreter's largest tensor


def reference_codes(values):
    """cuTile's FP4 code of each value (float64 holding float32/16 values exactly)."""
    with np.errstate(invalid="ignore"):  # signaling NaNs
        v = np.asarray(values, dtype=np.float64)
        a = np.abs(v)
        distance = np.abs(a[:, None] - MAGNITUDES[None, :])
    best = np.argmin(np.nan_to_num(distance, nan=0.0), axis=1)
    nearest = np.take_along_axis(distance, best[:, None], 1)[:, 0]
    above = np.minimum(best + 1, 7)
    tie = (np.take_along_axis(distance, above[:, None], 1)[:, 0] == nearest) & (above != best)
    code = np.where(tie & (best % 2 == 1), above, best)  # the even code of the two
    code = np.where(a > 6.0, 7, code)  # saturation, infinities too
    code = code | (np.signbit(v).astype(np.int64) << 3)
    return np.where(np.isnan(v), 7, code).astype(np.uint8)  # NaN: 6.0, whatever its sign


@triton.jit
def to_codes_kernel(x, out, N: tl.constexpr):
    i = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(out + i, M.ct_to_float4_e2m1fn(tl.load(x + i)))


def helper_codes(x):
    """ct_to_float4_e2m1fn of a 1-D tensor (padded to whole blocks)."""
    n = x.numel()
    block = min(BLOCK, triton.next_power_of_2(n))
    padded = torch.zeros(-(-n // block) * block, dtype=x.dtype)
    padded[:n] = x
    out = torch.empty(padded.numel(), dtype=torch.uint8)
    to_codes_kernel[(padded.numel() // block,)](padded, out, block)
    return out[:n].numpy()


def float32_of(bits):
    return torch.from_numpy(np.asarray(bits, dtype=np.uint32).view(np.int32).copy()).view(torch.float32)


def check_float32_bits(bits):
    x = float32_of(bits)
    got, want = helper_codes(x), reference_codes(x.numpy())
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, [(hex(int(np.asarray(bits, dtype=np.uint32)[i])), float(x[i]), int(got[i]), int(want[i]))
                           for i in bad[:10]]


def test_every_float32_of_the_rounding_range():
    """Every float32 in [2**-3, 8) (where all rounding boundaries and FP4 values lie),
    a block at a time."""
    first, last = np.float32(0.125).view(np.uint32), np.float32(8.0).view(np.uint32)
    for start in range(int(first), int(last), BLOCK):
        check_float32_bits(np.arange(start, min(start + BLOCK, int(last)), dtype=np.uint32))


def test_both_signs_next_to_every_boundary_and_value():
    points = [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 7.0, 8.0]
    offsets = np.arange(-4096, 4097, dtype=np.int64)
    bits = [np.float32(p).view(np.uint32).astype(np.int64) + offsets for p in points]
    bits.append(np.arange(0, 8192, dtype=np.int64))  # zero and the smallest subnormals
    positive = np.concatenate(bits).astype(np.uint32)
    check_float32_bits(np.concatenate([positive, positive | np.uint32(0x80000000)]))


def test_zeros_infinities_nans_and_extremes():
    special = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001,
               0x7FBFFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x00000001, 0x80000001, 0x00800000]
    check_float32_bits(np.array(special, dtype=np.uint32))
    x = float32_of(np.array(special, dtype=np.uint32))
    codes = helper_codes(x)
    assert codes[:4].tolist() == [0, 8, 7, 15]  # -0.0 keeps its sign; infinities saturate to +-6
    assert set(codes[4:11].tolist()) == {7}  # NaN, whatever its sign or payload: 6.0


def test_random_float32_patterns():
    rng = np.random.default_rng(2026)
    check_float32_bits(rng.integers(0, 1 << 32, size=BLOCK, dtype=np.uint64).astype(np.uint32))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
def test_every_16_bit_float(dtype):
    x = torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32).to(torch.int16).view(dtype)
    got, want = helper_codes(x), reference_codes(x.float().numpy())
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, [(float(x[i]), int(got[i]), int(want[i])) for i in bad[:10]]


def exact_code(value):
    """The reference on a float64, with exact fractions."""
    if value != value:
        return 7
    sign = 8 if np.signbit(value) else 0
    a = abs(value)
    if a == float("inf") or a > 6:
        return 7 | sign
    fa = Fraction(a)
    distances = [abs(fa - Fraction(m)) for m in MAGNITUDES]
    best = min(range(8), key=lambda k: (distances[k], k % 2))  # nearest, then the even code
    return best | sign


def test_float64_rounds_once():
    """A float64 just past a boundary rounds away from it, where float32 would make it a tie."""
    values = []
    for p in [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 6.0, 0.0]:
        for direction in (-np.inf, np.inf):
            v = p
            for _ in range(3):
                v = float(np.nextafter(v, direction))
                values.append(v)
        values += [p, p + 2.0 ** -40, p - 2.0 ** -40]
    values += [float("inf"), float("nan"), 1e300, 5e-324]
    values += [-v for v in values]
    x = torch.tensor(values, dtype=torch.float64)
    assert helper_codes(x).tolist() == [exact_code(v) for v in values]
    assert helper_codes(torch.tensor([0.25 + 2.0 ** -40], dtype=torch.float64)).tolist() == [1]


@triton.jit
def from_codes_kernel(code, out, DTYPE: tl.constexpr):
    i = tl.arange(0, 16)
    tl.store(out + i, M.ct_from_float4_e2m1fn(tl.load(code + i), DTYPE))


@pytest.mark.parametrize("dtype,tl_dtype", [(torch.float32, tl.float32), (torch.float16, tl.float16),
                                            (torch.bfloat16, tl.bfloat16), (torch.float64, tl.float64)], ids=str)
def test_codes_decode_exactly(dtype, tl_dtype):
    out = torch.empty(16, dtype=dtype)
    from_codes_kernel[(1,)](torch.arange(16, dtype=torch.uint8), out, tl_dtype)
    want = list(MAGNITUDES) + [-m for m in MAGNITUDES]
    assert out.double().tolist() == want
    assert torch.signbit(out).tolist() == [False] * 8 + [True] * 8  # code 8 is -0.0


@triton.jit
def pack_codes_kernel(code, out, N: tl.constexpr):
    tl.store(out + tl.arange(0, N // 2), S.ct_pack_float4_e2m1fn(tl.load(code + tl.arange(0, N))))


def test_codes_pack_low_nibble_first():
    rng = np.random.default_rng(7)
    codes = torch.from_numpy(rng.integers(0, 16, size=256).astype(np.uint8))
    out = torch.empty(128, dtype=torch.uint8)
    pack_codes_kernel[(1,)](codes, out, 256)
    assert out.tolist() == [int(codes[2 * i]) | int(codes[2 * i + 1]) << 4 for i in range(128)]
    pair = torch.empty(1, dtype=torch.uint8)
    pack_codes_kernel[(1,)](torch.tensor([0x3, 0xC], dtype=torch.uint8), pair, 2)
    assert pair.tolist() == [0xC3]
    with pytest.raises(Exception, match="odd number of float4_e2m1fn elements"):
        pack_odd_kernel[(1,)](torch.zeros(1, dtype=torch.uint8))


@triton.jit
def pack_odd_kernel(code):
    S.ct_pack_float4_e2m1fn(tl.load(code + tl.arange(0, 1)))


@triton.jit
def pack_bytes_kernel(x, out, N: tl.constexpr, WIDTH: tl.constexpr):
    tl.store(out + tl.arange(0, N * WIDTH), S.ct_pack_to_bytes(tl.load(x + tl.arange(0, N))))


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16, torch.float16, torch.bfloat16, torch.int32,
                                   torch.float32, torch.int64, torch.float64], ids=str)
def test_wider_elements_pack_as_memory_holds_them(dtype):
    x = (torch.randn(32) * 100).to(dtype) if dtype != torch.uint8 else torch.randint(0, 256, (32,)).to(dtype)
    x[0] = -1 if dtype not in (torch.uint8,) and not dtype.is_floating_point else 0 if dtype == torch.uint8 else -0.0
    out = torch.empty(32 * x.element_size(), dtype=torch.uint8)
    pack_bytes_kernel[(1,)](x, out, 32, x.element_size())
    assert torch.equal(out, x.view(torch.uint8))


def test_bool_tiles_are_not_packed():
    with pytest.raises(Exception, match="cuTile does not pack bool tiles"):
        pack_bytes_kernel[(1,)](torch.ones(32, dtype=torch.bool), torch.empty(32, dtype=torch.uint8), 32, 1)
