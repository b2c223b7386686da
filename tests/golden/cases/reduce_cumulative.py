import cuda.tile as ct


@ct.kernel
def prefix(x, y, z, N: ct.Constant[int]):
    t = ct.load(x, index=(0,), shape=(N,))
    ct.store(y, index=(0,), tile=ct.cumsum(t, 0) + ct.cumsum(t.astype(ct.int8), reverse=True))
    ct.store(z, index=(0,), tile=ct.cumprod(t, 0))
