"""Tiled views: overlapping windows (traversal_steps below the tile shape), a view's atomic
store, a 0-d tile shape read every other element, and a view passed to a tile function."""
import cuda.tile as ct


def window_sum(tv, i):
    return ct.sum(tv.load((i, 0)), axis=1)


@ct.kernel
def windows(x, y, sums, B: ct.Constant[int]):
    i = ct.bid(0)
    halves = x.tiled_view((B, B), padding_mode=ct.PaddingMode.ZERO, traversal_steps=(B // 2, B))
    y.tiled_view((B, B), traversal_steps=(B // 2, B)).atomic_store_add((i, 0), halves.load((i, 0)))
    ct.store(sums, (i,), window_sum(halves, i))
    every_other = x.tiled_view((), traversal_steps=(2, 2))
    ct.store(sums, (i,), ct.broadcast_to(every_other.load((i, 0)), (B,)))
