"""ct.truediv's rounding modes on float32 (compile check: the PTX division each becomes)."""
import cuda.tile as ct


@ct.kernel
def k(x, y, out, TILE: ct.Constant[int], MODE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    b = ct.load(y, index=(bid,), shape=(TILE,))
    if MODE == 0:
        q = ct.truediv(a, b)
    else:
        q = ct.truediv(a, b, rounding_mode=ct.RoundingMode.FULL)
    ct.store(out, index=(bid,), tile=q)
