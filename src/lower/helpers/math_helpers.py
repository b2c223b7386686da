"""Runtime helpers of the elementwise math family (src/lower/lower_math*.c).

Each helper is a @triton.jit (or @triton.constexpr_function) function that a
generated module carries once, when it uses it; its docstring says which
cuTile semantics it carries. Helpers compute cuTile's dtypes at Triton compile
time (ct_common_dtype) because array dtypes are known only at launch.

Triton's interpreter (TRITON_INTERPRET=1, CPU) has no libdevice: helpers that
call libdevice take another path there (`if INTERPRETED:`), numpy's function
through interpreted_numpy; Triton compiles only the branch its constexpr
condition picks, so the GPU never sees that path.

The lines above the first `# helper:` marker are not generated; they make the
file importable (tests/helpers). See tools/gen_helpers.py for the format.
"""
import os

import triton
import triton.language as tl
from triton.language.extra import libdevice

INTERPRETED = tl.constexpr(os.environ.get("TRITON_INTERPRET", "0") == "1")  # as host_helpers.py's INTERPRETED


# helper: ct_negative
@triton.jit
def ct_negative(x):
    """-x as cuTile computes it for a tile whose dtype is known at launch: a bool tile becomes
    int32 first, so -True is -1 (Triton negates an int1 tile in int1, where -True is True)."""
    if x.dtype == tl.int1:  # one branch only: Triton refuses two return types in one function
        return -(x.to(tl.int32))
    else:
        return -x


# helper: ct_common_dtype
@triton.constexpr_function
def ct_common_dtype(x, y):
    """The dtype cuTile gives an arithmetic operation on x and y (its promotion, not
    Triton's): a Python number takes the dtype of a tile of its kind or a higher one
    (bool < integer < float); an integer with a float gives the float dtype, bfloat16
    included; signed with unsigned integers and float16 with bfloat16 are errors."""
    def kind(dtype):
        return 0 if dtype == tl.int1 else 1 if dtype.is_int() else 2

    def number_dtype(value):
        if isinstance(value, bool):
            return tl.int1
        if isinstance(value, int):
            return tl.int32 if -2**31 <= value < 2**31 else tl.int64
        return tl.float32

    x_number, y_number = not hasattr(x, "dtype"), not hasattr(y, "dtype")
    a = number_dtype(x) if x_number else x.dtype
    b = number_dtype(y) if y_number else y.dtype
    if x_number != y_number:
        number, tile = (a, b) if x_number else (b, a)
        return tile if kind(number) <= kind(tile) else number
    if a == b:
        return a
    if kind(a) != kind(b):
        return a if kind(a) > kind(b) else b
    if kind(a) == 2:
        if a.primitive_bitwidth == b.primitive_bitwidth:
            raise TypeError(f"cuTile does not promote {a} with {b}")
        return a if a.primitive_bitwidth > b.primitive_bitwidth else b
    if a.is_int_signed() != b.is_int_signed():
        raise TypeError(f"cuTile does not promote {a} with {b} (signed with unsigned)")
    return a if a.int_bitwidth > b.int_bitwidth else b


# helper: ct_float_dtype
@triton.constexpr_function
def ct_float_dtype(dtype):
    """The dtype of cuTile's float functions (exp, sqrt, /, ...) on `dtype`: integers and
    bool give float32."""
    return dtype if dtype.is_floating() else tl.float32


# helper: ct_compute_dtype
@triton.constexpr_function
def ct_compute_dtype(dtype):
    """Where a float function of `dtype` is computed: float16/bfloat16 in float32 (rounded
    back once: float32 has enough bits that the result is the correctly rounded one for
    + - * / sqrt), float32/float64 in themselves."""
    return tl.float32 if dtype.primitive_bitwidth < 32 else dtype


# helper: interpreted_numpy
@triton.constexpr_function
def interpreted_numpy(name, *args):
    """Only under TRITON_INTERPRET=1, which has no libdevice: numpy's function `name` on
    the interpreter's float32/float64 tensors (the GPU path calls libdevice instead)."""
    import numpy as np
    from triton.runtime.interpreter import TensorHandle
    like = next(a for a in args if isinstance(a, tl.tensor))
    values = [a.handle.data if isinstance(a, tl.tensor) else a for a in args]
    with np.errstate(all="ignore"):
        result = np.asarray(getattr(np, name)(*values)).astype(like.handle.data.dtype)
    # the operands' broadcast shape (pow(scalar, tile) is a tile)
    scalar = like.type.scalar
    result_type = tl.block_type(scalar, list(result.shape)) if result.ndim else scalar
    return tl.tensor(TensorHandle(result, like.handle.dtype), result_type)


# helper: ct_bf16_operand
@triton.jit
def ct_bf16_operand(x, other_dtype: tl.constexpr):
    """x, an integer or bool operand of an operation whose other operand has dtype
    `other_dtype`: cuTile computes an integer with bfloat16 in bfloat16, Triton would use
    float32, so x becomes bfloat16 there and stays as it is otherwise."""
    if other_dtype == tl.bfloat16:
        return x.to(tl.bfloat16)
    else:
        return x


# helper: ct_loose_integer
@triton.jit
def ct_loose_integer(x, other_dtype: tl.constexpr):
    """x, a loosely typed integer (a Python int of the cuTile source computed while the
    kernel runs), with a tile of dtype `other_dtype`: cuTile computes in the tile's dtype,
    Triton promotes an 8- or 16-bit integer tile to x's int32, so x becomes that dtype
    there and stays as it is otherwise."""
    if other_dtype.is_int() and other_dtype.primitive_bitwidth > 1 and other_dtype.primitive_bitwidth <= 16:
        return tl.cast(x, other_dtype)
    else:
        return x


# helper: ct_truediv needs ct_common_dtype ct_float_dtype
@triton.jit
def ct_truediv(x, y):
    """x / y as cuTile computes it: IEEE round-to-nearest (Triton's float32 / is
    approximate), integers divide as float32, float16/bfloat16 stay in their dtype
    (Triton gives float32)."""
    dtype: tl.constexpr = ct_float_dtype(ct_common_dtype(x, y))
    if dtype == tl.float64:
        return tl.cast(x, tl.float64) / tl.cast(y, tl.float64)  # float64 division is IEEE
    else:
        return tl.div_rn(tl.cast(x, tl.float32), tl.cast(y, tl.float32)).to(dtype)


# helper: ct_floordiv needs ct_truediv ct_compute_dtype
@triton.jit
def ct_floordiv(x, y):
    """x // y as cuTile (and Python) computes it: rounded toward negative infinity
    (Triton's // truncates toward zero and rejects floats); floats give floor(x / y)
    with an IEEE division, in their dtype."""
    dtype: tl.constexpr = ct_common_dtype(x, y)
    if dtype.is_floating():
        q = ct_truediv(x, y)
        return tl.floor(q.to(ct_compute_dtype(dtype))).to(dtype)
    else:
        x = tl.cast(x, dtype)
        y = tl.cast(y, dtype)
        q = x // y
        r = x - q * y
        return q - ((r != 0) & ((r < 0) != (y < 0))).to(dtype)


# helper: ct_mod needs ct_common_dtype ct_compute_dtype
@triton.jit
def ct_mod(x, y):
    """x % y as cuTile (and Python) computes it: the result has the sign of y (Triton's %
    is C's remainder, with the sign of x); float16/bfloat16 stay in their dtype."""
    dtype: tl.constexpr = ct_common_dtype(x, y)
    x = tl.cast(x, ct_compute_dtype(dtype) if dtype.is_floating() else dtype)
    y = tl.cast(y, ct_compute_dtype(dtype) if dtype.is_floating() else dtype)
    r = x % y
    fix = (r != 0) & ((r < 0) != (y < 0))
    return tl.where(fix, r + y, r).to(dtype)


# helper: ct_powi_exponent
@triton.constexpr_function
def ct_powi_exponent(x, y):
    """Whether cuTile computes x ** y by repeated squaring (its fpowi, tileiras 13.4 and
    later): x a float16, bfloat16, float32 or float64 tile and y an integer that int32 holds
    (an int8, int16, int32, uint8 or uint16 tile, or a Python int). A bool, int64 or uint32
    exponent, or a float one, takes pow."""
    if not hasattr(x, "dtype") or not x.dtype.is_floating() or x.dtype.primitive_bitwidth < 16:
        return False
    if not hasattr(y, "dtype"):
        return isinstance(y, int) and not isinstance(y, bool) and -2**31 <= y < 2**31
    if not y.dtype.is_int() or y.dtype == tl.int1:
        return False
    return y.dtype.int_bitwidth <= (32 if y.dtype.is_int_signed() else 16)


# helper: ct_powi_steps
@triton.constexpr_function
def ct_powi_steps(y):
    """The squarings of x ** y by repeated squaring: one fewer than the bits of |y| where y is
    a Python int (none past its highest bit: the GPU's compiler drops them anyway, the
    interpreter would compute them, overflowing to inf), else those of any int32 (31)."""
    if hasattr(y, "dtype"):
        return 31
    return max(min(abs(y), 2**31).bit_length() - 1, 0)


# helper: ct_powi needs ct_compute_dtype ct_powi_steps
@triton.jit
def ct_powi(x, y):
    """x ** y of a float tile and an integer as cuTile computes it (its fpowi, read in the PTX
    tileiras 13.4 writes): in float32 for float16/bfloat16, the product of the squares of x
    for the set bits of |y|, lowest first, each product rounded; where y is negative, the
    correctly rounded reciprocal of that; rounded back to x's dtype once."""
    dtype: tl.constexpr = x.dtype
    base = x.to(ct_compute_dtype(dtype))
    exponent = (tl.full((), y, tl.int32) if not hasattr(y, "dtype") else y).to(tl.int32)
    bits = tl.abs(exponent).to(tl.uint32)  # |-2**31| wraps to 2**31, as the PTX's abs does
    result = tl.where((bits & 1) != 0, base, 1.0)
    bits = bits >> 1
    # mul.rn as cuTile's PTX has it: products no FMA may absorb, subnormals kept (libdevice's
    # mul_rn flushes them in float32)
    F64: tl.constexpr = base.dtype == tl.float64
    MUL: tl.constexpr = "mul.rn.f64 $0, $1, $2;" if F64 else "mul.rn.f32 $0, $1, $2;"
    REGS: tl.constexpr = "=d,d,d" if F64 else "=f,f,f"
    for _ in tl.static_range(ct_powi_steps(y)):
        if INTERPRETED:
            base = base * base
            product = result * base
        else:
            base = tl.inline_asm_elementwise(MUL, REGS, [base, base], dtype=base.dtype, is_pure=True, pack=1)
            product = tl.inline_asm_elementwise(MUL, REGS, [result, base], dtype=base.dtype, is_pure=True, pack=1)
        result = tl.where((bits & 1) != 0, product, result)
        bits = bits >> 1
    if ct_compute_dtype(dtype) == tl.float64:
        reciprocal = 1.0 / result  # float64 division is IEEE
    else:
        reciprocal = tl.div_rn(tl.full(result.shape, 1.0, tl.float32), result)
    return tl.where(exponent < 0, reciprocal, result).to(dtype)


# helper: ct_pow needs ct_common_dtype ct_compute_dtype interpreted_numpy ct_powi_exponent ct_powi
@triton.jit
def ct_pow(x, y):
    """x ** y as cuTile computes it: a float tile to an integer power by repeated squaring
    (ct_powi); otherwise both operands promoted to their common float dtype (libdevice pow;
    float16/bfloat16 computed in float32 and rounded back). cuTile has no integer ** integer."""
    dtype: tl.constexpr = ct_common_dtype(x, y)
    tl.static_assert(dtype.is_floating(), "cuTile has no integer ** integer")
    if ct_powi_exponent(x, y):
        return ct_powi(x, y)
    x = tl.cast(x, ct_compute_dtype(dtype))
    y = tl.cast(y, ct_compute_dtype(dtype))
    if INTERPRETED:
        r = interpreted_numpy("power", x, y)
    else:
        r = libdevice.pow(x, y)
    return r.to(dtype)


# helper: ct_atan2 needs ct_common_dtype ct_float_dtype ct_compute_dtype interpreted_numpy
@triton.jit
def ct_atan2(x1, x2):
    """ct.atan2(x1, x2): the angle of (x2, x1) in [-pi, pi], in the common dtype of x1 and
    x2 (integers give float32; float16/bfloat16 computed in float32 and rounded back)."""
    dtype: tl.constexpr = ct_float_dtype(ct_common_dtype(x1, x2))
    x1 = tl.cast(x1, ct_compute_dtype(dtype))
    x2 = tl.cast(x2, ct_compute_dtype(dtype))
    if INTERPRETED:
        r = interpreted_numpy("arctan2", x1, x2)
    else:
        r = libdevice.atan2(x1, x2)
    return r.to(dtype)


# helper: ct_round_directed
@triton.jit
def ct_round_directed(q, exact_above, exact_below, MODE: tl.constexpr):
    """Only under TRITON_INTERPRET=1: the float32 `q`, rounded to nearest, moved one ulp
    where the exact result lies above it (`exact_above`) or below it (`exact_below`) and
    MODE ("rz" toward zero, "rd" down, "ru" up) rounds the other way. The callers find
    the side from a remainder that is exact in float64."""
    bits = q.to(tl.int32, bitcast=True)
    up = tl.where(q > 0, bits + 1, tl.where(q < 0, bits - 1, 1)).to(tl.float32, bitcast=True)
    down = tl.where(q > 0, bits - 1, tl.where(q < 0, bits + 1, -2147483647)).to(tl.float32, bitcast=True)
    if MODE == "rd":
        return tl.where(exact_below, down, q)
    elif MODE == "ru":
        return tl.where(exact_above, up, q)
    else:
        return tl.where((q > 0) & exact_below, down, tl.where((q < 0) & exact_above, up, q))


# helper: ct_truediv_directed needs ct_round_directed ct_common_dtype
@triton.jit
def ct_truediv_directed(x, y, MODE: tl.constexpr):
    """ct.truediv(x, y, rounding_mode=RZ/RM/RP) on float32: the quotient rounded toward
    zero (MODE "rz"), down ("rd") or up ("ru"), as libdevice's div_rz/rd/ru."""
    tl.static_assert(ct_common_dtype(x, y) == tl.float32, "converted for float32 only")
    x = tl.cast(x, tl.float32)
    y = tl.cast(y, tl.float32)
    if INTERPRETED:
        q = tl.div_rn(x, y)
        r = (x.to(tl.float64) - q.to(tl.float64) * y.to(tl.float64)) * y.to(tl.float64)
        return ct_round_directed(q, r > 0, r < 0, MODE)
    elif MODE == "rz":
        return libdevice.div_rz(x, y)
    elif MODE == "rd":
        return libdevice.div_rd(x, y)
    else:
        return libdevice.div_ru(x, y)


# helper: ct_sqrt_directed needs ct_round_directed
@triton.jit
def ct_sqrt_directed(x, MODE: tl.constexpr):
    """ct.sqrt(x, rounding_mode=RZ/RM/RP) on float32: the square root rounded toward zero
    (MODE "rz"), down ("rd") or up ("ru"), as libdevice's sqrt_rz/rd/ru."""
    tl.static_assert(x.dtype == tl.float32, "converted for float32 only")
    x = tl.cast(x, tl.float32)
    if INTERPRETED:
        q = tl.sqrt_rn(x)
        r = x.to(tl.float64) - q.to(tl.float64) * q.to(tl.float64)
        return ct_round_directed(q, r > 0, r < 0, MODE)
    elif MODE == "rz":
        return libdevice.sqrt_rz(x)
    elif MODE == "rd":
        return libdevice.sqrt_rd(x)
    else:
        return libdevice.sqrt_ru(x)


# helper: ct_truediv_full needs ct_common_dtype
@triton.jit
def ct_truediv_full(x, y):
    """ct.truediv(x, y, rounding_mode=FULL) on float32: Triton's plain / on float32, PTX's
    div.full.f32, the full-range division within 2 ulp that cuTile's FULL is (an exact
    quotient may come out one ulp off, as with cuTile: a later rounding to float8 can then
    differ from the IEEE quotient's)."""
    tl.static_assert(ct_common_dtype(x, y) == tl.float32, "converted for float32 only")
    return tl.cast(x, tl.float32) / tl.cast(y, tl.float32)


# helper: ct_flush_subnormals
@triton.jit
def ct_flush_subnormals(x):
    """flush_to_zero=True of cuTile (float32 only): a subnormal, below 2**-126 in magnitude, as
    a zero of its sign, as the .ftz forms of PTX take their operands and give their results.
    Triton compiles without them (enable_reflect_ftz=False, cuTile's default), so the
    operation's operands and result go through this."""
    tl.static_assert(x.dtype == tl.float32, "cuTile takes flush_to_zero=True for float32 only")
    return tl.where(tl.abs(x) < 1.1754943508222875e-38, x * 0.0, x)


# helper: ct_isnan
@triton.jit
def ct_isnan(x):
    """ct.isnan: x != x (float != is unordered: true for NaN only)."""
    return x != x


# helper: ct_cdiv
@triton.jit
def ct_cdiv(x, y):
    """ct.cdiv: the exact ceiling of x / y for integers of any sign (tl.cdiv is
    (x + y - 1) // y with a truncating //, wrong for negative operands)."""
    q = x // y
    r = x % y
    return q + ((r != 0) & ((r > 0) == (y > 0))).to(q.dtype)


# helper: ct_to_tfloat32
@triton.jit
def ct_to_tfloat32(x):
    """cuTile's astype(x, tfloat32) of a float tile: the value rounded to tf32 (10 mantissa
    bits, float32's exponent range), to nearest, ties to even, as float32 (Triton has no tf32
    dtype; a product of such tiles takes input_precision="tf32", whose hardware conversion
    truncates, which changes nothing once they are tf32 values). float16 and bfloat16 hold
    only tf32 values. float32 rounds on its bits (subnormals too, the carry reaching the
    exponent where it rounds up); float64, integers and bools to float32 first, as cuTile's
    compiler converts them (cvt.rn.f32.f64 or cvt.rn.f32.s32, then cvt.rn.tf32.f32).
    Infinities and NaN stay; values past tf32's largest round to infinity."""
    if x.dtype == tl.float32 or x.dtype == tl.float64 or not x.dtype.is_floating():
        x = x.to(tl.float32)
        bits = x.to(tl.uint32, bitcast=True)
        rounded = (bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000
        return tl.where((bits & 0x7F800000) == 0x7F800000, x, rounded.to(tl.float32, bitcast=True))
    else:
        return x.to(tl.float32)


# helper: ct_tf32_staged needs ct_to_tfloat32
@triton.jit
def ct_tf32_staged(staged, x):
    """astype(x, tfloat32) of a tile the launcher also staged (src/lower/lower_tf32.c): the
    same tile read from the rounded, K-major copy where the kernel has it (not None), which
    goes from TMA to the product; else x rounded here. The same bits either way."""
    if staged is None:
        return ct_to_tfloat32(x)
    else:
        return staged


# helper: ct_to_float4_e2m1fn
@triton.jit
def ct_to_float4_e2m1fn(x):
    """cuTile's astype(x, float4_e2m1fn) of a float tile, as uint8 codes (Triton has no FP4
    dtype): bit 3 the sign, bits 2-1 the exponent (bias 1), bit 0 the mantissa, so codes
    0..7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6 and 8..15 their negatives. Round to nearest, ties
    to even, on the exact value: |x| is compared with the midpoints in float32 (float64
    for float64), which hold every midpoint and every input exactly. Past 5 it saturates
    to 6, infinities included; -0.0 and negatives that round to zero keep the sign
    (code 8). NaN has no FP4 code and cuTile defines none: it gives 7 (6.0)."""
    tl.static_assert(x.dtype.is_floating(), "astype to float4_e2m1fn takes a float tile")
    if x.dtype == tl.float64:
        v = x
        sign = (v.to(tl.uint64, bitcast=True) >> 63).to(tl.uint8)
    else:
        v = x.to(tl.float32)
        sign = (v.to(tl.uint32, bitcast=True) >> 31).to(tl.uint8)
    a = tl.abs(v)
    # the magnitude code is the number of midpoints below |x|; at a midpoint (a tie) the
    # even code wins: 0.25 -> 0, 0.75 -> 2, 1.25 -> 2, 1.75 -> 4, 2.5 -> 4, 3.5 -> 6, 5 -> 6
    m = ((a > 0.25).to(tl.uint8) + (a >= 0.75).to(tl.uint8) + (a > 1.25).to(tl.uint8) + (a >= 1.75).to(tl.uint8)
         + (a > 2.5).to(tl.uint8) + (a >= 3.5).to(tl.uint8) + (a > 5.0).to(tl.uint8))
    code = m | (sign << 3)
    return tl.where(a != a, 7, code).to(tl.uint8)


# helper: ct_from_float4_e2m1fn
@triton.jit
def ct_from_float4_e2m1fn(code, dtype: tl.constexpr):
    """cuTile's astype of a float4_e2m1fn tile (its uint8 codes, sign in bit 3) to the
    float dtype `dtype`: exact, as every FP4 value is a value of every float dtype; code 8
    is -0.0."""
    mag = code & 7
    # codes 2..7 are (2 + mantissa) * 2**exponent / 4; codes 0 and 1 are 0 and 0.5
    value = tl.where(mag < 2, mag.to(tl.float32) * 0.5, ((2 + (mag & 1)) << (mag >> 1)).to(tl.float32) * 0.25)
    bits = value.to(tl.uint32, bitcast=True) | ((code >> 3).to(tl.uint32) << 31)
    return bits.to(tl.float32, bitcast=True).to(dtype)


# helper: ct_float8_e8m0fnu_to_float32
@triton.jit
def ct_float8_e8m0fnu_to_float32(bits):
    """The value of float8_e8m0fnu bits b (a uint8 tile: Triton has no such dtype) as
    float32, exactly: 2**(b-127), made as float32 bits, b in the exponent field for b in
    1..254, the subnormal 2**-127 (mantissa bit 22) for b = 0, NaN for 255. The dtype has
    no sign, no zero and no infinity."""
    b = bits.to(tl.uint32)
    f = tl.where(b == 0, 0x00400000, b << 23)
    f = tl.where(b == 255, 0x7FC00000, f)
    return f.to(tl.float32, bitcast=True)


# helper: ct_float8_e8m0fnu_bits
@triton.constexpr_function
def ct_float8_e8m0fnu_bits(value):
    """The float8_e8m0fnu bits cuTile folds the constant `value` to (a constant parameter, or
    an expression the converter does not fold): 2**e for value in [2**e, 1.5 * 2**e), 2**(e+1)
    from 1.5 * 2**e (bits e + 127); 0 and values below 2**-127 are bits 0 (2**-127); NaN,
    infinities and values from 1.5 * 2**127 are 255 (NaN). Negative values (-0.0 too) are
    cuTile's error."""
    value = float(value)
    if value < 0 or str(value) == "-0.0":
        raise ValueError(f"negative values cannot be represented in float8_e8m0fnu (got {value})")
    if value != value:
        return 255
    for exponent in range(127, -128, -1):
        if value >= 2.0 ** exponent:  # value in [2**e, 2**(e+1)), or from 2**128 up (then NaN)
            biased = exponent + 127 + (value >= 1.5 * 2.0 ** exponent)
            return 255 if biased > 254 else biased
    return 0
