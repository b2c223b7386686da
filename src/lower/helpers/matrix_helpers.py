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
    only), exact in int32's wrap-around. fp8 into float32 accumulates precisely unless
    use_fast_acc: every 32 products (one sm_90 wgmma step) are added into the float32
    accumulator (Triton's default on sm_90 is never, the fast accumulator; 0 would leave
    wgmma for an upcast mma)."""
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
        IMPRECISE: tl.constexpr = 32 if x.dtype.is_fp8() and not use_fast_acc else None
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


# helper: ct_matmul needs ct_common_dtype ct_matmul_acc_dtype ct_mma
@triton.jit
def ct_matmul(x, y, input_precision: tl.constexpr):
    """ct.matmul(x, y) and `x @ y`: the operands promoted to their common dtype, the product
    accumulated in the first accumulator cuTile's mma table allows for it (float16 and fp8
    in float16, [u]int8 in int32) and cast back to that dtype. A 1-D x is a row (1, K), a
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
    if X_VECTOR:
        result = tl.sum(result, len(result.shape) - 2, dtype=D)
    if Y_VECTOR:
        result = tl.sum(result, len(result.shape) - 1, dtype=D)
    return result
