"""bfloat16 arithmetic for Triton's interpreter (test harness only).

Triton 3.6's interpreter (TRITON_INTERPRET=1) stores bfloat16 tensors as numpy
uint16 and runs arithmetic on those raw bits: `x + y` of two bfloat16 tiles adds
the bit patterns (garbage, NaN), comparisons order negative values wrongly, and
`get_bf16` (a bfloat16 constant) does not exist. Only bfloat16 <-> float32 casts
are implemented. Any Triton kernel is affected, not only converted ones; on a GPU
the same code is right.

`install()` teaches the interpreter's builder bfloat16 the way a GPU computes it:
operands widened to float32 (exact), the operation in float32, the result rounded
to nearest-even bfloat16. For + - * / and sqrt this equals a correctly rounded
bfloat16 operation (float32 has more than 2*8+2 significand bits), which is what
cuTile and Triton give on the GPU.
"""

import numpy as np
import triton.language as tl
from triton.runtime import interpreter as _interp

_COMPARES = {np.less, np.greater, np.less_equal, np.greater_equal, np.equal, np.not_equal}
_installed = False


def _is_bf16(handle):
    return handle.dtype.scalar == tl.bfloat16


def _to_f32(handle):
    if not _is_bf16(handle):
        return handle
    data = _interp._convert_float(handle.data, tl.bfloat16, tl.float32, None).view(np.float32)
    return _interp.TensorHandle(data.reshape(handle.data.shape), tl.float32)


def _f32_to_bf16_bits(values):
    """Round float32 to the nearest bfloat16, ties to even (NaN stays NaN)."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(values, dtype=np.float32))
    return np.where(nan, ((bits >> 16) | 0x40).astype(np.uint16), rounded)


def _to_bf16(handle):
    data = _f32_to_bf16_bits(handle.data.astype(np.float32))
    return _interp.TensorHandle(data.reshape(handle.data.shape), tl.bfloat16)


def install():
    """Patch triton.runtime.interpreter.InterpreterBuilder once (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    B = _interp.InterpreterBuilder
    binary_op, unary_op, ternary_op, cast_impl = B.binary_op, B.unary_op, B.ternary_op, B.cast_impl
    create_fma, create_fp_to_fp = B.create_fma, B.create_fp_to_fp
    create_dot = B.create_dot

    def bf16_binary_op(self, lhs, rhs, op):
        if not (_is_bf16(lhs) or _is_bf16(rhs)):
            return binary_op(self, lhs, rhs, op)
        out = binary_op(self, _to_f32(lhs), _to_f32(rhs), op)
        return out if op in _COMPARES else _to_bf16(out)

    def bf16_unary_op(self, arg, op):
        if not _is_bf16(arg):
            return unary_op(self, arg, op)
        return _to_bf16(unary_op(self, _to_f32(arg), op))

    def bf16_ternary_op(self, lhs, rhs, other, op):
        if op is np.where or not (_is_bf16(rhs) or _is_bf16(other)):
            return ternary_op(self, lhs, rhs, other, op)  # select moves bits: right as it is
        return _to_bf16(ternary_op(self, _to_f32(lhs), _to_f32(rhs), _to_f32(other), op))

    def bf16_fma(self, x, y, z):
        if not _is_bf16(z):
            return create_fma(self, x, y, z)
        return _to_bf16(create_fma(self, _to_f32(x), _to_f32(y), _to_f32(z)))

    def bf16_cast_impl(self, src, dst_type):
        src_bf16, dst_bf16 = src.dtype.scalar == tl.bfloat16, dst_type.scalar == tl.bfloat16
        if src_bf16 and dst_type.scalar != tl.float32 and not dst_bf16:
            return cast_impl(self, _to_f32(src), dst_type)
        if dst_bf16 and not src_bf16:  # round to nearest even (the interpreter truncates)
            return _to_bf16(cast_impl(self, src, tl.float32) if src.dtype.scalar != tl.float32 else src)
        return cast_impl(self, src, dst_type)

    def bf16_fp_to_fp(self, src, dst_type, rounding_mode):
        src_bf16, dst_bf16 = src.dtype.scalar == tl.bfloat16, dst_type.scalar == tl.bfloat16
        if src_bf16 and dst_type.scalar != tl.float32:
            return create_fp_to_fp(self, _to_f32(src), dst_type, rounding_mode)
        if dst_bf16 and src.dtype.scalar != tl.float32:
            return create_fp_to_fp(self, cast_impl(self, src, tl.float32), dst_type, rounding_mode)
        return create_fp_to_fp(self, src, dst_type, rounding_mode)

    def bf16_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        # tl.dot of bfloat16 operands multiplied the raw bits; the GPU multiplies exactly into float32
        if _is_bf16(a) or _is_bf16(b):
            a, b = _to_f32(a) if _is_bf16(a) else a, _to_f32(b) if _is_bf16(b) else b
        return create_dot(self, a, b, d, input_precision, max_num_imprecise_acc)

    def get_bf16(self, value):
        return _to_bf16(_interp.TensorHandle(np.array([value], dtype=np.float32), tl.float32))

    B.binary_op, B.unary_op, B.ternary_op, B.create_fma = bf16_binary_op, bf16_unary_op, bf16_ternary_op, bf16_fma
    B.cast_impl, B.create_fp_to_fp, B.get_bf16 = bf16_cast_impl, bf16_fp_to_fp, get_bf16
    B.create_dot = bf16_dot
