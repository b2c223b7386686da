"""Runtime helpers of matrix products (src/lower/lower_matrix.c): ct.mma, ct.matmul, `@`.

cuTile's products differ from tl.dot in ways that matter for the result:
float32 operands multiply in true float32 (tl.dot's default is tf32), batch
dimensions broadcast (tl.dot needs equal ones), int8 may meet uint8 (tl.dot
takes int8 only), any power-of-two K works (tl.dot needs K >= 16, or 32 for
8-bit operands), and fp8 accumulates precisely unless use_fast_acc (Triton's
default on sm_90 is the fast accumulator). Array dtypes are known only at
launch, so the checks and choices happen at Triton compile time here; the
converter passes what it knows (input precision, fast accumulation).

The lines above the first `# helper:` marker are not generated; they make the
file importable (tests/helpers). See tools/gen_helpers.py for the format.
"""
import triton
import triton.language as tl


# helper: ct_run_time_zero
@triton.jit
def ct_run_time_zero():
    """0, as a value Triton does not know while it compiles. A loop of matrix products whose
    constexpr trip count is 1 starts there: Triton folds a loop it knows runs once into
    straight-line code, which issues each load where it stands (a decode kernel's V tile only
    after its QK product and softmax); kept as a loop, its software pipeliner issues all the
    iteration's loads first, together (H100, TileGym's flash decode, one 128-key tile a
    program: 3.24 us against 3.66)."""
    return tl.minimum(tl.program_id(0), 0)


# helper: ct_signed_integer
@triton.constexpr_function
def ct_signed_integer(x):
    """Whether `x` (a Python number or a tensor) is a signed integer of more than one bit:
    what Triton compares with an int32 counter without changing either."""
    if isinstance(x, bool):
        return False
    if isinstance(x, int):
        return True
    dtype = getattr(x, "dtype", None)
    return dtype is not None and dtype.is_int_signed() and dtype.primitive_bitwidth > 1


# helper: ct_loop_split needs ct_signed_integer
@triton.jit
def ct_loop_split(bound, start, stop, step, HOLDS_FROM_BOUND: tl.constexpr, SPLIT: tl.constexpr = True):
    """Where a loop over range(start, stop, step) is split whose `if` tests `counter >= bound`
    (HOLDS_FROM_BOUND) or `counter < bound`: the first counter value at or past the bound
    (stop at most), in the range counter's dtype. The part where the test cannot hold leaves
    it out; the other keeps it. A bound that is not a signed integer (a float), a step that is
    not positive, or SPLIT false (the `if`'s constexpr tests: it never runs) splits nothing:
    the part that keeps the test runs every iteration."""
    first = start + tl.zeros((), tl.int32)
    last = stop + tl.zeros((), tl.int32)
    stride = step + tl.zeros((), tl.int32)
    if HOLDS_FROM_BOUND:
        whole = first
    else:
        whole = last
    if SPLIT and ct_signed_integer(bound):
        edge = tl.minimum(tl.maximum(bound, first), last)
        split = tl.where(stride > 0, first + (edge - first + stride - 1) // stride * stride, whole)
    else:
        split = whole
    return split.to((first + last + stride).dtype)


# helper: ct_mma_acc_ok
@triton.constexpr_function
def ct_mma_acc_ok(x, y, acc):
    """Whether cuTile's ct.mma takes operands of dtypes x, y with an accumulator of dtype acc
    (its table: f16 -> f16|f32, bf16/f32 -> f32, f64 -> f64, fp8 -> f16|f32, [u]int8 -> int32;
    x and y of one dtype except int8 with uint8)."""
    small_ints = (tl.int8, tl.uint8)
    if x != y and not (x in small_ints and y in small_ints):
        return False
    if x in (tl.float16, tl.float8e4nv, tl.float8e5):
        return acc in (tl.float16, tl.float32)
    if x in (tl.bfloat16, tl.float32):
        return acc == tl.float32
    if x == tl.float64:
        return acc == tl.float64
    return x in small_ints and acc == tl.int32


# helper: ct_matmul_acc_dtype
@triton.constexpr_function
def ct_matmul_acc_dtype(x):
    """The accumulator cuTile's ct.matmul (`@`) uses for operands of dtype x: the first the mma
    table allows (float16 and fp8 accumulate in float16, [u]int8 in int32)."""
    if x in (tl.float16, tl.float8e4nv, tl.float8e5):
        return tl.float16
    if x in (tl.bfloat16, tl.float32):
        return tl.float32
    if x == tl.float64:
        return tl.float64
    if x in (tl.int8, tl.uint8):
        return tl.int32
    return tl.int1


# helper: ct_mma_core
@triton.jit
def ct_mma_core(x, y, acc, input_precision: tl.constexpr, use_fast_acc: tl.constexpr):
    """x @ y + acc for operands of one rank (2 or 3) and equal batch dimensions: below
    tl.dot's smallest K (16; 32 for 8-bit operands) a multiply-and-sum in the accumulator's
    dtype; uint8 operands made int8 with the offset added back (tl.dot multiplies int8
    only), exact in int32's wrap-around. fp8 into float32, unless use_fast_acc: the product of
    the call's K is summed at the wgmma accumulator's precision and then added into the
    float32 accumulator, as cuTile does (H100, NVIDIA's BatchMatMul sample, fp8 4x512x256 by
    256x1024 in 128x256x128 tiles: this gives real cuTile's bits, which are cuBLASLt's; adding
    every 32 products, 0.0058 from the exact product where cuTile is 0.0315 off, and never,
    Triton's default on sm_90 and use_fast_acc's, 0.049)."""
    MIN_K: tl.constexpr = 32 if x.dtype.primitive_bitwidth == 8 else 16
    K: tl.constexpr = x.shape[len(x.shape) - 1]
    if K < MIN_K:
        if len(x.shape) == 3:
            return acc + tl.sum(x[:, :, :, None].to(acc.dtype) * y[:, None, :, :].to(acc.dtype), 2)
        else:
            return acc + tl.sum(x[:, :, None].to(acc.dtype) * y[None, :, :].to(acc.dtype), 1)
    elif x.dtype == tl.uint8 or y.dtype == tl.uint8:
        a = (x.to(tl.int16) - 128).to(tl.int8) if x.dtype == tl.uint8 else x
        b = (y.to(tl.int16) - 128).to(tl.int8) if y.dtype == tl.uint8 else y
        result = tl.dot(a, b, acc, out_dtype=tl.int32)
        if y.dtype == tl.uint8:
            result += 128 * tl.sum(a.to(tl.int32), len(x.shape) - 1, keep_dims=True)
        if x.dtype == tl.uint8:
            result += 128 * tl.sum(b.to(tl.int32), len(y.shape) - 2, keep_dims=True)
        if x.dtype == tl.uint8 and y.dtype == tl.uint8:
            result += 128 * 128 * K
        return result
    else:
        IMPRECISE: tl.constexpr = K if x.dtype.is_fp8() and not use_fast_acc else None
        return tl.dot(x, y, acc, input_precision=input_precision, max_num_imprecise_acc=IMPRECISE,
                      out_dtype=acc.dtype)


# helper: ct_mma needs ct_mma_acc_ok ct_mma_core
@triton.jit
def ct_mma(x, y, acc, input_precision: tl.constexpr, use_fast_acc: tl.constexpr):
    """ct.mma(x, y, acc): x @ y + acc in acc's dtype (ct_mma_core). x and y are 2-D or 3-D and
    their batch dimensions broadcast (tl.dot needs equal ones); a batch of one is a 2-D
    product."""
    tl.static_assert(ct_mma_acc_ok(x.dtype, y.dtype, acc.dtype),
                     "ct.mma: these operand dtypes do not take this accumulator dtype in cuTile")
    if len(acc.shape) == 2:
        return ct_mma_core(x, y, acc, input_precision, use_fast_acc)
    elif acc.shape[0] == 1:
        # one batch: a 2-D product (sm_90 runs a 3-D tl.dot on mma.sync, not on wgmma)
        M: tl.constexpr = acc.shape[1]
        N: tl.constexpr = acc.shape[2]
        K: tl.constexpr = x.shape[len(x.shape) - 1]
        a = tl.reshape(x, (M, K))
        b = tl.reshape(y, (K, N))
        # (a reshape of the result back to 3-D breaks Triton 3.6's software pipeliner)
        return tl.expand_dims(ct_mma_core(a, b, tl.reshape(acc, (M, N)), input_precision, use_fast_acc), 0)
    else:
        a = x[None, :, :] if len(x.shape) == 2 else x
        b = y[None, :, :] if len(y.shape) == 2 else y
        a = tl.broadcast_to(a, (acc.shape[0], a.shape[1], a.shape[2]))
        b = tl.broadcast_to(b, (acc.shape[0], b.shape[1], b.shape[2]))
        return ct_mma_core(a, b, acc, input_precision, use_fast_acc)


# helper: ct_matmul needs ct_common_dtype ct_matmul_acc_dtype ct_mma ct_to_tfloat32
@triton.jit
def ct_matmul(x, y, input_precision: tl.constexpr):
    """ct.matmul(x, y) and `x @ y`: the operands promoted to their common dtype, the product
    accumulated in the first accumulator cuTile's mma table allows for it (float16 and fp8
    in float16, [u]int8 in int32) and cast back to that dtype (tfloat32 operands, float32
    tiles here: the product rounded to tf32, as cuTile's cvt.rn.tf32.f32 does). A 1-D x is a row (1, K), a
    1-D y a column (K, 1), and that axis is dropped from the result (as numpy does)."""
    D: tl.constexpr = ct_common_dtype(x, y)
    ACC: tl.constexpr = ct_matmul_acc_dtype(D)
    tl.static_assert(ACC != tl.int1, "ct.matmul: cuTile has no matrix product of this dtype")
    X_VECTOR: tl.constexpr = len(x.shape) == 1
    Y_VECTOR: tl.constexpr = len(y.shape) == 1
    a = x.to(D)[None, :] if X_VECTOR else x.to(D)
    b = y.to(D)[:, None] if Y_VECTOR else y.to(D)
    if len(a.shape) == 3 or len(b.shape) == 3:
        BA: tl.constexpr = a.shape[0] if len(a.shape) == 3 else 1
        BB: tl.constexpr = b.shape[0] if len(b.shape) == 3 else 1
        acc = tl.zeros((BA if BA != 1 else BB, a.shape[len(a.shape) - 2], b.shape[len(b.shape) - 1]), ACC)
    else:
        acc = tl.zeros((a.shape[0], b.shape[1]), ACC)
    result = ct_mma(a, b, acc, input_precision, False).to(D)
    if input_precision == "tf32":  # tfloat32 operands: the product rounded back to tfloat32
        result = ct_to_tfloat32(result)
    if X_VECTOR:
        result = tl.sum(result, len(result.shape) - 2, dtype=D)
    if Y_VECTOR:
        result = tl.sum(result, len(result.shape) - 1, dtype=D)
    return result


# helper: ct_mma_scaled_error
@triton.constexpr_function
def ct_mma_scaled_error(x, y, x_scale, y_scale, acc, fp4, x_k, y_k, x_ks, y_ks):
    """What cuTile says of ct.mma_scaled with operands, scales and accumulator of these dtypes,
    operands of K x_k and y_k and scales of K_s x_ks and y_ks ("" where it takes them): its
    table (cuda/tile/_datatype.py) is float8_e4m3fn or float8_e5m2 operands with
    float8_e8m0fnu scales and B = 32, float4_e2m1fn with float8_e8m0fnu and B 16 or 32 or
    with float8_e4m3fn and B 16, B = K // K_s, a float32 accumulator; tileiras takes one B
    for both scales. float4_e2m1fn tiles (`fp4`) and float8_e8m0fnu tiles are uint8 here;
    cuTile takes no uint8 tile, so a uint8 scale is float8_e8m0fnu bits (an array of that
    dtype reaches the kernel as uint8)."""
    names = {tl.float8e4nv: "float8_e4m3fn", tl.float8e5: "float8_e5m2", tl.float32: "float32"}
    if fp4:
        x_name, y_name = "float4_e2m1fn", "float4_e2m1fn"
    else:
        x_name, y_name = names.get(x, str(x)), names.get(y, str(y))
    names[tl.uint8] = "float8_e8m0fnu"
    xs_name, ys_name = names.get(x_scale, str(x_scale)), names.get(y_scale, str(y_scale))
    if x != y:
        return f"ct.mma_scaled: x and y must have the same dtype, got {x_name} and {y_name}"
    if x_scale != y_scale:
        same = "x_scale and y_scale must have the same dtype"
        return f"ct.mma_scaled: {same}, got {xs_name} and {ys_name}"
    if not fp4 and x not in (tl.float8e4nv, tl.float8e5):
        takes = "cuTile takes float8_e4m3fn, float8_e5m2 and float4_e2m1fn (ct.bitcast bits first)"
        return f"ct.mma_scaled: unsupported input dtype {x_name}: {takes}"
    if fp4:
        blocks = (16, 32) if x_scale == tl.uint8 else (16,) if x_scale == tl.float8e4nv else ()
        supported = "float8_e8m0fnu, float8_e4m3fn"
    else:
        blocks = (32,) if x_scale == tl.uint8 else ()
        supported = "float8_e8m0fnu"
    if not blocks:
        which = f"unsupported scale dtype {xs_name} for input dtype {x_name}"
        return f"ct.mma_scaled: {which}, supported scale dtypes are {supported}"
    if acc != tl.float32:
        return f"ct.mma_scaled: unsupported acc dtype {names.get(acc, str(acc))}, expected float32"
    for name, k, ks in (("x", x_k, x_ks), ("y", y_k, y_ks)):
        if k % ks != 0 or k // ks not in blocks:
            shapes = f"{name} has K = {k} and its scale K_s = {ks}"
            rule = f"the block size B = K // K_s must divide K exactly and be one of {blocks}"
            return f"ct.mma_scaled: {shapes}: {rule} for {x_name} with {xs_name} scales"
    if x_k != y_k:
        return f"ct.mma_scaled: the shapes do not multiply (x has K = {x_k}, y has K = {y_k})"
    if x_ks != y_ks:
        same = "x_scale and y_scale must have the same K_s (one block size)"
        return f"ct.mma_scaled: {same}, got {x_ks} and {y_ks}"
    return ""


# helper: ct_mma_scaled_operand needs ct_from_float4_e2m1fn ct_float8_e8m0fnu_to_float32
@triton.jit
def ct_mma_scaled_operand(v, scale, fp4: tl.constexpr, k_axis: tl.constexpr):
    """One operand of ct.mma_scaled multiplied by its scales, in float32: v (float8, or
    float4_e2m1fn codes when fp4) and scale (float8_e8m0fnu bits as uint8, or float8_e4m3fn)
    made float32 exactly, each scale spread over its block of B = K // K_s elements along K
    (k_axis: -1, the last axis, for x [..., M, K]; -2 for y [..., K, N])."""
    if fp4:
        vf = ct_from_float4_e2m1fn(v, tl.float32)
    else:
        vf = v.to(tl.float32)
    if scale.dtype == tl.uint8:
        sf = ct_float8_e8m0fnu_to_float32(scale)
    else:
        sf = scale.to(tl.float32)
    R: tl.constexpr = len(v.shape)
    KS: tl.constexpr = scale.shape[R + k_axis]
    B: tl.constexpr = v.shape[R + k_axis] // KS
    if k_axis == -1:  # [..., M, K] as [..., M, K_s, B]
        if R == 2:
            blocks = tl.reshape(vf, (v.shape[0], KS, B)) * sf[:, :, None]
        else:
            blocks = tl.reshape(vf, (v.shape[0], v.shape[1], KS, B)) * sf[:, :, :, None]
    else:  # [..., K, N] as [..., K_s, B, N]
        if R == 2:
            blocks = tl.reshape(vf, (KS, B, v.shape[1])) * sf[:, None, :]
        else:
            blocks = tl.reshape(vf, (v.shape[0], KS, B, v.shape[2])) * sf[:, :, None, :]
    return tl.reshape(blocks, v.shape)


# helper: ct_mma_scaled needs ct_mma_scaled_error ct_mma_scaled_operand ct_mma
@triton.jit
def ct_mma_scaled(x, x_scale, y, y_scale, acc, fp4: tl.constexpr):
    """ct.mma_scaled(x, x_scale, y, y_scale, acc): acc[i, j] + the sum over k of
    x[i, k] * x_scale[i, k // B] * y[k, j] * y_scale[k // B, j], B = K // K_s, 2-D or 3-D
    (batch dimensions broadcast as ct.mma's). cuTile runs it on Blackwell's block-scaled
    MMA; Triton's interpreter has no tl.dot_scaled and Hopper no such MMA, so here each
    operand is multiplied by its scales in float32 (ct_mma_scaled_operand) and rounded to
    bfloat16, and tl.dot (ct_mma) sums the products in float32. An fp8 or fp4 value times a
    power of two (or an fp4 value times a float8_e4m3fn scale) is exact in bfloat16, which
    has float32's exponent range, so the products are exact and only the order of the sum
    differs from the hardware's, except where a scaled operand falls outside bfloat16's
    normal range: below 2**-126 it is rounded to a bfloat16 subnormal (or to zero), and at
    or above 2**128 it is infinite, where the product of the two scaled operands may be in
    range. Under TRITON_INTERPRET=1 the scaled operands stay float32 ("ieee": the same exact
    products; the interpreter multiplies bfloat16 tiles as their raw bits), so there only
    float32's own range (subnormals below 2**-126 too) bounds them. A scale of bits 255
    (NaN) gives NaN. The scales' dtype tells the scale kind: uint8
    is float8_e8m0fnu bits (cuTile takes no uint8 scales), float8e4nv is float8_e4m3fn;
    fp4 says x and y are float4_e2m1fn codes."""
    XR: tl.constexpr = len(x.shape)
    YR: tl.constexpr = len(y.shape)
    tl.static_assert(len(x_scale.shape) == XR and len(y_scale.shape) == YR,
                     "ct.mma_scaled: x_scale must have the rank of x, y_scale the rank of y")
    tl.static_assert(x_scale.shape[XR - 2] == x.shape[XR - 2] and x_scale.shape[0] == x.shape[0],
                     "ct.mma_scaled: x_scale's shape must be x's in every dimension but K")
    tl.static_assert(y_scale.shape[YR - 1] == y.shape[YR - 1] and (YR == 2 or y_scale.shape[0] == y.shape[0]),
                     "ct.mma_scaled: y_scale's shape must be y's in every dimension but K")
    ERROR: tl.constexpr = ct_mma_scaled_error(x.dtype, y.dtype, x_scale.dtype, y_scale.dtype, acc.dtype, fp4,
                                              x.shape[XR - 1], y.shape[YR - 2], x_scale.shape[XR - 1],
                                              y_scale.shape[YR - 2])
    tl.static_assert(ERROR == "", ERROR)
    a = ct_mma_scaled_operand(x, x_scale, fp4, -1)
    b = ct_mma_scaled_operand(y, y_scale, fp4, -2)
    if INTERPRETED:
        return ct_mma(a, b, acc, "ieee", False)
    else:
        return ct_mma(a.to(tl.bfloat16), b.to(tl.bfloat16), acc, "ieee", False)
