"""Runtime helpers of ct.assert_ and ct.assume_divisible_by (src/lower/lower_debug.c).

The lines above the first `# helper:` marker are not generated; they make the
file importable (tests/helpers). See tools/gen_helpers.py for the format.
"""
import os

import triton
import triton.language as tl

INTERPRETED = tl.constexpr(os.environ.get("TRITON_INTERPRET", "0") == "1")  # as host_helpers.py's INTERPRETED


# helper: ct_assert
@triton.jit
def ct_assert(cond, message: tl.constexpr):
    """ct.assert_: every element of cond must be true; cuTile always checks. Triton
    compiles tl.device_assert only with debug=True (the kernels reaching this helper carry
    it), and its interpreter never runs it: there a Python assert checks."""
    if INTERPRETED:
        failed = tl.sum((cond == 0).to(tl.int32))
        assert failed == 0, message
    else:
        tl.device_assert(cond, message)


# helper: ct_assume_divisible_by
@triton.jit
def ct_assume_divisible_by(x, divisor: tl.constexpr):
    """ct.assume_divisible_by: x, with the hint that divisor divides it (Triton's
    interpreter checks the hint)."""
    tl.assume(x % divisor == 0)
    return x
