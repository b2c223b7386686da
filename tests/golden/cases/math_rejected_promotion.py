"""cuTile rejects signed with unsigned integers: a located error."""
import cuda.tile as ct


@ct.kernel
def rejected(x, out, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    a = ct.load(x, index=(bid,), shape=(TILE,))
    ct.store(out, index=(bid,), tile=a.astype(ct.int32) + a.astype(ct.uint32))
