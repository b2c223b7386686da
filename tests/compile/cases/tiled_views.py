"""Tiled views (x.tiled_view): a padded view read tile by tile, stored through another view."""
import cuda.tile as ct


@ct.kernel
def tiled_views_kernel(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    tv = x.tiled_view((BM, BN), padding_mode=ct.PaddingMode.ZERO)
    out = y.tiled_view((BM, BN))
    i = ct.bid(0)
    for j in range(tv.num_tiles(1)):
        out.store((i, j), tv.load((i, j)) * 2)


@ct.kernel
def strided_views_kernel(x, y, B: ct.Constant[int], S: ct.Constant[int]):
    """Overlapping windows of x (steps smaller than the tile) added into y's same windows,
    atomically: each element of y gains x's element once per window that covers it."""
    windows = x.tiled_view((B, B), padding_mode=ct.PaddingMode.ZERO, traversal_steps=(S, S))
    sums = y.tiled_view((B, B), traversal_steps=(S, S))
    i = ct.bid(0)
    for j in range(windows.num_tiles(1)):
        sums.atomic_store_add((i, j), windows.load((i, j)))
