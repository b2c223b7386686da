"""A Python int computed while the kernel runs (assigned twice: no constexpr) added to a tile
whose dtype comes with the launch: cuTile computes in the tile's dtype, int8 included."""
import cuda.tile as ct


@ct.kernel
def loose_integer_kernel(x, out, n: ct.Constant[int], TILE: ct.Constant[int]):
    a = ct.load(x, (ct.bid(0),), (TILE,))
    t = n * 3
    t += 1
    ct.store(out, (ct.bid(0),), (a + t).astype(ct.int32))
