"""2-D GEMM, C = A @ B, with a grouped (swizzled) tile schedule.

Each block computes one (TM, TN) tile of C, walking K in TK steps with
``ct.mma`` into a float32 accumulator. Blocks are numbered so that GROUP_M
consecutive row-tiles share their column-tiles (better L2 reuse of B).
float32 inputs multiply as tfloat32 (the usual tensor-core trade), other
dtypes as they are; the result is stored in C's dtype.
"""

import torch
import cuda.tile as ct

TILE_M = 128
TILE_N = 128
TILE_K = 64
GROUP_M = 8


def grouped_tile(M, N, TM, TN, GROUP):
    """The (row, column) tile of this block in the grouped order."""
    pid = ct.bid(0)
    tiles_m = ct.cdiv(M, TM)
    tiles_n = ct.cdiv(N, TN)
    per_group = GROUP * tiles_n
    first_m = (pid // per_group) * GROUP
    rows = min(tiles_m - first_m, GROUP)
    tile_m = first_m + (pid % per_group) % rows
    tile_n = (pid % per_group) // rows
    return tile_m, tile_n


@ct.kernel
def gemm_kernel(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int],
                GROUP: ct.Constant[int]):
    M = A.shape[0]
    N = B.shape[1]
    tile_m, tile_n = grouped_tile(M, N, TM, TN, GROUP)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    mma_dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    for kk in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(tile_m, kk), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(kk, tile_n), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a.astype(mma_dtype), b.astype(mma_dtype), acc)
    ct.store(C, index=(tile_m, tile_n), tile=acc.astype(C.dtype))


def gemm(a: torch.Tensor, b: torch.Tensor, *, tile_m: int = TILE_M, tile_n: int = TILE_N,
         tile_k: int = TILE_K) -> torch.Tensor:
    assert a.dim() == 2 and b.dim() == 2 and a.shape[1] == b.shape[0] and a.dtype == b.dtype
    m, n = a.shape[0], b.shape[1]
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    grid = (ct.cdiv(m, tile_m) * ct.cdiv(n, tile_n), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, gemm_kernel, (a, b, c, tile_m, tile_n, tile_k, GROUP_M))
    return c
