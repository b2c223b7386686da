import cuda.tile as ct


@ct.kernel
def views(x, y, z, M: ct.Constant[int], N: ct.Constant[int]):
    t = ct.load(x, index=(0, 0), shape=(M, N))
    u = t.reshape((2, -1, N))                    # -1 from the element count
    v = ct.transpose(u, 0, 2)                    # N-D: a full permutation
    w = ct.permute(v, (1, 0, 2)).reshape((M, N))
    ct.store(y, index=(0, 0), tile=ct.transpose(w))
    row = ct.expand_dims(ct.sum(t, 0), 0)
    ct.store(z, index=(0, 0), tile=ct.broadcast_to(row, (M, N)) + ct.sum(t).item())
