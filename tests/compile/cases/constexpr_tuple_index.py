"""Tuples indexed by a ct.Constant parameter: a dtype and a tile size chosen by MODE."""
import cuda.tile as ct


@ct.kernel
def constexpr_tuple_index_kernel(x, y, MODE: ct.Constant[int]):
    dt = (ct.float16, ct.float32)[MODE]
    n = (8, 16)[MODE]
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.store(y, index=(ct.bid(0),), tile=t.astype(dt).astype(y.dtype))
