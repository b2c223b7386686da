"""Runtime helpers of reductions and scans (src/lower/lower_reduce.c).

cuTile keeps the input dtype (an int8 sum stays int8 and wraps; bool reduces
as int32); Triton widens. When the dtype comes from an array (unknown at
conversion time) these helpers pick cuTile's dtype at trace time. The argmax /
argmin helpers reduce (value, index) pairs with a combine that orders NaN as
cuTile does.

The lines above the first `# helper:` marker are not generated; they make the
file importable (tests/helpers). See tools/gen_helpers.py for the format.
"""
import triton
import triton.language as tl


# helper: ct_multiply
@triton.jit
def ct_multiply(a, b):
    """Combine of ct.prod and ct.cumprod: a * b in the operands' dtype (Triton has no tl.prod,
    and tl.cumprod promotes bfloat16 to float32)."""
    return a * b


# helper: ct_sum
@triton.jit
def ct_sum(x, axis: tl.constexpr, keep_dims: tl.constexpr):
    """ct.sum: the sum keeps x's dtype (an int8 sum wraps in int8), bool sums as int32;
    tl.sum alone would widen small integers to int32 and sum bool into uint32."""
    if x.dtype == tl.int1:
        return tl.sum(x, axis, keep_dims=keep_dims, dtype=tl.int32)
    else:
        return tl.sum(x, axis, keep_dims=keep_dims, dtype=x.dtype)


# helper: ct_prod needs ct_multiply
@triton.jit
def ct_prod(x, axis: tl.constexpr, keep_dims: tl.constexpr):
    """ct.prod: the product in x's dtype, bool as int32 (Triton has no tl.prod)."""
    values = x.to(tl.int32) if x.dtype == tl.int1 else x
    return tl.reduce(values, axis, ct_multiply, keep_dims=keep_dims)


# helper: ct_max
@triton.jit
def ct_max(x, axis: tl.constexpr, keep_dims: tl.constexpr):
    """ct.max: NaN is ignored as tl.max does, but the result keeps x's dtype (tl.max computes
    small integers and float16/bfloat16 in 32 bits); bool reduces as int32."""
    if x.dtype == tl.int1:
        return tl.max(x.to(tl.int32), axis, keep_dims=keep_dims)
    else:
        return tl.max(x, axis, keep_dims=keep_dims).to(x.dtype)


# helper: ct_min
@triton.jit
def ct_min(x, axis: tl.constexpr, keep_dims: tl.constexpr):
    """ct.min: NaN is ignored as tl.min does, but the result keeps x's dtype (tl.min computes
    small integers and float16/bfloat16 in 32 bits); bool reduces as int32."""
    if x.dtype == tl.int1:
        return tl.min(x.to(tl.int32), axis, keep_dims=keep_dims)
    else:
        return tl.min(x, axis, keep_dims=keep_dims).to(x.dtype)


# helper: ct_maximum_propagate_nan
@triton.jit
def ct_maximum_propagate_nan(a, b):
    """Combine of ct.max(..., propagate_nan=True): a NaN operand wins."""
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


# helper: ct_max_propagate_nan needs ct_maximum_propagate_nan ct_max
@triton.jit
def ct_max_propagate_nan(x, axis: tl.constexpr, keep_dims: tl.constexpr):
    """ct.max(..., propagate_nan=True): a NaN anywhere makes the result NaN (tl.max ignores
    NaN). float16/bfloat16 compare in float32, which is exact."""
    if x.dtype == tl.float16 or x.dtype == tl.bfloat16:
        wide = tl.reduce(x.to(tl.float32), axis, ct_maximum_propagate_nan, keep_dims=keep_dims)
        return wide.to(x.dtype)
    elif x.dtype.is_floating():
        return tl.reduce(x, axis, ct_maximum_propagate_nan, keep_dims=keep_dims)
    else:
        return ct_max(x, axis, keep_dims)


# helper: ct_minimum_propagate_nan
@triton.jit
def ct_minimum_propagate_nan(a, b):
    """Combine of ct.min(..., propagate_nan=True): a NaN operand wins."""
    return tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)


# helper: ct_min_propagate_nan needs ct_minimum_propagate_nan ct_min
@triton.jit
def ct_min_propagate_nan(x, axis: tl.constexpr, keep_dims: tl.constexpr):
    """ct.min(..., propagate_nan=True): a NaN anywhere makes the result NaN (tl.min ignores
    NaN). float16/bfloat16 compare in float32, which is exact."""
    if x.dtype == tl.float16 or x.dtype == tl.bfloat16:
        wide = tl.reduce(x.to(tl.float32), axis, ct_minimum_propagate_nan, keep_dims=keep_dims)
        return wide.to(x.dtype)
    elif x.dtype.is_floating():
        return tl.reduce(x, axis, ct_minimum_propagate_nan, keep_dims=keep_dims)
    else:
        return ct_min(x, axis, keep_dims)


# helper: ct_argmax_combine
@triton.jit
def ct_argmax_combine(v1, i1, v2, i2):
    """Combine of ct.argmax: the larger value wins, ties go to the smaller
    index; NaN loses to every number and two NaNs tie (as in cuTile; tl.argmax leaves NaN
    unordered)."""
    nan1 = v1 != v1
    nan2 = v2 != v2
    first = (v1 > v2) | (~nan1 & nan2) | (((v1 == v2) | (nan1 & nan2)) & (i1 < i2))
    return tl.where(first, v1, v2), tl.where(first, i1, i2)


# helper: ct_argmax needs ct_argmax_combine
@triton.jit
def ct_argmax(x, index, axis: tl.constexpr, keep_dims: tl.constexpr):
    """ct.argmax along `axis`, where `index` is tl.arange laid along that axis: the int32
    index of the largest value, ties to the smallest index, NaN loses to every number;
    bool compares as int32."""
    values = x.to(tl.int32) if x.dtype == tl.int1 else x
    values, index = tl.broadcast(values, index)
    return tl.reduce((values, index), axis, ct_argmax_combine, keep_dims=keep_dims)[1]


# helper: ct_argmin_combine
@triton.jit
def ct_argmin_combine(v1, i1, v2, i2):
    """Combine of ct.argmin: the smaller value wins, ties go to the smaller
    index; NaN loses to every number and two NaNs tie (as in cuTile; tl.argmin leaves NaN
    unordered)."""
    nan1 = v1 != v1
    nan2 = v2 != v2
    first = (v1 < v2) | (~nan1 & nan2) | (((v1 == v2) | (nan1 & nan2)) & (i1 < i2))
    return tl.where(first, v1, v2), tl.where(first, i1, i2)


# helper: ct_argmin needs ct_argmin_combine
@triton.jit
def ct_argmin(x, index, axis: tl.constexpr, keep_dims: tl.constexpr):
    """ct.argmin along `axis`, where `index` is tl.arange laid along that axis: the int32
    index of the smallest value, ties to the smallest index, NaN loses to every number;
    bool compares as int32."""
    values = x.to(tl.int32) if x.dtype == tl.int1 else x
    values, index = tl.broadcast(values, index)
    return tl.reduce((values, index), axis, ct_argmin_combine, keep_dims=keep_dims)[1]


# helper: ct_argmax_propagate_nan_combine
@triton.jit
def ct_argmax_propagate_nan_combine(v1, i1, v2, i2):
    """Combine of ct.argmax(..., propagate_nan=True): the larger value wins, ties go to the smaller
    index; NaN beats every number and two NaNs tie (as in cuTile; tl.argmax leaves NaN
    unordered)."""
    nan1 = v1 != v1
    nan2 = v2 != v2
    first = (v1 > v2) | (nan1 & ~nan2) | (((v1 == v2) | (nan1 & nan2)) & (i1 < i2))
    return tl.where(first, v1, v2), tl.where(first, i1, i2)


# helper: ct_argmax_propagate_nan needs ct_argmax_propagate_nan_combine
@triton.jit
def ct_argmax_propagate_nan(x, index, axis: tl.constexpr, keep_dims: tl.constexpr):
    """ct.argmax along `axis`, where `index` is tl.arange laid along that axis: the int32
    index of the largest value, ties to the smallest index, NaN beats every number;
    bool compares as int32."""
    values = x.to(tl.int32) if x.dtype == tl.int1 else x
    values, index = tl.broadcast(values, index)
    return tl.reduce((values, index), axis, ct_argmax_propagate_nan_combine, keep_dims=keep_dims)[1]


# helper: ct_argmin_propagate_nan_combine
@triton.jit
def ct_argmin_propagate_nan_combine(v1, i1, v2, i2):
    """Combine of ct.argmin(..., propagate_nan=True): the smaller value wins, ties go to the smaller
    index; NaN beats every number and two NaNs tie (as in cuTile; tl.argmin leaves NaN
    unordered)."""
    nan1 = v1 != v1
    nan2 = v2 != v2
    first = (v1 < v2) | (nan1 & ~nan2) | (((v1 == v2) | (nan1 & nan2)) & (i1 < i2))
    return tl.where(first, v1, v2), tl.where(first, i1, i2)


# helper: ct_argmin_propagate_nan needs ct_argmin_propagate_nan_combine
@triton.jit
def ct_argmin_propagate_nan(x, index, axis: tl.constexpr, keep_dims: tl.constexpr):
    """ct.argmin along `axis`, where `index` is tl.arange laid along that axis: the int32
    index of the smallest value, ties to the smallest index, NaN beats every number;
    bool compares as int32."""
    values = x.to(tl.int32) if x.dtype == tl.int1 else x
    values, index = tl.broadcast(values, index)
    return tl.reduce((values, index), axis, ct_argmin_propagate_nan_combine, keep_dims=keep_dims)[1]


# helper: ct_cumsum
@triton.jit
def ct_cumsum(x, axis: tl.constexpr, reverse: tl.constexpr):
    """ct.cumsum: inclusive, in x's dtype (bool as int32); tl.cumsum alone would widen small
    integers to int32 and promote bfloat16 to float32."""
    if x.dtype == tl.int1:
        return tl.cumsum(x, axis, reverse=reverse, dtype=tl.int32)
    else:
        return tl.cumsum(x, axis, reverse=reverse, dtype=x.dtype)


# helper: ct_cumprod needs ct_multiply
@triton.jit
def ct_cumprod(x, axis: tl.constexpr, reverse: tl.constexpr):
    """ct.cumprod: inclusive, in x's dtype (bool as int32); tl.cumprod would promote bfloat16
    to float32."""
    values = x.to(tl.int32) if x.dtype == tl.int1 else x
    return tl.associative_scan(values, axis, ct_multiply, reverse=reverse)
