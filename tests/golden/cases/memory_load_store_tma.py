"""ct.load / ct.store of 2-D tiles: a descriptor (TMA) path and a pointer path, picked per launch."""
import cuda.tile as ct


@ct.kernel
def copy(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), ct.bid(1)), shape=(BM, BN))
    ct.store(y, index=(ct.bid(0), ct.bid(1)), tile=t)
