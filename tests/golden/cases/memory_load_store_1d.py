"""1-D tiles take the pointer path only; the store casts to y's dtype implicitly."""
import cuda.tile as ct


@ct.kernel
def scale(x, y, TILE: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))
    ct.store(y, index=(ct.bid(0),), tile=t * 2)
