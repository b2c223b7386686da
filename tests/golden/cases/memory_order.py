"""order="F" and permutation tuples: tile axis d walks array axis order[d]."""
import cuda.tile as ct


@ct.kernel
def transpose(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(1), ct.bid(0)), shape=(BN, BM), order="F")
    ct.store(y, index=(ct.bid(0), ct.bid(1)), tile=t, order=(0, 1))


@ct.kernel
def rotate(x, y, A: ct.Constant[int], B: ct.Constant[int], C: ct.Constant[int]):
    t = ct.load(x, index=(0, 0, 0), shape=(A, B, C))
    ct.store(y, index=(0, 0, 0), tile=t, order=(2, 0, 1))
