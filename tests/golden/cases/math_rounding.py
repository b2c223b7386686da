"""ct.truediv rounding modes and flush_to_zero: directed rounding through
libdevice, FULL as Triton's plain float32 division (div.full.f32, as cuTile's), APPROX
as the same (note C2T201), flush_to_zero as operands and quotient flushed (ct_flush_subnormals)."""
import cuda.tile as ct


@ct.kernel
def rounding(x, y, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    b = ct.load(y, index=(bid,), shape=(TILE,))
    down = ct.truediv(a, b, rounding_mode=ct.RoundingMode.RM)
    full = ct.truediv(a, b, rounding_mode=ct.RoundingMode.FULL, flush_to_zero=True)
    fast = ct.truediv(a, b, rounding_mode=ct.RoundingMode.APPROX)
    ct.store(out, index=(bid,), tile=down + full + fast)
