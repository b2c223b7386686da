"""int(), float() and bool() of Constant parameters (compile check)."""

import cuda.tile as ct

@ct.kernel
def k(x, out, TILE: ct.Constant[int], SCALE: ct.Constant[float], FLIP: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    y = ct.truediv(a, float(TILE)) * int(SCALE)
    if bool(FLIP):
        y = -y
    ct.store(out, index=(bid,), tile=y)
