import cuda.tile as ct


@ct.kernel
def row_sums(x, y, z, M: ct.Constant[int], N: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(M, N))
    total = ct.sum(t, 1, keepdims=True)                 # dtype from the array: ct_sum
    small = ct.sum(t.astype(ct.int8), (1, 0), keepdims=True)  # int8 stays int8
    ct.store(y, index=(ct.bid(0), 0), tile=total + small)
    ct.store(z, index=(ct.bid(0), 0), tile=ct.prod(t.astype(ct.float32), 1, keepdims=True))
