"""ct.IndexedWithInt64: pointer path with 64-bit offsets (Triton's descriptors take int32 shapes)."""
import cuda.tile as ct


@ct.kernel
def copy(x: ct.IndexedWithInt64, y: ct.IndexedWithInt64, B: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(B, B))
    ct.store(y, index=(ct.bid(0), 0), tile=t)
