"""Batched GEMM, C[i] = A[i] @ B[i], on 3-D tiles.

Block (m, n, i) loads (1, TM, TK) and (1, TK, TN) tiles of batch i and
multiplies them with ``ct.mma`` on 3-D tiles into a (1, TM, TN) float32
accumulator; with SHARED_B the right operand is one 2-D matrix that every
batch uses (a 3-D x 2-D product, whose batch axis broadcasts).
"""

import torch
import cuda.tile as ct

TILE_M = 64
TILE_N = 64
TILE_K = 32


@ct.kernel
def bmm_kernel(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int],
               SHARED_B: ct.Constant[bool]):
    tile_m = ct.bid(0)
    tile_n = ct.bid(1)
    batch = ct.bid(2)
    acc = ct.zeros((1, TM, TN), dtype=ct.float32)
    for kk in range(ct.num_tiles(A, axis=2, shape=(1, TM, TK))):
        a = ct.load(A, index=(batch, tile_m, kk), shape=(1, TM, TK), padding_mode=ct.PaddingMode.ZERO)
        if SHARED_B:
            b = ct.load(B, index=(kk, tile_n), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(a, b, acc)
        else:
            b3 = ct.load(B, index=(batch, kk, tile_n), shape=(1, TK, TN), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(a, b3, acc)
    ct.store(C, index=(batch, tile_m, tile_n), tile=acc.astype(C.dtype))


def bmm(a: torch.Tensor, b: torch.Tensor, *, tile_m: int = TILE_M, tile_n: int = TILE_N,
        tile_k: int = TILE_K) -> torch.Tensor:
    assert a.dim() == 3 and b.dim() in (2, 3) and a.dtype == b.dtype
    shared = b.dim() == 2
    batches, m, k = a.shape
    n = b.shape[-1]
    assert b.shape[-2] == k and (shared or b.shape[0] == batches)
    c = torch.empty((batches, m, n), dtype=a.dtype, device=a.device)
    grid = (ct.cdiv(m, tile_m), ct.cdiv(n, tile_n), batches)
    ct.launch(torch.cuda.current_stream(), grid, bmm_kernel, (a, b, c, tile_m, tile_n, tile_k, shared))
    return c
