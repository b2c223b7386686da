"""Padding modes: zero and NaN come from the descriptor; -0.0 and infinities need a mask."""
import cuda.tile as ct


@ct.kernel
def pad(x, y, z, w, B: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, (i, 0), (B, B), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(x, (i, 0), (B, B), padding_mode=ct.PaddingMode.NAN)
    c = ct.load(x, (i, 0), (B, B), padding_mode=ct.PaddingMode.NEG_INF)
    d = ct.load(x, (i, 0), (B, B), padding_mode=ct.PaddingMode.NEG_ZERO)
    ct.store(y, (i, 0), a + b)
    ct.store(z, (i, 0), c)
    ct.store(w, (i, 0), d)
