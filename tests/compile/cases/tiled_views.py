"""Tiled views (x.tiled_view): a padded view read tile by tile, stored through another view."""
import cuda.tile as ct


@ct.kernel
def tiled_views_kernel(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    tv = x.tiled_view((BM, BN), padding_mode=ct.PaddingMode.ZERO)
    out = y.tiled_view((BM, BN))
    i = ct.bid(0)
    for j in range(tv.num_tiles(1)):
        out.store((i, j), tv.load((i, j)) * 2)
