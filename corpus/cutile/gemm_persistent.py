"""Persistent 2-D GEMM, C = A @ B: one block per SM walks the output tiles.

The grid holds as many blocks as the GPU has SMs (or fewer where there are fewer tiles). Block
b computes tiles b, b + blocks, b + 2 * blocks, ... in the grouped order of gemm.py (GROUP
consecutive row-tiles share their column-tiles), each walking K in TK steps with ``ct.mma``
into a float32 accumulator that is stored in C's dtype before the next tile starts.
"""

import torch
import cuda.tile as ct

TILE_M = 128
TILE_N = 128
TILE_K = 64
GROUP_M = 8


@ct.kernel
def gemm_persistent_kernel(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int],
                           GROUP: ct.Constant[int]):
    tiles_m = ct.cdiv(A.shape[0], TM)
    tiles_n = ct.cdiv(B.shape[1], TN)
    k_tiles = ct.cdiv(A.shape[1], TK)
    per_group = GROUP * tiles_n
    for tile in range(ct.bid(0), tiles_m * tiles_n, ct.num_blocks(0)):
        first_m = (tile // per_group) * GROUP
        rows = min(tiles_m - first_m, GROUP)
        tile_m = first_m + (tile % per_group) % rows
        tile_n = (tile % per_group) // rows
        acc = ct.zeros((TM, TN), dtype=ct.float32)
        for kk in range(k_tiles):
            a = ct.load(A, index=(tile_m, kk), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
            b = ct.load(B, index=(kk, tile_n), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(a, b, acc)
        ct.store(C, index=(tile_m, tile_n), tile=acc.astype(C.dtype))


def gemm_persistent(a: torch.Tensor, b: torch.Tensor, *, tile_m: int = TILE_M, tile_n: int = TILE_N,
                    tile_k: int = TILE_K, blocks: int = 0) -> torch.Tensor:
    """blocks: how many blocks walk the tiles (0: one per SM)."""
    assert a.dim() == 2 and b.dim() == 2 and a.shape[1] == b.shape[0] and a.dtype == b.dtype
    assert a.dtype in (torch.float16, torch.bfloat16)
    m, n = a.shape[0], b.shape[1]
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    if blocks == 0:
        blocks = torch.cuda.get_device_properties(a.device).multi_processor_count if a.is_cuda else 4
    tiles = ct.cdiv(m, tile_m) * ct.cdiv(n, tile_n)
    ct.launch(torch.cuda.current_stream(), (min(blocks, tiles), 1, 1), gemm_persistent_kernel,
              (a, b, c, tile_m, tile_n, tile_k, GROUP_M))
    return c
