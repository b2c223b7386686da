import cuda.tile as ct


@ct.kernel
def positions(x, y, z, M: ct.Constant[int], N: ct.Constant[int]):
    t = ct.load(x, index=(0, 0), shape=(M, N))
    ct.store(y, index=(0,), tile=ct.argmax(t, axis=1))
    ct.store(z, index=(0, 0), tile=ct.argmin(t, keepdims=True, propagate_nan=True))
