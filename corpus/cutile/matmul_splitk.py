"""Split-K matrix multiply, C = A @ B, for shapes with a long K and few output tiles.

Two kernels.  The first gives each (tile_m, tile_n, split) block one slice of
the K tiles: it multiplies-accumulates them in float32 (ct.mma) and stores the
partial sum into its own plane of a float32 workspace P[split, M, N].  The
second adds the SPLITS planes of each output tile (one (SPLITS, TM, TN) load,
ct.sum over axis 0) and casts the result to C's dtype.  The last split may get
fewer K tiles than the others, or none: its loop is empty and it stores zeros.
SPLITS is a power of two (the reduction loads all planes as one tile).
"""

import torch
import cuda.tile as ct


@ct.kernel
def splitk_partial_kernel(A, B, P, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int],
                          K_TILES_PER_SPLIT: ct.Constant[int]):
    tile_m = ct.bid(0)
    tile_n = ct.bid(1)
    split = ct.bid(2)
    k_tiles = ct.num_tiles(A, axis=1, shape=(TM, TK))
    first = split * K_TILES_PER_SPLIT
    last = min(first + K_TILES_PER_SPLIT, k_tiles)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(first, last):
        a = ct.load(A, index=(tile_m, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, tile_n), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(P, index=(split, tile_m, tile_n), tile=acc.reshape((1, TM, TN)))


@ct.kernel
def splitk_reduce_kernel(P, C, SPLITS: ct.Constant[int], TM: ct.Constant[int], TN: ct.Constant[int]):
    tile_m = ct.bid(0)
    tile_n = ct.bid(1)
    planes = ct.load(P, index=(0, tile_m, tile_n), shape=(SPLITS, TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(C, index=(tile_m, tile_n), tile=ct.sum(planes, axis=0).astype(C.dtype))


def matmul_splitk(a: torch.Tensor, b: torch.Tensor, *, splits: int = 4, tile_m: int = 64, tile_n: int = 64,
                  tile_k: int = 64) -> torch.Tensor:
    """a: [M, K], b: [K, N], both float16, bfloat16 or float32.  Returns a @ b in a's dtype."""
    assert a.dim() == 2 and b.dim() == 2 and a.shape[1] == b.shape[0] and a.dtype == b.dtype
    assert splits > 0 and splits & (splits - 1) == 0, "splits must be a power of two"
    m, k = a.shape
    n = b.shape[1]
    k_tiles = ct.cdiv(k, tile_k)
    per_split = ct.cdiv(k_tiles, splits)
    partial = torch.empty((splits, m, n), dtype=torch.float32, device=a.device)
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    stream = torch.cuda.current_stream()
    tiles = (ct.cdiv(m, tile_m), ct.cdiv(n, tile_n))
    ct.launch(stream, (*tiles, splits), splitk_partial_kernel, (a, b, partial, tile_m, tile_n, tile_k, per_split))
    ct.launch(stream, (*tiles, 1), splitk_reduce_kernel, (partial, c, splits, tile_m, tile_n))
    return c
