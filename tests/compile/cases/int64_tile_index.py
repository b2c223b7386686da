"""A tile index computed from an int64 value (an element of a torch.long array, as varlen
kernels read their cu_seqlens) feeding loads that take tensor descriptors."""
import cuda.tile as ct


@ct.kernel
def int64_index_kernel(starts, a, b, out, BM: ct.Constant[int], K: ct.Constant[int], N: ct.Constant[int]):
    i = ct.bid(0)
    s = ct.load(starts, i, shape=())  # the first row of this block's rows, an int64
    x = ct.load(a, (s // BM, 0), (BM, K))
    w = ct.load(b, (0, 0), (K, N))
    acc = ct.mma(x, w, ct.zeros((BM, N), dtype=ct.float32))
    ct.store(out, (i, 0), ct.astype(acc, out.dtype))
