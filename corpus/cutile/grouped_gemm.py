"""Grouped GEMM: C[g] = A[g] @ B[g] for a list of problems of different sizes, one launch.

The operands come as Python lists (cuTile lists of arrays: one dtype and rank per list, any
shapes), as a mixture-of-experts layer has them: each expert's tokens (M_g rows) times that
expert's weight (K x N_g). A fixed number of persistent blocks share the output tiles of all
problems: block p takes tiles p, p + BLOCKS, p + 2 * BLOCKS, ... of the problems laid end to
end, walking the list once (a block that is past problem g never looks at it again). Each
tile walks K in TK steps with ct.mma into a float32 accumulator and is stored in C's dtype;
float32 operands multiply as tfloat32.
"""

import torch
import cuda.tile as ct

TILE_M = 128
TILE_N = 128
TILE_K = 64


@ct.kernel
def grouped_gemm_kernel(As, Bs, Cs, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int],
                        BLOCKS: ct.Constant[int]):
    tile = ct.bid(0)
    first = 0  # the first tile of problem g in the tiles laid end to end
    for g in range(len(As)):
        A = As[g]
        B = Bs[g]
        C = Cs[g]
        tiles_n = ct.num_tiles(C, 1, (TM, TN))
        count = ct.num_tiles(C, 0, (TM, TN)) * tiles_n
        steps = ct.num_tiles(A, 1, (TM, TK))
        mma_dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
        while tile >= first and tile < first + count:
            row = (tile - first) // tiles_n
            col = (tile - first) % tiles_n
            acc = ct.zeros((TM, TN), dtype=ct.float32)
            for kk in range(steps):
                a = ct.load(A, (row, kk), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
                b = ct.load(B, (kk, col), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
                acc = ct.mma(ct.astype(a, mma_dtype), ct.astype(b, mma_dtype), acc)
            ct.store(C, (row, col), tile=ct.astype(acc, C.dtype))
            tile += BLOCKS
        first = first + count


def grouped_gemm(As, Bs, *, blocks=None, tile_m=TILE_M, tile_n=TILE_N, tile_k=TILE_K):
    """[a @ b for a, b in zip(As, Bs)] in one launch; `blocks` persistent blocks (default:
    the GPU's multiprocessors, or the tile count when it is smaller)."""
    assert len(As) == len(Bs) and len(As) > 0
    for a, b in zip(As, Bs):
        assert a.dim() == 2 and b.dim() == 2 and a.shape[1] == b.shape[0] and a.dtype == b.dtype == As[0].dtype
    Cs = [torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype, device=a.device) for a, b in zip(As, Bs)]
    tiles = sum(ct.cdiv(a.shape[0], tile_m) * ct.cdiv(b.shape[1], tile_n) for a, b in zip(As, Bs))
    if blocks is None:
        sms = torch.cuda.get_device_properties(As[0].device).multi_processor_count if As[0].is_cuda else 4
        blocks = max(1, min(sms, tiles))
    ct.launch(torch.cuda.current_stream(), (blocks, 1, 1), grouped_gemm_kernel,
              (As, Bs, Cs, tile_m, tile_n, tile_k, blocks))
    return Cs
