import cuda.tile as ct


@ct.function
def larger_with_index(v1, i1, v2, i2):
    first = v1 > v2
    return ct.where(first, v1, v2), ct.where(first, i1, i2)


@ct.kernel
def custom(x, y, z, M: ct.Constant[int], N: ct.Constant[int]):
    t = ct.load(x, index=(0, 0), shape=(M, N))
    best, where = ct.reduce((t, ct.arange(N, dtype=ct.int32)), 1, larger_with_index, (-1e30, 0))
    ct.store(y, index=(0,), tile=where)
    running = ct.scan(t, 1, lambda a, b: ct.maximum(a, b), -1e30, reverse=True)
    ct.store(z, index=(0, 0), tile=running)
