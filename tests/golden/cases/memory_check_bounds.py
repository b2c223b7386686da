"""check_bounds=False: the caller promises the tiles are inside, no mask; latency/allow_tma are hints."""
import cuda.tile as ct


@ct.kernel
def copy(x, y, B: ct.Constant[int]):
    t = ct.load(x, (ct.bid(0), 0), (B, B), check_bounds=False, latency=3)
    ct.store(y, (ct.bid(0), 0), t, check_bounds=False, allow_tma=False)
