"""static_assert, static_eval, ensure_constant, assume_divisible_by."""
import cuda.tile as ct


@ct.kernel
def static_checks(y, n, TILE: ct.Constant[int]):
    ct.static_assert(TILE == 4, "TILE must be 4")
    ct.static_assert(True)
    n = ct.assume_divisible_by(n, 16)
    t = ct.arange(TILE, dtype=ct.int32) + n + ct.static_eval(TILE * 2) + ct.ensure_constant(3)
    ct.store(y, index=(0,), tile=t)
