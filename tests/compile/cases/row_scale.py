import torch
import cuda.tile as ct


def scale_row(x, y, N, TILE: ct.Constant[int]):
    # a tile function given the kernel's constants: `exact` is one too
    exact = TILE == N
    row = ct.bid(0)
    offsets = ct.arange(TILE, dtype=ct.int32)
    t = ct.gather(x, (row, offsets), check_bounds=not exact)
    ct.scatter(y, (row, offsets), t * 2, check_bounds=not exact)


@ct.kernel
def row_scale_kernel(x, y, N: ct.Constant[int], TILE: ct.Constant[int]):
    scale_row(x, y, N, TILE)


def row_scale(x, tile):
    y = torch.zeros_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), row_scale_kernel, (x, y, x.shape[1], tile))
    return y
