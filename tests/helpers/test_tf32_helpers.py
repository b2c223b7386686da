"""ct_to_tfloat32 (cuTile's astype to tfloat32) under Triton's interpreter, against a
reference written here from cuTile's definition.

cuTile (cuda-tile 1.7) rounds a float conversion to tfloat32 to nearest, ties to even,
unless told otherwise (cuda/tile/_ir/ops_utils.py: RoundingMode.RN is the default of
every (float, tf32) pair); tfloat32 has float32's exponent range and 10 mantissa bits
(cuda/tile/_bytecode/float.py: _FloatSpec(19, -126, 127, 8, 10)), subnormals with the
step 2**-136, and infinities. The reference rounds each value with exact fractions:
its step is 2**(e - 10) for a value in [2**e, 2**(e+1)), e >= -126, and 2**-136 below;
ties go to the even multiple; what reaches 2**128 is infinity; the sign stays, zeros
included. A float64 is rounded to float32 first, as cuTile's compiler converts it. The inputs are float32 and float64 bit patterns whose dropped bits sit at and
next to the halfway point, at both parities of the kept bits, subnormals, the largest
values, infinities, NaNs and random patterns; float16 and bfloat16 are all 65536
patterns (tf32 holds each exactly).
"""
import importlib.util
import math
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
    spec = importlib.util.spec_from_file_location(f"c2t_tf32_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


M = load("math_helpers.py")
BLOCK = 4096


def reference(value):
    """cuTile's tfloat32 value of a float (as a Python float, exactly a float32)."""
    if math.isnan(value) or math.isinf(value) or value == 0.0:
        return value
    a = abs(value)
    exponent = math.frexp(a)[1] - 1  # a in [2**exponent, 2**(exponent + 1))
    step = Fraction(2) ** (max(exponent, -126) - 10)
    rounded = round(Fraction(a) / step) * step  # round() of a Fraction: ties to even
    result = math.inf if rounded >= 2**128 else float(rounded)
    return math.copysign(result, value)


@triton.jit
def round_kernel(x, out, N: tl.constexpr):
    i = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(out + i, M.ct_to_tfloat32(tl.load(x + i)))


def helper(x):
    n = x.numel()
    padded = torch.zeros((n + BLOCK - 1) // BLOCK * BLOCK, dtype=x.dtype)
    padded[:n] = x
    out = torch.empty(padded.shape, dtype=torch.float32)
    round_kernel[(padded.numel() // BLOCK,)](padded, out, N=BLOCK)
    return out[:n]


def check(x):
    got = helper(x)
    # float64 goes to float32 first (to nearest, ties to even), as cuTile's compiler converts it
    values = (x.float() if x.dtype == torch.float64 else x).double().tolist()
    want = torch.tensor([reference(v) for v in values], dtype=torch.float32)
    nan = torch.isnan(want)
    assert torch.equal(torch.isnan(got), nan)
    bad = (got.view(torch.int32) != want.view(torch.int32)) & ~nan
    assert not bad.any(), [(x[i].item(), got[i].item(), want[i].item()) for i in bad.nonzero()[:5, 0].tolist()]


def patterns(bits, dropped, count, rng):
    """Bit patterns (of a `bits`-wide float) whose low `dropped` bits are at, just off and
    far from half their range, with random high bits: every exponent, both signs."""
    high = rng.integers(0, 1 << (bits - dropped), count, dtype=np.uint64)
    half = 1 << (dropped - 1)
    lows = np.array([0, 1, half - 1, half, half + 1, (1 << dropped) - 1], dtype=np.uint64)
    return ((high[:, None] << np.uint64(dropped)) | lows[None, :]).reshape(-1)


def test_float32_rounds_to_nearest_even():
    rng = np.random.default_rng(1)
    words = patterns(32, 13, 3000, rng)
    extra = np.array([0x00000001, 0x00000FFF, 0x00001000, 0x00001001, 0x007FFFFF, 0x00800000, 0x7F7FEFFF,
                      0x7F7FF000, 0x7F7FFFFF, 0x7F800000, 0x7FC00000, 0x7F800001, 0x7FFFFFFF, 0x80000000,
                      0x80001000, 0xFF7FFFFF, 0xFF800000], dtype=np.uint64)
    words = np.concatenate([words, extra, extra | 0x80000000, rng.integers(0, 1 << 32, 4000, dtype=np.uint64)])
    x = torch.from_numpy((words & 0xFFFFFFFF).astype(np.uint32).view(np.int32)).view(torch.float32)
    check(x)


def test_float64_rounds_to_float32_first():
    """cuTile's compiler (tileiras 13.4) converts float64 to tfloat32 in two steps,
    cvt.rn.f32.f64 then cvt.rn.tf32.f32 (read in the PTX it makes for astype): a value just
    past a tf32 tie by less than float32 holds rounds to even, not up."""
    rng = np.random.default_rng(2)
    words = patterns(64, 42, 1500, rng)
    values = np.frombuffer(words.astype(np.uint64).tobytes(), dtype=np.float64)
    # those in float32's range and around its edges, where tf32's steps change
    scaled = np.concatenate([np.ldexp(np.frexp(values)[0], rng.integers(-150, 130, values.size))
                             for _ in range(2)])
    edges = []
    for e in (-149, -137, -136, -127, -126, -125, 127):
        for m in (1.0, 1.5, 1.0 + 2.0**-11, 1.0 + 2.0**-11 + 2.0**-40, 1.0 + 3 * 2.0**-11, 2.0 - 2.0**-12):
            edges.append(math.ldexp(m, e))
    edges += [2.0**128 - 2.0**116, 2.0**128 - 2.0**116 - 2.0**90, 2.0**128, 1e300, 1e-300, math.inf, math.nan, 0.0]
    x = torch.tensor(np.concatenate([scaled, edges, -np.array(edges)]), dtype=torch.float64)
    check(x)
    tie = 1.0 + 2.0**-11  # 1 and 1 + 2**-10 are the tf32 values around it
    got = helper(torch.tensor([tie + 2.0**-40, -(tie + 2.0**-40), tie + 2.0**-20], dtype=torch.float64))
    assert got.tolist() == [1.0, -1.0, 1.0 + 2.0**-10]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_16_bit_floats_are_exact(dtype):
    x = torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32).to(torch.int16).view(dtype)
    if dtype == torch.bfloat16:
        # Triton 3.6's interpreter flushes bfloat16 subnormals to zero when it widens them
        # (the GPU's conversion keeps them): only the normal patterns and zeros here
        x = x[(x == 0) | (x.abs() >= torch.finfo(dtype).tiny) | torch.isnan(x)]
    got = helper(x)
    want = x.float()
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    ok = ~torch.isnan(want)
    assert torch.equal(got[ok].view(torch.int32), want[ok].view(torch.int32))
