"""Grouped scaled add: C[g] = alpha * A[g] + B[g] for a list of 2-D problems.

The arrays come as Python lists (cuTile lists of arrays: one dtype and rank per
list, any shapes).  A fixed number of persistent blocks walks the (BM, BN) tiles
of every problem, problem after problem, as a grouped GEMM schedules its output
tiles: `len(As)` and the tile counts are run-time values, `As[g]` an array.
"""

import torch
import cuda.tile as ct

BLOCK_M = 32
BLOCK_N = 32


@ct.kernel
def grouped_scale_add_kernel(As, Bs, Cs, alpha, BM: ct.Constant[int], BN: ct.Constant[int],
                             BLOCKS: ct.Constant[int]):
    tile = ct.bid(0)
    first = 0
    for g in range(len(As)):
        A = As[g]
        B = Bs[g]
        C = Cs[g]
        n_tiles = ct.num_tiles(C, 1, (BM, BN))
        count = ct.num_tiles(C, 0, (BM, BN)) * n_tiles
        # this block's tiles of problem g: tile, tile + BLOCKS, ... inside [first, first + count)
        while tile >= first and tile < first + count:
            i = (tile - first) // n_tiles
            j = (tile - first) % n_tiles
            a = ct.load(A, (i, j), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO)
            b = ct.load(B, (i, j), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO)
            c = ct.astype(a, ct.float32) * alpha + ct.astype(b, ct.float32)
            ct.store(C, (i, j), tile=ct.astype(c, C.dtype))
            tile += BLOCKS
        first = first + count


def grouped_scale_add(As, Bs, alpha, blocks=8):
    """[alpha * a + b for a, b in zip(As, Bs)] in one launch (alpha a Python float)."""
    assert len(As) == len(Bs) and len(As) > 0
    Cs = [torch.empty(a.shape, dtype=a.dtype, device=a.device) for a in As]
    ct.launch(torch.cuda.current_stream(), (blocks, 1, 1), grouped_scale_add_kernel,
              (As, Bs, Cs, alpha, BLOCK_M, BLOCK_N, blocks))
    return Cs
