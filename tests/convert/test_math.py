"""Elementwise math: operators, ct math functions and conversions, with cuTile's
semantics (CUTILE-SEMANTICS §4), run against PyTorch/numpy references.

Integer results, divisions, sqrt and conversions are compared bit for bit;
transcendental functions with float32 rtol 1e-6 (the interpreter computes them
with numpy, the GPU with libdevice). bfloat16 arithmetic does not run in
Triton's interpreter (it stores bfloat16 as raw uint16), so bfloat16 cases that
need it run on a GPU only.
"""

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import torch

N = 37  # odd: the last tile is partial
TILE = 16

KERNEL2 = """
import cuda.tile as ct

@ct.kernel
def k(x, y, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    b = ct.load(y, index=(bid,), shape=(TILE,))
    ct.store(out, index=(bid,), tile={expr})
"""

KERNEL1 = """
import cuda.tile as ct

@ct.kernel
def k(x, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    ct.store(out, index=(bid,), tile={expr})
"""


def grid(n):
    return ((n + TILE - 1) // TILE,)


def run2(convert, expr, x, y, out_dtype):
    mod = convert(KERNEL2.format(expr=expr))
    out = torch.zeros(x.shape, dtype=out_dtype, device=x.device)
    mod.launch_k(0, grid(x.numel()), (x, y, out, TILE))
    return out


def run1(convert, expr, x, out_dtype):
    mod = convert(KERNEL1.format(expr=expr))
    out = torch.zeros(x.shape, dtype=out_dtype, device=x.device)
    mod.launch_k(0, grid(x.numel()), (x, out, TILE))
    return out


def assert_bits(actual, expected):
    """Equal values, NaN where NaN (signs of zero not compared)."""
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    a, e = actual.cpu(), expected.cpu()
    if a.dtype.is_floating_point:
        same = (a == e) | (torch.isnan(a) & torch.isnan(e))
    else:
        same = a == e
    bad = (~same).nonzero().flatten()[:8].tolist()
    assert same.all(), f"mismatch at {bad}: got {a[bad].tolist()} expected {e[bad].tolist()}"


def ints(device, dtype=torch.int32, low=-50, high=50, nonzero=False):
    t = torch.randint(low, high, (N,), dtype=torch.int64)
    if nonzero:
        t[t == 0] = 7
    return t.to(dtype).to(device)


def floats(device, dtype=torch.float32, scale=10.0, nonzero=False):
    t = torch.randn(N, dtype=torch.float32) * scale
    if nonzero:
        t[t.abs() < 1e-3] = 1.5
    return t.to(dtype).to(device)


# ---------------------------------------------------------------- // and %

@pytest.mark.parametrize("expr,ref", [
    ("a // b", lambda x, y: torch.div(x, y, rounding_mode="floor")),
    ("a % b", torch.remainder),
    ("ct.floordiv(a, b)", lambda x, y: torch.div(x, y, rounding_mode="floor")),
    ("ct.mod(a, b)", torch.remainder),
    ("a // -3", lambda x, y: torch.div(x, -3, rounding_mode="floor")),
    ("a % -3", lambda x, y: torch.remainder(x, -3)),
    ("7 // b", lambda x, y: torch.div(torch.full_like(y, 7), y, rounding_mode="floor")),
    ("-7 % b", lambda x, y: torch.remainder(torch.full_like(y, -7), y)),
])
def test_integer_floordiv_mod_round_toward_negative_infinity(convert, device, expr, ref):
    x, y = ints(device), ints(device, nonzero=True)
    assert_bits(run2(convert, expr, x, y, torch.int32), ref(x, y))


def _ceil_div(x, y):
    return -torch.div(-x, y, rounding_mode="floor")


@pytest.mark.parametrize("expr,ref", [
    ("ct.cdiv(a, b)", _ceil_div),
    ("ct.cdiv(a, 4)", lambda x, y: _ceil_div(x, 4)),
    # the quotient of tiles is a tile of their shape: a scan over it sees every element
    ("ct.cumsum(ct.cdiv(a, 3), axis=0)", lambda x, y: torch.cumsum(_ceil_div(x, 3), 0).to(torch.int32)),
])
def test_cdiv_of_tiles_is_an_elementwise_ceiling(convert, device, expr, ref):
    x, y = ints(device), ints(device, nonzero=True)
    got = run2(convert, expr, x[:TILE], y[:TILE], torch.int32)  # one tile: the scan runs over all of it
    assert_bits(got, ref(x[:TILE], y[:TILE]))


def test_cdiv_of_floats_is_refused(convert_error):
    assert "ct.cdiv() takes integers" in convert_error(KERNEL2.format(expr="ct.cdiv(a, 2.0)"))


def test_divmod_is_floor_quotient_and_python_remainder(convert, device):
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, y, q_out, r_out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    b = ct.load(y, index=(bid,), shape=(TILE,))
    q, r = divmod(a, b)
    ct.store(q_out, index=(bid,), tile=q)
    ct.store(r_out, index=(bid,), tile=r)
""")
    x, y = ints(device), ints(device, nonzero=True)
    q, r = torch.zeros_like(x), torch.zeros_like(x)
    mod.launch_k(0, grid(N), (x, y, q, r, TILE))
    assert_bits(q, torch.div(x, y, rounding_mode="floor"))
    assert_bits(r, torch.remainder(x, y))


@pytest.mark.parametrize("call, ref", [
    ("divmod(a, -3)", lambda x, y: (torch.div(x, -3, rounding_mode="floor"), torch.remainder(x, -3))),
    ("ct.divmod(a + 1, b * 2)", lambda x, y: (torch.div(x + 1, y * 2, rounding_mode="floor"),
                                              torch.remainder(x + 1, y * 2))),
])
def test_divmod_of_expressions_evaluates_each_operand_once(convert, convert_text, device, call, ref):
    """Operands that are not names (`-3`, `a + 1`) were refused: each is now a local set
    before the statement, which the quotient and the remainder both read."""
    source = f"""
import cuda.tile as ct

@ct.kernel
def k(x, y, q_out, r_out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    b = ct.load(y, index=(bid,), shape=(TILE,))
    q, r = {call}
    ct.store(q_out, index=(bid,), tile=q)
    ct.store(r_out, index=(bid,), tile=r)
"""
    assert "divmod_" in convert_text(source)
    mod = convert(source)
    x, y = ints(device), ints(device, nonzero=True)
    q, r = torch.zeros_like(x), torch.zeros_like(x)
    mod.launch_k(0, grid(N), (x, y, q, r, TILE))
    want_q, want_r = ref(x, y)
    assert_bits(q, want_q.to(torch.int32))
    assert_bits(r, want_r.to(torch.int32))


def test_float_floordiv_is_floor_of_ieee_quotient(convert, device):
    x, y = floats(device), floats(device, nonzero=True)
    expected = torch.floor(x / y)  # torch's float32 division is IEEE
    assert_bits(run2(convert, "a // b", x, y, torch.float32), expected)


def test_float_mod_has_the_sign_of_the_divisor(convert, device):
    x, y = floats(device), floats(device, nonzero=True)
    xn, yn = x.cpu().numpy(), y.cpu().numpy()
    expected = torch.from_numpy(np.mod(xn, yn))  # fmod, then + y where the signs differ
    assert_bits(run2(convert, "a % b", x, y, torch.float32).cpu(), expected)
    assert (torch.sign(expected[expected != 0]) == torch.sign(y.cpu()[expected != 0])).all()


def test_float16_mod_stays_float16(convert, device):
    x, y = floats(device, torch.float16), floats(device, torch.float16, nonzero=True)
    expected = torch.from_numpy(np.mod(x.cpu().numpy(), y.cpu().numpy()))
    assert_bits(run2(convert, "a % b", x, y, torch.float16).cpu(), expected)


# ------------------------------------------------------------------ /

def test_float32_division_is_ieee(convert, device):
    x, y = floats(device), floats(device, nonzero=True)
    assert_bits(run2(convert, "a / b", x, y, torch.float32), x / y)


def test_integer_division_gives_float32(convert, device):
    x, y = ints(device, low=-10**6, high=10**6), ints(device, nonzero=True)
    assert_bits(run2(convert, "a / b", x, y, torch.float32), x.float() / y.float())


def test_float16_division_stays_float16(convert, device):
    # (a / 3.0) * 3.0 rounds to float16 after each step in cuTile
    x = floats(device, torch.float16)
    third = (x.float() / 3.0).half()
    expected = (third.float() * 3.0).half()
    assert_bits(run1(convert, "(a / 3.0) * 3.0", x, torch.float16), expected)


@pytest.mark.skipif(not torch.cuda.is_available(),
                    reason="Triton's interpreter converts float32 to bfloat16 by truncation, not to nearest")
def test_bfloat16_division_stays_bfloat16(convert, device):
    x, y = floats(device, torch.bfloat16), floats(device, torch.bfloat16, nonzero=True)
    expected = (x.float() / y.float()).to(torch.bfloat16)
    assert_bits(run2(convert, "a / b", x, y, torch.bfloat16), expected)


def _exact_quotients(x, y):
    return [Fraction(float(a)) / Fraction(float(b)) for a, b in zip(x.tolist(), y.tolist())]


@pytest.mark.parametrize("mode", ["RZ", "RM", "RP"])
def test_truediv_directed_rounding(convert, device, mode):
    x, y = floats(device), floats(device, nonzero=True)
    out = run2(convert, f"ct.truediv(a, b, rounding_mode=ct.RoundingMode.{mode})", x, y, torch.float32).cpu()
    for got, exact in zip(out.tolist(), _exact_quotients(x.cpu(), y.cpu())):
        got_f = Fraction(got)
        up = Fraction(float(np.nextafter(np.float32(got), np.float32(np.inf))))
        down = Fraction(float(np.nextafter(np.float32(got), np.float32(-np.inf))))
        if mode == "RM":
            assert got_f <= exact < up
        elif mode == "RP":
            assert down < exact <= got_f
        else:
            assert abs(got_f) <= abs(exact) and (got_f == exact or abs(exact) < abs(up if got > 0 else down))


@pytest.mark.parametrize("mode", ["RZ", "RM", "RP"])
def test_sqrt_directed_rounding(convert, device, mode):
    x = floats(device).abs() + 0.25
    out = run1(convert, f"ct.sqrt(a, rounding_mode=ct.RoundingMode.{mode})", x, torch.float32).cpu()
    for got, value in zip(out.tolist(), x.cpu().tolist()):
        square = Fraction(value)
        g = Fraction(got)
        up = Fraction(float(np.nextafter(np.float32(got), np.float32(np.inf))))
        if mode == "RP":
            down = Fraction(float(np.nextafter(np.float32(got), np.float32(-np.inf))))
            assert down * down < square <= g * g
        else:  # RZ and RM agree for positive roots
            assert g * g <= square < up * up


def test_full_division_is_tritons_full_range_one_not_ieee(convert_text):
    # cuTile's FULL is the full-range division within 2 ulp, not IEEE's: measured on the H200
    # (TileGym's unsloth act_quant), 1.78125 / (3/512) is 303.99997 with cuTile and 304.0 with
    # an IEEE division, and the float8 rounding after it gives 288 against 320. Triton's plain
    # float32 `/` is that division (div.full.f32: tests/compile); no note, it is the same one.
    text = convert_text(KERNEL2.format(expr="ct.truediv(a, b, rounding_mode=ct.RoundingMode.FULL)"))
    body = text.split("def k(")[1].split("\ndef ")[0]
    assert "ct_truediv_full(a, b)" in body and "C2T201" not in body
    assert "return tl.cast(x, tl.float32) / tl.cast(y, tl.float32)" in text


def test_truediv_approx_and_full_run(convert, device):
    x, y = floats(device), floats(device, nonzero=True)
    for mode in ["APPROX", "FULL"]:
        out = run2(convert, f"ct.truediv(a, b, rounding_mode=ct.RoundingMode.{mode}, flush_to_zero=True)", x, y,
                   torch.float32)
        torch.testing.assert_close(out, x / y, rtol=1e-6, atol=0)


# ------------------------------------------------------ + - * and promotion

def test_int8_arithmetic_wraps_in_int8(convert, device):
    x, y = ints(device, torch.int8, -128, 128), ints(device, torch.int8, -128, 128)
    # (a * 3 + b) // 2: the product wraps in int8 before the floor division
    expected = torch.div(x * 3 + y, 2, rounding_mode="floor")
    assert_bits(run2(convert, "(a * 3 + b) // 2", x, y, torch.int8), expected)


def test_float16_times_loose_constant_stays_float16(convert, device):
    x = floats(device, torch.float16)
    c = torch.tensor(0.1, dtype=torch.float16).float()
    step = (x.float() * c).half()
    expected = (step.float() * c).half()
    assert_bits(run1(convert, "a * 0.1 * 0.1", x, torch.float16), expected)


def test_integer_with_loose_float_gives_float32(convert, device):
    x = ints(device)
    assert_bits(run1(convert, "a * 0.5 + 1", x, torch.float32), x.float() * 0.5 + 1)


def test_integer_tile_with_float16_tile_gives_float16(convert, device):
    x = ints(device, low=-3000, high=3000)
    y = floats(device, torch.float16)
    expected = (x.half().float() + y.float()).half()
    assert_bits(run2(convert, "a + b", x, y, torch.float16), expected)


def test_wider_integer_wins(convert, device):
    x, y = ints(device, torch.int16, -30000, 30000), ints(device, torch.int64, -2**40, 2**40)
    # a * 3 wraps in int16 before meeting the int64 operand
    assert_bits(run2(convert, "a * 3 + b", x, y, torch.int64), (x * 3).to(torch.int64) + y)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="bfloat16 arithmetic does not run in Triton's interpreter")
def test_integer_with_bfloat16_computes_in_bfloat16(convert, device):
    x = floats(device, torch.bfloat16)
    offsets = torch.arange(TILE, dtype=torch.int32).repeat(3)[:N].to(device) + 250  # integers bfloat16 rounds
    expected = (x.float() + offsets.to(torch.bfloat16).float()).to(torch.bfloat16)
    assert_bits(run1(convert, "a + (ct.arange(TILE, dtype=ct.int32) + 250)", x, torch.bfloat16), expected)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="bfloat16 arithmetic does not run in Triton's interpreter")
@pytest.mark.xfail(strict=True, reason="known residual: both dtypes come from arrays (known at launch only); "
                   "Triton computes integer with bfloat16 in float32")
def test_integer_array_with_bfloat16_array(convert, device):
    x = floats(device, torch.bfloat16)
    y = ints(device, low=250, high=270)
    expected = (x.float() + y.to(torch.bfloat16).float()).to(torch.bfloat16)
    assert_bits(run2(convert, "a + b", x, y, torch.bfloat16), expected)


def test_integer_with_bfloat16_operand_is_converted_first(convert_text):
    text = convert_text(KERNEL2.format(expr="a * ct.arange(TILE, dtype=ct.int32)"))
    assert "ct_bf16_operand(" in text


def test_scalar_arguments_and_constants(convert, device):
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, out, s, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    ct.store(out, index=(bid,), tile=(a - s) // 4 + ct.int16(70000) + (-3) % 5)
""")
    x = ints(device, torch.int32, -1000, 1000)
    out = torch.zeros_like(x)
    mod.launch_k(0, grid(N), (x, out, 9, TILE))
    expected = torch.div(x - 9, 4, rounding_mode="floor") + 4464 + 2  # int16(70000) wraps to 4464
    assert_bits(out, expected)


# --------------------------------------------------------------- bit ops

@pytest.mark.parametrize("expr,ref", [
    ("a & b", lambda x, y: x & y),
    ("a | b", lambda x, y: x | y),
    ("a ^ b", lambda x, y: x ^ y),
    ("~a", lambda x, y: ~x),
    ("a >> 3", lambda x, y: x >> 3),
    ("a << 2", lambda x, y: x << 2),
    ("ct.bitwise_rshift(a, b & 7)", lambda x, y: x >> (y & 7)),
    ("ct.bitwise_lshift(a, b & 7)", lambda x, y: x << (y & 7)),
    ("ct.bitwise_and(a, b)", lambda x, y: x & y),
    ("ct.bitwise_or(a, b)", lambda x, y: x | y),
    ("ct.bitwise_xor(a, b)", lambda x, y: x ^ y),
    ("ct.bitwise_not(a)", lambda x, y: ~x),
])
def test_integer_bit_operations(convert, device, expr, ref):
    x, y = ints(device, low=-2**31, high=2**31 - 1), ints(device, low=-2**31, high=2**31 - 1)
    assert_bits(run2(convert, expr, x, y, torch.int32), ref(x, y))


def test_uint8_right_shift_is_logical(convert, device):
    x, y = ints(device, torch.uint8, 0, 256), ints(device, torch.uint8, 0, 256)
    assert_bits(run2(convert, "(a >> 3) + (b << 1)", x, y, torch.uint8), (x >> 3) + (y << 1))


# ----------------------------------------------------- comparisons, where

def test_comparisons_and_where(convert, device):
    x, y = floats(device), floats(device)
    x[3] = float("nan")
    y[5] = x[5]
    expr = "ct.where((a < b) | (a == b), a, ct.where(a != a, -1.0, b * 2))"
    expected = torch.where((x < y) | (x == y), x, torch.where(x != x, torch.full_like(x, -1.0), y * 2))
    assert_bits(run2(convert, expr, x, y, torch.float32), expected)


@pytest.mark.parametrize("member,ref", [
    ("equal", torch.eq), ("not_equal", torch.ne), ("greater", torch.gt), ("greater_equal", torch.ge),
    ("less", torch.lt), ("less_equal", torch.le),
])
def test_comparison_functions_with_nan(convert, device, member, ref):
    x, y = floats(device), floats(device)
    x[2], y[4], y[6] = float("nan"), float("nan"), x[6]
    out = run2(convert, f"ct.where(ct.{member}(a, b), 1, 0)", x, y, torch.int32)
    assert_bits(out, ref(x, y).to(torch.int32))


def test_isnan_and_not(convert, device):
    x = floats(device)
    x[1] = float("nan")
    out = run1(convert, "ct.where(ct.isnan(a), 2, 0) + ct.where(not (a > 0), 1, 0)", x, torch.int32)
    expected = torch.isnan(x).int() * 2 + (~(x > 0)).int()
    assert_bits(out, expected)


def test_where_with_loose_zero_keeps_float16(convert, device):
    x = floats(device, torch.float16)
    tenth = torch.tensor(0.1, dtype=torch.float16).float()  # the loose 0.1 becomes float16 first
    expected = torch.where(x > 0, (x.float() * tenth).half(), torch.zeros_like(x))
    assert_bits(run1(convert, "ct.where(a > 0, a * 0.1, 0)", x, torch.float16), expected)


# ------------------------------------------------------------ min / max

def test_minimum_maximum_nan_handling(convert, device):
    x, y = floats(device), floats(device)
    x[2], y[7] = float("nan"), float("nan")
    ignore = run2(convert, "ct.maximum(a, b) + min(a, b)", x, y, torch.float32)
    if torch.cuda.is_available():  # the interpreter's tl.maximum is numpy's, which propagates NaN
        assert_bits(ignore, torch.fmax(x, y) + torch.fmin(x, y))
    else:
        ok = ~(torch.isnan(x) | torch.isnan(y))
        assert_bits(ignore[ok], (torch.fmax(x, y) + torch.fmin(x, y))[ok])
    propagate = run2(convert, "ct.minimum(a, b, propagate_nan=True)", x, y, torch.float32)
    assert_bits(propagate, torch.minimum(x, y))


def test_integer_min_max_builtins(convert, device):
    x, y = ints(device), ints(device)
    assert_bits(run2(convert, "max(a, b) - min(a, 3)", x, y, torch.int32),
                torch.maximum(x, y) - torch.clamp(x, max=3))


# ------------------------------------------------------ unary functions

@pytest.mark.parametrize("name,ref,positive", [
    ("exp", torch.exp, False), ("exp2", torch.exp2, False), ("log", torch.log, True),
    ("log2", torch.log2, True), ("rsqrt", torch.rsqrt, True), ("sin", torch.sin, False),
    ("cos", torch.cos, False), ("tan", torch.tan, False), ("sinh", torch.sinh, False),
    ("cosh", torch.cosh, False), ("tanh", torch.tanh, False),
])
def test_transcendental_functions(convert, device, name, ref, positive):
    x = floats(device, scale=2.0)
    if positive:
        x = x.abs() + 0.1
    torch.testing.assert_close(run1(convert, f"ct.{name}(a)", x, torch.float32), ref(x), rtol=1e-6, atol=1e-7)


def correct_sqrt(x):
    """torch's CPU float32 sqrt is not correctly rounded; through float64 it is."""
    return torch.sqrt(x.double()).to(x.dtype)


@pytest.mark.parametrize("name,ref", [("sqrt", correct_sqrt), ("floor", torch.floor), ("ceil", torch.ceil),
                                      ("abs", torch.abs), ("negative", torch.neg)])
def test_exact_unary_functions(convert, device, name, ref):
    x = floats(device)
    if name == "sqrt":
        x = x.abs()
    assert_bits(run1(convert, f"ct.{name}(a)", x, torch.float32), ref(x))


def test_float16_sqrt_and_floor_stay_float16(convert, device):
    x = floats(device, torch.float16).abs()
    assert_bits(run1(convert, "ct.sqrt(a) + ct.floor(a)", x, torch.float16),
                (correct_sqrt(x.float()).half().float() + torch.floor(x.float())).half())


def test_integer_input_of_float_function_gives_float32(convert, device):
    x = ints(device, low=0, high=1000)
    assert_bits(run1(convert, "ct.sqrt(a)", x, torch.float32), correct_sqrt(x.float()))


def test_approx_forms(convert, device):
    x = floats(device, scale=2.0)
    torch.testing.assert_close(run1(convert, "ct.exp(a, rounding_mode=ct.RoundingMode.APPROX)", x, torch.float32),
                               torch.exp(x), rtol=1e-5, atol=0)
    torch.testing.assert_close(run1(convert, "ct.tanh(a, rounding_mode=ct.RoundingMode.APPROX)", x, torch.float32),
                               torch.tanh(x), rtol=1e-3, atol=1e-5)
    y = x.abs()
    torch.testing.assert_close(run1(convert, "ct.sqrt(a, rounding_mode=ct.RoundingMode.APPROX)", y, torch.float32),
                               torch.sqrt(y), rtol=1e-6, atol=0)


def fpowi(base, exponent, dtype):
    """cuTile's x ** n for an integer n (its fpowi, read in the PTX tileiras 13.4 writes): the
    squares of x for the set bits of |n|, lowest first, each product rounded (in float32 for
    16-bit floats), the correctly rounded reciprocal where n < 0, rounded back to dtype once."""
    work = np.float64 if dtype == torch.float64 else np.float32
    out = []
    with np.errstate(all="ignore"):
        for x, n in zip(base.double().tolist(), exponent.tolist()):
            x, bits = work(x), abs(int(n))
            r = x if bits & 1 else work(1)
            bits >>= 1
            while bits:
                x = work(x * x)
                if bits & 1:
                    r = work(r * x)
                bits >>= 1
            out.append(work(work(1) / r) if n < 0 else r)
    return torch.tensor(np.array(out, dtype=work)).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_pow_to_an_integer_is_repeated_squaring(convert, device, dtype):
    """x ** n with an integer n is cuTile's fpowi, not pow: x ** 3 is x * (x * x), two roundings
    (read in the PTX; libdevice pow, rounding once, differs in the last bit of about 40% of
    these float32 results). int8 and uint16 exponent tiles, a Python int and negative ones."""
    x = floats(device, dtype=dtype, scale=3.0)
    n = ints(device, torch.int8, -9, 10)
    assert_bits(run2(convert, "a ** b", x, n, dtype), fpowi(x, n, dtype))
    assert_bits(run2(convert, "a ** b.astype(ct.uint16)", x, n.abs(), dtype), fpowi(x, n.abs(), dtype))
    # a Python int: only the squarings its bits need (ct_powi_steps), up to |-2**31|'s 31
    for k in (3, -2, 0, 1, 2, 7, 1000, -2**31):
        assert_bits(run2(convert, f"a ** {k} + b.astype(a.dtype) * 0", x, n, dtype),
                    fpowi(x, torch.full((N,), k), dtype))


def test_abs_and_negative_of_integers(convert, device):
    x = ints(device, torch.int8, -128, 128)
    assert_bits(run1(convert, "abs(a) + (-a)", x, torch.int8), torch.abs(x) + (-x))


def test_abs_of_constants(convert, convert_text, device):
    """abs() of a module constant, a literal and a launch constant: a @triton.jit function has no
    builtin abs (Triton: "abs is not defined"), so known numbers fold and a constant of the
    launch is a conditional Triton decides while it compiles."""
    source = """
import cuda.tile as ct

NEG = -7


@ct.kernel
def k(y, C: ct.Constant[int]):
    ct.store(y, (0,), ct.full((4,), abs(NEG) + abs(-3) + abs(C), dtype=ct.int32))
"""
    assert "abs(" not in convert_text(source).split("def k(")[1].split("def launch_k")[0]
    mod = convert(source)
    for c in (-5, 4):
        y = torch.zeros(4, dtype=torch.int32, device=device)
        mod.launch_k(0, (1,), (y, c))
        assert y.tolist() == [7 + 3 + abs(c)] * 4


def test_pow(convert, device):
    x, y = floats(device, scale=2.0).abs() + 0.1, floats(device, scale=2.0)
    torch.testing.assert_close(run2(convert, "a ** b", x, y, torch.float32), torch.pow(x, y), rtol=1e-6, atol=0)
    torch.testing.assert_close(run2(convert, "ct.pow(b, 3)", x, y, torch.float32), torch.pow(y, 3), rtol=1e-6,
                               atol=1e-6)
    # a scalar base: the result is a tile (under the interpreter it took the base's 0-d type)
    torch.testing.assert_close(run2(convert, "ct.pow(2.0, b)", x, y, torch.float32), torch.pow(2.0, y), rtol=1e-6,
                               atol=1e-6)


def test_atan2(convert, device):
    x, y = floats(device), floats(device)
    torch.testing.assert_close(run2(convert, "ct.atan2(a, b)", x, y, torch.float32), torch.atan2(x, y), rtol=1e-6,
                               atol=1e-7)


# ------------------------------------------------------- conversions

def test_astype_float_to_int_truncates(convert, device):
    x = floats(device, scale=100.0)
    assert_bits(run1(convert, "a.astype(ct.int32)", x, torch.int32), x.to(torch.int32))


def test_astype_int_to_narrower_int_wraps_and_to_bool(convert, device):
    x = ints(device, low=-100000, high=100000)
    x[0] = 0
    assert_bits(run1(convert, "ct.astype(a, ct.int8)", x, torch.int8), x.to(torch.int8))
    assert_bits(run1(convert, "a.astype(ct.bool_).astype(ct.int32)", x, torch.int32), (x != 0).to(torch.int32))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_astype_float_to_bool_is_not_equal_to_zero(convert, device, dtype):
    """cuTile's float -> bool is `ftoi unsigned` to i1, which its compiler (tileiras 13.4) writes
    as setp.neu (read in its PTX): x != 0 with NaN true and -0.0 false, not a truncation (0.5 is
    true)."""
    x = torch.tensor([0.0, -0.0, 0.5, -0.25, 2.0, float("nan"), float("inf"), 1e-30] * 4)
    mod = convert(KERNEL1.format(expr=f"a.astype(ct.{dtype}).astype(ct.bool_).astype(ct.int32)"))
    out = torch.zeros(x.shape, dtype=torch.int32)
    mod.launch_k(0, (1,), (x.to(device), out.to(device), x.numel()))
    want = x.to(getattr(torch, dtype)) != 0
    assert out.tolist() == want.to(torch.int32).tolist()


def _float16_toward_zero(values):
    nearest = values.astype(np.float16)
    too_far = np.abs(nearest.astype(np.float32)) > np.abs(values)
    toward_zero = np.nextafter(nearest, np.float16(0))
    return np.where(too_far, toward_zero, nearest)


def test_astype_downcast_rounding(convert, device):
    x = floats(device)
    assert_bits(run1(convert, "a.astype(ct.float16)", x, torch.float16), x.half())
    out = run1(convert, "a.astype(ct.float16, rounding_mode=ct.RoundingMode.RZ)", x, torch.float16)
    assert_bits(out.cpu(), torch.from_numpy(_float16_toward_zero(x.cpu().numpy())))


def test_bitcast(convert, device):
    x = floats(device)
    assert_bits(run1(convert, "ct.bitcast(a, ct.int32)", x, torch.int32), x.view(torch.int32))


def test_dtype_constructors_and_python_conversions(convert, device):
    mod = convert("""
import cuda.tile as ct

@ct.kernel
def k(x, out, s, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    f = ct.float32(s) / 4
    i = int(f) + int(2.9)
    ct.store(out, index=(bid,), tile=a + ct.float32(i) + float(3) + ct.float16(0.1))
""")
    x = floats(device)
    out = torch.zeros_like(x)
    mod.launch_k(0, grid(N), (x, out, 9, TILE))
    expected = x + 4.0 + 3.0 + torch.tensor(0.1, dtype=torch.float16).float()  # int(2.25) + int(2.9) = 4
    assert_bits(out, expected)


def test_dtype_calls_of_numpy_torch_strings_and_no_value(convert, device):
    """cuTile reads np.float16(1.5) and torch.float32(1.0) as ct.float16(1.5) and ct.float32(1.0),
    a dtype called without a value as of 0 (its x=0), and of a string through Python's float(),
    int() or bool() for the dtype's kind (ct.float32("-inf"), ct.int32("7"))."""
    mod = convert("""
import numpy as np
import torch
import cuda.tile as ct

@ct.kernel
def k(x, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    low = ct.full((TILE,), ct.float32("-inf"), ct.float32)
    b = ct.maximum(a, low) * np.float16(1.5) + torch.float32(0.25) + ct.int32("7") + ct.int32()
    ct.store(out, index=(bid,), tile=b + ct.float16("0.1") + ct.bool_("False"))
""")
    x = floats(device)
    out = torch.zeros_like(x)
    mod.launch_k(0, grid(N), (x, out, TILE))
    tenth = torch.tensor(0.1, dtype=torch.float16).float()
    assert_bits(out, x * 1.5 + 0.25 + 7 + 0 + tenth + 1)


@pytest.mark.parametrize("expr,message", [
    ('ct.int32("x")', 'cannot read "x" as an integer'),
    ('ct.float32("1e")', 'cannot read "1e" as a number'),
    ("ct.float32(r'1')", "of this string cannot be converted"),
])
def test_dtype_call_of_a_string_python_cannot_read(convert_error, expr, message):
    source = KERNEL2.format(expr=f"a + {expr}").replace("shape=(TILE,))", "shape=(TILE,)).astype(ct.float32)")
    assert message in convert_error(source)


# --------------------------------------------------------- rejections

@pytest.mark.parametrize("expr,message", [
    ("a.astype(ct.int32) + b.astype(ct.uint32)", "signed with unsigned"),
    ("a.astype(ct.float16) * b.astype(ct.bfloat16)", "float16 with bfloat16"),
    ("(a > 0) + (b > 0)", "two bool operands"),
    ("a.astype(ct.int8) + 200", "does not fit in int8"),
    ("a.astype(ct.uint8) + (-1)", "does not fit in uint8"),
    ("a.astype(ct.int32) ** 2", "integer ** integer"),
    ("ct.floor(a.astype(ct.int32))", "takes a float tile"),
    ("ct.isnan(a.astype(ct.int32))", "takes a float tile"),
    ("a & b", "integer or bool"),
    ("a.astype(ct.int32) & b.astype(ct.int16)", "same dtype"),
    ("a.astype(ct.int8) & True", "bool and int8"),
    ("(a > 0) | b.astype(ct.int8)", "same dtype"),
    ("ct.add(a, b, rounding_mode=ct.RoundingMode.RZ)", "cannot be converted"),
    ("ct.astype(a, ct.float16, rounding_mode=ct.RoundingMode.RM)", "cannot be converted"),
    ("ct.bitcast(a, ct.int16)", "same width"),
    ("~1.5", "float constant"),
])
def test_rejected_as_cutile_rejects(convert_error, expr, message):
    source = KERNEL2.format(expr=expr).replace("shape=(TILE,))", "shape=(TILE,)).astype(ct.float32)")
    assert message in convert_error(source)


def test_two_bools_divide_as_float32(convert, device):
    """cuTile refuses +, //, %, ** on two bools, not / (float32, read in its front end's types;
    0 / 0 is NaN, 1 / 0 infinity)."""
    mod = convert(KERNEL2.format(expr="(a > 0) / (b > 0)").replace("shape=(TILE,))", "shape=(TILE,)).astype(ct.float32)"))
    x, y = floats(device), floats(device).flip(0)
    out = torch.zeros_like(x)
    mod.launch_k(0, grid(N), (x, y, out, TILE))
    torch.testing.assert_close(out, (x > 0).float() / (y > 0).float(), rtol=0, atol=0, equal_nan=True)


def test_divmod_of_floats_is_rejected(convert_error):
    source = KERNEL2.format(expr="divmod(a, b)[0]").replace("shape=(TILE,))", "shape=(TILE,)).astype(ct.float32)")
    assert "divmod() on floats" in convert_error(source)


def test_approximate_mappings_are_noted(convert_text):
    text = convert_text(KERNEL2.format(
        expr="ct.truediv(a, b, rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)"))
    assert ")  # C2T201: RoundingMode.APPROX division computed as the full-range one" in text  # ends the statement
    assert "C2T202" not in text  # flush_to_zero is applied (below)
    assert "ct_flush_subnormals(ct_truediv_full(ct_flush_subnormals(a), ct_flush_subnormals(b)))" in text


FLUSHED = """
import cuda.tile as ct

@ct.kernel
def k(x, y, out, TILE: ct.Constant[int]):
    a = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    b = ct.load(y, index=(ct.bid(0),), shape=(TILE,))
    ct.store(out, index=(ct.bid(0), 0), tile=ct.reshape(ct.exp2(a, flush_to_zero=True), (TILE, 1)))
    ct.store(out, index=(ct.bid(0), 1), tile=ct.reshape(ct.exp2(a), (TILE, 1)))
    ct.store(out, index=(ct.bid(0), 2), tile=ct.reshape(ct.mul(a, b, flush_to_zero=True), (TILE, 1)))
    ct.store(out, index=(ct.bid(0), 3), tile=ct.reshape(ct.mul(a, b), (TILE, 1)))
    ct.store(out, index=(ct.bid(0), 4), tile=ct.reshape(ct.rsqrt(b, flush_to_zero=True), (TILE, 1)))
    ct.store(out, index=(ct.bid(0), 5), tile=ct.reshape(ct.maximum(b, -b, flush_to_zero=True), (TILE, 1)))
    ct.store(out, index=(ct.bid(0), 6), tile=ct.reshape(ct.truediv(a, b, flush_to_zero=True), (TILE, 1)))
    ct.store(out, index=(ct.bid(0), 7), tile=ct.reshape(ct.add(b, b, flush_to_zero=True), (TILE, 1)))
"""


def test_flush_to_zero_flushes_float32_operands_and_results(convert, device):
    """flush_to_zero=True (float32): subnormal operands count as zeros of their sign and a
    subnormal result is a zero of its sign, as PTX's .ftz forms do (measured on the H200:
    cuTile's exp2(-144.66, flush_to_zero=True) is 0, its exp2(-144.66) 2.8e-44); without it the
    subnormals stay, as in cuTile (the launches compile with enable_reflect_ftz=False)."""
    mod = convert(FLUSHED)
    tiny = 1e-39  # a float32 subnormal
    a = torch.tensor([-144.66, -100.0, 1e-20, 2.0], device=device)
    b = torch.tensor([1e-20, tiny, -tiny, 4.0], device=device)
    out = torch.zeros(4, 8, device=device)
    mod.launch_k(0, (1,), (a, b, out, 4))
    out = out.cpu()
    assert out[0, 0] == 0.0 and out[0, 1] > 0  # exp2: a subnormal result flushed, kept
    assert out[1, 2] == 0.0 and torch.signbit(out[1, 2]) and out[1, 3] == pytest.approx(-1e-37)  # -100 * tiny
    assert out[1, 4] == float("inf") and out[2, 4] == float("-inf")  # rsqrt of a flushed +-tiny: 1/sqrt(+-0)
    assert torch.equal(out[:3, 5], torch.tensor([1e-20, 0.0, 0.0]))  # max(b, -b) of flushed operands
    assert out[1, 6] == float("-inf") and out[2, 6] == float("-inf")  # -100 / +0, 1e-20 / -0
    assert out[2, 7] == 0.0 and torch.signbit(out[2, 7]) and out[0, 7] == pytest.approx(2e-20)  # -tiny + -tiny


# the kernel of tests/compile/cases/constexpr_conversions.py (compiled for sm_90 there)
CONSTEXPR_CONVERSIONS = (Path(__file__).parents[1] / "compile" / "cases" / "constexpr_conversions.py").read_text()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("flip", [0, 3])
def test_int_float_bool_of_constant_parameters(convert, device, dtype, flip):
    # float(N), int(S), bool(F) of Constant parameters: Python's conversions of the
    # launch's values (int(2.75) truncates to 2), loosely typed (the tile's dtype stays)
    mod = convert(CONSTEXPR_CONVERSIONS)
    x = torch.randn(N, device=device).to(dtype)
    out = torch.zeros_like(x)
    mod.launch_k(0, grid(N), (x, out, TILE, 2.75, flip))
    expected = (x / float(TILE)) * 2
    assert out.dtype == dtype
    torch.testing.assert_close(out, -expected if flip else expected, rtol=0, atol=0)


BROADCAST_CONSTEXPR_SHAPES = """
import cuda.tile as ct

@ct.kernel
def k(mask, x, z, MN: ct.Constant[int], MM: ct.Constant[int], XN: ct.Constant[int], XM: ct.Constant[int]):
    tm = ct.load(mask, index=(0, 0), shape=(MN, MM))
    tx = ct.load(x, index=(0, 0), shape=(XN, XM))
    ct.store(z, index=(0, 0), tile=ct.where(tm, tx, 0.0) + tx * 0.0)
"""


@pytest.mark.parametrize("mask_shape", [(1, 32), (16, 1), (16, 32)])
def test_broadcast_of_tiles_whose_shapes_are_separate_constexprs(convert, device, mask_shape):
    # (1, N) against (M, N), each dimension its own constexpr: the result is (M, N), which the
    # store's descriptor (TMA path: float32 rows of 128 bytes) and pointer twin must both take
    mod = convert(BROADCAST_CONSTEXPR_SHAPES)
    mask = (torch.arange(mask_shape[0] * mask_shape[1]) % 3 == 0).reshape(mask_shape).to(device)
    x = torch.randn(16, 32, device=device)
    z = torch.zeros(16, 32, device=device)
    mod.launch_k(0, (1,), (mask, x, z, *mask_shape, 16, 32))
    assert torch.equal(z, torch.where(mask, x, 0.0))



LOOSE_REASSIGNED = '''
import cuda.tile as ct


@ct.kernel
def k(x, out, n: ct.Constant[int]):
    t = n * 3
    t += 1
    b = ct.astype(ct.load(x, (0,), (4,)), ct.int8) + t
    ct.store(out, (0,), b.astype(ct.int32))
'''


def test_a_reassigned_loose_integer_keeps_an_int8_tiles_dtype(convert):
    """t = n * 3; t += 1 (n a Constant parameter) is a loosely typed integer, so int8 + t stays
    int8 in cuTile (its test_loose_typing); assigned twice it is no constexpr local in Triton,
    which promoted the sum to int32 (161 instead of int8's -95). The integer is cast to the tile's
    dtype (through ct_loose_integer where that dtype comes with the launch: the compile case
    loose_integer)."""
    mod = convert(LOOSE_REASSIGNED)
    x, out = torch.full((4,), 100, dtype=torch.int32), torch.zeros(4, dtype=torch.int32)
    mod.launch_k(0, (1,), (x, out, 20))
    assert torch.equal(out, torch.full((4,), -95, dtype=torch.int32)), out


REBOUND_ARRAY = '''
import cuda.tile as ct


@ct.kernel
def k(x, y):
    x = ct.load(x, (0,), (16,))
    m = ct.bid(0) + 1
    ct.store(y, (0,), m * x + m * (x + 1))
'''


def test_an_array_parameter_rebound_to_its_tile(convert):
    """x = ct.load(x, ...), then int * x: the int was converted to the tile's dtype through
    `x.dtype.element_ty`, the array's, which the name no longer held (AttributeError at launch,
    exit 0); the tile's own dtype is read now (`x.dtype`, `(x + 1).dtype`)."""
    mod = convert(REBOUND_ARRAY)
    x, y = torch.arange(16.0), torch.zeros(16)
    mod.launch_k(0, (1,), (x, y))
    torch.testing.assert_close(y, x + (x + 1))


def test_negative_of_a_bool_tile_of_a_launch_dtype_is_int32(convert, convert_text, device):
    """cuTile negates a bool tile as int32 (-True is -1); Triton negates int1 in int1, where -True
    is True. The tile's dtype comes with the launch here (a bool array's), so ct_negative decides
    while Triton compiles; a tile known to be a float at launch (one times 0.5) stays `-x`."""
    x = ints(device, torch.int32, 0, 2).bool()
    for expr in ("-a", "ct.negative(a)"):
        assert_bits(run1(convert, expr, x, torch.int32), -(x.int()))
    f = floats(device)
    assert_bits(run1(convert, "-a", f, torch.float32), -f)
    body = convert_text(KERNEL1.format(expr="-(a * 0.5)")).split("def k(")[1].split("def launch_k")[0]
    assert "ct_negative" not in body and "-(a * 0.5)" in body


def test_a_dtype_of_a_loop_counter_expression(convert, device):
    """ct.int8(i - 4) of a range loop's counter: Triton's interpreter runs the loop with Python
    ints, which have no .to (tl.cast takes them; a GPU's tensors too)."""
    mod = convert('''
import cuda.tile as ct


@ct.kernel
def k(y):
    for i in range(8):
        ct.scatter(y, i, ct.int8(i - 4) + ct.astype(i * 2, ct.int8))
''')
    y = torch.zeros(8, dtype=torch.int8, device=device)
    mod.launch_k(0, (1,), (y,))
    assert y.tolist() == [i - 4 + 2 * i for i in range(8)]
