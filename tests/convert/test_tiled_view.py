"""Array.tiled_view (cuda-tile 1.7): a view of an array as its grid of tiles of one shape,
whose load, store and num_tiles are ct.load, ct.store and ct.num_tiles of the array with that
tile shape and padding mode (real cuTile compiles these kernels: checked with export_kernel)."""
import torch

VIEWS = '''
import cuda.tile as ct


@ct.kernel
def scale(x, y, BM: ct.Constant[int], BN: ct.Constant[int]):
    tv = x.tiled_view((BM, BN), padding_mode=ct.PaddingMode.ZERO)
    out = y.tiled_view((BM, BN))
    i = ct.bid(0)
    for j in range(tv.num_tiles(1)):
        t = tv.load((i, j))
        out.store((i, j), t * 2 + tv.tile_shape[1])


@ct.kernel
def chained(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    y.tiled_view((B,)).store((i,), x.tiled_view((B,), padding_mode=ct.PaddingMode.ZERO).load((i,)) + 1)
'''


def test_a_tiled_views_methods_are_the_arrays_memory_operations(convert, convert_text, device):
    text = convert_text(VIEWS)
    assert "tiled_view" not in text  # nothing of the view is left: its pieces are the array's
    mod = convert(VIEWS)
    x = torch.randn(40, 70, device=device)  # neither side a multiple of the tiles: padded, clipped
    y = torch.empty_like(x)
    mod.launch_scale(0, (3,), (x, y, 16, 32))
    torch.testing.assert_close(y, x * 2 + 32)
    x1 = torch.randn(50, device=device)
    y1 = torch.empty_like(x1)
    mod.launch_chained(0, (4,), (x1, y1, 16))
    torch.testing.assert_close(y1, x1 + 1)


def _kernel(body):
    return f'''
import cuda.tile as ct


@ct.kernel
def k(x, y, B: ct.Constant[int]):
    i = ct.bid(0)
    {body}
'''


def test_what_a_tiled_view_cannot_do_is_a_located_error(convert_error):
    steps = _kernel("t = x.tiled_view((B, B), traversal_steps=(1, B)).load((i, 0))")
    assert "traversal_steps other than the tile shape" in convert_error(steps)
    smaller = _kernel("y.tiled_view((B, B)).store((i, 0), ct.zeros((B,), dtype=ct.float32))")
    assert "the view's tile shape" in convert_error(smaller)
    plain = _kernel("t = x.load((i,))")
    assert "works on a tiled view" in convert_error(plain)
    atomic = _kernel("y.tiled_view((B,)).atomic_store_add((i,), ct.ones((B,), dtype=ct.float32))")
    assert "not supported" in convert_error(atomic)
    # a name bound to two views by a condition: each use would read one view's shape
    chosen = _kernel("if B > 8:\n"
                     "        tv = x.tiled_view((B, 2 * B))\n"
                     "    else:\n"
                     "        tv = x.tiled_view((2 * B, B))\n"
                     "    ct.store(y, (i, 0), tv.load((i, 0)))")
    assert "a tiled view in one branch and another view" in convert_error(chosen)
