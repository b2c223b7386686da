"""A kernel whose tile is 1-D when W == 1 and 2-D otherwise: converted once per outcome
of `W == 1`, the two versions joined under one `if` on it (Triton compiles one)."""
import cuda.tile as ct


@ct.kernel
def versioned_sums_kernel(x, out, B: ct.Constant[int], W: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(B, W))
    if W == 1:
        v = ct.reshape(t, (B,))
    else:
        v = t
    s = ct.sum(v, axis=0)
    if W == 1:
        ct.store(out, index=(i, 0), tile=ct.reshape(s, (1, 1)))
    else:
        ct.store(out, index=(i, 0), tile=ct.reshape(s, (1, W)))
